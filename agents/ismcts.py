"""Extended PIMC with opponent modelling (spec name ``ismcts``): worlds weighted by the opponent's plays.

Plain PIMC (:mod:`agents.pimc`) draws the hidden cards uniformly among the worlds
consistent with the information set (RULES §8, with PIMC's inferences). But the
opponent's own plays say more: a player leads the card their hand makes good,
not a random one. :class:`OpponentModelAgent` keeps PIMC's sampler and solver
and changes only the weight of each world:

1. draw ``samples`` worlds (opponent hand, talon order) exactly as
   :meth:`agents.pimc.PIMCAgent.weighted_worlds` does (known cards, voids
   shown after a closing, the skipped exchange/marriage inference);
2. when we follow a lead of the opponent, rebuild in each world the
   opponent's information set just before that lead
   (:func:`opponent_view_before_lead`: their hand then was their hand now plus
   the led card, everything else as now). Earlier plays are not modelled: with
   draws in between, a world does not fix which cards they held then;
3. multiply the world's weight by ``max(p, floor) ** temperature`` where ``p``
   is the probability the prior policy gives that play (``prior="ppo"``: the
   shipped network, :class:`agents.neural.PPOAgent`; ``"heuristic"``: the
   rule-based player, ``1 - floor`` for its choice; ``"none"``: plain PIMC);
4. solve every world exactly and choose as PIMC does (win share, then points;
   shared follow-ups; close only when it wins in ``close_min_win`` of the
   worlds), with the weighted statistics.

The search is deterministic given ``seed`` (``self.rng`` draws the worlds; the
prior is greedy and deterministic). Work per decision: ``samples`` exact
solves (as PIMC) plus one prior evaluation per world when following a lead.

Parameters (all validated; ``ValueError`` names the allowed values):
``samples`` (int 1..MAX_SAMPLES, the iteration budget: worlds per decision),
``prior`` (one of PRIORS), ``floor`` (0 < floor < 1), ``temperature``
(0..MAX_TEMPERATURE), ``seed``, and PIMC's ``objective``, ``close_min_win``,
``lead_inference``.

With ``prior="ppo"`` under rules other than the schnapsen preset the network
warns once (``RulesMismatchWarning``) and models the opponent less well.

Measured (2026-12-01, 2 shared cores, load 2-5, defaults: ``samples=40``,
``prior="ppo"``, ``floor=0.05``, ``temperature=1``), head to head against
``pimc:samples=40`` with :func:`agents.arena.play_pair` (duplicate deals):

* tuning seed 300, 200 games: 51.0% [44.1%, 57.8%], 0.92 vs 0.94 game points/game;
* held-out seed 4242, 400 games (what fitted in the time): 47.2% [42.4%, 52.1%]
  (Wilson 95%), 0.90 vs 1.05 game points/game;
* time per decision (12 games vs PIMC, ``time.perf_counter`` around ``act``):
  median 7.9 ms, p90 695 ms (PIMC(40) on the same machine: 5.0 ms, 570 ms).

No gain over plain PIMC was shown: the target of 60% was not reached. The
weighting only uses the opponent's current lead; a prior that models PIMC
itself, or ISMCTS/alpha-mu against its strategy fusion, were not tried.
"""

from __future__ import annotations

import importlib.util

from schnapsen_env.actions import EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import brief_repr
from schnapsen_env.engine import NO_CARD, GameState, InformationSet

from .base import Agent, check_to_move
from .pimc import (DEFAULT_CLOSE_MIN_WIN, DEFAULT_LEAD_INFERENCE, DEFAULT_OBJECTIVE, MAX_SAMPLES, OBJECTIVES,
                   PIMCAgent, _check_unit)

#: default worlds per decision (the iteration budget)
DEFAULT_SAMPLES = 40
#: policies that may model the opponent
PRIORS = ("ppo", "heuristic", "none")
DEFAULT_PRIOR = "ppo"
#: least likelihood a play gets (a prior is never certain)
DEFAULT_FLOOR = 0.05
#: exponent on the likelihood (0: ignore the prior, 1: trust it as a probability)
DEFAULT_TEMPERATURE = 1.0
#: largest exponent accepted
MAX_TEMPERATURE = 10.0


def modelled_decisions(info: InformationSet) -> list:
    """The opponent's card plays a world determines exactly: ``[(card, plays_ago)]``.

    Only the card the opponent led to the current trick (we follow it): their
    hand then was their hand now plus that card, everything else as now.
    ``plays_ago`` is 0 (kept for later extension). Empty when we lead.
    """
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

    Raises ``ValueError`` for any bad parameter, naming the allowed values.
    """

    name = "ismcts"

    def __init__(self, samples: int = DEFAULT_SAMPLES, seed: int | None = None, prior: str = DEFAULT_PRIOR,
                 floor: float = DEFAULT_FLOOR, temperature: float = DEFAULT_TEMPERATURE,
                 objective: str = DEFAULT_OBJECTIVE, close_min_win: float = DEFAULT_CLOSE_MIN_WIN,
                 lead_inference: float = DEFAULT_LEAD_INFERENCE):
        if type(samples) is not int or not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be an int in 1..{MAX_SAMPLES}, got {brief_repr(samples)}")
        if prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {prior!r}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        floor = _check_unit("floor", floor)
        if not 0.0 < floor < 1.0:
            raise ValueError(f"floor must be a number with 0 < floor < 1, got {floor!r}")
        if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
                or not 0.0 <= temperature <= MAX_TEMPERATURE):
            raise ValueError(f"temperature must be a number in [0, {MAX_TEMPERATURE:g}], got {temperature!r}")
        super().__init__(samples=samples, seed=seed, objective=objective, close_min_win=close_min_win,
                         lead_inference=lead_inference)
        if prior == "ppo" and importlib.util.find_spec("torch") is None:  # say so now, not at the first lead
            raise ImportError("ismcts with prior=ppo needs torch (pip install torch==2.13.0, then "
                              "pip install 'schnapsen-env[train]'); prior=heuristic needs nothing more")
        self.prior = prior
        self.floor = floor
        self.temperature = float(temperature)
        self._model: Agent | None = None

    def _prior_agent(self) -> Agent:
        if self._model is None:
            from . import make_agent
            self._model = make_agent(self.prior, seed=0)
        return self._model

    def play_likelihood(self, view: InformationSet, card: int) -> float:
        """Probability under the prior that the opponent (``view``) plays ``card``, at least ``floor``."""
        model = self._prior_agent()
        if self.prior == "ppo":
            p = float(model.policy(view)[card])
        else:
            p = 1.0 - self.floor if model.act(view) == card else 0.0
        return max(p, self.floor)

    def weighted_worlds(self, info: InformationSet) -> tuple:
        """PIMC's worlds, each weight times the prior likelihood of the opponent's modelled plays."""
        worlds, weights = super().weighted_worlds(info)
        if self.prior == "none" or self.temperature == 0.0:
            return worlds, weights
        decisions = modelled_decisions(info)
        if not decisions or len(worlds) < 2:
            return worlds, weights
        out = []
        cache: dict = {}
        for (hand, talon), w in zip(worlds, weights):
            lik = cache.get(hand)
            if lik is None:  # the lead's likelihood depends on their hand only (the talon is hidden to them)
                lik = 1.0
                for card, _ in decisions:
                    lik *= self.play_likelihood(opponent_view_before_lead(info, hand, talon), card)
                cache[hand] = lik
            out.append(w * lik ** self.temperature)
        if not any(out):
            return worlds, weights
        return worlds, out

    def act(self, info: InformationSet) -> int:
        """PIMC's choice over the reweighted worlds. Raises ``ValueError`` if the viewer is not to move."""
        legal = check_to_move(info)
        if len(legal) == 1:
            return legal[0]
        return self.choose(self.action_stats(info))
