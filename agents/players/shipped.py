"""The policies shipped with the package (``agents/players/checkpoints``), by spec name: a leaf module, so that
:mod:`agents.players.neural` finds them without importing the agent registry."""

from pathlib import Path

_CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
#: the policies shipped with the package by spec name: ``ppo`` trained with configs/default.yaml,
#: ``ppo-strong`` with configs/strong.yaml (each checkpoint's ``provenance`` entry: the commit,
#: config, seed, machine and torch version that made it, and what reproduces it; docs/agents.md)
SHIPPED = {"ppo": _CHECKPOINTS / "ppo_default.pt", "ppo-strong": _CHECKPOINTS / "ppo_strong.pt"}
