"""Cards: ids, notation in and out, eyes (RULES.md §1).

A card is a small integer ``card = suit * RANKS_PER_SUIT + rank`` with

* ``suit``: 0 ``C`` (Kreuz/Eichel), 1 ``S`` (Pik/Grün), 2 ``H`` (Herz/Rot),
  3 ``D`` (Karo/Schellen);
* ``rank``: 0 ``A``, 1 ``T``, 2 ``K``, 3 ``Q``, 4 ``J``, 5 ``9`` — the rank
  order for winning a trick, strongest first, so a *lower* rank index wins.

So ids run 0..23; the nines (rank 5) exist only in Sechsundsechzig (24 cards).
Sets of cards (hands) are bitmasks: bit ``card`` set means the card is in the
set. ``CARD_EYES[card]`` is the card's eyes (card points).
"""

from __future__ import annotations

import contextlib
import operator
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
    "B": JACK,
    "9": NINE,
}
_SUIT_INPUT = {s: i for i, s in enumerate(SUITS)}

SUIT_SYMBOLS = "♣♠♥♦"
SUIT_NAMES_EN = ("clubs", "spades", "hearts", "diamonds")
SUIT_NAMES_DE = ("Kreuz", "Pik", "Herz", "Karo")
SUIT_NAMES_DE_DOPPELDEUTSCH = ("Eichel", "Laub", "Herz", "Schellen")
RANK_NAMES_EN = ("ace", "ten", "king", "queen", "jack", "nine")
RANK_NAMES_DE = ("Ass", "Zehn", "König", "Dame", "Bube", "Neun")


def as_int(value) -> int | None:
    """``value`` as a plain int if it is an integer (Python or numpy), else None.

    Bools, numpy bools and torch bool tensors are not integers here (older numpy lets
    ``operator.index`` take a numpy bool, with only a DeprecationWarning; torch lets it take a bool
    tensor)."""
    dtype = getattr(value, "dtype", None)
    if isinstance(value, bool) or getattr(dtype, "kind", None) == "b" or str(dtype) == "torch.bool":
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def brief_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` for an error message: at most about ``limit`` characters, and never an
    exception of its own (a structure nested too deeply to repr, an int too long to print)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError, MemoryError):
        text = f"<{type(value).__name__} that cannot be shown>"
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text


def _check_card(card: object) -> None:
    if type(card) is not int or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be an int in 0..{NUM_CARDS - 1}, got {brief_repr(card)}")


def _check_deck_size(deck_size: object) -> None:
    if type(deck_size) is not int or deck_size not in (20, 24):
        raise ValueError(f"deck size must be 20 or 24, got {brief_repr(deck_size)}")


def _check_mask(mask: object) -> int:
    try:
        m = operator.index(mask)  # Python and numpy ints
    except TypeError:
        m = -1
    if type(mask) is bool or not 0 <= m < 1 << NUM_CARDS:
        raise ValueError(f"card mask must be an int in 0..2**{NUM_CARDS}-1 (bit i set: card i), "
                         f"got {brief_repr(mask)}")
    return m


def card_id(suit: int, rank: int) -> int:
    """The id (0..23) of the card of ``suit`` (0..3) and ``rank`` (0..5).

    Raises ``ValueError`` for a suit or rank that is not an int in range."""
    if type(suit) is not int or not 0 <= suit < NUM_SUITS:
        raise ValueError(f"suit must be an int in 0..{NUM_SUITS - 1}, got {brief_repr(suit)}")
    if type(rank) is not int or not 0 <= rank < RANKS_PER_SUIT:
        raise ValueError(f"rank must be an int in 0..{RANKS_PER_SUIT - 1}, got {brief_repr(rank)}")
    return suit * RANKS_PER_SUIT + rank


def suit_of(card: int) -> int:
    """The suit index (0..3) of ``card``. Raises ``ValueError`` for an id outside 0..23."""
    _check_card(card)
    return card // RANKS_PER_SUIT


def rank_of(card: int) -> int:
    """The rank index (0 ace .. 5 nine) of ``card``; lower wins a trick.

    Raises ``ValueError`` for an id outside 0..23."""
    _check_card(card)
    return card % RANKS_PER_SUIT


def card_to_str(card: int) -> str:
    """The notation of ``card`` (RULES §1): rank then suit, e.g. ``"TH"``.

    Raises ``ValueError`` for anything but an int id in 0..23 (a bool is not an id).
    """
    _check_card(card)
    return RANKS[card % RANKS_PER_SUIT] + SUITS[card // RANKS_PER_SUIT]


_CARD_HELP = "expected rank (A T K Q J 9, or 10 O D U B) then suit (C S H D), upper case, nothing else, e.g. 'TH'"


def parse_card(text: str, deck_size: int = NUM_CARDS) -> int:
    """The id of a card written as in RULES §1 (``"TH"``, ``"10H"``, ``"OD"``).

    Ranks: ``A``, ``T``/``10``, ``K``, ``Q``/``O``/``D``, ``J``/``U``/``B``,
    ``9``; suits ``C S H D``; upper case. The whole string must be the card:
    no surrounding whitespace or newline, no other characters. With
    ``deck_size=20`` a nine is unknown. Raises ``ValueError`` naming the text
    and what is allowed (also for a ``deck_size`` other than 20 or 24).
    """
    _check_deck_size(deck_size)
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string, got {brief_repr(text)}: {_CARD_HELP}")
    rank = _RANK_INPUT.get(text[:-1]) if len(text) >= 2 else None
    suit = _SUIT_INPUT.get(text[-1]) if len(text) >= 2 else None
    if rank is None or suit is None:
        raise ValueError(f"unknown card {brief_repr(text)}: {_CARD_HELP}")
    if rank == NINE and deck_size == 20:
        raise ValueError(f"unknown card {text!r}: there are no nines in the 20-card Schnapsen deck")
    return suit * RANKS_PER_SUIT + rank


def deck_cards(deck_size: int) -> list[int]:
    """The card ids of the 20-card (no nines) or 24-card deck, in id order.

    Raises ``ValueError`` for a deck size other than the int 20 or 24."""
    _check_deck_size(deck_size)
    return [c for c in range(NUM_CARDS) if deck_size == 24 or c % RANKS_PER_SUIT != NINE]


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask of a collection of card ids.

    Raises ``ValueError`` if ``cards`` is not iterable or holds something other than a card id
    (an int in 0..23)."""
    try:
        items = iter(cards)
    except TypeError:
        raise ValueError(f"cards must be an iterable of card ids (ints in 0..{NUM_CARDS - 1}), "
                         f"got {brief_repr(cards)}") from None
    m = 0
    for item in items:
        c = item
        if type(c) is not int and type(c) is not bool:
            with contextlib.suppress(TypeError):  # numpy ints, e.g. from np.flatnonzero
                c = operator.index(c)
        if type(c) is not int or not 0 <= c < NUM_CARDS:
            raise ValueError(f"cards must be card ids (ints in 0..{NUM_CARDS - 1}), got an item {brief_repr(item)}")
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The card ids in bitmask ``mask``, ascending.

    Raises ``ValueError`` unless ``mask`` is an int in ``0 .. 2**24 - 1``."""
    mask = _check_mask(mask)
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def iter_cards(mask: int) -> Iterator[int]:
    """Iterate the card ids in ``mask``, ascending (lowest bit first).

    Raises ``ValueError`` (at the call, not at the first ``next``) unless ``mask`` is an int in
    ``0 .. 2**24 - 1``; a negative mask would otherwise never end."""
    return _iter_bits(_check_mask(mask))


def _iter_bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: bitmask of all cards of a suit
SUIT_MASKS = tuple(((1 << RANKS_PER_SUIT) - 1) << (s * RANKS_PER_SUIT) for s in range(NUM_SUITS))
#: every card of each deck size (20 or 24), as a bitmask
DECK_MASKS = {n: sum(1 << c for c in deck_cards(n)) for n in (20, 24)}


def card_name(card: int, lang: str = "en", symbols: bool = True) -> str:
    """A readable name: ``"T♥"`` (symbols), ``"ten of hearts"`` or ``"Herz Zehn"``.

    Raises ``ValueError`` for a bad card id, a ``lang`` other than ``"en"``/``"de"`` or a
    ``symbols`` that is not a bool."""
    _check_card(card)
    if type(lang) is not str or lang not in ("en", "de"):
        raise ValueError(f"lang must be 'en' or 'de', got {brief_repr(lang)}")
    if type(symbols) is not bool:
        raise ValueError(f"symbols must be True or False, got {brief_repr(symbols)}")
    s, r = card // RANKS_PER_SUIT, card % RANKS_PER_SUIT
    if symbols:
        return RANKS[r] + SUIT_SYMBOLS[s]
    if lang == "de":
        return f"{SUIT_NAMES_DE[s]} {RANK_NAMES_DE[r]}"
    return f"{RANK_NAMES_EN[r]} of {SUIT_NAMES_EN[s]}"
