"""The uniform random agent: a baseline and a test opponent."""

from __future__ import annotations

from schnapsen_env.engine import InformationSet

from .base import Agent, check_current_player


class RandomAgent(Agent):
    """Plays a uniformly random legal action, drawn from ``self.rng``."""

    name = "random"

    def act(self, info: InformationSet) -> int:
        legal = check_current_player(info)
        return legal[self.rng.randrange(len(legal))]
