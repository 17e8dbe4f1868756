"""PIMC with policy-based inference: sampled worlds weighted by the opponent's past actions.

:class:`GuidedPIMCAgent` (spec ``guided``) is :class:`~agents.pimc.PIMCAgent` whose worlds are
weighted by how likely the opponent's actions so far are under a trained policy (Rebstock, Solinas,
Buro, Sturtevant, "Policy Based Inference in Trick-Taking Card Games", 2019): it draws ``candidates``
worlds consistent with the information set (RULES §8), replays the history in each and multiplies
the policy's probabilities of every action the opponent took, given the opponent's observation
then (one batched network call per decision), raised to ``power``; then it solves ``samples``
worlds drawn by that weight (all candidates, weighted, when there are at most ``samples``).

A world fixes the opponent's hand now and the talon order; which of their cards they drew when is
drawn with ``self.rng`` among the assignments the public history allows (:func:`past_hands`).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Annotated

import numpy as np
import torch
from pydantic import Field

from schnapsen_env.actions import CLOSE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS
from schnapsen_env.cards import iter_cards
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.information import hidden_candidates
from schnapsen_env.observation import OBS_SLICES, encode_state
from schnapsen_env.rulebook import MARRIAGE_PAIRS

from .base import checked_arguments
from .neural import DEFAULT_CHECKPOINT, Policy, masked_log_probs
from .pimc import (
    DEFAULT_CLOSE_MIN_WIN,
    DEFAULT_LEAD_INFERENCE,
    DEFAULT_OBJECTIVE,
    DEFAULT_OPPONENT_CLOSES,
    DEFAULT_SAMPLES,
    DEFAULT_SHARED_FOLLOWUPS,
    MAX_SAMPLES,
    Objective,
    PIMCAgent,
    Samples,
    Unit,
    consistent_worlds,
    inference_weight,
    lead_inferences,
)

#: the guide named by its agent name: the shipped PPO checkpoint
GUIDE_NAMES = {"ppo": DEFAULT_CHECKPOINT}
#: default number of candidate worlds weighted per decision (tuned on arena seed 1, docs/agents.md)
DEFAULT_CANDIDATES = 40
#: default exponent of the policy likelihood (1: Bayes under the policy; 0: no weighting)
DEFAULT_POWER = 0.5
#: a number of candidate worlds
Candidates = Annotated[int, Field(ge=1, le=MAX_SAMPLES)]
#: an exponent of a likelihood
Power = Annotated[float, Field(ge=0, le=10)]
_HAND, _UNSEEN = OBS_SLICES["hand"], OBS_SLICES["unseen"]
_NUM_CARD_BITS = _HAND.stop - _HAND.start


class Timeline:
    """The public history of ``info`` split for replays: ``events`` forward, each ``(player, action)``
    or ``(winner, None, pins)`` for the two draws after a trick (``pins``: per player, the cards they
    are known to have held before it: announced marriages, the card taken by an exchange)."""

    def __init__(self, info: InformationSet):
        self.info = info
        self.events: list = []
        pins = [0, 0]
        plays = 0
        closed = False
        for p, a in info.history:
            self.events.append((p, a))
            if MARRIAGE_BASE <= a < EXCHANGE:
                pins[p] |= MARRIAGE_PAIRS[a - MARRIAGE_BASE]
            elif a == EXCHANGE:
                pins[p] |= 1 << info.exchange[1]
            elif a == CLOSE:  # no more draws
                closed = True
            elif a < MARRIAGE_BASE:
                plays += 1
                if plays % 2 == 0 and not closed:
                    self.events.append((info.tricks[plays // 2 - 1].winner, None, tuple(pins)))

    def past_hands(self, player: int, hand: int, rng) -> tuple:
        """``(hands at player's decisions, oldest first; initial hand; cards drawn per draw event,
        oldest first)`` for ``player`` holding ``hand`` now: the history undone backwards, each
        drawn card chosen with ``rng`` among the cards not known to be held before that draw."""
        ex = self.info.exchange
        at_decisions, drawn = [], []
        for ev in reversed(self.events):
            if ev[1] is None:  # the draws after a trick: one card each
                free = list(iter_cards(hand & ~ev[2][player]))
                card = free[int(rng.random() * len(free))]
                hand &= ~(1 << card)
                drawn.append(card)
                continue
            p, a = ev
            if p != player:
                continue
            if a < MARRIAGE_BASE:
                hand |= 1 << a
            elif a == EXCHANGE:
                hand = hand & ~(1 << ex[1]) | 1 << ex[2]
            at_decisions.append(hand)
        at_decisions.reverse()
        drawn.reverse()
        return at_decisions, hand, drawn


def replay_deal(info: InformationSet, timeline: Timeline, opponent_hand: int, talon: tuple, rng) -> GameState:
    """A new game (RULES §2) whose history ``info.history`` leads to the world ``(opponent_hand,
    talon)`` of ``info``, the past draws chosen with ``rng`` (:meth:`Timeline.past_hands`); ``info``
    must have its trump card face up (``trump_card >= 0``)."""
    me, opp = info.player, 1 - info.player
    _, first_me, drawn_me = timeline.past_hands(me, info.hand, rng)
    _, first_opp, drawn_opp = timeline.past_hands(opp, opponent_hand, rng)
    order = []
    for (w, _, _), a, b in zip((e for e in timeline.events if e[1] is None), drawn_me, drawn_opp):
        order += [a, b] if w == me else [b, a]
    fore = 1 - info.dealer
    hands = {me: list(iter_cards(first_me)), opp: list(iter_cards(first_opp))}
    fh, dh = hands[fore], hands[1 - fore]
    trump = info.exchange[1] if info.exchange is not None else info.trump_card
    if info.rules.deck == 20:
        deck = fh[:3] + dh[:3] + [trump] + fh[3:] + dh[3:]
    else:
        deck = fh[:3] + dh[:3] + fh[3:] + dh[3:] + [trump]
    return GameState(info.rules, deck + order + list(talon), info.dealer)


class GuidedPIMCAgent(PIMCAgent):
    """PIMC whose worlds a policy weights (module docstring). ``guide``: ``"ppo"`` (the shipped
    checkpoint) or a checkpoint path; ``candidates``: worlds weighted per decision; ``power``: exponent
    of the likelihood; the rest as :class:`~agents.pimc.PIMCAgent` (``lead_inference`` multiplies in).
    Raises ``pydantic.ValidationError`` for a bad value, errors of :func:`agents.neural.load_model`."""

    name = "guided"

    @checked_arguments
    def __init__(
        self,
        samples: Samples = DEFAULT_SAMPLES,
        seed: int | None = None,
        candidates: Candidates = DEFAULT_CANDIDATES,
        guide: str = "ppo",
        power: Power = DEFAULT_POWER,
        objective: Objective = DEFAULT_OBJECTIVE,
        close_min_win: Unit = DEFAULT_CLOSE_MIN_WIN,
        shared_followups: bool = DEFAULT_SHARED_FOLLOWUPS,
        lead_inference: Unit = DEFAULT_LEAD_INFERENCE,
        opponent_closes: bool = DEFAULT_OPPONENT_CLOSES,
    ):
        super().__init__(samples, seed, objective, close_min_win, shared_followups, lead_inference, opponent_closes)
        self.candidates = candidates
        self.power = power
        self.guide = Policy.load(Path(GUIDE_NAMES.get(guide, guide)), name=f"guide {guide}")

    def weighted_worlds(self, info: InformationSet) -> tuple:
        """``(worlds, weights)``: ``candidates`` worlds (all when fewer), weighted by
        :meth:`log_likelihoods` and ``lead_inference``; when more than ``samples``, ``samples`` draws by
        weight with ``self.rng`` (a world drawn ``k`` times weighs ``k``)."""
        worlds, _ = consistent_worlds(info, max(self.candidates, self.samples), info.closed_by < 0, self.rng)
        logs = self.log_likelihoods(info, worlds)
        top = max(logs)
        weights = [math.exp(self.power * (x - top)) if x > -math.inf else 0.0 for x in logs]
        if self.lead_inference < 1.0 and hidden_candidates(info)[0]:
            inferences = lead_inferences(info)
            weights = [
                w * inference_weight(inferences, hand, self.lead_inference) for w, (hand, _) in zip(weights, worlds)
            ]
        if not any(weights):
            weights = [1.0] * len(worlds)
        if len(worlds) <= self.samples:
            return worlds, weights
        counts = Counter(self.rng.choices(range(len(worlds)), weights=weights, k=self.samples))
        picked = sorted(counts)
        return [worlds[i] for i in picked], [float(counts[i]) for i in picked]

    def log_likelihoods(self, info: InformationSet, worlds: list) -> list:
        """Per world ``(hand, talon)``: the log-probability (natural log) under the guide of every action
        the opponent took, given their observation then (:mod:`schnapsen_env.observation`); all 0.0
        when nothing is to infer (one world, the trump card drawn, no past action of the opponent)."""
        opp = 1 - info.player
        if len(worlds) <= 1 or info.trump_card < 0 or all(p == info.player for p, _ in info.history):
            return [0.0] * len(worlds)
        self.guide.check_rules(info.rules)
        timeline = Timeline(info)
        # the public part of each past observation of the opponent, from one replay (their hand left out)
        state = replay_deal(info, timeline, *worlds[0], self.rng)
        snaps, actions = [], []
        for p, a in info.history:
            if p == opp:
                snap = state.clone()
                snap.hands[opp] = 0
                snaps.append(snap)
                actions.append(a)
            state.apply(a)
        base = np.stack([encode_state(s, opp) for s in snaps])  # (T, OBS_SIZE)
        rows: dict = {}  # (decision, hand then) -> row of the network's batch
        index = []
        for hand, _ in worlds:
            for t, h in enumerate(timeline.past_hands(opp, hand, self.rng)[0]):
                index.append(rows.setdefault((t, h), len(rows)))
        masks = []
        for t, h in rows:
            snaps[t].hands[opp] = h
            snaps[t]._mask = None  # the cached legal mask is stale once the hand changes
            masks.append(snaps[t].legal_mask())
        keys = list(rows)
        obs = base[[t for t, _ in keys]]
        held = _bits([h for _, h in keys], _NUM_CARD_BITS)
        obs[:, _HAND] = held
        obs[:, _UNSEEN] *= 1.0 - held
        mask = torch.from_numpy(_bits(masks, NUM_ACTIONS).astype(bool))
        with torch.inference_mode():
            logp = masked_log_probs(self.guide.model(torch.from_numpy(obs))[0], mask)
        taken = logp[torch.arange(len(keys)), torch.tensor([actions[t] for t, _ in keys])].double()
        return taken[torch.tensor(index)].view(len(worlds), -1).sum(1).tolist()


def _bits(values: list, width: int) -> np.ndarray:
    """float32 ``(len(values), width)``: bit ``i`` of each int (``width`` <= 32)."""
    raw = np.array(values, dtype="<u4").view(np.uint8).reshape(-1, 4)
    return np.unpackbits(raw, axis=1, count=width, bitorder="little").astype(np.float32)
