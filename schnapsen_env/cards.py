"""Cards: ids, notation in and out, eyes (RULES.md §1).

A card is a small integer ``card = suit * RANKS_PER_SUIT + rank`` with

* ``suit``: 0 ``C`` (Kreuz/Eichel), 1 ``S`` (Pik/Grün), 2 ``H`` (Herz/Rot), 3 ``D`` (Karo/Schellen);
* ``rank``: 0 ``A``, 1 ``T``, 2 ``K``, 3 ``Q``, 4 ``J``, 5 ``9`` — the rank
  order for winning a trick, strongest first, so a *lower* rank index wins.

So ids run 0..23; the nines (rank 5) exist only in Sechsundsechzig (24 cards). Sets of cards (hands)
are bitmasks: bit ``card`` set means the card is in the set. ``CARD_EYES[card]`` is the card's eyes
(card points).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "CSHD"
RANKS = "ATKQJ9"
NUM_SUITS = 4
RANKS_PER_SUIT = 6
NUM_CARDS = NUM_SUITS * RANKS_PER_SUIT  # 24 card ids, nines included

ACE, TEN, KING, QUEEN, JACK, NINE = range(RANKS_PER_SUIT)
CLUBS, SPADES, HEARTS, DIAMONDS = range(NUM_SUITS)

#: eyes (card points) by rank index: A 11, T 10, K 4, Q 3, J 2, 9 0
RANK_EYES = (11, 10, 4, 3, 2, 0)
CARD_EYES = tuple(RANK_EYES[c % RANKS_PER_SUIT] for c in range(NUM_CARDS))
#: total eyes in the cards of either deck (the nines are worth 0)
TOTAL_CARD_EYES = 120

#: rank letters accepted on input (RULES §1), German letters included
_RANK_INPUT = {
    "A": ACE,
    "T": TEN,
    "10": TEN,
    "K": KING,
    "Q": QUEEN,
    "O": QUEEN,
    "D": QUEEN,
    "J": JACK,
    "U": JACK,
}
_RANK_INPUT.update({"B": JACK, "9": NINE})
_SUIT_INPUT = {s: i for i, s in enumerate(SUITS)}

SUIT_SYMBOLS = "♣♠♥♦"
SUIT_NAMES_EN = ("clubs", "spades", "hearts", "diamonds")
SUIT_NAMES_DE = ("Kreuz", "Pik", "Herz", "Karo")
RANK_NAMES_EN = ("ace", "ten", "king", "queen", "jack", "nine")
RANK_NAMES_DE = ("Ass", "Zehn", "König", "Dame", "Bube", "Neun")

#: longest repr shown in an error message
BRIEF_REPR_CHARS = 80


def brief_repr(value: object, limit: int = BRIEF_REPR_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for a one-line error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def card_id(suit: int, rank: int) -> int:
    """The id (0..23) of the card of ``suit`` (0..3) and ``rank`` (0..5)."""
    return suit * RANKS_PER_SUIT + rank


def suit_of(card: int) -> int:
    """The suit index (0..3) of ``card``."""
    return card // RANKS_PER_SUIT


def rank_of(card: int) -> int:
    """The rank index (0 ace .. 5 nine) of ``card``; lower wins a trick."""
    return card % RANKS_PER_SUIT


def card_to_str(card: int) -> str:
    """The notation of ``card`` (RULES §1): rank then suit, e.g. ``"TH"``."""
    return RANKS[card % RANKS_PER_SUIT] + SUITS[card // RANKS_PER_SUIT]


_CARD_HELP = "expected rank (A T K Q J 9, or 10 O D U B) then suit (C S H D), upper case, nothing else, e.g. 'TH'"


def parse_card(text: str, deck_size: int = NUM_CARDS) -> int:
    """The id of a card written as in RULES §1 (``"TH"``, ``"10H"``, ``"OD"``; a nine is unknown
    with ``deck_size=20``). ``ValueError`` naming the text and what is allowed."""
    ok = isinstance(text, str) and len(text) >= 2
    rank = _RANK_INPUT.get(text[:-1]) if ok else None
    suit = _SUIT_INPUT.get(text[-1]) if ok else None
    if rank is None or suit is None:
        raise ValueError(f"unknown card {brief_repr(text)}: {_CARD_HELP}")
    if rank == NINE and deck_size == 20:
        raise ValueError(f"unknown card {text!r}: there are no nines in the 20-card Schnapsen deck")
    return suit * RANKS_PER_SUIT + rank


def deck_cards(deck_size: int) -> list[int]:
    """The card ids of the 20-card (no nines) or 24-card deck, in id order."""
    return [c for c in range(NUM_CARDS) if deck_size == 24 or c % RANKS_PER_SUIT != NINE]


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask of a collection of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The card ids in bitmask ``mask``, ascending."""
    return list(iter_cards(mask))


def iter_cards(mask: int) -> Iterator[int]:
    """Iterate the card ids in ``mask`` (0 .. 2**24 - 1), ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: bitmask of all cards of a suit
SUIT_MASKS = tuple(((1 << RANKS_PER_SUIT) - 1) << (s * RANKS_PER_SUIT) for s in range(NUM_SUITS))
#: every card of each deck size (20 or 24), as a bitmask
DECK_MASKS = {n: sum(1 << c for c in deck_cards(n)) for n in (20, 24)}
