"""The ``endgame=`` option of :class:`agents.neural.PPOAgent`: an exact player that takes over from the
network where it can. ``"solver"``: the exact solver once nothing is hidden (the talon exhausted, RULES §8);
``"expert"``: :meth:`agents.expert.ExpertAgent.endgame_action` (solved over the worlds consistent with the
information set once few cards are face down). The network (``"network"``) plays everything else."""

from __future__ import annotations

from schnapsen_env.engine import InformationSet

from .base import check_current_player
from .expert import ExpertAgent
from .solver import perfect_information_action


class EndgamePlayer:
    """The exact player of ``endgame`` (``"solver"`` or ``"expert"``); ``seed``: the expert's worlds."""

    def __init__(self, endgame: str, seed: int | None = None):
        self.expert = ExpertAgent(seed) if endgame == "expert" else None

    def reset(self, seed: int | None = None) -> None:
        """Re-seed: the expert's solved deals follow the game seed."""
        if self.expert is not None:
            self.expert.reset(seed)

    def action(self, info: InformationSet) -> int | None:
        """The exact action in ``info`` (the player to move's), or None where the network decides;
        ``IllegalActionError`` as :func:`~agents.base.check_current_player`."""
        if self.expert is not None:
            return self.expert.endgame_action(info)
        check_current_player(info)
        return perfect_information_action(info)
