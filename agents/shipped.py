"""The policies shipped with the package (``agents/checkpoints``), by spec name: a leaf module, so that
:mod:`agents.neural` finds them without importing the agent registry."""

from pathlib import Path

_CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
#: the policies shipped with the package by spec name: ``ppo`` trained with configs/default.yaml, ``ppo-strong``
#: with configs/strong.yaml
SHIPPED = {"ppo": _CHECKPOINTS / "ppo_default.pt", "ppo-strong": _CHECKPOINTS / "ppo_strong.pt"}
