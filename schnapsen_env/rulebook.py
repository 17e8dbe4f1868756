"""RULES.md §3–§5, one named function per clause: the single source of the rules.

The engine's mask, its :class:`~schnapsen_env.engine.IllegalActionError` reasons, its transitions
and scoring, the batched engine's tables, the eye recount from public history, PIMC's inferences and
the heuristic all call these. They take plain values (card ids 0..23, suits 0..3, bitmasks, counts
>= 0, a :class:`~schnapsen_env.rules.Rules`) and do not check them: the public entry points do. The
``*_forbidden`` functions return ``None`` when the action is allowed, else the one-line reason. Eyes
are card points (RULES §1), game points the score of a game (RULES §5).
"""

from __future__ import annotations

from .cards import CARD_EYES, KING, NUM_CARDS, NUM_SUITS, QUEEN, RANKS_PER_SUIT, SUIT_MASKS, card_id
from .rules import EYES_TO_WIN, MARRIAGE_EYES, SCHNEIDER_EYES, TRUMP_MARRIAGE_EYES, Rules

#: the RULES §5 scale, judged by the loser: no trick won / a trick and at most 32 eyes / more
NO_TRICK_GAME_POINTS = 3
SCHNEIDER_GAME_POINTS = 2
PLAIN_GAME_POINTS = 1
#: game points of the winner of the last trick (talon not closed, nobody declared), RULES §5.2
LAST_TRICK_GAME_POINTS = 1
#: game points of the closer's opponent when the closing fails and they had a trick at closing,
#: RULES §5.3
CLOSING_FAILED_POINTS = 2
#: ... and when they had no trick at closing
CLOSING_FAILED_NO_TRICK_POINTS = 3
#: the fixed game points of a false declaration under ``false_declaration_points=2``, RULES §5.1
FIXED_FALSE_DECLARATION_POINTS = 2


_SUIT_OF = tuple(c // RANKS_PER_SUIT for c in range(NUM_CARDS))
# for each card: mask of the higher / lower cards of its suit (lower id = higher rank, RULES §1)
_HIGHER = tuple(SUIT_MASKS[c // RANKS_PER_SUIT] & ((1 << c) - 1) for c in range(NUM_CARDS))
_LOWER = tuple(SUIT_MASKS[c // RANKS_PER_SUIT] & ~((1 << (c + 1)) - 1) for c in range(NUM_CARDS))
#: the king and queen of each suit (a marriage), as a card mask
MARRIAGE_PAIRS = tuple((1 << card_id(s, KING)) | (1 << card_id(s, QUEEN)) for s in range(NUM_SUITS))
# bit of the king of each suit; ``hand & (hand >> 1) & _KING_BITS`` keeps the kings whose queen
# (one bit above, RULES §1 rank order) is in the hand too
_KING_BITS = sum(1 << card_id(s, KING) for s in range(NUM_SUITS))
_PAIR_SUITS = {
    sum(1 << card_id(s, KING) for s in suits): suits
    for suits in (tuple(s for s in range(NUM_SUITS) if m >> s & 1) for m in range(1 << NUM_SUITS))
}

# ------------------------------------------------------------------ §3 tricks


def follower_wins(lead: int, follow: int, trump_suit: int) -> bool:
    """RULES §3: the follower takes the trick with a higher card of the led suit,
    or with a trump on a non-trump lead; otherwise the leader takes it."""
    ls, fs = _SUIT_OF[lead], _SUIT_OF[follow]
    return (fs == ls and follow < lead) or (fs == trump_suit and ls != trump_suit)


def talon_open(trump_card: int, closed_by: int) -> bool:
    """RULES §3 phase 1: the talon is neither exhausted (the face-up trump card is
    still there, ``trump_card >= 0``) nor closed (``closed_by < 0``)."""
    return trump_card >= 0 and closed_by < 0


def follow_cards(hand: int, lead: int, trump_suit: int, phase1: bool) -> int:
    """RULES §3: the cards (bitmask) the follower may play to ``lead``: phase 1 any; phase 2 a
    higher card of the led suit, else a lower one, else a trump, else any."""
    if phase1:
        return hand
    return (hand & _HIGHER[lead]) or (hand & _LOWER[lead]) or (hand & SUIT_MASKS[trump_suit]) or hand


#: the reason a card outside :func:`follow_cards` is illegal (RULES §3 phase 2)
FOLLOW_REASON = (
    "the talon is exhausted or closed: the follower must follow suit (higher if possible), else trump (RULES §3)"
)


def draws_after_trick(facedown_left: int) -> tuple[int, bool]:
    """RULES §3 drawing: ``(face-down cards drawn, loser takes the face-up trump card)``."""
    return (2, False) if facedown_left >= 2 else (1, True)


# ------------------------------------------------------- §4 before leading


def exchange_card(rules: Rules, trump_suit: int) -> int:
    """RULES §4: the lowest trump (trump jack, or trump nine with 24 cards), which exchanges."""
    return trump_suit * RANKS_PER_SUIT + rules.exchange_rank


def exchange_forbidden(
    rules: Rules,
    hand: int,
    trump_suit: int,
    is_talon_open: bool,
    facedown_left: int,
    tricks_played: int,
) -> str | None:
    """RULES §4 exchange (lowest trump for the face-up trump, talon open): ``None`` if allowed, else
    why; ``sharp`` forbids it before the first trick and with one face-down card left."""
    if not is_talon_open:
        return "the talon is closed or exhausted"
    if not hand >> exchange_card(rules, trump_suit) & 1:
        return "the player on lead does not hold the lowest trump"
    if rules.sharp and (facedown_left == 1 or tricks_played == 0):
        return "sharp: no exchange before the first trick or with one face-down card left"
    return None


def closing_forbidden(
    rules: Rules,
    closed_by: int,
    trump_card: int,
    facedown_left: int,
) -> str | None:
    """RULES §4 closing (talon open, also before the first trick): ``None`` if allowed, else why;
    never under ``allow_closing=False``; ``sharp`` forbids it with one face-down card left."""
    if closed_by >= 0:
        return "the talon is already closed"
    if trump_card < 0:
        return "the talon is exhausted"
    if not rules.allow_closing:
        return "closing is not allowed in these rules (allow_closing=false)"
    if rules.sharp and facedown_left == 1:
        return "sharp: no closing with one face-down card left"
    return None


def marriage_forbidden(rules: Rules, hand: int, suit: int, announcer_tricks: int) -> str | None:
    """RULES §4 marriage (king and queen of ``suit``, one per lead): ``None`` if allowed, else why;
    ``sharp`` needs a trick won by the announcer."""
    pair = MARRIAGE_PAIRS[suit]
    if hand & pair != pair:
        return "the player on lead does not hold king and queen of that suit"
    if rules.sharp and announcer_tricks == 0:
        return "sharp: a marriage only once the announcer has won a trick"
    return None


def marriage_suits(hand: int) -> tuple:
    """The suits (ascending) whose king and queen are both in ``hand`` (RULES §4)."""
    return _PAIR_SUITS[hand & (hand >> 1) & _KING_BITS]


def marriage_eyes(suit: int, trump_suit: int) -> int:
    """RULES §4: a marriage is worth 20 eyes, 40 in trump."""
    return TRUMP_MARRIAGE_EYES if suit == trump_suit else MARRIAGE_EYES


def marriage_lead_cards(rules: Rules, suit: int) -> int:
    """RULES §4: the cards (mask) the announcer may lead after announcing in ``suit``:
    the king or the queen; only the king under ``sharp`` or ``marriage_leads_king``."""
    return 1 << card_id(suit, KING) if rules.king_only else MARRIAGE_PAIRS[suit]


def marriage_lead_reason(rules: Rules) -> str:
    """Why another card may not be led right after announcing a marriage (RULES §4)."""
    return "after announcing a marriage the announcer must lead " + (
        "its king" if rules.king_only else "its king or queen"
    )


def marriage_credited_at_once(rules: Rules, announcer_tricks: int) -> bool:
    """RULES §4: a marriage's eyes are credited at once if the announcer has won a
    trick (``marriage_credit="first_trick"``); otherwise they are held until the
    announcer wins a trick, and lost if they never do."""
    return rules.credit_marriage_at_once and announcer_tricks > 0


def special_action_reason(pending_marriage: int) -> str | None:
    """RULES §4 order: exchange, close, marriage and declare come on lead before the card is led;
    after a marriage only its card (or a manual declaration) may follow. ``None`` if still open,
    else why."""
    return "after announcing a marriage the next action must lead its card" if pending_marriage >= 0 else None


# ------------------------------------------------------------- §5 scoring


def reaches_66(eyes: int) -> bool:
    """RULES §5.1: a player with at least 66 eyes may win by declaring."""
    return eyes >= EYES_TO_WIN


def declare_forbidden(rules: Rules) -> str | None:
    """RULES §5.1 declaring, for the player on lead: ``None`` under ``declare="manual"``
    (an action at any lead turn), else why (under ``"auto"`` the game ends at 66 by itself)."""
    if not rules.manual_declare:
        return 'declaring is not an action under declare="auto" (the game ends at 66 by itself)'
    return None


def game_points_for(loser_eyes: int, loser_has_trick: bool) -> int:
    """RULES §5 scale, judged by the loser: 3 game points if the loser won no
    trick, 2 if the loser has 32 eyes or fewer, else 1."""
    if not loser_has_trick:
        return NO_TRICK_GAME_POINTS
    if loser_eyes <= SCHNEIDER_EYES:
        return SCHNEIDER_GAME_POINTS
    return PLAIN_GAME_POINTS


def last_trick_bonus(rules: Rules, closed: bool) -> int:
    """RULES §5.2: extra eyes for the last trick: 10 in Sechsundsechzig, none after a closing."""
    return 0 if closed else rules.last_trick_bonus


def closing_success_points(
    rules: Rules,
    opponent_eyes_at_closing: int,
    opponent_trick_at_closing: bool,
    opponent_eyes_now: int,
    opponent_trick_now: bool,
) -> int:
    """RULES §5.3: the closer who reaches 66 wins on the scale, judged by the opponent
    at the moment of closing (or, under ``closing_counts_later_eyes``, now)."""
    if rules.closing_counts_later_eyes:
        return game_points_for(opponent_eyes_now, opponent_trick_now)
    return game_points_for(opponent_eyes_at_closing, opponent_trick_at_closing)


def closing_failed_points(opponent_trick_at_closing: bool) -> int:
    """RULES §5.3: a failed closing gives the closer's opponent 2 game points, or 3
    if that opponent had no trick when the talon was closed."""
    return CLOSING_FAILED_POINTS if opponent_trick_at_closing else CLOSING_FAILED_NO_TRICK_POINTS


def false_declaration_points(rules: Rules, points_if_correct: int) -> int:
    """RULES §5.1/§5.3: a false declaration gives the opponent the points the declarer
    would have won (``points_if_correct``), or a fixed 2 under ``false_declaration_points=2``."""
    fixed = rules.false_declaration_points == FIXED_FALSE_DECLARATION_POINTS
    return FIXED_FALSE_DECLARATION_POINTS if fixed else points_if_correct


def trick_eyes(lead: int, follow: int) -> int:
    """RULES §5: the eyes of a trick's two cards (credited to its winner)."""
    return CARD_EYES[lead] + CARD_EYES[follow]
