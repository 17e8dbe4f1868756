"""The project's strongest search (spec name ``search``): SO-ISMCTS over PIMC's worlds, exact leaves.

Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse, IEEE TCIAIG 2012).
:class:`SearchAgent` runs ``iterations`` iterations; each draws one world (the opponent's hand and the talon
order) as PIMC does (:mod:`agents.players.pimc`: known cards pinned, the opponent's skipped exchanges and marriages
weighted by ``lead_inference``) and walks one tree whose nodes are the viewer's information sets: the actions
since the root and the viewer's hand (what its draws revealed). In a node, the actions legal in this world are
chosen by UCB1 with availability counts (``exploration``; an opponent's action is only counted where that world
lets the opponent play it), so the opponent's replies are chosen from what the opponent could hold, not from a
world it cannot see, and no action of the viewer is chosen per world (PIMC's strategy fusion) above the leaves.
The first node off the tree is valued exactly in its world by the solver (:mod:`agents.players.solver`, RULES §3–§5; the
opponent never closes there unless ``opponent_closes``), and a terminal one by its outcome. The root action
visited most is played (ties: the higher mean reward, then the lower id); :meth:`SearchAgent.act` stops once the
iterations left cannot change that action. When nothing is hidden (the talon exhausted, RULES §8) it plays the
solver's exact action. ``expand="all"`` (default) values every action of a new node in its world at once (under
``objective="win"``: only whether each action wins, the same rewards in less time), ``"one"`` adds one action per
iteration.

``leaf="rollout"`` values a leaf more cheaply (the Santase ISMCTS way): while its talon is open, both players
play one fixed policy (declare 66 when reached, exchange, announce a marriage, lead the cheapest card, take a
trick with the cheapest card of the led suit that wins it or trump an ace or ten, else give up the cheapest
card; never close), and only the position where the talon ran out or the game ended is valued, exactly as
above. ``leaf="exact"`` (default) solves the leaf where it is.

Reward per iteration, for the player who chose each action: ``objective="win"`` 1 for a won game, 0 for a
lost one; ``"points"`` the game points scaled from -3..3 to 0..1.

The search runs in the compiled core (``agents.players._solver_core.search_tree``, ``agents/players/csrc/search.c``, one
call per decision), which draws the worlds too (``agents/players/csrc/worlds.c``) from :class:`WorldSpec` and every
random
number from its own generator, seeded once per decision from ``self.rng``: the same seed gives the same moves on
every platform and Python version. At most ``agents.players.pimc.MAX_SAMPLES`` distinct worlds are drawn; more
iterations draw from them by weight. Without the compiled core (no C compiler at install) the agent cannot be
built: :class:`SearchAgent` raises ``ImportError`` naming the fix.
"""

from __future__ import annotations

import time
from typing import Annotated, Literal, NamedTuple

from pydantic import Field

from schnapsen_env.cards import iter_cards
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.information import hidden_candidates

from . import solver
from .base import Agent, check_current_player, checked_arguments
from .pimc import (
    DEFAULT_LEAD_INFERENCE,
    DEFAULT_OBJECTIVE,
    DEFAULT_OPPONENT_CLOSES,
    MAX_ATTEMPTS_PER_SAMPLE,
    MAX_SAMPLES,
    Objective,
    Unit,
    weighing_inferences,
)

#: default iterations (worlds) per decision (its strength and time: docs/benchmarks.md)
DEFAULT_ITERATIONS = 8000
#: most iterations per decision (the compiled tree's memory grows about linearly with them)
MAX_ITERATIONS = 1_000_000
#: the longest time budget ``ms`` (ten minutes)
MAX_MS = 600_000
#: milliseconds per second
MS_PER_S = 1000
#: default UCB1 exploration constant (rewards lie in [0, 1]; Cowling et al. use 0.7)
DEFAULT_EXPLORATION = 0.7
#: bits of the seed the core's generator takes per decision
SEED_BITS = 64


class WorldSpec(NamedTuple):
    """How the compiled core draws one decision's worlds (``agents/players/csrc/worlds.c``; read by field name, a bad
    field is a ``ValueError`` or ``TypeError`` naming it). Cards are ids (0..23), masks card bitmasks."""

    need: int  #: the opponent's cards the viewer does not know
    candidates: tuple  #: card ids, ascending, that may be among them or in the talon (``hidden_candidates``)
    opponent_known: int  #: the opponent's cards the viewer knows (mask)
    unseen: int  #: the cards the viewer has not seen (mask): the opponent's unknown cards and the talon
    order_matters: bool  #: talon orders are different worlds (the talon is not closed)
    samples: int  #: the most distinct worlds: ``min(iterations, MAX_SAMPLES)``
    iterations: int  #: worlds drawn in all, one per iteration
    #: :class:`agents.players.pimc.LeadInference` s weighing the opponent's hands (empty: none)
    inferences: tuple
    violation_weight: float  #: ``lead_inference``, 0..1
    max_attempts: int  #: hands the rejection sampler draws before it keeps every hand


class SearchOptions(NamedTuple):
    """How the compiled core searches one decision (``agents/players/csrc/search.c``; read by field name, a bad field is
    a ``ValueError`` or ``TypeError`` naming it)."""

    viewer: int  #: the searching player, to move (0 or 1)
    closers: int  #: bitmask of the players who may close in the leaf solves (bit p: player p)
    exploration: float  #: UCB1's constant (>= 0)
    #: reward 1 for a won game, else 0 (``objective="win"``); else game points scaled to 0..1
    win_reward: bool
    win_only: bool  #: leaves valued by win or loss only (the same rewards under ``win_reward``)
    #: a new node values every action (``expand="all"``); else one action per iteration
    expand_all: bool
    #: ``leaf="rollout"``: a talon-open leaf is played on by the rollout policy first
    rollout_leaves: bool
    until_decided: bool  #: stop once the iterations left cannot change the most visited root action
    seconds: float | None  #: the time budget from the call, the worlds drawn included (None: none)
    seed: int  #: seeds the core's generator (0..2**64-1)


class RootEdge(NamedTuple):
    """One root action after a search."""

    action: int  #: the action id
    visits: int  #: iterations through it
    reward: float  #: their total reward (each 0..1) for the viewer
    available: int  #: iterations that found it legal at the root


class SearchAgent(Agent):
    """SO-ISMCTS with exact leaves (see the module docstring); ``seed`` seeds ``self.rng``, its only random
    source (one draw of :data:`SEED_BITS` bits per search seeds the core). ``ms``: a time budget in
    milliseconds per search, beside ``iterations`` (which still caps it); decisions under ``ms`` depend on the
    machine's speed and load and are not reproducible. ``leaf``: how a leaf is valued, ``"exact"`` or
    ``"rollout"`` (see the module docstring). Raises ``pydantic.ValidationError`` (a ``ValueError``) for a bad
    value, ``ImportError`` when the compiled core is not built."""

    name = "search"

    @checked_arguments
    def __init__(
        self,
        iterations: Annotated[int, Field(ge=1, le=MAX_ITERATIONS)] = DEFAULT_ITERATIONS,
        exploration: Annotated[float, Field(ge=0, le=10)] = DEFAULT_EXPLORATION,
        seed: int | None = None,
        objective: Objective = DEFAULT_OBJECTIVE,
        lead_inference: Unit = DEFAULT_LEAD_INFERENCE,
        opponent_closes: bool = DEFAULT_OPPONENT_CLOSES,
        expand: Literal["one", "all"] = "all",
        ms: Annotated[int, Field(ge=1, le=MAX_MS)] | None = None,
        leaf: Literal["exact", "rollout"] = "exact",
    ):
        if not solver.core_available():
            core = "agents.players._solver_core"
            raise ImportError(
                f"the search agent needs the compiled core ({core}), which is not built: install a "
                "C compiler and reinstall (pip install -e .)"
            )
        super().__init__(seed)
        self.iterations = iterations
        self.exploration = exploration
        self.objective = objective
        self.lead_inference = lead_inference
        self.opponent_closes = opponent_closes
        self.expand = expand
        self.ms = ms
        self.leaf = leaf

    def world_spec(self, info: InformationSet) -> WorldSpec:
        """The :class:`WorldSpec` of a search from ``info``."""
        need, candidates = hidden_candidates(info)
        samples = min(self.iterations, MAX_SAMPLES)
        return WorldSpec(
            need=need,
            candidates=tuple(candidates),
            opponent_known=info.opponent_known,
            unseen=info.unseen,
            order_matters=info.closed_by < 0,
            samples=samples,
            iterations=self.iterations,
            inferences=tuple(weighing_inferences(info, self.lead_inference)),
            violation_weight=self.lead_inference,
            max_attempts=MAX_ATTEMPTS_PER_SAMPLE * samples,
        )

    def search_options(
        self,
        info: InformationSet,
        until_decided: bool,
        seconds: float | None,
    ) -> SearchOptions:
        """The :class:`SearchOptions` of a search from ``info``; draws its seed from
        ``self.rng``."""
        closers = solver.BOTH_PLAYERS if self.opponent_closes else (info.player,)
        win = self.objective == "win"
        return SearchOptions(
            viewer=info.player,
            closers=solver.closer_bits(closers),
            exploration=self.exploration,
            win_reward=win,
            win_only=win,
            expand_all=self.expand == "all",
            rollout_leaves=self.leaf == "rollout",
            until_decided=until_decided,
            seconds=seconds,
            seed=self.rng.getrandbits(SEED_BITS),
        )

    def root_edges(self, info: InformationSet, until_decided: bool = False) -> list[RootEdge]:
        """The root's :class:`RootEdge` s after one search from ``info``, in the order the actions were added
        (``ValueError`` if the viewer is not to move). ``until_decided``: stop once the iterations left cannot
        change the most visited action (:func:`most_visited` is then the full search's; the counts are fewer)."""
        check_current_player(info)
        start = time.monotonic()
        spec = self.world_spec(info)
        seconds = None if self.ms is None else self.ms / MS_PER_S - (time.monotonic() - start)
        seconds_left = None if seconds is None else max(seconds, 0.0)
        options = self.search_options(info, until_decided=until_decided, seconds=seconds_left)
        world = self._any_world(info, spec)
        rows, _ = solver.compiled_core().search_tree(info.rules, world, spec, options)
        return [RootEdge(*row) for row in rows]

    @staticmethod
    def _any_world(info: InformationSet, spec: WorldSpec) -> GameState:
        """One world of ``spec`` (drawn without randomness): the core swaps in each world's opponent hand and
        talon."""
        hand = info.opponent_known
        for card in spec.candidates[: spec.need]:
            hand |= 1 << card
        return GameState.from_information_set(info, hand, tuple(iter_cards(spec.unseen & ~hand)))

    def distribution(self, info: InformationSet) -> tuple[dict, float]:
        """``({action: visit share}, root value)`` of one search from ``info`` (``ValueError`` if the viewer is
        not to move): the soft move distribution expert iteration clones (Anthony et al. 2017; shares sum to 1)
        and the visit-weighted mean reward in [0, 1] (see the module docstring)."""
        edges = self.root_edges(info)
        visits = sum(edge.visits for edge in edges)
        shares = {edge.action: edge.visits / visits for edge in edges}
        return shares, sum(edge.reward for edge in edges) / visits

    def act(self, info: InformationSet) -> int:
        """The root action visited most (see the module docstring); the exact action when nothing is hidden.
        Raises ``ValueError`` if the viewer is not to move."""
        legal = check_current_player(info)
        if len(legal) == 1:
            return legal[0]
        exact = solver.perfect_information_action(info)
        if exact is not None:
            return exact
        return most_visited(self.root_edges(info, until_decided=True))


def most_visited(edges: list[RootEdge]) -> int:
    """The action of :meth:`SearchAgent.act` among root ``edges``: the most visits, ties to the higher mean
    reward, then the lower id."""
    best = max(
        edges,
        key=lambda edge: (edge.visits, edge.reward / max(edge.visits, 1), -edge.action),
    )
    return best.action
