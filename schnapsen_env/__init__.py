"""schnapsen-env: the rules engine and RL environments for Schnapsen and Sechsundsechzig.

The engine (``cards``, ``rules``, ``actions``, ``engine``, ``match``) imports no
RL framework. ``schnapsen_env.schnapsen_v0`` is the PettingZoo AEC environment.
"""

from .actions import (
    CLOSE,
    DECLARE,
    EXCHANGE,
    MARRIAGE_BASE,
    MAX_GAME_LENGTH,
    NUM_ACTIONS,
    action_to_str,
    parse_action,
)
from .cards import card_to_str, parse_card
from .engine import GameState, IllegalActionError, InformationSet, Outcome
from .rules import PRESETS, VARIANTS, Rules

__version__ = "0.1.0"

#: submodules reachable as attributes right after ``import schnapsen_env`` (imported on first use,
#: so the engine alone never imports PettingZoo, Gymnasium or torch)
_LAZY_SUBMODULES = (
    "schnapsen_v0",
    "gym_env",
    "observation",
    "replay",
    "render",
    "match",
    "seeding",
)

__all__ = [
    "CLOSE",
    "DECLARE",
    "EXCHANGE",
    "MARRIAGE_BASE",
    "MAX_GAME_LENGTH",
    "NUM_ACTIONS",
    "GameState",
    "IllegalActionError",
    "InformationSet",
    "Outcome",
    "PRESETS",
    "Rules",
    "VARIANTS",
    "action_to_str",
    "card_to_str",
    "parse_action",
    "parse_card",
]

# register schnapsen_env/schnapsen_v0 (PettingZoo) and schnapsen_env/Schnapsen-v0 (Gymnasium) when
# installed
from .registration import register_envs as _register_envs  # noqa: E402

_register_envs()


def __getattr__(name: str):
    """``schnapsen_env.schnapsen_v0`` (and the other submodules) without importing them first."""
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
