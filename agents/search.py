"""The project's strongest search (spec name ``search``): SO-ISMCTS over PIMC's worlds, exact leaves.

Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse, IEEE TCIAIG 2012).
:class:`SearchAgent` runs ``iterations`` iterations; each draws one world (the opponent's hand and the talon
order) with PIMC's sampler (:meth:`agents.pimc.PIMCAgent.weighted_worlds`: known cards pinned, the
opponent's skipped exchanges and marriages weighted by ``lead_inference``) and walks one tree whose nodes
are the viewer's information sets: the actions since the root and the viewer's hand (what its draws
revealed). In a node, the actions legal in this world are chosen by UCB1 with availability counts
(``exploration``; an opponent's action is only counted where that world lets the opponent play it), so the
opponent's replies are chosen from what the opponent could hold, not from a world it cannot see, and no
action of the viewer is chosen per world (PIMC's strategy fusion) above the leaves. The first node off the
tree is valued exactly in its world by :func:`agents.solver.solve` (RULES §3–§5; the opponent never closes
there unless ``opponent_closes``), and a terminal one by its outcome. The root action visited most is
played (ties: the higher mean reward, then the lower id); :meth:`SearchAgent.act` stops once the iterations
left cannot change that action. When nothing is hidden (the talon exhausted, RULES §8) it plays the solver's
exact action. ``expand="all"`` (default) values every action of a new node in its world at once
(:func:`agents.solver.action_values`; under ``objective="win"`` with ``win_only``: only whether each action
wins, the same rewards in less time), ``"one"`` adds one action per iteration.

``leaf="rollout"`` values a leaf more cheaply (the Santase ISMCTS way): while its talon is open, both players
play one fixed policy (:func:`_rollout_action`: declare 66 when reached, exchange, announce a marriage, lead
the cheapest card, take a trick with the cheapest card of the led suit that wins it or trump an ace or ten,
else give up the cheapest card; never close), and only the position where the talon ran out or the game ended
is valued, exactly as above. ``leaf="exact"`` (default) solves the leaf where it is.

Reward per iteration, for the player who chose each action: ``objective="win"`` 1 for a won game, 0 for a
lost one; ``"points"`` the game points scaled from -3..3 to 0..1.

The loop runs in the solver's compiled core (``agents._solver_core.search_tree``, one call per decision) when
it is built. The core draws the worlds too, from what :meth:`SearchAgent.world_spec` computes once per
decision (:class:`WorldSpec`), and draws every random number of the worlds and the loop from a copy of
``self.rng``'s Mersenne Twister as CPython's ``random.Random`` would, so it gives the same worlds, counts,
moves and generator state as :meth:`SearchAgent.worlds` and the Python loop (``core=False``, the reference the
tests compare it with, and the fallback without the core). At most ``agents.pimc.MAX_SAMPLES`` distinct
worlds are drawn; more iterations draw from them by weight.
"""

from __future__ import annotations

import math
import time
from typing import Annotated, Literal, NamedTuple

from pydantic import Field

from schnapsen_env.actions import DECLARE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import CARD_EYES, NUM_SUITS, RANKS_PER_SUIT, iter_cards
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.information import hidden_candidates
from schnapsen_env.rules import EYES_TO_WIN

from . import solver
from .base import Agent, check_current_player, checked_arguments
from .pimc import (
    MAX_ATTEMPTS_PER_SAMPLE,
    DEFAULT_LEAD_INFERENCE,
    DEFAULT_OBJECTIVE,
    DEFAULT_OPPONENT_CLOSES,
    MAX_SAMPLES,
    Objective,
    PIMCAgent,
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
#: eyes of a lead (an ace or a ten) that the rollout policy trumps when it cannot win the trick in suit
TEN_EYES = 10


class WorldSpec(NamedTuple):
    """What the compiled core needs to draw one decision's worlds as :meth:`SearchAgent.worlds` does
    (``agents._solver_core.search_tree`` and ``sample_worlds`` read it by field name and raise ``ValueError``
    or ``TypeError`` naming a bad field). Cards are ids (0..23), masks card bitmasks."""

    need: int  #: the opponent's cards the viewer does not know
    candidates: tuple  #: card ids, ascending, that may be among them or in the talon (``hidden_candidates``)
    opponent_known: int  #: the opponent's cards the viewer knows (mask)
    unseen: int  #: the cards the viewer has not seen (mask): the opponent's unknown cards and the talon
    order_matters: bool  #: talon orders are different worlds (the talon is not closed)
    samples: int  #: the most distinct worlds: ``min(iterations, MAX_SAMPLES)``
    iterations: int  #: worlds drawn in all, one per iteration
    inferences: tuple  #: :class:`agents.pimc.LeadInference` s weighing the opponent's hands (empty: none)
    violation_weight: float  #: ``lead_inference``, 0..1
    max_attempts: int  #: hands the rejection sampler draws before it keeps every hand


class _Edge:
    """One action of a node: ``visits`` (iterations through it), ``reward`` (their total, for the player who
    chose it), ``available`` (iterations in which its node was visited with it legal), ``children``: the
    node after it, per hand of the viewer then (``{hand mask: {action: _Edge}}``)."""

    __slots__ = ("visits", "reward", "available", "children")

    def __init__(self):
        self.visits = 0
        self.reward = 0.0
        self.available = 0
        self.children = {}


class SearchAgent(Agent):
    """SO-ISMCTS with exact leaves (see the module docstring); ``seed`` seeds ``self.rng``, its only random
    source. ``ms``: a time budget in milliseconds per search, beside ``iterations`` (which still caps it);
    decisions under ``ms`` depend on the machine's speed and load and are not reproducible. ``core``: the
    compiled loop when the solver's core is built (``False``: the Python reference loop, same results).
    ``leaf``: how a leaf is valued, ``"exact"`` or ``"rollout"`` (see the module docstring).
    Raises ``pydantic.ValidationError`` (a ``ValueError``) for a bad value."""

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
        core: bool = True,
        leaf: Literal["exact", "rollout"] = "exact",
    ):
        super().__init__(seed)
        self.iterations = iterations
        self.exploration = exploration
        self.objective = objective
        self.lead_inference = lead_inference
        self.opponent_closes = opponent_closes
        self.expand = expand
        self.ms = ms
        self.core = core
        self.leaf = leaf

    def worlds(self, info: InformationSet) -> list:
        """``iterations`` worlds ``(opponent hand mask, talon tuple)`` drawn with ``self.rng``: PIMC's sample,
        or, when there are fewer consistent worlds, drawn from all of them by their inference weights. The
        Python loop's worlds; the compiled loop draws the same ones from :meth:`world_spec`."""
        sampler = PIMCAgent(samples=min(self.iterations, MAX_SAMPLES), lead_inference=self.lead_inference)
        sampler.rng = self.rng
        worlds, weights = sampler.weighted_worlds(info)
        if len(worlds) < self.iterations:
            return self.rng.choices(worlds, weights, k=self.iterations)
        return worlds

    def world_spec(self, info: InformationSet) -> WorldSpec:
        """The :class:`WorldSpec` from which the compiled core draws :meth:`worlds`."""
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

    def root_edges(self, info: InformationSet, until_decided: bool = False) -> dict:
        """``{action: _Edge}`` of the root after the search, in the order the actions were added (``ValueError``
        if the viewer is not to move). The compiled loop when built and ``core``, else the Python loop; both
        draw the same worlds and random numbers and return the same counts and rewards (the compiled loop's
        edges have no ``children``). ``until_decided``: stop once the iterations left cannot change the most
        visited action (:func:`most_visited` is then the full search's; the counts are fewer)."""
        check_current_player(info)
        deadline = None if self.ms is None else time.monotonic() + self.ms / MS_PER_S  # drawing the worlds too
        # a core built before it drew the worlds has no sample_worlds: the Python loop (same results)
        if self.core and hasattr(solver._core, "sample_worlds"):
            return self._root_edges_core(info, until_decided, deadline)
        return self._root_edges_python(info, self.worlds(info), until_decided, deadline)

    def _closers(self, me: int) -> tuple:
        """The players who may close in the leaf solves."""
        return solver.BOTH_PLAYERS if self.opponent_closes else (me,)

    def _root_edges_core(self, info: InformationSet, until_decided: bool, deadline) -> dict:
        """:meth:`root_edges` by the compiled loop (``agents._solver_core.search_tree``, which draws the worlds
        of :meth:`world_spec` too): ``self.rng``'s Mersenne Twister state goes in and comes back advanced as
        :meth:`worlds` and the Python loop would advance it. ``deadline``: None, or the ``time.monotonic()`` at
        which the search stops (after one iteration at least)."""
        spec = self.world_spec(info)
        version, twister, gauss_next = self.rng.getstate()
        win = self.objective == "win"
        rows, twister, _ = solver._core.search_tree(
            info.rules,
            self._any_world(info, spec),
            info.player,
            spec,
            solver._closer_bits(self._closers(info.player)),
            self.exploration,
            win,  # the reward: 1 for a won game, else game points scaled to 0..1
            win,  # the leaves: only whether each action wins
            self.expand == "all",
            twister,
            None if deadline is None else deadline - time.monotonic(),
            until_decided,
            self.leaf == "rollout",
        )
        self.rng.setstate((version, twister, gauss_next))
        root = {}
        for action, visits, reward, available in rows:
            edge = root[action] = _Edge()
            edge.visits = visits
            edge.reward = reward
            edge.available = available
        return root

    @staticmethod
    def _any_world(info: InformationSet, spec: WorldSpec) -> GameState:
        """One world of ``spec`` (drawn without randomness), for the compiled loop, which swaps in each world's
        opponent hand and talon."""
        hand = info.opponent_known
        for card in spec.candidates[: spec.need]:
            hand |= 1 << card
        return GameState.from_information_set(info, hand, tuple(iter_cards(spec.unseen & ~hand)))

    def _root_edges_python(self, info: InformationSet, worlds: list, until_decided: bool, deadline) -> dict:
        """:meth:`root_edges` by the Python loop: the reference the compiled loop is tested against
        (``deadline`` as in :meth:`_root_edges_core`)."""
        me = info.player
        closers = self._closers(me)
        root: dict = {}
        win_only = self.objective == "win"
        for done, (hand, talon) in enumerate(worlds):
            if deadline is not None and done and time.monotonic() >= deadline:
                break
            state = GameState.from_information_set(info, hand, talon)
            node = root
            path = []  # (edge, whether the viewer chose it) per action of this iteration
            points = None  # game points for the viewer, when a new node's values give them
            while True:
                if self.expand == "all" and not node:  # a new node: every action valued in this world
                    mover = state.current_player
                    values = self._action_values(state, closers, win_only)
                    for action, value in values.items():
                        edge = node[action] = _Edge()
                        edge.visits = 1
                        edge.available = 1
                        edge.reward = self._reward(value)
                    best = max(values.values())
                    points = best if mover == me else -best
                    break
                legal = state.legal_actions()
                for action in legal:
                    if action in node:
                        node[action].available += 1
                untried = [action for action in legal if action not in node]
                if untried:
                    choice = self.rng.randrange(len(untried)) if len(untried) > 1 else 0
                    action = untried[choice]
                    edge = node[action] = _Edge()
                    edge.available = 1
                else:
                    action = max(legal, key=lambda legal_action: _ucb(node[legal_action], self.exploration))
                    edge = node[action]
                mover = state.current_player
                state.apply(action)
                path.append((edge, mover == me))
                if (untried and self.expand == "one") or state.is_terminal or solver.is_perfect_information(state):
                    break
                node = edge.children.setdefault(state.hands[me], {})
            if points is None:
                points = _value_for(self._leaf_state(state), me, closers)
            reward = self._reward(points)
            for edge, mine in path:
                edge.visits += 1
                edge.reward += reward if mine else 1.0 - reward
            if until_decided and _decided(root, len(worlds) - done - 1):
                break
        return root

    def _leaf_state(self, state: GameState) -> GameState:
        """The position a leaf ``state`` (changed) is valued in: itself, or under ``leaf="rollout"`` the
        position once :func:`_rollout_action` has played on until the talon is exhausted or closed or the
        game is over."""
        if self.leaf == "rollout":
            while not state.is_terminal and state.talon_open:
                state.apply(_rollout_action(state))
        return state

    def _action_values(self, state: GameState, closers, win_only: bool) -> dict:
        """``{action: game points for the mover}`` of every action of the new node ``state`` the leaf solve
        allows (no close by a player not among ``closers``):
        :func:`agents.solver.action_values` (``win_only``: only the sign), or under ``leaf="rollout"`` each
        action's position after the rollout valued by :func:`_value_for` (exact; the same rewards)."""
        if self.leaf == "exact":
            return solver.action_values(state, closers, win_only)
        mover = state.current_player
        values = {}
        for action in solver._search_actions(state, solver._closer_bits(closers)):  # as the solver's actions
            child = state.clone()
            child.apply(action)
            values[action] = _value_for(self._leaf_state(child), mover, closers)
        return values

    def distribution(self, info: InformationSet) -> tuple[dict, float]:
        """``({action: visit share}, root value)`` of one search from ``info`` (``ValueError`` if the viewer is
        not to move): the soft move distribution expert iteration clones (Anthony et al. 2017; shares sum to 1)
        and the visit-weighted mean reward in [0, 1] (see the module docstring)."""
        edges = self.root_edges(info)
        visits = sum(edge.visits for edge in edges.values())
        shares = {action: edge.visits / visits for action, edge in edges.items()}
        return shares, sum(edge.reward for edge in edges.values()) / visits

    def _reward(self, points: int) -> float:
        """Reward in [0, 1] of ``points`` game points (-3..3) for the viewer, under ``objective``."""
        return float(points > 0) if self.objective == "win" else (points + 3) / 6.0

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


def most_visited(edges: dict) -> int:
    """The action of :meth:`SearchAgent.act` among root ``edges`` (``{action: _Edge}``): the most visits,
    ties to the higher mean reward, then the lower id."""
    return max(edges, key=lambda a: (edges[a].visits, edges[a].reward / max(edges[a].visits, 1), -a))


def _decided(root: dict, iterations_left: int) -> bool:
    """Whether the most visited root action leads the next by more than ``iterations_left`` visits (each
    iteration adds one root visit), so that no later iteration can change :func:`most_visited`."""
    visits = sorted((edge.visits for edge in root.values()), reverse=True)
    runner_up = visits[1] if len(visits) > 1 else 0
    return visits[0] - runner_up > iterations_left


def _ucb(edge: _Edge, exploration: float) -> float:
    """UCB1 with availability counts: mean reward plus ``exploration * sqrt(ln(available) / visits)``."""
    return edge.reward / edge.visits + exploration * math.sqrt(math.log(edge.available) / edge.visits)


def _cheapest_card(cards: list, trump_suit: int) -> int:
    """The card among ``cards`` (ids, ascending) the rollout gives up most readily: a non-trump before a trump,
    then fewer eyes, then the lower id."""
    return min(cards, key=lambda card: (card // RANKS_PER_SUIT == trump_suit, CARD_EYES[card], card))


def _rollout_action(state: GameState) -> int:
    """The rollout policy of ``leaf="rollout"`` (the module docstring), for whoever is to move in the talon-open
    ``state``; the compiled loop's ``rollout_action`` plays the same."""
    legal = state.legal_actions()
    player = state.current_player
    trump = state.trump_suit
    if DECLARE in legal and state.eyes[player] >= EYES_TO_WIN:
        return DECLARE
    if EXCHANGE in legal:
        return EXCHANGE
    marriages = [action for action in legal if MARRIAGE_BASE <= action < MARRIAGE_BASE + NUM_SUITS]
    if marriages:
        return MARRIAGE_BASE + trump if MARRIAGE_BASE + trump in marriages else marriages[0]
    cards = [action for action in legal if action < MARRIAGE_BASE]
    lead = state.lead_card
    if lead < 0:
        return _cheapest_card(cards, trump)
    lead_suit = lead // RANKS_PER_SUIT
    winners = [card for card in cards if card // RANKS_PER_SUIT == lead_suit and card < lead]
    if winners:
        return _cheapest_card(winners, trump)
    trumps = [card for card in cards if card // RANKS_PER_SUIT == trump]
    if lead_suit != trump and CARD_EYES[lead] >= TEN_EYES and trumps:
        return _cheapest_card(trumps, trump)
    return _cheapest_card(cards, trump)


def _value_for(state: GameState, me: int, closers) -> int:
    """Game points (-3..3, never 0) for ``me`` of ``state``: its outcome when over, else the exact value with
    best play from ``state`` (:func:`agents.solver.solve`; ``closers`` may close)."""
    if state.is_terminal:
        outcome = state.outcome
        return outcome.game_points if outcome.winner == me else -outcome.game_points
    value = solver.solve(state, closers).value
    return value if state.current_player == me else -value
