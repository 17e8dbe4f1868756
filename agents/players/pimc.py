"""Perfect-information Monte Carlo (PIMC) agent: sample worlds, solve each exactly, average.

:class:`PIMCAgent` draws ``samples`` worlds (the opponent's hand and the talon order) consistent
with the information set (RULES §8; all of them when few), solves each with
:func:`agents.players.solver.action_values` and picks by ``objective`` (``"win"``: the share of worlds won,
ties by mean game points; ``"points"``). Options: ``lead_inference`` (weight of a world in which the
opponent skipped an exchange or marriage they could have made), ``opponent_closes``,
``shared_followups`` (close, exchange and marriage valued by one follow-up over all worlds) and
``close_min_win``.
"""

from __future__ import annotations

import itertools
import math
from typing import Annotated, Literal, NamedTuple

from pydantic import Field

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import iter_cards
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.information import hidden_candidates
from schnapsen_env.rulebook import (
    MARRIAGE_PAIRS,
    exchange_card,
    exchange_forbidden,
    marriage_forbidden,
)

from . import solver
from .base import Agent, check_current_player, checked_arguments

#: default number of sampled worlds per decision
DEFAULT_SAMPLES = 40
#: most sampled worlds per decision (about a second per decision on one core in Schnapsen; more only
#: hangs)
MAX_SAMPLES = 10_000
#: what :meth:`PIMCAgent.choose` maximises first: games won or game points
Objective = Literal["win", "points"]
DEFAULT_OBJECTIVE = "win"
#: a share or weight in [0, 1]
Unit = Annotated[float, Field(ge=0, le=1)]
#: a number of worlds
Samples = Annotated[int, Field(ge=1, le=MAX_SAMPLES)]
#: share of worlds that closing must win before it is considered
DEFAULT_CLOSE_MIN_WIN = 0.5
#: value close/exchange/marriage by their best follow-up over all worlds (see
#: PIMCAgent.action_stats)
DEFAULT_SHARED_FOLLOWUPS = True
#: whether the opponent may close the talon in the solved worlds (see the module docstring)
DEFAULT_OPPONENT_CLOSES = False
#: weight of a world that contradicts a skipped exchange or marriage of the opponent (1: no
#: inference)
DEFAULT_LEAD_INFERENCE = 0.1
#: rejection sampling gives up (and keeps worlds unweighted) after this many draws per world
MAX_ATTEMPTS_PER_SAMPLE = 50


class LeadInference(NamedTuple):
    """What one lead of the opponent says about their hand then: ``groups``, card masks they did not
    hold all of (the exchange card; a king and queen); ``led``: the card led (held for sure);
    ``later_plays``: cards they played later; ``draws``: cards they drew since."""

    groups: tuple
    led: int
    later_plays: int
    draws: int


def lead_inferences(info: InformationSet) -> list:
    """The opponent's skipped exchanges and marriages (RULES §4), as :class:`LeadInference` s: a
    player on lead who could exchange or announce nearly always does, so when the opponent led a
    card without doing so, they most likely did not hold those cards then (public information
    only)."""
    opp = 1 - info.player
    rules = info.rules
    talon_left = rules.talon_facedown + 1  # face-down cards plus the face-up trump card
    ex_card = exchange_card(rules, info.trump_suit)
    leads = []  # (trick index, exchange skipped, marriage skipped, exchange done before)
    plays = opp_tricks = 0
    # trick index of the lead at which the talon was closed, the trump card exchanged
    closed_at = exchange_at = -1
    draws_after = []  # per finished trick: whether both players drew after it
    specials: list = []  # the opponent's actions at its current lead before the card
    for p, a in info.history:
        k = plays // 2
        if a >= MARRIAGE_BASE:
            if a == CLOSE:
                closed_at = k
            elif a == EXCHANGE:
                exchange_at = k
            if p == opp:
                specials.append(a)
            continue
        if plays % 2 == 0 and p == opp:  # the opponent leads trick k
            # then the exchange card lay face up: nobody held it
            exchanged_before = 0 <= exchange_at < k
            is_open = talon_left > 0 and not 0 <= closed_at < k
            # the RULES §4 clauses, asked for a hand that holds the cards in question
            ex_ok = (
                not exchanged_before
                and exchange_forbidden(
                    rules,
                    1 << ex_card,
                    info.trump_suit,
                    is_open,
                    talon_left - 1,
                    k,
                )
                is None
            )
            mar_ok = marriage_forbidden(rules, MARRIAGE_PAIRS[0], 0, opp_tricks) is None
            no_marriage = mar_ok and not any(MARRIAGE_BASE <= x < EXCHANGE for x in specials)
            leads.append((k, ex_ok and EXCHANGE not in specials, no_marriage, exchanged_before))
        specials = []
        plays += 1
        if plays % 2 == 0:  # trick k finished
            opp_tricks += info.tricks[k].winner == opp
            drew = talon_left > 0 and not 0 <= closed_at <= k
            draws_after.append(drew)
            if drew:
                talon_left -= 2
    opp_cards = [t.lead if t.leader == opp else t.follow for t in info.tricks]
    if info.lead_card >= 0 and info.leader == opp:
        opp_cards.append(info.lead_card)
    out = []
    for k, no_exchange, no_marriage, exchanged_before in leads:
        # the card face up under the talon at that lead was in nobody's hand
        faceup = info.exchange[1] if info.exchange is not None else info.trump_card
        faceup = ex_card if exchanged_before else faceup
        groups = [1 << ex_card] if no_exchange else []
        if no_marriage:
            for g in MARRIAGE_PAIRS:
                if faceup < 0 or not g >> faceup & 1:
                    groups.append(g)
        if groups:
            later = 0
            for c in opp_cards[k + 1 :]:
                later |= 1 << c
            out.append(LeadInference(tuple(groups), 1 << opp_cards[k], later, sum(draws_after[k:])))
    return out


def inference_weight(inferences: list, opponent_hand: int, violation_weight: float) -> float:
    """Relative likelihood in [0, 1] of ``opponent_hand`` given :func:`lead_inferences`: each
    skipped exchange or marriage whose cards may all have been held at that lead multiplies in
    ``violation_weight`` (0: impossible, 1: ignored) times the chance that they all were."""
    w = 1.0
    for inf in inferences:
        pool = opponent_hand | inf.later_plays  # cards that may have come with a later draw
        m = pool.bit_count()
        for g in inf.groups:
            if g & ~(pool | inf.led):
                continue  # a card of the group was elsewhere then
            j = (g & pool).bit_count()
            p = math.comb(m - j, inf.draws) / math.comb(m, inf.draws) if m >= inf.draws else 0.0
            w *= 1.0 - (1.0 - violation_weight) * p
    return w


def weighing_inferences(info: InformationSet, lead_inference: float) -> list:
    """The :func:`lead_inferences` that weigh the worlds of ``info`` under the option ``lead_inference``: none
    when it is 1 (no inference) or the viewer knows the opponent's whole hand."""
    if lead_inference < 1.0 and hidden_candidates(info)[0]:
        return lead_inferences(info)
    return []


def consistent_worlds(
    info: InformationSet,
    limit: int,
    order_matters: bool,
    rng,
    accept=None,
) -> tuple[list, bool]:
    """``(worlds, enumerated)``: ``(opponent_hand_mask, talon_tuple)`` worlds consistent with
    ``info`` (RULES §8): all, in a fixed order, when at most ``limit``; else ``limit`` drawn with
    ``rng``, a hand kept only when ``accept(hand)``. ``order_matters``: talon orders are different
    worlds."""
    need, cards = hidden_candidates(info)
    order = order_matters and info.talon_size > 1
    count = math.comb(len(cards), need) * (math.factorial(info.talon_size) if order else 1)
    out = []
    if count <= limit:
        for combo in itertools.combinations(cards, need):
            hand = info.opponent_known | sum(1 << c for c in combo)
            rest = list(iter_cards(info.unseen & ~hand))
            out.extend((hand, tuple(t)) for t in (itertools.permutations(rest) if order else [rest]))
        return out, True
    while len(out) < limit:
        hand = info.opponent_known | sum(1 << c for c in rng.sample(cards, need))
        if accept is not None and not accept(hand):
            continue
        rest = list(iter_cards(info.unseen & ~hand))
        rng.shuffle(rest)
        out.append((hand, tuple(rest)))
    return out, False


class PIMCAgent(Agent):
    """PIMC over the exact solver (see the module docstring); ``seed`` seeds ``self.rng``, its only
    random source. Raises ``pydantic.ValidationError`` (a ``ValueError``) for a bad value."""

    name = "pimc"

    @checked_arguments
    def __init__(
        self,
        samples: Samples = DEFAULT_SAMPLES,
        seed: int | None = None,
        objective: Objective = DEFAULT_OBJECTIVE,
        close_min_win: Unit = DEFAULT_CLOSE_MIN_WIN,
        shared_followups: bool = DEFAULT_SHARED_FOLLOWUPS,
        lead_inference: Unit = DEFAULT_LEAD_INFERENCE,
        opponent_closes: bool = DEFAULT_OPPONENT_CLOSES,
    ):
        super().__init__(seed)
        self.samples = samples
        self.objective = objective
        self.close_min_win = close_min_win
        self.shared_followups, self.opponent_closes = shared_followups, opponent_closes
        self.lead_inference = lead_inference

    # ------------------------------------------------------------ worlds
    def weighted_worlds(self, info: InformationSet) -> tuple:
        """``(worlds, weights)``: all consistent worlds when at most ``samples`` (each weighted by
        :func:`inference_weight`), else ``samples`` drawn with ``self.rng``, each kept with
        probability its weight (then all weights are 1.0)."""
        inferences = weighing_inferences(info, self.lead_inference)

        def weight(hand: int) -> float:
            return inference_weight(inferences, hand, self.lead_inference) if inferences else 1.0

        attempts = 0

        def accept(hand: int) -> bool:  # rejection sampling by the weight, up to a number of draws
            nonlocal attempts
            attempts += 1
            limit = MAX_ATTEMPTS_PER_SAMPLE * self.samples
            return not (inferences and attempts <= limit and self.rng.random() >= weight(hand))

        worlds, enumerated = consistent_worlds(
            info,
            self.samples,
            info.closed_by < 0,
            self.rng,
            accept,
        )
        weights = [weight(hand) for hand, _ in worlds] if enumerated else []
        return worlds, weights if any(weights) else [1.0] * len(worlds)

    # ------------------------------------------------------------ acting
    def action_stats(self, info: InformationSet) -> dict:
        """``{action: (win_fraction, mean_game_points)}`` over the worlds (``ValueError`` if the
        viewer is not to move). ``shared_followups``: close, exchange and marriage get their best
        follow-up over all worlds."""
        legal = check_current_player(info)
        worlds, weights = self.weighted_worlds(info)
        preludes = [a for a in legal if MARRIAGE_BASE <= a < DECLARE] if self.shared_followups else []
        rows = [(wt, *values) for wt, values in zip(weights, self.world_values(info, worlds, preludes))]
        return self._stats_of(legal, preludes, rows)[0]

    def world_values(self, info: InformationSet, worlds: list, preludes: list):
        """Per world ``(hand, talon)``, lazily: ``({action: game points}, {prelude: {follow-up: game
        points}})``, the exact values (:mod:`agents.players.solver`) of the legal actions and of each
        prelude's follow-ups (``{None: value}`` when the prelude ends the game or the turn)."""
        me, opp = info.player, 1 - info.player
        closers = solver.BOTH_PLAYERS if self.opponent_closes else (me,)
        core = solver.compiled_core()
        if core is not None:
            bits = solver.closer_bits(closers)
            # one determinization; each world only swaps in the opponent's hand and the talon
            # (the core reads the GameState's fields by name)
            world = GameState.from_information_set(info, *worlds[0])

        def values(state: GameState) -> dict:
            if core is not None:
                return dict(core.action_values(info.rules, state, bits))
            return solver.action_values(state, closers)

        for hand, talon in worlds:
            if core is not None:
                world.hands[opp] = hand
                world.talon = talon
            root = values(world if core is not None else GameState.from_information_set(info, hand, talon))
            follow = {}
            for a in preludes:
                child = GameState.from_information_set(info, hand, talon)
                child.apply(a)
                follow[a] = {None: root[a]} if child.is_terminal or child.current_player != me else values(child)
            yield root, follow

    def _stats_of(self, legal: list, preludes: list, rows: list) -> tuple:
        """``(stats, per_world)``: the weighted ``{action: (win_fraction, mean_game_points)}`` of
        ``rows`` (``(weight, values, follow-up values)`` per world, :meth:`world_values`) and, per
        action, its per-world values (a prelude's: those of its best follow-up over all worlds)."""
        n = sum(r[0] for r in rows) or 1.0

        def stat(vals: list) -> tuple:
            return sum(r[0] * (v > 0) for r, v in zip(rows, vals)) / n, sum(r[0] * v for r, v in zip(rows, vals)) / n

        per_world = {a: [r[1][a] for r in rows] for a in legal}
        stats = {a: stat(per_world[a]) for a in legal}
        for a in preludes:
            best = None
            for b in rows[0][2][a]:
                vals = [r[2][a].get(b, -solver.MAX_GAME_POINTS) for r in rows]
                if best is None or self._key(stat(vals)) > self._key(best[0]):
                    best = (stat(vals), vals)
            stats[a], per_world[a] = best
        return stats, per_world

    def choose(self, stats: dict) -> int:
        """The action with the highest ``(win_fraction, mean_game_points)`` (``"points"``: the other
        way round; last ties: the lowest id); ``close`` only when it wins ``close_min_win`` of the
        worlds."""
        candidates = [a for a in stats if a != CLOSE or stats[a][0] >= self.close_min_win] or list(stats)
        return max(candidates, key=lambda a: (*self._key(stats[a]), -a))

    def _key(self, stat: tuple) -> tuple:
        """Order of ``(win_fraction, mean_game_points)`` pairs under the objective."""
        return stat if self.objective == "win" else (stat[1], stat[0])

    def act(self, info: InformationSet) -> int:
        """The legal action :meth:`choose` picks from the sampled worlds' exact values.
        Raises ``ValueError`` if the viewer is not to move."""
        legal = check_current_player(info)
        if len(legal) == 1:
            return legal[0]
        return self.choose(self.action_stats(info))
