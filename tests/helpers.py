"""Test helpers: hand-built deals (RULES.md §2), action scripts, state snapshots,
and an independent, slow reference reading of the rules (RULES §3–§5).

The reference (:class:`RefGame`) is written from RULES.md alone, with its own
card notation (strings such as ``"TH"``) and its own eyes table, so that the
property tests can compare the engine against a second reading of the rules
on every state of random games. It is deliberately simple and slow.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from schnapsen_env.actions import parse_action
from schnapsen_env.cards import card_to_str
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules

Cards = str | Sequence[str]

# ----------------------------------------------------------------- decks

#: RULES §1, written out independently of schnapsen_env.cards
REF_RANKS = "ATKQJ9"  # strongest first
REF_EYES = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
REF_SUITS = "CSHD"


def full_deck(size: int = 20) -> list[str]:
    """The cards of the 20- or 24-card deck as strings, in a fixed order."""
    ranks = REF_RANKS if size == 24 else REF_RANKS[:5]
    return [r + s for s in REF_SUITS for r in ranks]


def _cards(cards: Cards) -> list[str]:
    if isinstance(cards, str):
        return cards.split()
    return list(cards)


def make_deck(
    forehand: Cards, dealer_hand: Cards, trump_card: str, talon: Cards | None = None, deck_size: int | None = None
) -> list[str]:
    """A deck order (RULES §2) that deals ``forehand`` to the forehand,
    ``dealer_hand`` to the dealer, ``trump_card`` face up and ``talon``
    (face-down, in draw order) — for 20 cards (5 each) or 24 cards (6 each).

    Cards are strings (``"TH"``) or one space-separated string. If ``talon``
    is None the remaining cards follow in :func:`full_deck` order. Raises
    ``ValueError`` if the cards do not make up the deck.
    """
    fh, dh = _cards(forehand), _cards(dealer_hand)
    if len(fh) != len(dh) or len(fh) not in (5, 6):
        raise ValueError(f"hands must both hold 5 (20 cards) or 6 (24 cards) cards, got {len(fh)} and {len(dh)}")
    size = deck_size or (20 if len(fh) == 5 else 24)
    used = fh + dh + [trump_card]
    if talon is None:
        tl = [c for c in full_deck(size) if c not in used]
    else:
        tl = _cards(talon)
    everything = used + tl
    if sorted(everything) != sorted(full_deck(size)):
        raise ValueError(f"cards do not make up the {size}-card deck: {everything}")
    if size == 20:
        # deck[0:3] forehand, [3:6] dealer, [6] trump card, [7:9] forehand, [9:11] dealer, [11:20] talon
        return fh[:3] + dh[:3] + [trump_card] + fh[3:] + dh[3:] + tl
    # deck[0:3] forehand, [3:6] dealer, [6:9] forehand, [9:12] dealer, [12] trump card, [13:24] talon
    return fh[:3] + dh[:3] + fh[3:] + dh[3:] + [trump_card] + tl


def deal(
    forehand: Cards,
    dealer_hand: Cards,
    trump_card: str,
    talon: Cards | None = None,
    dealer: int = 1,
    variant: str = "schnapsen",
    **options,
) -> GameState:
    """A dealt GameState (dealer 1 by default, so player 0 is forehand)."""
    rules = Rules.preset(variant, **options)
    deck = make_deck(forehand, dealer_hand, trump_card, talon, rules.deck)
    return GameState(rules, deck, dealer)


def act(state: GameState, text: str) -> int:
    """The action id of a RULES §9 action text in ``state``'s variant."""
    return parse_action(text, state.rules.deck)


def play(state: GameState, *texts: str) -> GameState:
    """Apply RULES §9 action texts (``"play KS"``, ``"marriage S"``, ...) in order."""
    for t in texts:
        state.apply(act(state, t))
    return state


def legal_texts(state: GameState) -> set[str]:
    """The legal actions as a set of RULES §9 texts."""
    from schnapsen_env.actions import action_to_str

    return {action_to_str(a) for a in state.legal_actions()}


def hand(state: GameState, player: int) -> set[str]:
    """A player's hand as a set of card strings."""
    m = state.hands[player]
    return {card_to_str(c) for c in range(24) if m >> c & 1}


def snapshot(state: GameState) -> dict:
    """Every slot of the state, copied (to compare before/after an error)."""
    out = {}
    for name in type(state).__slots__:
        v = getattr(state, name, None)
        out[name] = list(v) if isinstance(v, list) else v
    return out


# ------------------------------------------------------------- reference


class RefGame:
    """A slow, literal reading of RULES §2–§5 (independent of the engine).

    Cards are strings. ``legal()`` gives RULES §9 action texts; ``apply(text)``
    plays one. ``outcome`` is None or ``(winner, game_points, reason, eyes,
    tricks)``.
    """

    def __init__(self, rules: Rules, deck: Sequence[str], dealer: int):
        self.r = rules
        deck = list(deck)
        fore, dl = 1 - dealer, dealer
        self.hands = {0: set(), 1: set()}
        if rules.deck == 20:
            self.hands[fore] |= set(deck[0:3] + deck[7:9])
            self.hands[dl] |= set(deck[3:6] + deck[9:11])
            self.trump_card = deck[6]
            self.talon = deck[11:20]
        else:
            self.hands[fore] |= set(deck[0:3] + deck[6:9])
            self.hands[dl] |= set(deck[3:6] + deck[9:12])
            self.trump_card = deck[12]
            self.talon = deck[13:24]
        self.trump = self.trump_card[-1]
        self.low_trump = ("J" if rules.deck == 20 else "9") + self.trump
        self.leader = fore
        self.current_player = fore
        self.lead = None  # card led in the current trick
        self.pending = None  # suit announced at this lead, card not led yet
        self.eyes = [0, 0]
        self.held = [0, 0]
        self.tricks = [0, 0]
        self.n_tricks = 0
        self.closed_by = None
        self.closed_opp_eyes = None
        self.closed_opp_trick = None
        self.outcome = None

    # -- helpers
    def talon_open(self) -> bool:
        return self.trump_card is not None and self.closed_by is None

    @staticmethod
    def beats(a: str, b: str) -> bool:
        """Whether rank of ``a`` is higher than rank of ``b`` (same suit assumed)."""
        return REF_RANKS.index(a[:-1]) < REF_RANKS.index(b[:-1])

    def scale(self, loser_eyes: int, loser_has_trick: bool) -> int:
        if not loser_has_trick:
            return 3
        return 2 if loser_eyes <= 32 else 1

    # -- legal actions
    def legal(self) -> set[str]:
        if self.outcome is not None:
            return set()
        p = self.current_player
        h = self.hands[p]
        r = self.r
        out = set()
        if self.lead is not None:  # follower
            if self.talon_open():
                return {"play " + c for c in h}
            led = self.lead[-1]
            same = [c for c in h if c[-1] == led]
            higher = [c for c in same if self.beats(c, self.lead)]
            lower = [c for c in same if not self.beats(c, self.lead)]
            trumps = [c for c in h if c[-1] == self.trump]
            for group in (higher, lower, trumps, list(h)):
                if group:
                    return {"play " + c for c in group}
            return set()
        king_only = r.sharp or r.marriage_leads_king
        if r.declare == "manual":
            out.add("declare")
        if self.pending is not None:
            s = self.pending
            for c in ("K" + s,) if king_only else ("K" + s, "Q" + s):
                if c in h:
                    out.add("play " + c)
            return out
        out |= {"play " + c for c in h}
        for s in REF_SUITS:
            if "K" + s in h and "Q" + s in h and not (r.sharp and self.tricks[p] == 0):
                out.add("marriage " + s)
        if self.talon_open():
            one_left = len(self.talon) == 1
            if self.low_trump in h and not (r.sharp and (self.n_tricks == 0 or one_left)):
                out.add("exchange")
            if r.allow_closing and len(self.talon) >= 1 and not (r.sharp and one_left):
                out.add("close")
        return out

    # -- playing
    def _end(self, winner: int, points: int, reason: str) -> None:
        self.outcome = (winner, points, reason, tuple(self.eyes), tuple(self.tricks))
        self.current_player = -1

    def _fail_closing(self) -> None:
        c = self.closed_by
        self._end(1 - c, 2 if self.closed_opp_trick else 3, "closing_failed")

    def _has_66(self, p: int) -> None:
        """``p`` reached (or declared) 66 eyes."""
        o = 1 - p
        if self.closed_by is None:
            self._end(p, self.scale(self.eyes[o], self.tricks[o] > 0), "declared_66")
        elif self.closed_by == p:
            if self.r.closing_counts_later_eyes:
                pts = self.scale(self.eyes[o], self.tricks[o] > 0)
            else:
                pts = self.scale(self.closed_opp_eyes, self.closed_opp_trick)
            self._end(p, pts, "declared_66")
        else:
            self._fail_closing()

    def apply(self, text: str) -> None:
        if text not in self.legal():
            raise ValueError(f"reference: illegal {text!r}")
        p = self.current_player
        o = 1 - p
        r = self.r
        word, _, arg = text.partition(" ")
        if word == "play":
            self.hands[p].discard(arg)
            if self.lead is None:
                self.lead = arg
                self.pending = None
                self.current_player = o
                return
            self._trick(arg)
        elif word == "marriage":
            pts = 40 if arg == self.trump else 20
            self.pending = arg
            if r.marriage_credit == "first_trick" and self.tricks[p] > 0:
                self.eyes[p] += pts
                if r.declare == "auto" and self.eyes[p] >= 66:
                    self._has_66(p)
            else:
                self.held[p] += pts
        elif word == "exchange":
            self.hands[p].discard(self.low_trump)
            self.hands[p].add(self.trump_card)
            self.trump_card = self.low_trump
        elif word == "close":
            self.closed_by = p
            self.closed_opp_eyes = self.eyes[o]
            self.closed_opp_trick = self.tricks[o] > 0
        elif word == "declare":
            if self.eyes[p] >= 66:
                self._has_66(p)
            elif self.closed_by is None:
                pts = 2 if r.false_declaration_points == 2 else self.scale(self.eyes[o], self.tricks[o] > 0)
                self._end(o, pts, "false_declaration")
            elif self.closed_by == p:
                self._fail_closing()
            else:
                pts = 2 if r.false_declaration_points == 2 else (2 if self.closed_opp_trick else 3)
                self._end(self.closed_by, pts, "false_declaration")

    def _trick(self, follow: str) -> None:
        lead = self.lead
        leader = self.leader
        follower = 1 - leader
        if follow[-1] == lead[-1]:
            w = follower if self.beats(follow, lead) else leader
        elif follow[-1] == self.trump:
            w = follower
        else:
            w = leader
        loser = 1 - w
        self.eyes[w] += REF_EYES[lead[:-1]] + REF_EYES[follow[:-1]] + self.held[w]
        self.held[w] = 0
        self.tricks[w] += 1
        self.n_tricks += 1
        self.lead = None
        self.leader = w
        self.current_player = w
        if self.talon_open():
            self.hands[w].add(self.talon.pop(0))
            if self.talon:
                self.hands[loser].add(self.talon.pop(0))
            else:
                self.hands[loser].add(self.trump_card)
                self.trump_card = None
        last = not self.hands[0] and not self.hands[1]
        closed = self.closed_by is not None
        if last and not closed and self.r.deck == 24:
            self.eyes[w] += 10
        if self.r.declare == "auto" and self.eyes[w] >= 66:
            self._has_66(w)
        elif last:
            if not closed:
                if self.eyes[w] >= 66:
                    self._has_66(w)
                else:
                    self._end(w, 1, "last_trick")
            elif w == self.closed_by and self.eyes[w] >= 66:
                self._has_66(w)
            else:
                self._fail_closing()


def random_deck(size: int, rng: random.Random) -> list[str]:
    d = full_deck(size)
    rng.shuffle(d)
    return d


def pick_action(legal: Iterable[int], rng: random.Random, state: GameState) -> int:
    """A seeded random legal action, with ``declare`` rare unless it is correct
    (so games under declare="manual" reach their later phases)."""
    from schnapsen_env.actions import DECLARE

    legal = sorted(legal)
    if DECLARE in legal and len(legal) > 1:
        p = state.current_player
        want = 0.8 if state.eyes[p] >= 66 else 0.03
        if rng.random() < want:
            return DECLARE
        legal = [a for a in legal if a != DECLARE]
    return rng.choice(legal)
