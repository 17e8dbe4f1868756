"""Search variants measured in docs/benchmarks.md but not offered as ``search`` options: agent classes for
``benchmarks/search_strength.py --arms benchmarks/search_arms.py:NAME:key=value,...``."""

from __future__ import annotations

from agents.players.search import (
    DEFAULT_EXPLORATION,
    DEFAULT_ITERATIONS,
    MAX_ITERATIONS,
    SearchAgent,
)
from schnapsen_env.engine import InformationSet


class FollowBudgetSearch(SearchAgent):
    """``search`` with its own iteration budget when following a lead: ``follow_iterations`` (1 to the most
    ``search`` takes) instead of ``iterations``, which then applies to leads only (more time for leads and
    closes than for follows). ``iterations``, ``exploration``, ``leaf``, ``seed`` as ``search``'s.
    ``ValueError`` for a bad budget."""

    name = "search-follow-budget"

    def __init__(
        self,
        follow_iterations: int,
        iterations: int = DEFAULT_ITERATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        leaf: str = "exact",
        seed: int | None = None,
    ):
        super().__init__(iterations=iterations, exploration=exploration, leaf=leaf, seed=seed)
        if not 1 <= follow_iterations <= MAX_ITERATIONS:
            raise ValueError(f"follow_iterations must be 1..{MAX_ITERATIONS}, got {follow_iterations}")
        self.lead_iterations = self.iterations
        self.follow_iterations = follow_iterations

    def root_edges(self, info: InformationSet, until_decided: bool = False) -> list:
        """:meth:`SearchAgent.root_edges` with ``follow_iterations`` when following a lead."""
        self.iterations = self.follow_iterations if info.lead_card >= 0 else self.lead_iterations
        return super().root_edges(info, until_decided)
