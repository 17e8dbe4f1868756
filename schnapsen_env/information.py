"""What a player may know: the information set (RULES §8) and determinizations from it.

:class:`InformationSet` is all an agent may use. :func:`information_set` builds it from a full
:class:`~schnapsen_env.engine.GameState`; :func:`determinization` builds a full state back from an
information set and a guess of the hidden cards (for search); :func:`recount_eyes` rebuilds the eyes
from the public history when the rules hide them (``show_eyes=False``), with the clauses of
:mod:`schnapsen_env.rulebook`; :func:`opponent_voids` and :func:`hidden_candidates` say which cards
the opponent may still hold (for search). ``GameState.information_set`` and
``GameState.from_information_set`` are the usual entry points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .actions import CLOSE, EXCHANGE, MARRIAGE_BASE
from .cards import DECK_MASKS, NUM_CARDS
from .rulebook import follow_cards, marriage_credited_at_once, marriage_eyes, trick_eyes
from .rules import Rules


@dataclass(frozen=True)
class InformationSet:
    """What ``player`` may know (RULES §8); all an agent may use. Cards are ids, masks card
    bitmasks; ``eyes``/``held_marriage_eyes``/``closed_opponent_eyes`` (eyes) are None under
    ``show_eyes=False``."""

    player: int  #: the viewer, 0 or 1
    rules: Rules
    dealer: int
    current_player: int  #: who moves now (NOBODY when terminal)
    leader: int  #: player on lead in the current trick
    trump_suit: int  #: 0..3
    trump_card: int  #: the face-up trump card under the talon, or NO_CARD once drawn
    talon_size: int  #: face-down talon cards left
    hand: int  #: the viewer's hand (bitmask)
    opponent_hand_size: int
    lead_card: int  #: card led in the current trick, or NO_CARD
    pending_marriage: int  #: suit announced at this lead whose card is not led yet, or -1
    tricks: tuple  #: finished tricks, oldest first (:class:`Trick`)
    marriages: tuple  #: announced marriages ``(player, suit)``, in order
    exchange: tuple | None  #: ``(player, card taken, card given)`` or None
    closed_by: int  #: who closed the talon, or NOBODY
    closed_opponent_had_trick: bool | None  #: at closing; None if not closed
    closed_opponent_eyes: int | None  #: at closing; None if not closed or hidden
    tricks_won: tuple  #: per player
    eyes: tuple | None  #: credited eyes per player, or None when hidden
    held_marriage_eyes: tuple | None  #: announced but not yet credited, or None
    #: per player, the cards of their hand that are public (bitmasks; exchange, last draw, marriage)
    known: tuple
    unseen: int  #: cards the viewer has not seen: opponent's unknown cards and talon
    history: tuple  #: every action so far as ``(player, action id)``: all are public
    legal_actions: tuple  #: the viewer's legal actions now (empty if not to move)
    outcome: object  #: the game's :class:`~schnapsen_env.engine.Outcome`, or None while playing

    @property
    def is_terminal(self) -> bool:
        return self.outcome is not None

    @property
    def opponent_known(self) -> int:
        """``known[opponent]``: the opponent's cards known to be in their hand (bitmask)."""
        return self.known[1 - self.player]


def information_set(state, player: int) -> InformationSet:
    """The public view of ``player`` (0 or 1, not checked here) of ``state`` (RULES §8)."""
    o = 1 - player
    show = state.rules.show_eyes
    seen = state.hands[player]
    for t in state.tricks:
        seen |= (1 << t.lead) | (1 << t.follow)
    if state.lead_card >= 0:
        seen |= 1 << state.lead_card
    if state.trump_card >= 0:
        seen |= 1 << state.trump_card
    opp_known = state.known[o]
    closed = state.closed_by >= 0
    return InformationSet(
        player=player,
        rules=state.rules,
        dealer=state.dealer,
        current_player=state.current_player,
        leader=state.leader,
        trump_suit=state.trump_suit,
        trump_card=state.trump_card,
        talon_size=len(state.talon) - state.talon_pos,
        hand=state.hands[player],
        opponent_hand_size=bin(state.hands[o]).count("1"),
        lead_card=state.lead_card,
        pending_marriage=state.pending_marriage,
        tricks=tuple(state.tricks),
        marriages=tuple(state.marriages),
        exchange=state.exchange,
        closed_by=state.closed_by,
        closed_opponent_had_trick=state.closed_opponent_had_trick if closed else None,
        closed_opponent_eyes=state.closed_opponent_eyes if (closed and show) else None,
        tricks_won=tuple(state.tricks_won),
        eyes=tuple(state.eyes) if show else None,
        held_marriage_eyes=tuple(state.held_marriage_eyes) if show else None,
        known=(state.known[0], state.known[1]),
        unseen=DECK_MASKS[state.rules.deck] & ~seen & ~opp_known,
        history=tuple(state.history),
        legal_actions=tuple(state.legal_actions()) if state.current_player == player else (),
        outcome=state.outcome,
    )


def determinization(state_class, info: InformationSet, opponent_hand: int, talon: Sequence[int]):
    """A ``state_class`` consistent with ``info`` (``GameState.from_information_set``).
    ``ValueError`` when ``opponent_hand`` (bitmask) and ``talon`` (card ids, draw order) are not the
    unseen cards in ``info``'s counts."""
    talon_mask = sum(1 << c for c in talon)
    if (
        opponent_hand.bit_count() != info.opponent_hand_size
        or len(talon) != info.talon_size
        or opponent_hand & talon_mask
        or opponent_hand & info.opponent_known != info.opponent_known
        or opponent_hand | talon_mask != info.unseen | info.opponent_known
    ):
        raise ValueError(
            f"opponent_hand ({opponent_hand.bit_count()} cards, {info.opponent_hand_size} needed) and "
            f"talon ({len(talon)} cards, {info.talon_size} needed) must hold exactly the cards the "
            "viewer has not seen, with the opponent's known cards in opponent_hand"
        )
    if info.eyes is not None:
        eyes = list(info.eyes)
        held_marriage_eyes = list(info.held_marriage_eyes)
    else:
        eyes, held_marriage_eyes = recount_eyes(info)
    closed = info.closed_by >= 0
    if not closed:
        closed_opponent_eyes = 0
    elif info.closed_opponent_eyes is None:  # hidden: recounted from the history before the closing
        closed_opponent_eyes = _eyes_at_closing(info)
    else:
        closed_opponent_eyes = info.closed_opponent_eyes
    if info.player == 0:
        hands = [info.hand, opponent_hand]
    else:
        hands = [opponent_hand, info.hand]
    g = state_class.__new__(state_class)
    g.rules = info.rules
    g.dealer = info.dealer
    g.deck = None  # a determinization: no real deal
    g.trump_suit = info.trump_suit
    g.hands = hands
    g.talon = tuple(talon)
    g.talon_pos = 0
    g.trump_card = info.trump_card
    g.leader = info.leader
    g.current_player = info.current_player
    g.lead_card = info.lead_card
    g.pending_marriage = info.pending_marriage
    g.eyes = eyes
    g.held_marriage_eyes = held_marriage_eyes
    g.tricks_won = list(info.tricks_won)
    g.closed_by = info.closed_by
    g.closed_opponent_eyes = closed_opponent_eyes
    g.closed_opponent_had_trick = closed and bool(info.closed_opponent_had_trick)
    g.known = list(info.known)
    g.tricks = list(info.tricks)
    g.marriages = list(info.marriages)
    g.exchange = info.exchange
    g.history = list(info.history)
    g.outcome = info.outcome
    g._mask = None
    return g


def opponent_voids(info: InformationSet) -> int:
    """Cards (bitmask) the opponent cannot hold, from their phase 2 follows (RULES §3): a card that
    would have made a follow illegal was not in their hand then, nor now. Used by PIMC, the expert
    and OpenSpiel."""
    first = (info.rules.talon_facedown + 1) // 2  # the first trick played with the talon exhausted
    plays = 0
    for _, action in info.history:
        if action == CLOSE:
            first = min(first, plays // 2)
            break
        plays += action < MARRIAGE_BASE
    voids = 0
    for t in info.tricks[first:]:
        if t.leader == info.player:  # the opponent followed
            lead, follow = t.lead, t.follow
            for c in range(NUM_CARDS):
                if c != lead and not follow_cards((1 << c) | (1 << follow), lead, info.trump_suit, False) >> follow & 1:
                    voids |= 1 << c
    return voids


def hidden_candidates(info: InformationSet) -> tuple[int, list[int]]:
    """``(need, cards)``: how many of the opponent's cards are unknown to the viewer, and the card
    ids that may be among them or in the face-down talon (``info.unseen`` less
    :func:`opponent_voids`)."""
    need = info.opponent_hand_size - info.opponent_known.bit_count()
    allowed = info.unseen & ~opponent_voids(info)
    return need, [c for c in range(NUM_CARDS) if allowed >> c & 1]


def recount_eyes(info: InformationSet) -> tuple[list, list]:
    """Credited and held marriage eyes ``([e0, e1], [h0, h1])`` rebuilt from ``info``'s public
    history with :mod:`schnapsen_env.rulebook` (RULES §4, §8), without the Sechsundsechzig
    last-trick 10."""
    eyes = [0, 0]
    held = [0, 0]
    tricks_won = [0, 0]
    plays = 0
    for player, action in info.history:
        if MARRIAGE_BASE <= action < EXCHANGE:
            credited = marriage_credited_at_once(info.rules, tricks_won[player])
            (eyes if credited else held)[player] += marriage_eyes(
                action - MARRIAGE_BASE,
                info.trump_suit,
            )
        elif action < MARRIAGE_BASE:
            plays += 1
            # a trick ends: its eyes and the winner's held marriage eyes are credited
            if plays % 2 == 0:
                t = info.tricks[plays // 2 - 1]
                w = t.winner
                eyes[w] += trick_eyes(t.lead, t.follow) + held[w]
                held[w] = 0
                tricks_won[w] += 1
    return eyes, held


def _eyes_at_closing(info: InformationSet) -> int:
    """The closer's opponent's credited eyes at the moment of closing, from history."""
    hist = info.history[: next((i for i, (_, a) in enumerate(info.history) if a == CLOSE), len(info.history))]
    n_plays = sum(a < MARRIAGE_BASE for _, a in hist)
    eyes, _ = recount_eyes(replace(info, history=hist, tricks=info.tricks[: n_plays // 2]))
    return eyes[1 - info.closed_by]
