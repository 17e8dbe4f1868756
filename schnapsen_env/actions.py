"""The fixed integer action space (RULES.md §4, §9), shared by every variant.

| id      | action                  | text form (RULES §9) |
|---------|-------------------------|----------------------|
| 0..23   | play card ``id``        | ``play TH``          |
| 24..27  | announce marriage, suit | ``marriage H``       |
|         | ``id - 24`` (C S H D)   |                      |
| 28      | exchange                | ``exchange``         |
| 29      | close the talon         | ``close``            |
| 30      | declare 66              | ``declare``          |

``NUM_ACTIONS = 31``. Card ids are those of :mod:`schnapsen_env.cards`; in the 20-card game the nine
ids (5, 11, 17, 23) are never legal. Because play actions use the card id as the action id, a hand
bitmask is also the bitmask of its play actions.
"""

from __future__ import annotations

import re

from .cards import NUM_CARDS, NUM_SUITS, SUITS, brief_repr, card_to_str, parse_card

PLAY_BASE = 0
MARRIAGE_BASE = NUM_CARDS  # 24
EXCHANGE = MARRIAGE_BASE + NUM_SUITS  # 28
CLOSE = EXCHANGE + 1  # 29
DECLARE = CLOSE + 1  # 30
NUM_ACTIONS = DECLARE + 1  # 31

#: Upper bound on the actions of one game (OpenSpiel-style game info): 24 card plays, one marriage
#: per lead (12 leads), one exchange, one close, one declare.
MAX_GAME_LENGTH = NUM_CARDS + NUM_CARDS // 2 + 3

#: the whole text of an action (used with ``fullmatch``: ``$`` would also match before a final
#: newline)
_ACTION_RE = re.compile(r"(play|marriage) ([^ ]+)|(exchange|close|declare)")
_ACTION_HELP = (
    "allowed 'play CARD', 'marriage SUIT', 'exchange', 'close', 'declare' "
    "(lower-case words, one space, nothing before or after)"
)


def action_to_str(action: int) -> str:
    """The RULES §9 text of an action id (0..30)."""
    if action < MARRIAGE_BASE:
        return "play " + card_to_str(action)
    if action < EXCHANGE:
        return "marriage " + SUITS[action - MARRIAGE_BASE]
    return ("exchange", "close", "declare")[action - EXCHANGE]


def parse_action(text: str, deck_size: int = NUM_CARDS) -> int:
    """The action id of a RULES §9 action text (``"play TH"``, ``"marriage H"``: lower-case words,
    one space, cards as in RULES §1, nothing around). ``ValueError`` naming the text and what is
    allowed."""
    m = _ACTION_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"unknown action {brief_repr(text)}: {_ACTION_HELP}")
    if m.group(3):
        return {"exchange": EXCHANGE, "close": CLOSE, "declare": DECLARE}[m.group(3)]
    word, arg = m.group(1), m.group(2)
    if word == "play":
        try:
            return PLAY_BASE + parse_card(arg, deck_size)
        except ValueError as e:
            raise ValueError(f"unknown action {brief_repr(text)}: {e}") from None
    if len(arg) != 1 or arg not in SUITS:
        raise ValueError(f"unknown action {brief_repr(text)}: marriage suit must be one of C S H D")
    return MARRIAGE_BASE + SUITS.index(arg)
