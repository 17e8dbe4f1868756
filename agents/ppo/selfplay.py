"""Training's environment: ``num_games`` episodes in lockstep on the batched engine against an opponent pool.
Every game waits for the learner; the opponents' decisions are part of the env, batched per opponent. An
episode is a game or a Bummerl (RULES §6); its reward goes to the learner's last decision in it."""

from __future__ import annotations

import random

import torch

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed
from schnapsen_env.vector.env import play_opponents
from schnapsen_env.vector.learner import VectorEpisodes
from schnapsen_env.vector.observation import VectorObserver

from ..neural import ActorCritic, build_model, forward_in, masked_logits, sample_actions

#: opponent id of the learner's current policy; snapshot j has id 1 + j, baseline agent k has id -(k + 1)
CURRENT = 0
#: name of the seed stream of the pool's baseline agents (schnapsen_env.seeding)
POOL_AGENT_STREAM = "pool_agent"


class OpponentPool:
    """The opponents of the learner (fictitious-self-play style), drawn by weight: the current policy
    (``current_weight``), the snapshots as a group (``snapshot_weight``; frozen copies of the policy in a
    ring of ``max_snapshots``) and each baseline agent (``agent_specs``: spec -> weight, built with
    ``agents.make_batched_agent``; agent k draws from seed stream ``seed/pool_agent/k``)."""

    def __init__(
        self,
        current: ActorCritic,
        current_weight: float,
        snapshot_weight: float,
        agent_specs: dict,
        max_snapshots: int,
        seed: int,
        rules: Rules | None = None,
        device=None,
    ):
        from agents import make_batched_agent

        self.current, self.max_snapshots, self.snapshots = current, max_snapshots, []
        self.snapshot_count = 0  # snapshots taken so far (the ring position is count % max)
        self.agent_specs = list(agent_specs)
        self.agents = [
            make_batched_agent(s, rules=rules or Rules(), seed=derive_seed(seed, POOL_AGENT_STREAM, k), device=device)
            for k, s in enumerate(self.agent_specs)
        ]
        self._weights = [current_weight, snapshot_weight, *(float(agent_specs[s]) for s in self.agent_specs)]

    def choose(self, rng: random.Random, k: int = 1) -> list:
        """Opponent ids for ``k`` new episodes, drawn by weight (snapshots uniformly among those kept; the
        current policy while there is none): two calls of ``rng``, whatever ``k``."""
        kinds = rng.choices(range(len(self._weights)), weights=self._weights, k=k)
        picks = iter(rng.choices(range(len(self.snapshots)), k=kinds.count(1)) if self.snapshots else ())
        return [
            1 + next(picks) if kind == 1 and self.snapshots else CURRENT if kind <= 1 else 1 - kind for kind in kinds
        ]

    def label(self, opp: int) -> str:
        """Name of an opponent id for logs: ``current``, ``snapshot`` or the agent spec."""
        return "current" if opp == CURRENT else "snapshot" if opp > 0 else self.agent_specs[-opp - 1]

    def model(self, opp: int) -> ActorCritic:
        return ([self.current] + self.snapshots)[opp]

    def _frozen(self, state: dict) -> ActorCritic:
        """A frozen network on the current policy's device with the weights ``state``."""
        snap = build_model(self.current.model_config()).to(next(self.current.parameters()).device)
        snap.load_state_dict(state)
        return snap.eval().requires_grad_(False)

    def add_snapshot(self) -> None:
        """Freeze a copy of the current policy (overwriting the oldest when the ring is full)."""
        snap, pos = self._frozen(self.current.state_dict()), self.snapshot_count % self.max_snapshots
        self.snapshots[pos : pos + 1] = [snap]
        self.snapshot_count += 1

    def state_dict(self) -> dict:
        snapshots, agent_rng = [s.state_dict() for s in self.snapshots], [a.get_state() for a in self.agents]
        return {"snapshots": snapshots, "snapshot_count": self.snapshot_count, "agent_rng": agent_rng}

    def load_state_dict(self, d: dict) -> None:
        self.snapshots = [self._frozen(sd) for sd in d["snapshots"]]
        self.snapshot_count = d["snapshot_count"]
        for a, st in zip(self.agents, d["agent_rng"], strict=True):
            a.set_state(st)


def _random_bits(rng: random.Random, k: int) -> torch.Tensor:
    """int64 (k,): ``k`` fair 0/1 draws from one ``rng.getrandbits(k)`` (bit i of it is draw i)."""
    bits = rng.getrandbits(k)
    return torch.tensor([(bits >> i) & 1 for i in range(k)], dtype=torch.int64)


#: fewest rows of a network opponent's forward pass under ``precision="bfloat16"`` (fewer: float32, faster there)
MIN_BFLOAT16_ROWS = 128


class SelfPlayGames:
    """``num_games`` episodes in lockstep on the batched engine; the learner's side is one batch.

    ``obs`` float32 ``(N, OBS_SIZE)`` and ``mask`` bool ``(N, NUM_ACTIONS)``: the learner's; ``opp`` int64 ``(N,)``:
    each slot's opponent id; ``env_steps``: every action applied. Seats, opponents and first dealers come from
    ``rng``, deals from a generator seeded with ``deal_seed`` (None: from ``rng``); network opponents sample with
    ``generator`` (greedy without ``sample_opponents``) in ``precision``.
    """

    def __init__(
        self,
        rules: Rules,
        num_games: int,
        pool: OpponentPool,
        rng: random.Random,
        generator: torch.Generator,
        episode: str = "game",
        reward: str = "game_points",
        sample_opponents: bool = True,
        device=None,
        deal_seed: int | None = None,
        compile: bool = False,  # noqa: A002 - torch.compile's word
        precision: str = "float32",
    ):
        self.n, self.pool, self.rng, self.generator = num_games, pool, rng, generator
        self.sample_opponents, self.precision = sample_opponents, precision
        seed = rng.getrandbits(63) if deal_seed is None else deal_seed
        deals = torch.Generator(device=device or "cpu").manual_seed(seed)
        self.episodes = VectorEpisodes(rules, num_games, episode, reward, "raise", device, deals, compile)
        self.device = dev = self.episodes.device
        self.games, self.seat = self.episodes.games, self.episodes.seat  # VectorGames; the learner's seats (N,)
        self.observer = VectorObserver(rules, episode == "bummerl", dev, compile)
        self.obs = torch.zeros((num_games, OBS_SIZE), dtype=torch.float32, device=dev)
        self.mask = torch.zeros((num_games, NUM_ACTIONS), dtype=torch.bool, device=dev)
        self.opp = torch.zeros(num_games, dtype=torch.int64, device=dev)
        self.env_steps = 0
        self.finished: list[tuple] = []

    def _new_episodes(self, slots: torch.Tensor) -> None:
        """Start new episodes in ``slots`` (bool (N,)): seats, first dealers, then opponents, from ``rng``."""
        idx = slots.nonzero().squeeze(1)
        if idx.numel() == 0:
            return
        seat = torch.full((self.n,), -1, dtype=torch.int64, device=self.device)
        dealer = torch.zeros_like(seat)
        seat[idx], dealer[idx] = (_random_bits(self.rng, idx.numel()).to(self.device) for _ in range(2))
        self.opp[idx] = torch.tensor(self.pool.choose(self.rng, idx.numel()), device=self.device)
        self.episodes.start(slots, seat, dealer)

    def _end(self, over: torch.Tensor, rewards: torch.Tensor) -> None:
        """Book the episodes ``over`` as (opponent label, learner reward, won) and start new ones there."""
        mine = self.episodes.learner_rewards(rewards)[over].tolist()
        self.finished.extend((self.pool.label(o), r, r > 0) for o, r in zip(self.opp[over].tolist(), mine))
        self._new_episodes(over)

    def reset(self) -> None:
        """Start a new episode in every slot and play until the learner is to move."""
        everywhere = torch.ones(self.n, dtype=torch.bool, device=self.device)
        self._new_episodes(everywhere)
        self._advance(torch.zeros(self.n, device=self.device), ~everywhere)

    def step(self, actions) -> tuple[torch.Tensor, torch.Tensor]:
        """Apply one learner action per game (int64 (N,), legal under ``mask``), let the opponents play until
        the learner is to move again; returns ``(rewards float32 (N,), dones bool (N,))`` of these decisions
        (``dones[i]``: the episode ended after it, and ``obs[i]`` is the first of a new one)."""
        ep = self.episodes
        _, over, r = ep.step(torch.as_tensor(actions, device=self.device))
        self.env_steps += self.n
        rewards, dones = torch.where(over, ep.learner_rewards(r), 0.0), over.clone()
        if bool(over.any()):
            self._end(over, r)
        self._advance(rewards, dones)
        return rewards, dones

    def _advance(self, rewards: torch.Tensor, dones: torch.Tensor) -> None:
        """Play the opponents until the learner is to move everywhere, crediting ``rewards`` and ``dones`` (in
        place) of the episodes the learner acted in; then encode the learner's observations."""
        ep = self.episodes

        def on_over(over: torch.Tensor, r: torch.Tensor, credited: torch.Tensor) -> None:
            rewards.copy_(torch.where(credited, ep.learner_rewards(r), rewards))
            dones.logical_or_(credited)
            self._end(over, r)

        play_opponents(ep, self._pool_actions, on_over)
        self._encode()

    def _pool_actions(self, theirs: torch.Tensor) -> torch.Tensor:
        """int64 (N,): each game's opponent's action where ``theirs`` (bool (N,)), one batch per opponent."""
        self.env_steps += int(theirs.sum())
        actions = torch.zeros(self.n, dtype=torch.int64, device=self.device)
        g, idx = self.games, theirs.nonzero().squeeze(1)
        obs = mask = None  # the movers' observations and masks, encoded once for every network opponent
        for o in torch.unique(self.opp[theirs]).tolist():
            rows = theirs & (self.opp == o)
            if o < 0:
                actions = torch.where(rows, self.pool.agents[-o - 1].act(g, rows), actions)
                continue
            if obs is None:
                obs = self.observer.observe(g, g.current_player.clamp(min=0), self.episodes.bummerl_score, rows=idx)
                mask = g.legal_mask(idx)
            mine = self.opp[idx] == o
            precision = self.precision if int(mine.sum()) >= MIN_BFLOAT16_ROWS else "float32"
            with torch.no_grad():
                logits, _ = forward_in(self.pool.model(o), obs[mine], precision)
            chosen = sample_actions(logits, mask[mine], self.generator)[0] if self.sample_opponents else None
            actions[idx[mine]] = masked_logits(logits, mask[mine]).argmax(-1) if chosen is None else chosen
        return actions

    def _encode(self) -> None:
        ep = self.episodes
        self.observer.observe(ep.games, ep.seat, ep.bummerl_score, out=self.obs)
        self.mask.copy_(ep.games.legal_mask())

    def pop_finished(self) -> list:
        """The ``(opponent label, reward, won)`` of the episodes ended since the last call."""
        out, self.finished = self.finished, []
        return out

    def state_dict(self) -> dict:
        """The games in progress: every tensor and the deal generator's state."""
        return {"episodes": self.episodes.state_dict(), "opp": self.opp.cpu(), "env_steps": self.env_steps}

    def load_state_dict(self, d: dict) -> None:
        self.episodes.load_state_dict(d["episodes"])
        self.opp.copy_(d["opp"])
        self.env_steps = d["env_steps"]
        self._encode()
