"""The rules engine: one game of Schnapsen or Sechsundsechzig (RULES.md §2–§5).

A :class:`GameState` is made from a deck order and a dealer or by :meth:`~GameState.from_seed`; play
with :meth:`~GameState.legal_actions` and :meth:`~GameState.apply`, read
:attr:`~GameState.current_player`, :attr:`~GameState.is_terminal` and :attr:`~GameState.outcome`.
Agents see only :meth:`~GameState.information_set` (RULES §8). Actions are the ids of
:mod:`schnapsen_env.actions`; an illegal one raises :class:`IllegalActionError` (a ``ValueError``)
and leaves the state unchanged. Every rule is a function of :mod:`schnapsen_env.rulebook`: the deal
(§2) is in ``__init__``, the legal actions in ``_compute_mask``/``_why_illegal``, the transitions
and scoring in ``apply`` and the ``_finish_trick``/``_reach_66``/``_declare`` family. Hands are card
bitmasks and the talon a tuple with a draw index, so ``clone()`` is cheap.
"""

from __future__ import annotations

import numbers
import operator
import random
import sys
from dataclasses import dataclass
from typing import NamedTuple
from collections.abc import Sequence

from .actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS, action_to_str
from .cards import (
    DECK_MASKS,
    NINE,
    brief_repr,
    card_to_str,
    cards_of,
    deck_cards,
    parse_card,
    rank_of,
    suit_of,
)
from .rules import RENONCE_POINTS, Rules
from .information import InformationSet, determinization, information_set, recount_eyes  # noqa: F401

# RULES §3–§5, one function per clause
from .rulebook import (
    FOLLOW_REASON,
    LAST_TRICK_GAME_POINTS,
    MARRIAGE_PAIRS,
    closing_failed_points,
    closing_forbidden,
    closing_success_points,
    declare_forbidden,
    draws_after_trick,
    exchange_card,
    exchange_forbidden,
    false_declaration_points,
    follow_cards,
    follower_wins,
    game_points_for,
    last_trick_bonus,
    marriage_credited_at_once,
    marriage_eyes,
    marriage_forbidden,
    marriage_lead_cards,
    marriage_lead_reason,
    marriage_suits,
    reaches_66,
    special_action_reason,
    trick_eyes,
)

NO_CARD = -1
NOBODY = -1
NUM_PLAYERS = 2

#: reasons a game ends (RULES §9)
REASONS = ("declared_66", "last_trick", "closing_failed", "false_declaration", "renonce")


# legal_actions() turns a mask into a list with three table lookups of 11 bits
_CHUNK = 11
_CHUNK_MASK = (1 << _CHUNK) - 1
_BITS = tuple(
    tuple(tuple(i + off for i in range(_CHUNK) if m >> i & 1) for m in range(1 << _CHUNK))
    for off in (0, _CHUNK, 2 * _CHUNK)
)
_BITS0, _BITS1, _BITS2 = _BITS
_SORTED_DECK = {n: deck_cards(n) for n in (20, 24)}


def validate_seed(seed, name: str = "seed", required: bool = False) -> int | None:
    """``seed`` if it is an int >= 0 (or None, unless ``required``); else ``ValueError`` naming
    ``name`` (``random.Random`` would silently map -1 to 1 and accept floats and strings)."""
    if (seed is None and not required) or (type(seed) is int and seed >= 0):
        return seed
    allowed = "a non-negative int" if required else "None or a non-negative int"
    raise ValueError(f"{name} must be {allowed}, got {brief_repr(seed)}")


#: the reason of :class:`IllegalActionError` for anything that is not an action id
NOT_AN_ACTION = f"not an action id (allowed ints 0..{NUM_ACTIONS - 1})"


class IllegalActionError(ValueError):
    """An action the rules forbid in this state (RULES §3–§5), or not an action id: ``action`` (what
    was given), ``reason``; state unchanged."""

    def __init__(self, action, reason: str):
        self.action, self.reason = action, reason
        text = action_to_str(action) if type(action) is int and 0 <= action < NUM_ACTIONS else action
        super().__init__(f"illegal action {brief_repr(text)}: {reason}")


def action_id(action) -> int:
    """``action`` as an int: a Python ``int``, a numpy integer, or a 0-d integer numpy array or torch
    tensor (what ``np.argmax`` or SB3's ``model.predict`` of one observation gives); else
    :class:`IllegalActionError` naming it: a bool, a float, a string, an array or tensor of a float or
    bool dtype or of any other shape (the range is the caller's check). The one reading of an action,
    used by the env, the learner core and the agents (``agents.players.base.action_id``)."""
    if type(action) is int:  # the usual case first
        return action
    # numpy integers are Integral
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):
        return operator.index(action)
    dtype = getattr(action, "dtype", None)
    if dtype is None or getattr(action, "shape", None) != () or isinstance(action, numbers.Number):
        raise IllegalActionError(action, NOT_AN_ACTION)
    if getattr(dtype, "kind", None) in ("i", "u"):  # a 0-d numpy array of an integer dtype
        return int(action)
    torch = sys.modules.get("torch")  # a tensor exists only once torch is imported
    integral = torch is not None and isinstance(action, torch.Tensor) and dtype != torch.bool
    if integral and not (action.is_floating_point() or action.is_complex()):
        return int(action.item())
    raise IllegalActionError(action, NOT_AN_ACTION)


class InvalidStateError(ValueError):
    """Raised by :meth:`GameState.validate` when a state breaks an invariant."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended (RULES §5, §9): ``winner`` 0/1; ``game_points`` 1..3; ``reason``
    one of :data:`REASONS`; ``eyes`` credited eyes per player; ``tricks_won`` tricks per player."""

    winner: int
    game_points: int
    reason: str
    eyes: tuple
    tricks_won: tuple

    def to_dict(self) -> dict:
        """The RULES §9 replay line of a finished game."""
        return {
            "finished": True,
            "winner": self.winner,
            "game_points": self.game_points,
            "eyes": list(self.eyes),
            "tricks": list(self.tricks_won),
            "reason": self.reason,
        }


class Trick(NamedTuple):
    """A finished trick: who led, the two cards, who won it (eyes in the cards)."""

    leader: int
    lead: int
    follow: int
    winner: int


class GameState:
    """One game in progress. Mutable; use :meth:`clone` to branch.

    ``GameState(rules, deck, dealer)``: ``deck`` card ids (or RULES §1 strings) in deal order (RULES
    §2); or :meth:`from_seed`. ``ValueError`` for a deck that is not a permutation of the variant's
    cards or a dealer other than 0/1."""

    __slots__ = (
        "rules",  # Rules: fixed for the game
        "dealer",  # 0/1: dealt; the other player is forehand and leads first
        # tuple of card ids in deal order (RULES §2), the deal of this game; None for a
        # determinization
        "deck",
        "trump_suit",  # suit 0..3 of the first face-up card; fixed for the game
        "hands",  # [mask, mask]: cards in each hand; disjoint, never both empty before the end
        "talon",  # tuple of face-down talon cards in draw order (never changes)
        "talon_pos",  # index of the next face-down card to draw; <= len(talon)
        # face-up trump card under the talon, NO_CARD once drawn (then talon_pos == len)
        "trump_card",
        "leader",  # 0/1: player on lead in the current trick
        "current_player",  # 0/1: player to act; NOBODY once terminal
        "lead_card",  # card led in the current trick, NO_CARD before the lead
        "pending_marriage",  # suit 0..3 announced at this lead and not yet led, else -1
        # [int, int] credited eyes per player (cards, credited marriages, last-trick 10); only grow
        "eyes",
        # [int, int] announced marriage eyes not yet credited (no trick won yet)
        "held_marriage_eyes",
        "tricks_won",  # [int, int] tricks taken per player; their sum == len(tricks)
        "closed_by",  # NOBODY, or the player (0/1) who closed the talon (RULES §4)
        # the closer's opponent's credited eyes at closing (0 if not closed)
        "closed_opponent_eyes",
        # whether the closer's opponent had a trick at closing (False if not closed)
        "closed_opponent_had_trick",
        "known",  # [mask, mask]: cards of each hand that are public (exchange, last draw, marriage)
        "tricks",  # list of Trick, in play order
        "marriages",  # list of (player, suit) announced, in order
        "exchange",  # None, or (player, taken, given) of the trump exchange (RULES §4)
        "history",  # list of (player, action) applied since the deal, in order
        "outcome",  # None while playing, then Outcome
        "_mask",  # cached legal_mask() of this state, or None when stale (reset by every change)
    )

    def __init__(self, rules: Rules, deck: Sequence, dealer: int):
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise ValueError(f"dealer must be 0 or 1, got {brief_repr(dealer)}")
        cards = [parse_card(c, rules.deck) if isinstance(c, str) else int(c) for c in deck]
        if sorted(cards) != _SORTED_DECK[rules.deck]:
            raise ValueError(
                f"deck must be a permutation of the {rules.deck} cards of the variant (no duplicates, "
                f"{'no nines' if rules.deck == 20 else 'nines included'}), got {len(cards)} cards"
            )
        self._deal(rules, cards, int(dealer))

    def _deal(self, rules: Rules, cards: list, dealer: int) -> None:
        """RULES §2: deal ``cards`` (a checked permutation of the variant's deck) for ``dealer``."""
        fore = 1 - dealer
        if rules.deck == 20:
            fore_cards = cards[0:3] + cards[7:9]
            dealer_cards = cards[3:6] + cards[9:11]
            trump_card = cards[6]
            talon = cards[11:20]
        else:
            fore_cards = cards[0:3] + cards[6:9]
            dealer_cards = cards[3:6] + cards[9:12]
            trump_card = cards[12]
            talon = cards[13:24]
        hands = [0, 0]
        for card in fore_cards:
            hands[fore] |= 1 << card
        for card in dealer_cards:
            hands[dealer] |= 1 << card
        self.rules = rules
        self.dealer = dealer
        self.deck = tuple(cards)
        self.trump_suit = suit_of(trump_card)
        self.hands = hands
        self.talon = tuple(talon)
        self.talon_pos = 0
        self.trump_card = trump_card
        self.leader = fore
        self.current_player = fore
        self.lead_card = NO_CARD
        self.pending_marriage = -1
        self.eyes = [0, 0]
        self.held_marriage_eyes = [0, 0]
        self.tricks_won = [0, 0]
        self.closed_by = NOBODY
        self.closed_opponent_eyes = 0
        self.closed_opponent_had_trick = False
        self.known = [0, 0]
        self.tricks = []
        self.marriages = []
        self.exchange = None
        self.history = []
        self.outcome = None
        self._mask = None

    # ------------------------------------------------------------------ make
    @classmethod
    def from_seed(
        cls,
        rules: Rules,
        seed: int | None = None,
        dealer: int | None = None,
        rng: random.Random | None = None,
    ) -> "GameState":
        """A random deal: deck shuffled by ``random.Random(seed)`` (or ``rng``), dealer drawn from
        the same generator unless given (RULES §2). ``ValueError`` for a bad ``seed``."""
        if rng is None:
            rng = random.Random(validate_seed(seed))
        deck = list(_SORTED_DECK[rules.deck])
        rng.shuffle(deck)
        if dealer is None:
            dealer = rng.randrange(NUM_PLAYERS)
        g = cls.__new__(cls)
        g._deal(rules, deck, dealer)  # a shuffle of the variant's deck: nothing to check
        return g

    def clone(self) -> "GameState":
        """An independent copy (cheap: small ints, tuples and short lists)."""
        g = GameState.__new__(GameState)
        g.rules = self.rules
        g.dealer = self.dealer
        g.deck = self.deck
        g.trump_suit = self.trump_suit
        g.hands = self.hands[:]
        g.talon = self.talon
        g.talon_pos = self.talon_pos
        g.trump_card = self.trump_card
        g.leader = self.leader
        g.current_player = self.current_player
        g.lead_card = self.lead_card
        g.pending_marriage = self.pending_marriage
        g.eyes = self.eyes[:]
        g.held_marriage_eyes = self.held_marriage_eyes[:]
        g.tricks_won = self.tricks_won[:]
        g.closed_by = self.closed_by
        g.closed_opponent_eyes = self.closed_opponent_eyes
        g.closed_opponent_had_trick = self.closed_opponent_had_trick
        g.known = self.known[:]
        g.tricks = self.tricks[:]
        g.marriages = self.marriages[:]
        g.exchange = self.exchange
        g.history = self.history[:]
        g.outcome = self.outcome
        g._mask = self._mask
        return g

    # ------------------------------------------------------------- queries
    @property
    def is_terminal(self) -> bool:
        return self.outcome is not None

    @property
    def talon_size(self) -> int:
        """Face-down talon cards left (the face-up trump card not counted)."""
        return len(self.talon) - self.talon_pos

    @property
    def talon_open(self) -> bool:
        """Phase 1 (RULES §3): talon neither exhausted nor closed."""
        return self.trump_card >= 0 and self.closed_by < 0

    def legal_mask(self) -> int:
        """Bitmask over action ids of the legal actions (0 when terminal)."""
        m = self._mask
        if m is None:
            m = self._mask = self._compute_mask()
        return m

    def _compute_mask(self) -> int:
        """The legal actions as a bitmask, composed from the RULES §3–§5 clauses of
        :mod:`schnapsen_env.rulebook` (the same functions give :meth:`_why_illegal` its reasons)."""
        p = self.current_player
        if p < 0:
            return 0
        hand = self.hands[p]
        rules = self.rules
        lead = self.lead_card
        if lead >= 0:  # following (RULES §3)
            return follow_cards(
                hand,
                lead,
                self.trump_suit,
                self.trump_card >= 0 and self.closed_by < 0,
            )
        declare = 0 if declare_forbidden(rules) else 1 << DECLARE
        pm = self.pending_marriage
        if pm >= 0:  # RULES §4: the announced marriage's card, or a declaration
            return (marriage_lead_cards(rules, pm) & hand) | declare
        m = hand | declare
        tricks_won = self.tricks_won[p]
        for s in marriage_suits(hand):
            if marriage_forbidden(rules, hand, s, tricks_won) is None:
                m |= 1 << (MARRIAGE_BASE + s)
        # rulebook.talon_open: else both are forbidden
        if self.trump_card >= 0 and self.closed_by < 0:
            facedown = len(self.talon) - self.talon_pos
            if exchange_forbidden(rules, hand, self.trump_suit, True, facedown, len(self.tricks)) is None:
                m |= 1 << EXCHANGE
            if closing_forbidden(rules, self.closed_by, self.trump_card, facedown) is None:
                m |= 1 << CLOSE
        return m

    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending (empty when terminal)."""
        m = self.legal_mask()
        return list(_BITS0[m & _CHUNK_MASK] + _BITS1[(m >> _CHUNK) & _CHUNK_MASK] + _BITS2[m >> (2 * _CHUNK)])

    def is_legal(self, action: int) -> bool:
        return 0 <= action < NUM_ACTIONS and bool(self.legal_mask() >> action & 1)

    # --------------------------------------------------------------- apply
    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; :class:`IllegalActionError` (state unchanged)
        naming the rule when it is not legal now."""
        m = self._mask
        if m is None:
            m = self._compute_mask()
        if type(action) is not int:  # a numpy integer from an agent: the state keeps plain ints
            action = action_id(action)
        if action < 0 or not (m >> action & 1):
            raise IllegalActionError(action, self._why_illegal(action))
        self._mask = None
        p = self.current_player
        self.history.append((p, action))
        if action < MARRIAGE_BASE:
            bit = 1 << action
            self.hands[p] ^= bit
            self.known[p] &= ~bit
            if self.lead_card < 0:
                self.lead_card = action
                self.pending_marriage = -1
                self.current_player = 1 - p
            else:
                self._finish_trick(action)
        elif action < EXCHANGE:
            self._announce(p, action - MARRIAGE_BASE)
        elif action == EXCHANGE:
            low = exchange_card(self.rules, self.trump_suit)
            taken = self.trump_card
            self.hands[p] = (self.hands[p] & ~(1 << low)) | (1 << taken)
            self.known[p] |= 1 << taken
            self.trump_card = low
            self.exchange = (p, taken, low)
        elif action == CLOSE:
            self.closed_by = p
            self.closed_opponent_eyes = self.eyes[1 - p]
            self.closed_opponent_had_trick = self.tricks_won[1 - p] > 0
        else:
            self._declare(p)

    def renonce(self, player: int) -> None:
        """End the game by a rule violation of ``player`` (RULES §5.4):
        the opponent wins 3 game points, reason ``renonce``."""
        self._end(1 - player, RENONCE_POINTS, "renonce")
        self._mask = None

    def _why_illegal(self, action) -> str:
        """Why ``action`` is not legal now: the reason of the RULES §3–§5 clause that forbids it
        (the clauses of :mod:`schnapsen_env.rulebook`, the same ones the mask is built from)."""
        if not 0 <= action < NUM_ACTIONS:
            return NOT_AN_ACTION
        if self.outcome is not None:
            return "the game is over"
        p = self.current_player
        rules = self.rules
        leading = self.lead_card < 0
        hand = self.hands[p]
        if action < MARRIAGE_BASE:
            if rules.deck != 24 and rank_of(action) == NINE:
                return "there are no nines in this deck"
            if not hand >> action & 1:
                return f"player {p} does not hold {card_to_str(action)}"
            if leading and self.pending_marriage >= 0:
                return marriage_lead_reason(rules)
            return FOLLOW_REASON
        if not leading:
            return "only the player on lead may do this, before leading"
        if action == DECLARE:
            return declare_forbidden(rules) or "declaring is not allowed now"
        order = special_action_reason(self.pending_marriage)
        if order:
            return order
        facedown = len(self.talon) - self.talon_pos
        if action < EXCHANGE:
            reason = marriage_forbidden(rules, hand, action - MARRIAGE_BASE, self.tricks_won[p])
        elif action == EXCHANGE:
            reason = exchange_forbidden(
                rules,
                hand,
                self.trump_suit,
                self.talon_open,
                facedown,
                len(self.tricks),
            )
        else:
            reason = closing_forbidden(rules, self.closed_by, self.trump_card, facedown)
        return reason or "not allowed now"

    def _announce(self, p: int, suit: int) -> None:
        """RULES §4 marriage: announced, its cards become public; eyes credited or held."""
        pts = marriage_eyes(suit, self.trump_suit)
        self.pending_marriage = suit
        self.marriages.append((p, suit))
        self.known[p] |= self.hands[p] & MARRIAGE_PAIRS[suit]
        if marriage_credited_at_once(self.rules, self.tricks_won[p]):
            self.eyes[p] += pts
            if not self.rules.manual_declare and reaches_66(self.eyes[p]):
                self._reach_66(p)
        else:
            self.held_marriage_eyes[p] += pts

    def _finish_trick(self, follow: int) -> None:
        """RULES §3: the trick goes to its winner (with any held marriage eyes), then
        the phase 1 draw; RULES §5: the game may end (66, last trick, failed closing)."""
        lead = self.lead_card
        leader = self.leader
        w = 1 - leader if follower_wins(lead, follow, self.trump_suit) else leader
        eyes = self.eyes
        eyes[w] += trick_eyes(lead, follow) + self.held_marriage_eyes[w]
        self.held_marriage_eyes[w] = 0
        self.tricks_won[w] += 1
        self.tricks.append(Trick(leader, lead, follow, w))
        self.lead_card = NO_CARD
        self.leader = w
        self.current_player = w
        closed = self.closed_by >= 0
        if self.trump_card >= 0 and not closed:
            pos = self.talon_pos
            talon = self.talon
            drawn, loser_takes_trump = draws_after_trick(len(talon) - pos)
            self.hands[w] |= 1 << talon[pos]
            if loser_takes_trump:
                self.hands[1 - w] |= 1 << self.trump_card
                self.known[1 - w] |= 1 << self.trump_card
                self.trump_card = NO_CARD
            else:
                self.hands[1 - w] |= 1 << talon[pos + 1]
            self.talon_pos = pos + drawn
            last = False
        else:
            last = not (self.hands[0] | self.hands[1])
        if last:
            eyes[w] += last_trick_bonus(self.rules, closed)
        if not self.rules.manual_declare and reaches_66(eyes[w]):
            self._reach_66(w)
        elif last:
            if not closed:
                if reaches_66(eyes[w]):  # manual: holding 66 as last-trick winner
                    self._reach_66(w)
                else:
                    self._end(w, LAST_TRICK_GAME_POINTS, "last_trick")
            elif w == self.closed_by and reaches_66(eyes[w]):
                self._reach_66(w)
            else:
                self._closing_failed()

    def _reach_66(self, p: int) -> None:
        """``p`` has (declared) 66: RULES §5.1 or, after a closing, §5.3."""
        c = self.closed_by
        o = 1 - p
        if c < 0:
            self._end(p, game_points_for(self.eyes[o], self.tricks_won[o] > 0), "declared_66")
        elif p == c:
            self._end(p, self._closing_scale(), "declared_66")
        else:
            self._closing_failed()

    def _closing_scale(self) -> int:
        """RULES §5.3: the closer's game points when they reach 66."""
        o = 1 - self.closed_by
        return closing_success_points(
            self.rules,
            self.closed_opponent_eyes,
            self.closed_opponent_had_trick,
            self.eyes[o],
            self.tricks_won[o] > 0,
        )

    def _closing_failed(self) -> None:
        """RULES §5.3: the closing failed; the closer's opponent wins 2 or 3."""
        self._end(
            1 - self.closed_by,
            closing_failed_points(self.closed_opponent_had_trick),
            "closing_failed",
        )

    def _declare(self, d: int) -> None:
        """RULES §5.1/§5.3: ``d`` declares; right with 66 eyes, else a false declaration."""
        if reaches_66(self.eyes[d]):
            self._reach_66(d)
            return
        o = 1 - d
        c = self.closed_by
        if c < 0:
            pts = game_points_for(self.eyes[o], self.tricks_won[o] > 0)
            self._end(o, false_declaration_points(self.rules, pts), "false_declaration")
        elif d == c:
            self._closing_failed()
        else:
            pts = closing_failed_points(self.closed_opponent_had_trick)
            self._end(c, false_declaration_points(self.rules, pts), "false_declaration")

    def _end(self, winner: int, points: int, reason: str) -> None:
        self.outcome = Outcome(winner, points, reason, tuple(self.eyes), tuple(self.tricks_won))
        self.current_player = NOBODY

    # -------------------------------------------------------- information
    def information_set(self, player: int) -> InformationSet:
        """The public view of ``player`` (0/1; RULES §8, :mod:`schnapsen_env.information`)."""
        return information_set(self, player)

    @classmethod
    def from_information_set(
        cls,
        info: InformationSet,
        opponent_hand: int,
        talon: Sequence[int],
    ) -> "GameState":
        """A full state consistent with ``info`` (a determinization for search).

        ``opponent_hand``: the opponent's hand (bitmask); ``talon``: the face-down cards left, in
        draw order. With the viewer's hand, the played cards and the trump card they must make up
        the deck; eyes hidden by ``show_eyes=False`` are recomputed from the tricks. ``ValueError``
        if the cards do not fit."""
        return determinization(cls, info, opponent_hand, talon)

    # ------------------------------------------------------------ checking
    def validate(self) -> None:
        """Check the state's invariants (RULES §2–§5: each card in one place, counters that match the
        trick log, the leader to move before the lead and the follower after it, hands of one size, a
        marriage pending only before the lead, a player to move with a legal action); raise
        :class:`InvalidStateError` (a ``ValueError``) naming the first broken one. The one rule set of
        a possible state: the solvers and the compiled core call it on every state they are given."""
        # one pass over the trick log: the cards played, and the tricks and card eyes each player won
        played = 0
        tricks_won = [0, 0]
        card_eyes = [0, 0]
        for trick in self.tricks:
            played |= (1 << trick.lead) | (1 << trick.follow)
            tricks_won[trick.winner] += 1
            card_eyes[trick.winner] += trick_eyes(trick.lead, trick.follow)
        talon_left = 0
        for card in self.talon[self.talon_pos :]:
            talon_left |= 1 << card
        face_up = 0  # the card led to the current trick and the face-up trump card
        for card in (self.lead_card, self.trump_card):
            if card >= 0:
                face_up |= 1 << card
        counted = self.hands[0].bit_count() + self.hands[1].bit_count() + played.bit_count()
        counted += talon_left.bit_count() + face_up.bit_count()
        # a talon card twice counts twice
        counted += len(self.talon) - self.talon_pos - talon_left.bit_count()
        counted += self.lead_card >= 0 and self.lead_card == self.trump_card
        union = self.hands[0] | self.hands[1] | played | talon_left | face_up
        finished = self.outcome is not None
        mover = self.current_player
        if counted != self.rules.deck:
            raise InvalidStateError("a card is in two places (hands, tricks, talon)")
        if union != DECK_MASKS[self.rules.deck]:
            raise InvalidStateError("hands, tricks and talon do not make up the deck")
        if self.trump_card < 0 and self.talon_pos != len(self.talon):
            raise InvalidStateError("the trump card was drawn before the talon")
        if self.eyes[0] < card_eyes[0] or self.eyes[1] < card_eyes[1]:
            raise InvalidStateError("fewer eyes than the cards of the tricks won")
        if self.tricks_won != tricks_won:
            raise InvalidStateError("tricks_won != trick log")
        if not finished and mover not in (0, 1):
            raise InvalidStateError("no player to move in an unfinished game")
        if finished and mover != NOBODY:
            raise InvalidStateError("a player to move in a finished game")
        if not finished and mover != (self.leader if self.lead_card < 0 else 1 - self.leader):
            raise InvalidStateError(
                "the player to move is neither the leader before the lead nor the follower after it"
            )
        leader_cards = self.hands[self.leader].bit_count() + (self.lead_card >= 0)
        if not finished and leader_cards != self.hands[1 - self.leader].bit_count():
            msg = "the hands hold different numbers of cards (the leader's lead card aside)"
            raise InvalidStateError(msg)
        if not finished and self.pending_marriage >= 0 and self.lead_card >= 0:
            raise InvalidStateError("a marriage pending after the lead")
        if self.trump_card >= 0 and suit_of(self.trump_card) != self.trump_suit:
            raise InvalidStateError("the face-up trump card is not of the trump suit")
        if not finished and self._compute_mask() == 0:
            raise InvalidStateError("the player to move has no legal action in an unfinished game")
        if finished and self.outcome.game_points not in (1, 2, 3):
            raise InvalidStateError("game points outside 1..3")

    def status(self) -> dict:
        """The RULES §9 replay line for this state (finished or not)."""
        if self.outcome is not None:
            return self.outcome.to_dict()
        return dict(
            finished=False,
            to_move=self.current_player,
            eyes=list(self.eyes),
            tricks=list(self.tricks_won),
        )

    def __repr__(self) -> str:
        hands = [" ".join(card_to_str(c) for c in cards_of(h)) for h in self.hands]
        return (
            f"GameState(trump_suit={'CSHD'[self.trump_suit]}, current_player={self.current_player}, hands={hands}, "
            f"talon={self.talon_size}, eyes={self.eyes}, outcome={self.outcome})"
        )
