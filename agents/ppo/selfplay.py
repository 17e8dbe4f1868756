"""Many games in lockstep against an opponent pool: the training environment.

:class:`SelfPlayGames` drives ``num_games`` engine :class:`~schnapsen_env.engine.GameState`
objects directly (no PettingZoo per-step overhead). After :meth:`~SelfPlayGames.reset`
and after every :meth:`~SelfPlayGames.step`, every game waits for a decision of the
learner, whose observations (``encode_state``) and action masks fill preallocated
arrays, so the policy runs on one batch. The opponent's decisions, however many in a
row (exchange, close, marriage, then a card), are part of the environment: network
opponents are batched too, baseline agents act on their information sets.

An episode is a game (``episode="game"``) or a Bummerl (``"bummerl"``, RULES §6); each
slot's episode is a :class:`schnapsen_env.learner.LearnerGame`, the core shared with the
Gymnasium view and the arena (who moves, dealing the next game of a Bummerl, the episode's
end, its rewards). Its reward, :func:`schnapsen_env.learner.outcome_rewards` of the
learner's seat, comes at its end, credited to the learner's last decision in it:
game points won (+) or lost (-) (a Bummerl: +-1, or 2 for a Schneider-Bummerl when
the rules count it), or +-1 with ``reward="win_loss"``.
An episode that ends before the learner's first decision (``LearnerGame.skipped``: under
``declare="manual"`` the opponent on lead may declare, falsely, before the learner acts)
has no decision to credit: it counts in :meth:`~SelfPlayGames.pop_finished`'s statistics
and the slot starts a new episode, so the learner is never asked to act with an empty mask
(the Gymnasium view deals anew the same way).

All randomness comes from the ``random.Random`` and ``torch.Generator`` passed in, and
:meth:`~SelfPlayGames.state_dict` / :meth:`~SelfPlayGames.load_state_dict` save and
restore the games in progress (deck, dealer and actions so far, replayed on load), so
a resumed run continues exactly.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import torch

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.engine import GameState, Outcome
from schnapsen_env.learner import NEXT_GAME, LearnerGame
from schnapsen_env.match import Bummerl
from schnapsen_env.observation import OBS_SIZE, encode_state
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

from ..neural import ActorCritic, mask_from_bits, masked_logits, sample_actions

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

    def __init__(self, current: ActorCritic, current_weight: float, snapshot_weight: float,
                 agent_specs: dict, max_snapshots: int, seed: int):
        from agents import make_agent

        self.current = current
        self.max_snapshots = max_snapshots
        self.snapshots: list[ActorCritic] = []
        self.snapshot_count = 0  # snapshots taken so far (the ring position is count % max)
        self.agent_specs = list(agent_specs)
        # agent k draws from stream "seed/pool_agent/k" (schnapsen_env.seeding), never a shared seed
        self.agents = [make_agent(spec, seed=derive_seed(seed, POOL_AGENT_STREAM, k))
                       for k, spec in enumerate(self.agent_specs)]
        self._weights = [current_weight, snapshot_weight] + [float(agent_specs[s]) for s in self.agent_specs]

    def choose(self, rng: random.Random) -> int:
        """An opponent id for a new episode, drawn by weight (snapshots uniformly among those kept)."""
        k = rng.choices(range(len(self._weights)), weights=self._weights)[0]
        if k == 0:
            return CURRENT
        if k == 1:
            return 1 + rng.randrange(len(self.snapshots)) if self.snapshots else CURRENT
        return -(k - 1)

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
            "agent_rng": [_rng_state(a.rng) for a in self.agents],
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
            a.rng.setstate(_rng_from_state(st))


def _rng_state(rng: random.Random) -> list:
    """A ``random.Random`` state as plain lists (checkpoint-safe)."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from_state(st: list) -> tuple:
    return (int(st[0]), tuple(int(x) for x in st[1]), st[2])


class SelfPlayGames:
    """``num_games`` games (or Bummerl) in lockstep; the learner's side of each is batched.

    Arrays (preallocated, overwritten in place): ``obs`` float32 ``(num_games, OBS_SIZE)``,
    ``mask`` bool ``(num_games, NUM_ACTIONS)``. ``env_steps`` counts every action applied
    (learner and opponent). ``finished`` collects ``(opponent label, reward, won)`` of each
    episode ended since the last :meth:`pop_finished` (reward in game points, or Bummerl).
    ``views[i]``: slot ``i``'s :class:`~schnapsen_env.learner.LearnerGame`; ``states``,
    ``seat``, ``bummerls``, ``acted``, ``first_dealer`` and ``decks`` are lists read from them.
    Per episode the slot draws from ``rng``: the learner's seat, the opponent, the first
    dealer, then the deal (and every later deal of a Bummerl).
    """

    def __init__(self, rules: Rules, num_games: int, pool: OpponentPool, rng: random.Random,
                 generator: torch.Generator, episode: str = "game", reward: str = "game_points",
                 sample_opponents: bool = True):
        if episode not in ("game", "bummerl"):
            raise ValueError(f"episode must be 'game' or 'bummerl', got {episode!r}")
        if reward not in ("game_points", "win_loss"):
            raise ValueError(f"reward must be 'game_points' or 'win_loss', got {reward!r}")
        self.rules = rules
        self.n = num_games
        self.pool = pool
        self.rng = rng
        self.generator = generator
        self.bummerl_mode = episode == "bummerl"
        self.win_loss = reward == "win_loss"
        self.views = [LearnerGame(rules, episode, reward) for _ in range(num_games)]  # illegal actions raise
        self.sample_opponents = sample_opponents
        self.obs = np.zeros((num_games, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((num_games, NUM_ACTIONS), dtype=bool)
        self._bits = np.zeros(num_games, dtype=np.int64)
        self._opp_obs = np.zeros((num_games, OBS_SIZE), dtype=np.float32)
        self._opp_bits = np.zeros(num_games, dtype=np.int64)
        self.opp = [CURRENT] * num_games
        self.env_steps = 0
        self.finished: list[tuple] = []
        self._rewards = np.zeros(num_games, dtype=np.float32)
        self._dones = np.zeros(num_games, dtype=bool)

    # ---------------------------------------------------------------- views of the slots
    @property
    def states(self) -> list[GameState]:
        """The current game of each slot."""
        return [v.state for v in self.views]

    @property
    def seat(self) -> list[int]:
        """The learner's player id in each slot's episode."""
        return [v.seat for v in self.views]

    @property
    def acted(self) -> list[bool]:
        """Whether the learner has made a decision in each slot's episode."""
        return [v.acted for v in self.views]

    @property
    def bummerls(self) -> list[Bummerl | None]:
        """Each slot's Bummerl (``episode="bummerl"``), else None."""
        return [v.bummerl for v in self.views]

    @property
    def first_dealer(self) -> list[int]:
        """The first dealer of each slot's episode."""
        return [v.first_dealer for v in self.views]

    @property
    def decks(self) -> list[list]:
        """The deck (card ids in deal order) of each slot's current game."""
        return [list(v.state.deck) for v in self.views]

    # ---------------------------------------------------------------- episodes
    def _new_episode(self, i: int) -> None:
        rng = self.rng
        seat = rng.randrange(2)
        self.opp[i] = self.pool.choose(rng)
        self.views[i].start(rng, seat, first_dealer=rng.randrange(2))

    def _game_over(self, i: int) -> None:
        """Book the finished game of slot ``i`` (the core deals the next game of a Bummerl);
        at the episode's end credit the learner (unless skipped) and start the next episode."""
        v = self.views[i]
        if v.end_game() == NEXT_GAME:
            return
        r = float(v.rewards[v.seat])  # outcome_rewards(...)[seat]; a skipped episode's too (statistics only)
        if v.acted:  # credit the learner's last decision of this episode
            self._rewards[i] += r
            self._dones[i] = True
        self.finished.append((self.pool.label(self.opp[i]), r, v.winner == v.seat))
        self._new_episode(i)

    # ------------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Start a new episode in every slot and play until the learner is to move."""
        for i in range(self.n):
            self._new_episode(i)
        self._advance(range(self.n))
        self._encode()

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Apply one learner action per game (ints, legal under ``mask``), let the opponents
        play until the learner is to move again, and return ``(rewards float32 (N,),
        dones bool (N,))`` of these decisions: ``dones[i]`` = the episode ended after it
        (``obs[i]`` is then the first observation of a new episode)."""
        self._rewards[:] = 0.0
        self._dones[:] = False
        views = self.views
        for i, a in enumerate(actions):
            views[i].apply(int(a))  # the game's end is booked in _advance, slot by slot
        self.env_steps += self.n
        self._advance(range(self.n))
        self._encode()
        return self._rewards.copy(), self._dones.copy()

    def _advance(self, slots) -> None:
        """Play the opponents (and book game ends) until the learner is to move everywhere."""
        views, opp = self.views, self.opp
        todo = list(slots)
        while todo:
            by_net: dict = defaultdict(list)
            again = []
            for i in todo:
                v = views[i]
                s = v.state
                if s.outcome is not None:
                    self._game_over(i)
                    s = v.state
                p = s.current_player
                if p == v.seat:
                    continue
                o = opp[i]
                if o < 0:
                    agent = self.pool.agents[-o - 1]
                    v.apply(agent.act(s.information_set(p)))
                    self.env_steps += 1
                    again.append(i)
                else:
                    by_net[o].append(i)
            for o, idx in by_net.items():
                self._net_moves(o, idx)
                again.extend(idx)
            todo = again

    def _net_moves(self, o: int, idx: list) -> None:
        """One batched move of network opponent ``o`` in the games ``idx``."""
        k = len(idx)
        obs, bits, views = self._opp_obs, self._opp_bits, self.views
        for j, i in enumerate(idx):
            v = views[i]
            s = v.state
            b = v.bummerl
            encode_state(s, 1 - v.seat, bummerl_score=None if b is None else b.scores, out=obs[j])
            bits[j] = s.legal_mask()
        mask = torch.from_numpy(mask_from_bits(bits[:k]))
        with torch.no_grad():
            logits, _ = self.pool.model(o)(torch.from_numpy(obs[:k]))
            if self.sample_opponents:
                actions, _ = sample_actions(logits, mask, self.generator)
            else:
                actions = masked_logits(logits, mask).argmax(-1)
        for i, a in zip(idx, actions.tolist(), strict=True):
            views[i].apply(a)
        self.env_steps += k

    def _encode(self) -> None:
        obs, bits = self.obs, self._bits
        for i, v in enumerate(self.views):
            s = v.state
            b = v.bummerl
            if b is None:
                encode_state(s, v.seat, out=obs[i])
            else:
                encode_state(s, v.seat, bummerl_score=b.scores, out=obs[i])
            bits[i] = s.legal_mask()
        self.mask[:] = mask_from_bits(bits)

    def pop_finished(self) -> list:
        """The ``(opponent label, reward, won)`` of episodes ended since the last call."""
        out, self.finished = self.finished, []
        return out

    # ------------------------------------------------------------- save / load
    def state_dict(self) -> dict:
        """The games in progress as plain lists (checkpoint-safe); see :meth:`load_state_dict`."""
        slots = []
        for i, v in enumerate(self.views):
            s = v.state
            d = {"deck": list(s.deck), "dealer": s.dealer, "actions": [a for _, a in s.history],
                 "seat": v.seat, "opp": self.opp[i], "acted": v.acted}
            b = v.bummerl
            if b is not None:
                d["first_dealer"] = v.first_dealer
                d["outcomes"] = [[o.winner, o.game_points, o.reason, list(o.eyes), list(o.tricks_won)] for o in b.games]
            slots.append(d)
        return {"slots": slots, "env_steps": self.env_steps}

    def load_state_dict(self, d: dict) -> None:
        """Rebuild the games of :meth:`state_dict` by replaying their actions."""
        if len(d["slots"]) != self.n:
            raise ValueError(f"saved games: {len(d['slots'])} slots, this run has {self.n}")
        for i, sd in enumerate(d["slots"]):
            self.opp[i] = int(sd["opp"])
            b = first_dealer = None
            if "outcomes" in sd:
                first_dealer = int(sd["first_dealer"])
                b = Bummerl(self.rules, first_dealer)
                for w, gp, reason, eyes, tricks in sd["outcomes"]:
                    b.record(Outcome(int(w), int(gp), str(reason), tuple(eyes), tuple(tricks)))
            s = GameState(self.rules, [int(c) for c in sd["deck"]], int(sd["dealer"]))
            for a in sd["actions"]:
                s.apply(int(a))
            self.views[i].resume(self.rng, s, int(sd["seat"]), b, first_dealer, bool(sd["acted"]))
        self.env_steps = int(d["env_steps"])
        self._encode()
