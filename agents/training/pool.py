"""Training's opponents: :class:`OpponentPool`, a batched agent that plays each episode's opponent.

The training (:mod:`agents.training.train`) steps the public batched env,
``SchnapsenVectorGymEnv(opponent=pool, tensors=True)``: the env deals, draws the learner's seat and
credits rewards (an episode ended before the learner's first decision is skipped,
:attr:`schnapsen_env.learner.LearnerGame.learner_reward`); the pool chooses an opponent per episode
when the env starts it and answers for it, one batch per opponent. A user's trainer can take the
same pool as its env's opponent.
"""

from __future__ import annotations

import random

import torch

from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed
from schnapsen_env.vector.engine import VectorGames, selection_mask

from ..players.neural import ActorCritic, build_model, forward_in, masked_logits, sample_actions

__all__ = ["OpponentPool", "CURRENT", "POOL_AGENT_STREAM", "MIN_BFLOAT16_ROWS"]

#: opponent id of the learner's current policy; snapshot j has id 1 + j, baseline agent k has id -(k
#: + 1)
CURRENT = 0
#: name of the seed stream of the pool's baseline agents (agent k: ``derive_seed(seed,
#: POOL_AGENT_STREAM, k)``)
POOL_AGENT_STREAM = "pool_agent"
#: fewest rows of a network opponent's forward pass under ``precision="bfloat16"`` (fewer: float32,
#: faster there)
MIN_BFLOAT16_ROWS = 128


class OpponentPool:
    """The learner's opponents (fictitious-self-play style) as one batched agent
    (:mod:`agents.players.batched`).

    Each new episode's opponent is drawn by weight: the current policy ``current``
    (``current_weight``), the snapshots as a group (``snapshot_weight``; frozen copies of the policy
    in a ring of ``max_snapshots``, drawn uniformly) and each baseline agent of ``agents`` (spec ->
    weight, built with ``agents.make_batched_agent`` for ``rules`` on ``device``). Network opponents
    sample with ``generator`` (greedy without ``sample``) in ``precision``. :meth:`reset` (the env
    calls it with its opponent seed) seeds the draw and agent k's stream ``derive_seed(seed,
    POOL_AGENT_STREAM, k)``. ``ValueError`` from ``make_batched_agent`` for a bad spec.

    The env's hooks: :meth:`start_episodes` (new episodes: draw their opponents), :meth:`act`,
    :meth:`episode_labels` (``final_info["opponent"]``). ``actions``: opponent actions played so
    far.
    """

    batched = True
    name = "pool"

    def __init__(
        self,
        current: ActorCritic,
        *,
        current_weight: float = 1.0,
        snapshot_weight: float = 0.0,
        agents: dict | None = None,
        max_snapshots: int = 1,
        rules: Rules | None = None,
        device=None,
        sample: bool = True,
        generator: torch.Generator | None = None,
        precision: str = "float32",
    ):
        from agents.registry import make_batched_agent

        agents = agents or {}
        self.current = current
        self.max_snapshots = max_snapshots
        self.snapshots = []
        self.snapshot_count = 0  # snapshots taken so far (the ring position is count % max)
        self.agent_specs = list(agents)
        self.agents = [make_batched_agent(s, rules=rules or Rules(), device=device) for s in self.agent_specs]
        self._weights = [
            current_weight,
            snapshot_weight,
            *(float(agents[s]) for s in self.agent_specs),
        ]
        self.sample = sample
        self.generator = generator
        self.precision = precision
        self.rng = random.Random()  # the opponent draw; seeded by reset()
        # int64 (N,): each env slot's opponent id (set by start_episodes)
        self.opp: torch.Tensor | None = None
        self.env = None  # the env whose episodes this pool plays (its observer and Bummerl scores)
        self.actions = 0  # opponent actions played so far (int >= 0)

    # ------------------------------------------------------------------ the batched-agent protocol
    def reset(self, seed: int | None = None) -> None:
        """Seed the opponent draw with ``seed`` and baseline agent k with stream
        ``POOL_AGENT_STREAM``/k of it."""
        self.rng.seed(seed)
        for k, a in enumerate(self.agents):
            a.reset(None if seed is None else derive_seed(seed, POOL_AGENT_STREAM, k))

    def start_episodes(self, slots: torch.Tensor, env) -> None:
        """Draw the opponents of the episodes ``env`` (a ``SchnapsenVectorGymEnv``) starts in
        ``slots`` (bool (N,))."""
        if self.opp is None or self.opp.shape[0] != env.num_envs:
            self.opp = torch.zeros(env.num_envs, dtype=torch.int64, device=env.device)
        self.env = env
        idx = slots.nonzero().squeeze(1)
        if idx.numel():
            self.opp[idx] = torch.tensor(self.choose(self.rng, idx.numel()), device=env.device)

    def act(self, games: VectorGames, rows: torch.Tensor | None = None) -> torch.Tensor:
        """int64 (N,): each game's opponent's action for the player to move where ``rows`` (a bool
        mask (N,) or indices; None: every game in play), 0 elsewhere; one batch per opponent."""
        theirs = games.current_player >= 0
        if rows is not None:
            theirs = theirs & selection_mask(rows, games.n, games.device)
        idx = theirs.nonzero().squeeze(1)
        self.actions += idx.numel()
        actions = torch.zeros(games.n, dtype=torch.int64, device=games.device)
        ids = self.opp[idx]
        # the movers' observations and masks, encoded once for every network opponent
        obs = mask = None
        for o in torch.unique(ids).tolist():
            if o < 0:
                actions = torch.where(
                    theirs & (self.opp == o),
                    self.agents[-o - 1].act(games, idx[ids == o]),
                    actions,
                )
                continue
            if obs is None:
                env = self.env
                obs = env.observer.observe(
                    games,
                    games.current_player,
                    env.episodes.bummerl_score,
                    rows=idx,
                )
                mask = games.legal_mask(idx)
            mine = ids == o
            precision = self.precision if int(mine.sum()) >= MIN_BFLOAT16_ROWS else "float32"
            with torch.no_grad():
                logits, _ = forward_in(self.model(o), obs[mine], precision)
            if self.sample:
                chosen = sample_actions(logits, mask[mine], self.generator)[0]
            else:
                chosen = masked_logits(logits, mask[mine]).argmax(-1)
            actions[idx[mine]] = chosen
        return actions

    def episode_labels(self, idx: torch.Tensor) -> list:
        """The labels (:meth:`label`) of the opponents in env slots ``idx`` (int64 (K,))."""
        return [self.label(o) for o in self.opp[idx].tolist()]

    # ------------------------------------------------------------------ the pool
    def choose(self, rng: random.Random, k: int = 1) -> list:
        """Opponent ids for ``k`` new episodes, drawn by weight (snapshots uniformly among those
        kept; the current policy while there is none): two calls of ``rng``, whatever ``k``."""
        kinds = rng.choices(range(len(self._weights)), weights=self._weights, k=k)
        picks = iter(rng.choices(range(len(self.snapshots)), k=kinds.count(1)) if self.snapshots else ())
        return [1 + next(picks) if c == 1 and self.snapshots else CURRENT if c <= 1 else 1 - c for c in kinds]

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
        snap, pos = (
            self._frozen(self.current.state_dict()),
            self.snapshot_count % self.max_snapshots,
        )
        self.snapshots[pos : pos + 1] = [snap]
        self.snapshot_count += 1

    def state_dict(self) -> dict:
        """Snapshots, the draw's and the agents' random states, the slots' opponents, ``actions``
        (``torch.load(..., weights_only=True)`` reads it)."""
        return {
            "snapshots": [snapshot.state_dict() for snapshot in self.snapshots],
            "snapshot_count": self.snapshot_count,
            "agent_rng": [agent.get_state() for agent in self.agents],
            "rng": self.rng.getstate(),
            "opp": None if self.opp is None else self.opp.cpu(),
            "actions": self.actions,
        }

    def load_state_dict(self, d: dict) -> None:
        self.snapshots = [self._frozen(sd) for sd in d["snapshots"]]
        self.snapshot_count = d["snapshot_count"]
        self.actions = d["actions"]
        self.rng.setstate(d["rng"])
        dev = next(self.current.parameters()).device
        self.opp = None if d["opp"] is None else d["opp"].to(dev)
        for a, st in zip(self.agents, d["agent_rng"], strict=True):
            a.set_state(st)


def training_env(cfg, model: ActorCritic, generator: torch.Generator, num_envs: int, seed: int):
    """``(pool, env)``: the training's env of ``num_envs`` episodes for the config ``cfg`` (a
    ``TrainConfig``), the public ``SchnapsenVectorGymEnv`` (tensors on ``run.device``, seeded with
    ``seed``) against an :class:`OpponentPool` of ``model`` and ``cfg.opponents`` whose network
    opponents sample with ``generator``."""
    from schnapsen_env.vector.env import SchnapsenVectorGymEnv

    opponents = cfg.opponents
    pool = OpponentPool(
        model,
        current_weight=opponents.current,
        snapshot_weight=opponents.snapshots,
        agents=opponents.agents,
        max_snapshots=opponents.max_snapshots,
        rules=cfg.rules(),
        device=cfg.run.device,
        sample=opponents.sample,
        generator=generator,
        precision=cfg.run.precision,
    )
    env = SchnapsenVectorGymEnv(
        num_envs=num_envs,
        opponent=pool,
        seat="random",
        illegal_action="raise",
        device=cfg.run.device,
        seed=seed,
        variant=cfg.game.variant,
        episode=cfg.game.episode,
        reward=cfg.game.reward,
        tensors=True,
        compile=cfg.run.compile,
        **cfg.game.rules,
    )
    return pool, env
