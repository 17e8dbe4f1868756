"""Extended PIMC with opponent modelling (spec name ``pimc-om``; ``ismcts`` is a deprecated alias that warns with
a ``FutureWarning``): worlds weighted by the opponent's plays.

:class:`OpponentModelAgent` keeps PIMC's sampler and solver (:mod:`agents.players.pimc`) but (1) draws up to
``samples * growth ** tricks_played`` worlds (at most ``max_samples``); (2) when following the
opponent's lead, weights each world by ``max(p, floor) ** temperature``, ``p`` the probability that
the ``prior`` (``"pimc"``, ``"ppo"``, ``"heuristic"`` or ``"none"``) gives that lead from the
opponent's information set rebuilt in the world (:func:`opponent_view_before_lead`); (3) solves
worlds in batches of ``samples`` until the best action leads the next by ``stop_z`` standard errors.
With ``max_samples == samples`` and ``prior="none"`` it is PIMC exactly. Its strength against PIMC
is measured in docs/benchmarks.md.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Annotated, Literal

from pydantic import Field

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.engine import NO_CARD, GameState, InformationSet

from .base import Agent, check_current_player, checked_arguments
from .heuristic import HeuristicAgent
from .pimc import (
    DEFAULT_CLOSE_MIN_WIN,
    DEFAULT_LEAD_INFERENCE,
    DEFAULT_OBJECTIVE,
    Objective,
    PIMCAgent,
    Samples,
    Unit,
)

DEFAULT_SAMPLES = 40  #: default worlds per decision (the iteration budget)
Prior = Literal["ppo", "heuristic", "pimc", "none"]  #: policies that may model the opponent
DEFAULT_PRIOR = "pimc"
DEFAULT_FLOOR = 0.05  #: least likelihood a play gets (a prior is never certain)
#: exponent on the likelihood (0: ignore the prior, 1: trust it as a probability)
DEFAULT_TEMPERATURE = 1.0
MAX_TEMPERATURE = 10.0  #: largest exponent accepted
DEFAULT_PRIOR_SAMPLES = 4  #: worlds of the ``prior="pimc"`` model per modelled play
#: ``prior="pimc"`` models a lead only when the face-down talon then was at most this long (cost)
DEFAULT_MODEL_TALON = 3
MAX_MODEL_TALON = 20  #: longest face-down talon of any rules preset (bound of ``model_talon``)
DEFAULT_MAX_SAMPLES = 400  #: most worlds per decision (the cap of the adaptive budget)
#: the cap grows by this factor per trick played (solving gets ~5x cheaper per trick)
DEFAULT_GROWTH = 2.5
MAX_GROWTH = 10.0  #: largest growth accepted
#: stop adding worlds once the best action leads the next by this many standard errors
DEFAULT_STOP_Z = 2.0
MAX_STOP_Z = 10.0  #: largest stop_z accepted


def modelled_decisions(info: InformationSet) -> list:
    """The opponent's card plays a world determines exactly: ``[(card, plays_ago)]``; only the card
    they led to the current trick (``plays_ago`` 0). Empty when we lead."""
    opp = 1 - info.player
    if info.lead_card >= 0 and info.leader == opp and info.history and info.history[-1] == (opp, info.lead_card):
        return [(info.lead_card, 0)]
    return []


def opponent_view_before_lead(info: InformationSet, hand: int, talon: tuple) -> InformationSet:
    """The opponent's information set just before they led ``info.lead_card``, in the world
    ``(hand, talon)`` (their hand now ``hand``). Built from the world's determinization with
    the lead taken back (the engine's ``apply`` of a lead only moves the card and the turn)."""
    opp = 1 - info.player
    g = GameState.from_information_set(info, hand, talon)
    card = info.lead_card
    g.hands[opp] |= 1 << card
    g.lead_card = NO_CARD
    g.current_player = opp
    g.history = g.history[:-1]
    prev = g.history[-1] if g.history else None
    if prev is not None and prev[0] == opp and MARRIAGE_BASE <= prev[1] < EXCHANGE:
        g.pending_marriage = prev[1] - MARRIAGE_BASE  # announced at this lead, card not led yet
        g.known[opp] |= 1 << card  # the announced partner was public
    g._mask = None
    return g.information_set(opp)


class OpponentModelAgent(PIMCAgent):
    """PIMC whose worlds are weighted by the likelihood of the opponent's plays (module docstring).

    Raises ``ValueError`` (``pydantic.ValidationError`` for one parameter) naming the allowed
    values."""

    name = "pimc-om"

    @checked_arguments
    def __init__(
        self,
        samples: Samples = DEFAULT_SAMPLES,
        seed: int | None = None,
        prior: Prior = DEFAULT_PRIOR,
        floor: Annotated[float, Field(gt=0, le=1)] = DEFAULT_FLOOR,
        temperature: Annotated[float, Field(ge=0, le=MAX_TEMPERATURE)] = DEFAULT_TEMPERATURE,
        objective: Objective = DEFAULT_OBJECTIVE,
        close_min_win: Unit = DEFAULT_CLOSE_MIN_WIN,
        lead_inference: Unit = DEFAULT_LEAD_INFERENCE,
        max_samples: Samples | None = None,
        growth: Annotated[float, Field(ge=1, le=MAX_GROWTH)] = DEFAULT_GROWTH,
        stop_z: Annotated[float, Field(ge=0, le=MAX_STOP_Z)] = DEFAULT_STOP_Z,
        prior_samples: Samples | None = None,
        model_talon: Annotated[int, Field(ge=0, le=MAX_MODEL_TALON)] | None = None,
    ):
        if max_samples is None:
            max_samples = max(samples, DEFAULT_MAX_SAMPLES)
        elif max_samples < samples:
            raise ValueError(f"max_samples must be at least samples ({samples}), got {max_samples}")
        if prior != "pimc" and (prior_samples is not None or model_talon is not None):
            raise ValueError(
                f"prior_samples and model_talon set the pimc prior: they need prior=pimc, got prior={prior!r}"
            )
        if prior_samples is None:
            prior_samples = DEFAULT_PRIOR_SAMPLES
        if model_talon is None:
            model_talon = DEFAULT_MODEL_TALON
        super().__init__(
            samples=samples,
            seed=seed,
            objective=objective,
            close_min_win=close_min_win,
            lead_inference=lead_inference,
        )
        # say so now, not at the first lead
        if prior == "ppo" and importlib.util.find_spec("torch") is None:
            raise ImportError(
                "pimc-om with prior=ppo needs torch (pip install torch==2.13.0, then pip install "
                "'schnapsen-env[train]'); prior=pimc (the default) and prior=heuristic need nothing more"
            )
        self.prior = prior
        self.floor = float(floor)
        self.temperature = float(temperature)
        self.max_samples = max_samples
        self.prior_samples = prior_samples
        self.model_talon = model_talon
        self.growth = float(growth)
        self.stop_z = float(stop_z)
        self._model: Agent | None = None

    def world_cap(self, info: InformationSet) -> int:
        """Most worlds for a decision at ``info``: ``samples * growth ** tricks_played``, at most
        ``max_samples`` (an exact solve gets about five times cheaper with each trick played)."""
        return int(min(self.max_samples, round(self.samples * self.growth ** len(info.tricks))))

    def _prior_agent(self) -> Agent:
        if self._model is None:
            if self.prior == "pimc":
                self._model = PIMCAgent(
                    samples=self.prior_samples,
                    seed=0,
                    objective=self.objective,
                    close_min_win=self.close_min_win,
                    lead_inference=self.lead_inference,
                )
            elif self.prior == "ppo":
                from .neural import PPOAgent  # torch, only for this prior

                self._model = PPOAgent(seed=0)
            elif self.prior == "heuristic":
                self._model = HeuristicAgent(seed=0)
            else:
                msg = f"unknown agent {self.prior!r}: prior={self.prior!r} models no play"
                raise ValueError(msg)
            self._model.name = self.prior  # as make_agent(self.prior, seed=0) names it
        return self._model

    def play_likelihood(self, view: InformationSet, card: int) -> float:
        """Probability under the prior that the opponent (``view``) plays ``card``, at least
        ``floor``."""
        model = self._prior_agent()
        if self.prior == "ppo":
            return max(float(model.policy(view)[card]), self.floor)
        if self.prior == "pimc":
            if view.closed_by < 0 and view.talon_size > self.model_talon:
                return 1.0  # too costly to model: the play says nothing
            model.reset(0)  # the same view, the same likelihood
        return max(1.0 - self.floor if model.act(view) == card else 0.0, self.floor)

    def weighted_worlds(self, info: InformationSet) -> tuple:
        """PIMC's worlds (:meth:`world_cap` of them, or all when fewer exist), each weight times the
        prior likelihood of the opponent's modelled plays."""
        base = self.samples
        self.samples = self.world_cap(info)
        try:
            worlds, weights = super().weighted_worlds(info)
        finally:
            self.samples = base
        decisions = modelled_decisions(info)
        if self.prior == "none" or self.temperature == 0.0 or not decisions or len(worlds) < 2:
            return worlds, weights
        out, cache = [], {}
        for (hand, talon), w in zip(worlds, weights):
            # the lead's likelihood depends on their hand only (the talon is hidden to them)
            if hand not in cache:
                view = opponent_view_before_lead(info, hand, talon)
                cache[hand] = math.prod(self.play_likelihood(view, card) for card, _ in decisions)
            out.append(w * cache[hand] ** self.temperature)
        if not any(out):  # every weight 0 (underflow): PIMC's weights as they were
            return worlds, weights
        return worlds, out

    def action_stats(self, info: InformationSet) -> dict:
        """Per legal action ``{action: (win_fraction, mean_game_points)}`` over the weighted worlds,
        solved in batches of ``samples`` worlds until the best action leads the next by more than
        ``stop_z`` standard errors, or :meth:`world_cap` worlds. ``ValueError`` if the viewer is not
        to move."""
        legal = check_current_player(info)
        worlds, weights = self.weighted_worlds(info)
        preludes = [a for a in legal if MARRIAGE_BASE <= a < DECLARE] if self.shared_followups else []
        rows = []  # per world: (weight, {action: value}, {prelude: {follow_up: value}})
        stats = {}
        for wt, values in zip(weights, self.world_values(info, worlds, preludes)):
            rows.append((wt, *values))
            if len(rows) % self.samples == 0 or len(rows) == len(worlds):
                stats, per_world = self._stats_of(legal, preludes, rows)
                if len(rows) == len(worlds) or self._clear_lead(stats, per_world, rows):
                    break
        return stats

    def _clear_lead(self, stats: dict, per_world: dict, rows: list) -> bool:
        """Whether the best action's lead over the next is clear (see :meth:`action_stats`)."""
        best = self.choose(stats)
        rest = {a: st for a, st in stats.items() if a != best}
        # a close below close_min_win is not a rival
        if rest and self.choose(rest) == CLOSE and best != CLOSE:
            rest.pop(CLOSE)
        if not rest:
            return True
        second = self.choose(rest)
        if self.objective == "win":
            diffs = [(vb > 0) - (vs > 0) + 0.01 * (vb - vs) for vb, vs in zip(per_world[best], per_world[second])]
        else:
            diffs = [vb - vs for vb, vs in zip(per_world[best], per_world[second])]
        ws = [r[0] for r in rows]
        total = sum(ws)
        if total <= 0:
            return True
        mean = sum(w * d for w, d in zip(ws, diffs)) / total
        var = sum(w * (d - mean) ** 2 for w, d in zip(ws, diffs)) / total
        n_eff = total * total / sum(w * w for w in ws)
        se = math.sqrt(var / n_eff)
        return se == 0.0 or mean > self.stop_z * se
