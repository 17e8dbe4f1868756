"""Training's environment: ``num_games`` episodes in lockstep on the batched engine against an opponent pool.

:class:`SelfPlayGames` drives :class:`~schnapsen_env.vector.learner.VectorEpisodes` on any torch
``device``. After :meth:`~SelfPlayGames.reset` and every :meth:`~SelfPlayGames.step`, every game
waits for the learner, so the policy acts on one batch; the opponents' decisions (however many in a
row) are part of the env (:func:`schnapsen_env.vector.env.play_opponents`), batched per opponent:
network opponents (the current policy, snapshots) in one forward pass each, baseline agents through
:mod:`agents.batched`. An episode is a game or a Bummerl (RULES §6); its reward
(:func:`schnapsen_env.learner.outcome_rewards` of the learner's seat) is credited to the learner's
last decision in it. An episode that ends before the learner's first decision is counted in
:meth:`~SelfPlayGames.pop_finished` and dealt anew. All randomness comes from the generators passed
in; :meth:`~SelfPlayGames.state_dict` saves every tensor and generator state for an exact resume.
"""

from __future__ import annotations

import random

import numpy as np
import torch

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed
from schnapsen_env.vector.env import play_opponents
from schnapsen_env.vector.learner import VectorEpisodes
from schnapsen_env.vector.observation import VectorObserver

from ..neural import ActorCritic, forward_in, masked_logits, sample_actions

#: opponent id of the learner's current policy; snapshot j has id 1 + j, baseline agent k has id -(k + 1)
CURRENT = 0
#: name of the seed stream of the pool's baseline agents (schnapsen_env.seeding)
POOL_AGENT_STREAM = "pool_agent"


class OpponentPool:
    """The opponents of the learner (fictitious-self-play style).

    ``weights``: relative weights of the current policy, the snapshots (as a group) and
    each baseline agent (``agent_specs`` built with ``agents.make_agent``). Snapshots are
    frozen copies of the policy kept in a ring of ``max_snapshots``.
    """

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

        self.current = current
        self.max_snapshots = max_snapshots
        self.snapshots: list[ActorCritic] = []
        self.snapshot_count = 0  # snapshots taken so far (the ring position is count % max)
        self.agent_specs = list(agent_specs)
        # agent k draws from stream "seed/pool_agent/k" (schnapsen_env.seeding), never a shared seed;
        # batched (agents.batched): random, heuristic and ppo on tensors, other specs game by game
        self.agents = [
            make_batched_agent(
                spec, rules=rules or Rules(), seed=derive_seed(seed, POOL_AGENT_STREAM, k), device=device
            )
            for k, spec in enumerate(self.agent_specs)
        ]
        self._weights = [current_weight, snapshot_weight] + [float(agent_specs[s]) for s in self.agent_specs]

    def choose(self, rng: random.Random, k: int = 1) -> list:
        """Opponent ids for ``k`` new episodes, drawn by weight (snapshots uniformly among those kept):
        two calls of ``rng`` (the kinds, then which snapshots), whatever ``k``."""
        kinds = rng.choices(range(len(self._weights)), weights=self._weights, k=k)
        picks = iter(rng.choices(range(len(self.snapshots)), k=kinds.count(1)) if self.snapshots else ())
        out = []
        for kind in kinds:
            if kind == 0 or (kind == 1 and not self.snapshots):  # the current policy (no snapshot yet)
                out.append(CURRENT)
            elif kind == 1:
                out.append(1 + next(picks))  # a snapshot
            else:
                out.append(-(kind - 1))  # agent spec kind - 2
        return out

    def label(self, opp: int) -> str:
        """Name of an opponent id for logs: ``current``, ``snapshot`` or the agent spec."""
        if opp == CURRENT:
            return "current"
        if opp > 0:
            return "snapshot"
        return self.agent_specs[-opp - 1]

    def model(self, opp: int) -> ActorCritic:
        return self.current if opp == CURRENT else self.snapshots[opp - 1]

    def add_snapshot(self) -> None:
        """Freeze a copy of the current policy (overwriting the oldest when the ring is full)."""
        from ..neural import build_model

        snap = build_model(self.current.model_config())
        snap.load_state_dict(self.current.state_dict())
        snap.eval()
        for p in snap.parameters():
            p.requires_grad_(False)
        pos = self.snapshot_count % self.max_snapshots
        if pos < len(self.snapshots):
            self.snapshots[pos] = snap
        else:
            self.snapshots.append(snap)
        self.snapshot_count += 1

    def state_dict(self) -> dict:
        return {
            "snapshots": [s.state_dict() for s in self.snapshots],
            "snapshot_count": self.snapshot_count,
            "agent_rng": [a.get_state() for a in self.agents],
        }

    def load_state_dict(self, d: dict) -> None:
        from ..neural import build_model

        self.snapshots = []
        for sd in d["snapshots"]:
            snap = build_model(self.current.model_config())
            snap.load_state_dict(sd)
            snap.eval()
            for p in snap.parameters():
                p.requires_grad_(False)
            self.snapshots.append(snap)
        self.snapshot_count = int(d["snapshot_count"])
        for a, st in zip(self.agents, d["agent_rng"], strict=True):
            a.set_state(st)


def _random_bits(rng: random.Random, k: int) -> torch.Tensor:
    """int64 (k,): ``k`` fair 0/1 draws from one ``rng.getrandbits(k)`` (bit i of it is draw i)."""
    raw = np.frombuffer(rng.getrandbits(k).to_bytes((k + 7) // 8, "little"), dtype=np.uint8)
    return torch.from_numpy(np.unpackbits(raw, count=k, bitorder="little").astype(np.int64))


def _rng_state(rng: random.Random) -> list:
    """A ``random.Random`` state as plain lists (checkpoint-safe)."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from_state(st: list) -> tuple:
    return (int(st[0]), tuple(int(x) for x in st[1]), st[2])


#: fewest rows of a network opponent's forward pass run in bfloat16 under ``precision="bfloat16"``
#: (fewer run in float32: on the development CPU a forward of the 256x256 network on 20 rows took
#: 110 us in float32 and 248 us under autocast, on 100 rows 364 and 346 us)
MIN_BFLOAT16_ROWS = 128


class SelfPlayGames:
    """``num_games`` episodes in lockstep on the batched engine; the learner's side is one batch.

    Tensors (on ``device``, overwritten at every step): ``obs`` float32 ``(num_games, OBS_SIZE)``,
    ``mask`` bool ``(num_games, NUM_ACTIONS)``: the learner's observation and legal actions.
    ``env_steps`` counts every action applied (learner and opponent). ``finished`` collects
    ``(opponent label, reward, won)`` of each episode ended since the last :meth:`pop_finished`
    (reward in game points, or Bummerl). ``episodes``: the
    :class:`~schnapsen_env.vector.learner.VectorEpisodes`; ``opp`` int64 ``(num_games,)`` the
    opponent id of each slot's episode. Per new episode the slot draws from ``rng``: the learner's
    seat, the opponent, the first dealer; the deals come from a torch generator seeded with
    ``deal_seed`` (training passes its own stream; None: a seed drawn from ``rng``). ``precision``
    (:data:`agents.neural.PRECISIONS`): the arithmetic of the network opponents' forward passes
    (:func:`agents.neural.forward_in`; groups under :data:`MIN_BFLOAT16_ROWS` rows run in float32).
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
        compile: bool = False,
        precision: str = "float32",
    ):  # noqa: A002 - torch.compile's word
        self.rules = rules
        self.n = num_games
        self.pool = pool
        self.rng = rng
        self.generator = generator
        # the deals: a torch generator of their own (deal_seed: a stream of the user's seed; None: drawn from rng)
        deals = torch.Generator(device=device or "cpu").manual_seed(
            rng.getrandbits(63) if deal_seed is None else deal_seed
        )
        self.episodes = VectorEpisodes(rules, num_games, episode, reward, "raise", device, deals, compile)
        self.device = self.episodes.device
        self.observer = VectorObserver(rules, episode == "bummerl", self.device, compile)
        self.bummerl_mode = episode == "bummerl"
        self.sample_opponents = sample_opponents
        self.precision = precision
        self.obs = torch.zeros((num_games, OBS_SIZE), dtype=torch.float32, device=self.device)
        self.mask = torch.zeros((num_games, NUM_ACTIONS), dtype=torch.bool, device=self.device)
        self.opp = torch.zeros(num_games, dtype=torch.int64, device=self.device)
        self.env_steps = 0
        self.finished: list[tuple] = []

    @property
    def games(self):
        """The :class:`~schnapsen_env.vector.engine.VectorGames` of the current games."""
        return self.episodes.games

    @property
    def seat(self) -> torch.Tensor:
        """int64 (N,): the learner's player id in each slot's episode."""
        return self.episodes.seat

    # ---------------------------------------------------------------- episodes
    def _new_episodes(self, slots: torch.Tensor) -> None:
        """Start new episodes in ``slots`` (bool (N,)): the learner's seats, the first dealers (one
        ``getrandbits`` of ``rng`` each) and the opponents (:meth:`OpponentPool.choose`), slots in order."""
        idx = slots.nonzero().squeeze(1)
        k = idx.numel()
        if k == 0:
            return
        rng = self.rng
        seat = torch.full((self.n,), -1, dtype=torch.int64, device=self.device)
        dealer = torch.zeros(self.n, dtype=torch.int64, device=self.device)
        seat[idx] = _random_bits(rng, k).to(self.device)
        dealer[idx] = _random_bits(rng, k).to(self.device)
        self.opp[idx] = torch.tensor(self.pool.choose(rng, k), dtype=torch.int64).to(self.device)
        self.episodes.start(slots, seat, dealer)

    def _book(self, over: torch.Tensor, rewards: torch.Tensor) -> None:
        """Statistics of the episodes ``over``: (opponent label, learner reward, won)."""
        mine = self.episodes.learner_rewards(rewards)[over].tolist()
        label = self.pool.label
        self.finished.extend((label(o), r, r > 0) for o, r in zip(self.opp[over].tolist(), mine))

    # ------------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Start a new episode in every slot and play until the learner is to move."""
        self._new_episodes(torch.ones(self.n, dtype=torch.bool, device=self.device))
        self._advance(
            torch.zeros(self.n, device=self.device), torch.zeros(self.n, dtype=torch.bool, device=self.device)
        )
        self._encode()

    def step(self, actions) -> tuple[torch.Tensor, torch.Tensor]:
        """Apply one learner action per game (int64 (N,), legal under ``mask``), let the opponents
        play until the learner is to move again, and return ``(rewards float32 (N,), dones bool (N,))``
        of these decisions: ``dones[i]`` = the episode ended after it (``obs[i]`` is then the first
        observation of a new episode)."""
        ep = self.episodes
        a = torch.as_tensor(actions, device=self.device)
        _, over, r = ep.step(a)
        self.env_steps += self.n
        rewards = torch.where(over, ep.learner_rewards(r), 0.0)
        dones = over.clone()
        if bool(over.any()):
            self._book(over, r)
            self._new_episodes(over)
        self._advance(rewards, dones)
        self._encode()
        return rewards, dones

    def _advance(self, rewards: torch.Tensor, dones: torch.Tensor) -> None:
        """Play the opponents until the learner is to move everywhere
        (:func:`schnapsen_env.vector.env.play_opponents`), booking episode ends and crediting
        ``rewards``/``dones`` (in place) of the episodes the learner acted in."""
        ep = self.episodes

        def on_over(over: torch.Tensor, r: torch.Tensor, credited: torch.Tensor) -> None:
            rewards.copy_(torch.where(credited, ep.learner_rewards(r), rewards))
            dones.logical_or_(credited)
            self._book(over, r)
            self._new_episodes(over)

        play_opponents(ep, self._pool_actions, on_over)

    def _pool_actions(self, theirs: torch.Tensor) -> torch.Tensor:
        """int64 (N,): each game's opponent's action where ``theirs`` (bool (N,)), one batch per opponent."""
        self.env_steps += int(theirs.sum())
        actions = torch.zeros(self.n, dtype=torch.int64, device=self.device)
        seen: dict = {"movers": theirs}  # the movers' observations and masks, built once for the networks
        for o in torch.unique(self.opp[theirs]).tolist():
            rows = theirs & (self.opp == o)
            actions = torch.where(rows, self._opponent_actions(o, rows, seen), actions)
        return actions

    def _opponent_actions(self, o: int, rows: torch.Tensor, seen: dict) -> torch.Tensor:
        """int64 (N,): opponent ``o``'s actions (valid at ``rows``). ``seen["movers"]`` (bool (N,)): the
        games where an opponent is to move; ``seen`` caches their observations and masks (encoded for
        those rows alone) for every network opponent of this position."""
        g = self.games
        if o < 0:
            return self.pool.agents[-o - 1].act(g, rows)
        if "obs" not in seen:
            movers = seen["idx"] = seen["movers"].nonzero().squeeze(1)
            seen["obs"] = self.observer.observe(
                g, g.current_player.clamp(min=0), self.episodes.bummerl_score, rows=movers
            )
            seen["mask"] = g.legal_mask(movers)
        mine = self.opp[seen["idx"]] == o
        idx, obs, mask = seen["idx"][mine], seen["obs"][mine], seen["mask"][mine]
        with torch.no_grad():
            # bfloat16 only where it pays: autocast casts the weights at every call, which costs more than
            # it saves on a small group of rows (a snapshot's few games)
            precision = self.precision if len(idx) >= MIN_BFLOAT16_ROWS else "float32"
            logits, _ = forward_in(self.pool.model(o), obs, precision)
            if self.sample_opponents:
                chosen, _ = sample_actions(logits, mask, self.generator)
            else:
                chosen = masked_logits(logits, mask).argmax(-1)
        actions = torch.zeros(self.n, dtype=torch.int64, device=self.device)
        actions[idx] = chosen
        return actions

    def _encode(self) -> None:
        g = self.games
        ep = self.episodes
        self.observer.observe(g, ep.seat, ep.bummerl_score, out=self.obs)
        self.mask.copy_(g.legal_mask())

    def pop_finished(self) -> list:
        """The ``(opponent label, reward, won)`` of episodes ended since the last call."""
        out, self.finished = self.finished, []
        return out

    # ------------------------------------------------------------- save / load
    def state_dict(self) -> dict:
        """The games in progress: every tensor and the deal generator state (checkpoint-safe)."""
        return {"episodes": self.episodes.state_dict(), "opp": self.opp.cpu(), "env_steps": self.env_steps}

    def load_state_dict(self, d: dict) -> None:
        """Restore :meth:`state_dict`."""
        self.episodes.load_state_dict(d["episodes"])
        self.opp = d["opp"].to(self.device, torch.int64)
        self.env_steps = int(d["env_steps"])
        self._encode()
