"""Rule options and presets (RULES.md §7).

``Rules`` is a frozen dataclass holding every option of the RULES §7 table. Build it from a preset and overrides::

    Rules.preset("schnapsen-sharp")
    Rules.from_dict({"deck": 24, "declare": "manual"})
    Rules.from_record("schnapsen", {"allow_closing": False})

Any unknown option, preset or bad value raises ``ValueError`` naming the option (or preset) and the
allowed values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from .cards import JACK, NINE, TOTAL_CARD_EYES, brief_repr

#: option name -> (allowed values, or None for a whole number >= 1; the allowed values as text)
_ALLOWED = {
    "deck": ((20, 24), "20 or 24"),
    "sharp": ((False, True), "true or false"),
    "declare": (("auto", "manual"), '"auto" or "manual"'),
    "false_declaration_points": (("as_if_correct", 2), '"as_if_correct" or 2'),
    "closing_counts_later_eyes": ((False, True), "true or false"),
    "show_eyes": ((False, True), "true or false"),
    "allow_closing": ((False, True), "true or false"),
    "marriage_leads_king": ((False, True), "true or false"),
    "marriage_credit": (("first_trick", "next_trick"), '"first_trick" or "next_trick"'),
    "bummerl_target": (None, "a whole number >= 1"),
    "schneider_bummerl": ((False, True), "true or false"),
}


def _allowed(value: Any, allowed: tuple | None) -> bool:
    """``value`` is one of ``allowed`` with the same type (``1`` is not ``True``, ``24.0`` not
    ``24``)."""
    if allowed is None:
        return type(value) is int and value >= 1
    return any(type(value) is type(a) and value == a for a in allowed)


#: eyes needed to win by declaring (RULES §5.1)
EYES_TO_WIN = 66
#: extra eyes for the last trick in Sechsundsechzig (RULES §5.2)
LAST_TRICK_BONUS = 10
#: marriage eyes, plain and in trump (RULES §4)
MARRIAGE_EYES = 20
TRUMP_MARRIAGE_EYES = 40
#: the loser's eyes up to which the winner scores 2 game points (RULES §5)
SCHNEIDER_EYES = 32
#: game points lost by a renonce (RULES §5.4)
RENONCE_POINTS = 3


@dataclass(frozen=True)
class Rules:
    """One game's rules: every option of RULES.md §7 with its default; ``ValueError`` for a value
    not allowed.

    Derived read-only attributes: ``hand_size`` (5/6), ``talon_facedown`` (9/11), ``exchange_rank``,
    ``last_trick_bonus`` (eyes 0/10), ``king_only``, ``manual_declare``, ``credit_marriage_at_once``
    and ``total_eyes`` (120/130)."""

    deck: int = 20
    """Deck size: 20 (Schnapsen) or 24 (Sechsundsechzig: nines, 6 cards each,
    the trump nine exchanges, last trick +10 eyes). RULES §1–2."""
    sharp: bool = False
    """Scharfschnapsen limits (RULES §4): no exchange before the first trick or with one face-down
    card left, no closing with one face-down card left, marriage only once the announcer has a
    trick, marriage leads the king."""
    declare: str = "auto"
    """``"auto"``: the game ends as soon as a player has 66; ``"manual"``:
    declaring is an action of the player on lead (RULES §5.1)."""
    false_declaration_points: Any = "as_if_correct"
    """``"as_if_correct"`` or ``2``: game points for a false declaration (§5.1)."""
    closing_counts_later_eyes: bool = False
    """Score a successful closing on the opponent's final eyes (§5.3)."""
    show_eyes: bool = True
    """Whether observations carry the eyes (§8)."""
    allow_closing: bool = True
    """``False`` removes the close action (§4)."""
    marriage_leads_king: bool = False
    """The announcer must lead the king (§4; always so under ``sharp``)."""
    marriage_credit: str = "first_trick"
    """``"first_trick"`` or ``"next_trick"`` (§4)."""
    bummerl_target: int = 7
    """Game points that win a Bummerl (§6); any whole number >= 1 (RULES §7)."""
    schneider_bummerl: bool = True
    """A Bummerl lost with 0 game points counts double (§6)."""

    def __post_init__(self) -> None:
        for name, (allowed, text) in _ALLOWED.items():
            value = getattr(self, name)
            if not _allowed(value, allowed):
                raise ValueError(f"bad value {brief_repr(value)} for option {name!r}: allowed {text}")
        # Derived quantities (RULES §1–§5): public attributes, set once here and read on the
        # engine's hot path. Not dataclass fields, so they take no part in ==, hash or to_dict().
        derived = {
            # cards in each hand after the deal: 5 (20 cards) or 6 (24 cards), RULES §2
            "hand_size": 5 if self.deck == 20 else 6,
            # face-down talon cards after the deal: 9 or 11, RULES §2
            "talon_facedown": self.deck - 2 * (5 if self.deck == 20 else 6) - 1,
            # rank index of the lowest trump, which exchanges: jack or nine, RULES §4
            "exchange_rank": JACK if self.deck == 20 else NINE,
            # extra eyes for the last trick (Sechsundsechzig only, not after closing), RULES §5.2
            "last_trick_bonus": LAST_TRICK_BONUS if self.deck == 24 else 0,
            # a marriage must be led with the king (marriage_leads_king, or sharp), RULES §4
            "king_only": self.marriage_leads_king or self.sharp,
            # declaring is an action of the player on lead (declare="manual"), RULES §5.1
            "manual_declare": self.declare == "manual",
            # a marriage announced after the announcer's first trick is credited at once, RULES §4
            "credit_marriage_at_once": self.marriage_credit == "first_trick",
        }
        derived["total_eyes"] = TOTAL_CARD_EYES + derived["last_trick_bonus"]
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict:
        """All options as a plain dict (names as in RULES §7)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some options changed (validated)."""
        return Rules.from_dict({**self.to_dict(), **changes})

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> "Rules":
        """Rules from an option dict; unknown options and bad values raise ``ValueError``."""
        for name in options:
            if name not in _ALLOWED:
                raise ValueError(f"unknown option {brief_repr(name)}: allowed options are {', '.join(_ALLOWED)}")
        return cls(**options)

    @classmethod
    def preset(cls, name: str = "schnapsen", **overrides: Any) -> "Rules":
        """The rules of a RULES §7 preset, with single options overridden.

        Raises ``ValueError`` for an unknown preset or option, or a bad value."""
        return cls.from_dict({**_preset_options(name), **overrides})

    @classmethod
    def from_record(
        cls,
        variant: str = "schnapsen",
        options: Mapping[str, Any] | None = None,
    ) -> "Rules":
        """Rules of a game record (RULES §9): a preset plus option overrides; errors as
        :meth:`preset`."""
        return cls.preset(variant, **(options or {}))


def _preset_options(name: str) -> dict[str, Any]:
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"unknown variant {brief_repr(name)}: allowed presets are {', '.join(PRESETS)}")
    return PRESETS[name]


#: RULES §7 presets: option overrides over the defaults
PRESETS: dict[str, dict[str, Any]] = {
    "schnapsen": {},
    "schnapsen-sharp": {
        "sharp": True,
        "marriage_leads_king": True,
        "declare": "manual",
        "show_eyes": False,
    },
    "schnapsen-tournament": {"closing_counts_later_eyes": True, "schneider_bummerl": False},
    "sechsundsechzig": {"deck": 24},
    "vu-course": {
        "allow_closing": False,
        "marriage_leads_king": True,
        "marriage_credit": "next_trick",
    },
}
VARIANTS = tuple(PRESETS)
