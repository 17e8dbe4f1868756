"""Text rendering of a game (for logs, ``render_mode="ansi"/"human"`` and the terminal play CLI).

:func:`render_text` shows one player's view (RULES §8: their own hand only,
eyes only when the rules show them) or, with ``viewer=None``, everything
(both hands and the talon order, for debugging). English or German labels,
suit symbols (``T♥``) or card names (``ten of hearts`` / ``Herz Zehn``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from .cards import (
    RANK_NAMES_DE,
    RANK_NAMES_EN,
    SUIT_NAMES_DE,
    SUIT_NAMES_EN,
    SUIT_SYMBOLS,
    iter_cards,
    rank_of,
    suit_of,
)
from .engine import GameState

#: rank letters shown with suit symbols, per language (German: Ass, Zehn, König, Dame, Bube, Neun)
_RANK_LETTERS = {"en": ("A", "T", "K", "Q", "J", "9"), "de": ("A", "10", "K", "D", "B", "9")}
_SUIT_LETTERS = "CSHD"

_LABELS = {
    "en": {
        "player": "player {}",
        "you": " (you)",
        "dealer": "dealer",
        "trump": "trump",
        "trump_card": "trump card",
        "talon": "talon",
        "cards": "face-down cards",
        "card": "face-down card",
        "closed_by": "closed by {}",
        "exhausted": "exhausted",
        "hand": "hand",
        "cards_n": "{} cards",
        "card_1": "1 card",
        "known": "known",
        "trick": "trick",
        "led": "{} led {}",
        "empty_trick": "(no card led)",
        "last_trick": "last trick",
        "won_by": "won by {}",
        "eyes": "eyes",
        "held": "held marriage",
        "hidden": "hidden (count them yourself)",
        "tricks": "tricks won",
        "to_move": "to move",
        "game_over": "game over",
        "winner": "{} wins {} game point{} ({})",
        "bummerl": "Bummerl score",
        "marriages": "marriages",
        "exchange": "exchange",
        "talon_order": "talon order",
        "actions": {
            "exchange": "exchange",
            "close": "close",
            "declare": "declare 66",
            "marriage": "marriage {}",
            "play": "play {}",
        },
        "last": "last action",
        "none": "-",
    },
    "de": {
        "player": "Spieler {}",
        "you": " (du)",
        "dealer": "Geber",
        "trump": "Atout",
        "trump_card": "Atoutkarte",
        "talon": "Talon",
        "cards": "verdeckte Karten",
        "card": "verdeckte Karte",
        "closed_by": "zugedreht von {}",
        "exhausted": "aufgebraucht",
        "hand": "Hand",
        "cards_n": "{} Karten",
        "card_1": "1 Karte",
        "known": "bekannt",
        "trick": "Stich",
        "led": "{} spielt {} aus",
        "empty_trick": "(noch nichts ausgespielt)",
        "last_trick": "letzter Stich",
        "won_by": "gewonnen von {}",
        "eyes": "Augen",
        "held": "angesagt, noch nicht gutgeschrieben",
        "hidden": "verdeckt (selbst mitzählen)",
        "tricks": "Stiche",
        "to_move": "am Zug",
        "game_over": "Spiel aus",
        "winner": "{} gewinnt {} Punkt{} ({})",
        "bummerl": "Bummerl-Stand",
        "marriages": "Ansagen",
        "exchange": "Austausch",
        "talon_order": "Talon-Reihenfolge",
        "actions": {
            "exchange": "austauschen",
            "close": "zudrehen",
            "declare": "ausmelden",
            "marriage": "Ansage {}",
            "play": "spielt {}",
        },
        "last": "letzte Aktion",
        "none": "-",
    },
}


#: how a game ended (Outcome.reason, RULES §5/§9), per language
REASON_TEXT = {
    "en": {
        "declared_66": "declared 66",
        "last_trick": "last trick",
        "closing_failed": "closing failed",
        "false_declaration": "false declaration",
        "renonce": "renonce",
    },
    "de": {
        "declared_66": "66 ausgemeldet",
        "last_trick": "letzter Stich",
        "closing_failed": "Zudrehen misslungen",
        "false_declaration": "falsch ausgemeldet",
        "renonce": "Renonce",
    },
}


def reason_text(reason: str, lang: str = "en") -> str:
    """Why a game ended, in words: ``reason_text("closing_failed", "de") == "Zudrehen misslungen"``."""
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
    if symbols:
        return SUIT_SYMBOLS[suit]
    return (SUIT_NAMES_DE if lang == "de" else SUIT_NAMES_EN)[suit]


def action_text(action: int, lang: str = "en", symbols: bool = True) -> str:
    """A readable action: ``"play T♥"``, ``"marriage ♥"``, ``"close"`` (German with ``lang="de"``)."""
    names = _LABELS[lang]["actions"]
    if action < MARRIAGE_BASE:
        return names["play"].format(card_text(action, lang, symbols))
    if action < EXCHANGE:
        return names["marriage"].format(_suit_text(action - MARRIAGE_BASE, lang, symbols))
    return names[{EXCHANGE: "exchange", CLOSE: "close", DECLARE: "declare"}[action]]


def _cards(mask: int, lang: str, symbols: bool, sep: str) -> str:
    # sorted by suit, then rank strength (card ids already are)
    return sep.join(card_text(c, lang, symbols) for c in iter_cards(mask))


def render_text(
    state: GameState,
    viewer: int | None = None,
    lang: str = "en",
    symbols: bool = True,
    bummerl_score: Sequence[int] | None = None,
) -> str:
    """A readable multi-line table of ``state``.

    ``viewer`` 0/1 shows what that player may see (RULES §8: own hand, known
    opponent cards, eyes only when ``rules.show_eyes``); ``None`` shows
    everything (both hands, talon order, eyes). ``lang`` ``"en"`` or ``"de"``;
    ``symbols`` suit symbols (``T♥``) or card names. ``bummerl_score`` (game
    points per seat) adds the Bummerl line. Raises ``ValueError`` for a bad
    ``viewer`` or ``lang``.
    """
    if viewer is not None and (viewer not in (0, 1) or type(viewer) is bool):
        raise ValueError(f"viewer must be 0, 1 or None (everything), got {viewer!r}")
    if lang not in _LABELS:
        raise ValueError(f"lang must be one of {', '.join(map(repr, _LABELS))}, got {lang!r}")
    L = _LABELS[lang]
    sep = " " if symbols else ", "

    def who(p: int) -> str:
        return L["player"].format(p) + (L["you"] if viewer == p else "")

    rules = state.rules
    lines = []
    head = f"{L['trump']}: {_suit_text(state.trump_suit, lang, symbols)}"
    if state.trump_card >= 0:
        head += f"   {L['trump_card']}: {card_text(state.trump_card, lang, symbols)}"
    talon = f"{L['talon']}: {state.talon_size} {L['card'] if state.talon_size == 1 else L['cards']}"
    if state.closed_by >= 0:
        talon += f", {L['closed_by'].format(who(state.closed_by))}"
    elif state.trump_card < 0:
        talon += f" ({L['exhausted']})"
    lines.append(head + "   " + talon)
    if viewer is None and state.talon_size:
        lines.append(f"{L['talon_order']}: {_cards_in_order(state.talon[state.talon_pos :], lang, symbols, sep)}")
    show_eyes = rules.show_eyes or viewer is None
    for p in (0, 1):
        tag = who(p) + (f" [{L['dealer']}]" if state.dealer == p else "")
        if viewer is None or viewer == p:
            hand = _cards(state.hands[p], lang, symbols, sep) or L["none"]
        else:
            n = state.hands[p].bit_count()
            hand = L["card_1"] if n == 1 else L["cards_n"].format(n)
            if state.known[p]:
                hand += f", {L['known']}: {_cards(state.known[p], lang, symbols, sep)}"
        line = f"{tag:<24} {L['hand']}: {hand}"
        line += f"   {L['tricks']}: {state.tricks_won[p]}"
        if show_eyes:
            line += f"   {L['eyes']}: {state.eyes[p]}"
            if state.held_marriage_eyes[p]:
                line += f" (+{state.held_marriage_eyes[p]} {L['held']})"
        lines.append(line)
    if not show_eyes:
        lines.append(f"{L['eyes']}: {L['hidden']}")
    if state.marriages:
        lines.append(
            f"{L['marriages']}: " + ", ".join(f"{who(p)} {_suit_text(s, lang, symbols)}" for p, s in state.marriages)
        )
    if state.exchange is not None:
        p, taken, given = state.exchange
        lines.append(
            f"{L['exchange']}: {who(p)} {card_text(given, lang, symbols)} -> {card_text(taken, lang, symbols)}"
        )
    if state.tricks:
        t = state.tricks[-1]
        lines.append(
            f"{L['last_trick']}: {card_text(t.lead, lang, symbols)} {card_text(t.follow, lang, symbols)}, "
            f"{L['won_by'].format(who(t.winner))}"
        )
    if state.lead_card >= 0:
        lines.append(f"{L['trick']}: " + L["led"].format(who(state.leader), card_text(state.lead_card, lang, symbols)))
    elif not state.is_terminal:
        lines.append(f"{L['trick']}: {L['empty_trick']}")
    if state.history:
        p, a = state.history[-1]
        lines.append(f"{L['last']}: {who(p)} {action_text(a, lang, symbols)}")
    if bummerl_score is not None:
        lines.append(f"{L['bummerl']}: {bummerl_score[0]}:{bummerl_score[1]} (→ {rules.bummerl_target})")
    if state.outcome is not None:
        o = state.outcome
        plural = "" if o.game_points == 1 else ("s" if lang == "en" else "e")
        lines.append(
            f"{L['game_over']}: "
            + L["winner"].format(who(o.winner), o.game_points, plural, reason_text(o.reason, lang))
            + f"   {L['eyes']}: {o.eyes[0]}:{o.eyes[1]}"
        )
    else:
        lines.append(f"{L['to_move']}: {who(state.current_player)}")
    return "\n".join(lines)


def _cards_in_order(cards, lang: str, symbols: bool, sep: str) -> str:
    return sep.join(card_text(c, lang, symbols) for c in cards)
