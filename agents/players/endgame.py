"""The ``endgame=`` option of a spec (``ppo:endgame=solver``): :func:`agents.make_agent` wraps the agent in an
:class:`EndgameAgent`, an exact player that takes over from it where it can. ``"solver"``: the exact
solver once nothing is hidden (the talon exhausted, RULES §8); ``"expert"``:
:meth:`agents.players.expert.ExpertAgent.endgame_action` (solved over the worlds consistent with the
information set once few cards are face down). The wrapped agent plays everything else;
``"network"`` wraps nothing."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, validate_call

from schnapsen_env.engine import InformationSet
from schnapsen_env.rules import Rules

from .base import Agent, check_current_player
from .expert import ExpertAgent
from .solver import perfect_information_action

#: who plays the endgame: the agent itself, the exact solver once nothing is hidden, or the expert's
#: solver
Endgame = Literal["network", "solver", "expert"]


class EndgameAgent(Agent):
    """``agent`` (an :class:`~agents.players.base.Agent`), with the endgames ``endgame`` (``"solver"`` or
    ``"expert"``) plays exactly; ``seed``: the expert's worlds. ``pydantic.ValidationError`` for
    another ``endgame``."""

    @validate_call(config=ConfigDict(strict=True, arbitrary_types_allowed=True))
    def __init__(self, agent: Agent, endgame: Endgame, seed: int | None = None):
        super().__init__(seed)
        self.agent = agent
        self.endgame = endgame
        if endgame == "expert":
            self.expert = ExpertAgent(seed)
        else:
            self.expert = None

    def reset(self, seed: int | None = None) -> None:
        """Re-seed both: the agent, and the expert's solved deals (they follow the game seed)."""
        super().reset(seed)
        self.agent.reset(seed)
        if self.expert is not None:
            self.expert.reset(seed)

    def cannot_play(self, rules: Rules) -> str | None:
        return self.agent.cannot_play(rules)

    def exact_action(self, info: InformationSet) -> int | None:
        """The exact action in ``info`` (the player to move's), or None where the agent decides;
        ``IllegalActionError`` as :func:`~agents.players.base.check_current_player`."""
        if self.expert is not None:
            return self.expert.endgame_action(info)
        check_current_player(info)
        return perfect_information_action(info)

    def act(self, info: InformationSet) -> int:
        solved = self.exact_action(info)
        if solved is not None:
            return solved
        return self.agent.act(info)
