"""Text rendering of a game (for logs, ``render_mode="ansi"/"human"`` and the terminal play CLI).

:func:`render_text` shows one player's view (RULES §8: their own hand only, eyes only when the rules
show them) or, with ``viewer=None``, everything (both hands and the talon order, for debugging).
English or German labels, suit symbols (``T♥``), suit letters (``TH``: where standard output cannot
encode the symbols, see :func:`symbols_fit`) or card names (``ten of hearts`` / ``Herz Zehn``)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

from .actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from .cards import (
    RANK_NAMES_DE,
    RANK_NAMES_EN,
    SUIT_NAMES_DE,
    SUIT_NAMES_EN,
    SUIT_SYMBOLS,
    SUITS,
    iter_cards,
)
from .cards import rank_of, suit_of
from .engine import REASONS, GameState

#: rank letters shown with suit symbols, per language (German: Ass, Zehn, König, Dame, Bube, Neun)
_RANK_LETTERS = {"en": ("A", "T", "K", "Q", "J", "9"), "de": ("A", "10", "K", "D", "B", "9")}

#: the labels of the table, one per line: ``key | English | German``
_LABEL_TABLE = """
player | player {} | Spieler {}
you | (you) | (du)
dealer | dealer | Geber
trump | trump | Atout
trump_card | trump card | Atoutkarte
talon | talon | Talon
cards | face-down cards | verdeckte Karten
card | face-down card | verdeckte Karte
closed_by | closed by {} | zugedreht von {}
exhausted | exhausted | aufgebraucht
hand | hand | Hand
cards_n | {} cards | {} Karten
card_1 | 1 card | 1 Karte
known | known | bekannt
trick | trick | Stich
led | {} led {} | {} spielt {} aus
empty_trick | (no card led) | (noch nichts ausgespielt)
last_trick | last trick | letzter Stich
won_by | won by {} | gewonnen von {}
eyes | eyes | Augen
held | held marriage | angesagt, noch nicht gutgeschrieben
hidden | hidden (count them yourself) | verdeckt (selbst mitzählen)
tricks | tricks won | Stiche
to_move | to move | am Zug
game_over | game over | Spiel aus
winner | {} wins {} game point{} ({}) | {} gewinnt {} Punkt{} ({})
bummerl | Bummerl score | Bummerl-Stand
marriages | marriages | Ansagen
exchange | exchange | Austausch
talon_order | talon order | Talon-Reihenfolge
last | last action | letzte Aktion
none | - | -
act_exchange | exchange | austauschen
act_close | close | zudrehen
act_declare | declare 66 | ausmelden
act_marriage | marriage {} | Ansage {}
act_play | play {} | spielt {}
declared_66 | declared 66 | 66 ausgemeldet
closing_failed | closing failed | Zudrehen misslungen
false_declaration | false declaration | falsch ausgemeldet
renonce | renonce | Renonce
"""
_ROWS = [[cell.strip() for cell in line.split("|")] for line in _LABEL_TABLE.strip().splitlines()]
_LABELS = {lang: {row[0]: row[1 + i] for row in _ROWS} for i, lang in enumerate(("en", "de"))}
#: how a game ended (Outcome.reason, RULES §5/§9), per language
REASON_TEXT = {lang: {r: labels[r] for r in REASONS} for lang, labels in _LABELS.items()}

#: the suit symbols as the card notation's suit letters (RULES §1), the arrow as ``->``
_LETTERS = str.maketrans({**dict(zip(SUIT_SYMBOLS, SUITS)), "→": "->"})


def letters(text: str) -> str:
    """``text`` with suit letters for the suit symbols: ``letters("T♥ 10♦") == "TH 10D"``."""
    return text.translate(_LETTERS)


def symbols_fit(stream: TextIO | None) -> bool:
    """Whether ``stream``'s encoding (none given: UTF-8) can write the suit symbols and the arrow of
    the text."""
    return _encodes(getattr(stream, "encoding", None) or "utf-8")


@functools.cache
def _encodes(encoding: str) -> bool:
    try:
        (SUIT_SYMBOLS + "→").encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def reason_text(reason: str, lang: str = "en") -> str:
    """Why a game ended, in words: ``reason_text("closing_failed", "de") == "Zudrehen
    misslungen"``."""
    return REASON_TEXT[lang][reason]


def card_text(card: int, lang: str = "en", symbols: bool = True) -> str:
    """One card: ``"T♥"`` / ``"10♥"`` (symbols), ``"ten of hearts"`` / ``"Herz Zehn"`` (names)."""
    s, r = suit_of(card), rank_of(card)
    if symbols:
        return _RANK_LETTERS[lang][r] + SUIT_SYMBOLS[s]
    if lang == "de":
        return f"{SUIT_NAMES_DE[s]} {RANK_NAMES_DE[r]}"
    return f"{RANK_NAMES_EN[r]} of {SUIT_NAMES_EN[s]}"


def _suit_text(suit: int, lang: str, symbols: bool) -> str:
    return SUIT_SYMBOLS[suit] if symbols else (SUIT_NAMES_DE if lang == "de" else SUIT_NAMES_EN)[suit]


def action_text(action: int, lang: str = "en", symbols: bool = True) -> str:
    """A readable action: ``"play T♥"``, ``"marriage ♥"``, ``"close"`` (German with
    ``lang="de"``)."""
    names = _LABELS[lang]
    if action < MARRIAGE_BASE:
        return names["act_play"].format(card_text(action, lang, symbols))
    if action < EXCHANGE:
        return names["act_marriage"].format(_suit_text(action - MARRIAGE_BASE, lang, symbols))
    return names[{EXCHANGE: "act_exchange", CLOSE: "act_close", DECLARE: "act_declare"}[action]]


def _cards(cards: Iterable[int] | int, lang: str, symbols: bool, sep: str) -> str:
    """Card ids in their order; a mask's by suit, then rank strength (card ids already are)."""
    return sep.join(card_text(c, lang, symbols) for c in (iter_cards(cards) if isinstance(cards, int) else cards))


def render_text(
    state: GameState,
    viewer: int | None = None,
    lang: str = "en",
    symbols: bool | None = None,
    bummerl_score: Sequence[int] | None = None,
) -> str:
    """A readable multi-line table of ``state``: ``viewer`` 0/1 shows that player's view (RULES §8),
    ``None`` everything; ``lang`` ``"en"``/``"de"``; ``symbols``: True suit symbols, False card
    names, None (default) symbols where ``sys.stdout`` can encode them, else suit letters (what
    ``render_mode="human"`` prints); ``bummerl_score`` adds the Bummerl line."""
    if symbols is None:
        text = render_text(state, viewer, lang, True, bummerl_score)
        return text if symbols_fit(sys.stdout) else letters(text)
    L = _LABELS[lang]
    card = functools.partial(card_text, lang=lang, symbols=symbols)
    cards = functools.partial(_cards, lang=lang, symbols=symbols, sep=" " if symbols else ", ")

    def who(p: int) -> str:
        return L["player"].format(p) + (" " + L["you"] if viewer == p else "")

    head = f"{L['trump']}: {_suit_text(state.trump_suit, lang, symbols)}"
    if state.trump_card >= 0:
        head += f"   {L['trump_card']}: {card(state.trump_card)}"
    talon = f"{L['talon']}: {state.talon_size} {L['card'] if state.talon_size == 1 else L['cards']}"
    if state.closed_by >= 0:
        talon += f", {L['closed_by'].format(who(state.closed_by))}"
    elif state.trump_card < 0:
        talon += f" ({L['exhausted']})"
    lines = [head + "   " + talon]
    if viewer is None and state.talon_size:
        lines.append(f"{L['talon_order']}: {cards(state.talon[state.talon_pos :])}")
    show_eyes = state.rules.show_eyes or viewer is None
    for p in (0, 1):
        tag = who(p) + (f" [{L['dealer']}]" if state.dealer == p else "")
        if viewer is None or viewer == p:
            hand = cards(state.hands[p]) or L["none"]
        else:
            n = state.hands[p].bit_count()
            hand = L["card_1"] if n == 1 else L["cards_n"].format(n)
            if state.known[p]:
                hand += f", {L['known']}: {cards(state.known[p])}"
        line = f"{tag:<24} {L['hand']}: {hand}   {L['tricks']}: {state.tricks_won[p]}"
        if show_eyes:
            line += f"   {L['eyes']}: {state.eyes[p]}"
            if state.held_marriage_eyes[p]:
                line += f" (+{state.held_marriage_eyes[p]} {L['held']})"
        lines.append(line)
    if not show_eyes:
        lines.append(f"{L['eyes']}: {L['hidden']}")
    if state.marriages:
        marriages = ", ".join(f"{who(p)} {_suit_text(s, lang, symbols)}" for p, s in state.marriages)
        lines.append(f"{L['marriages']}: {marriages}")
    if state.exchange is not None:
        p, taken, given = state.exchange
        lines.append(f"{L['exchange']}: {who(p)} {card(given)} -> {card(taken)}")
    if state.tricks:
        t = state.tricks[-1]
        lines.append(f"{L['last_trick']}: {card(t.lead)} {card(t.follow)}, {L['won_by'].format(who(t.winner))}")
    if state.lead_card >= 0:
        lines.append(f"{L['trick']}: " + L["led"].format(who(state.leader), card(state.lead_card)))
    elif not state.is_terminal:
        lines.append(f"{L['trick']}: {L['empty_trick']}")
    if state.history:
        p, a = state.history[-1]
        lines.append(f"{L['last']}: {who(p)} {action_text(a, lang, symbols)}")
    if bummerl_score is not None:
        lines.append(f"{L['bummerl']}: {bummerl_score[0]}:{bummerl_score[1]} (→ {state.rules.bummerl_target})")
    if state.outcome is not None:
        o = state.outcome
        plural = "" if o.game_points == 1 else ("s" if lang == "en" else "e")
        won = L["winner"].format(who(o.winner), o.game_points, plural, reason_text(o.reason, lang))
        lines.append(f"{L['game_over']}: {won}   {L['eyes']}: {o.eyes[0]}:{o.eyes[1]}")
    else:
        lines.append(f"{L['to_move']}: {who(state.current_player)}")
    return "\n".join(lines)
