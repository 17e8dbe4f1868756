"""Vector environments over the batched engine: pgx-style self-play and a Gymnasium ``VectorEnv``.

Both step ``num_envs`` episodes at once on a torch ``device`` with the batched engine
(:mod:`schnapsen_env.vector.engine`), observer and learner view: the same rules, observations and
rewards as the scalar views. :class:`SchnapsenVectorEnv` is self-play (both seats act through it,
every step returns a :class:`TimeStep`); :class:`SchnapsenVectorGymEnv` is a
``gymnasium.vector.VectorEnv`` where the learner plays one seat against a batched opponent
(``gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=N, opponent="heuristic")``).

Autoreset is ``AutoresetMode.SAME_STEP``: at the step where an episode ends, ``terminated[i]`` is
True and the reward is that episode's, while the observation and mask already belong to the next
episode's first decision. In the Gymnasium view ``info["final_obs"]``/``info["final_info"]`` (row
masks ``_final_obs``/``_final_info``) hold the finished episode's observation, ``seat`` and RULES §9
``outcome`` as arrays (with ``tensors=True`` also ``opponent``: the opponent's name or per-episode
label), and ``info["skipped"]`` int64 (N,) counts the episodes that ended before the learner's first
decision: they carry no reward (the rule of
:attr:`schnapsen_env.learner.LearnerGame.learner_reward`, shared by every view) and are dealt anew.
``tensors=True`` returns torch tensors on ``device`` instead of numpy arrays (for a torch trainer;
``train.py`` runs on it): see :meth:`SchnapsenVectorGymEnv.step`.

Keywords of both: ``num_envs`` (1..MAX_NUM_ENVS), ``variant`` (a RULES §7 preset) and rule options,
``episode`` (``"game"``/``"bummerl"``), ``reward`` (``"game_points"``/``"win_loss"``),
``illegal_action`` (``"raise"``: a batch with an illegal action raises and changes nothing;
``"renonce"``: the mover loses that game, RULES §5.4), ``device``, ``seed`` (each random source is
seeded from its own stream of ``seed``, :mod:`schnapsen_env.seeding`; None draws one from OS
entropy), ``compile`` (the engine and observer through ``torch.compile``: faster large batches after
a compile). Bad keywords raise ``ValueError`` naming the keyword and what is allowed.
"""

from __future__ import annotations

import inspect
import secrets
from numbers import Integral
from types import SimpleNamespace
from typing import Any, NamedTuple

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import VectorEnv

try:
    from gymnasium.vector import AutoresetMode
except ImportError:  # gymnasium 1.0 (the declared minimum) names no autoreset modes; 1.1+ does
    AutoresetMode = None

from ..actions import NUM_ACTIONS
from ..engine import validate_seed
from ..learner import env_rules
from ..observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from ..rules import Rules
from ..seeding import SEED_BITS, derive_seed
from .engine import _COLUMNS, MAX_NUM_GAMES, as_device, batch_actions
from .learner import VectorEpisodes
from .observation import VectorObserver

__all__ = [
    "SchnapsenVectorEnv",
    "SchnapsenVectorGymEnv",
    "TimeStep",
    "DEAL_STREAM",
    "SEAT_STREAM",
    "OPPONENT_STREAM",
    "make_rules",
]

#: seed streams (schnapsen_env.seeding) of the vector environments: deals, seats, the opponent
DEAL_STREAM = "vector_deal"
SEAT_STREAM = "vector_seat"
OPPONENT_STREAM = "vector_opponent"
_ENV_KWARGS = (
    "num_envs",
    "variant",
    "episode",
    "reward",
    "illegal_action",
    "device",
    "seed",
    "compile",
)


class TimeStep(NamedTuple):
    """What :class:`SchnapsenVectorEnv` returns (tensors on the env's device; see the module
    docstring)."""

    observation: torch.Tensor  #: float32 (N, OBS_SIZE): the player to move's observation
    action_mask: torch.Tensor  #: bool (N, NUM_ACTIONS): the player to move's legal actions
    current_player: torch.Tensor  #: int64 (N,): the player to move
    #: float32 (N, 2): rewards per player id of the episodes that ended at this step
    rewards: torch.Tensor
    #: bool (N,): the episode ended at this step (the others fields: the next one)
    terminated: torch.Tensor
    truncated: torch.Tensor  #: bool (N,): always False (no time limit)


def make_rules(variant: str = "schnapsen", **rule_options: Any) -> Rules:
    """The vector environments' rules: :func:`schnapsen_env.learner.env_rules` with their
    keywords."""
    return env_rules(variant, _ENV_KWARGS, **rule_options)


#: the outcome fields of ``final_info``: key -> the
#: :class:`~schnapsen_env.vector.engine.VectorGames` field
_FINAL_FIELDS = dict(
    winner="winner",
    game_points="game_points",
    reason="reason",
    eyes="eyes",
    tricks="tricks_won",
)
#: most episodes one vector environment holds (the state is about 1 KB per game)
MAX_NUM_ENVS = MAX_NUM_GAMES


class _VectorEpisodesEnv:
    """What both vector environments hold: the checked keywords, the deal generator, the episodes
    (:class:`~schnapsen_env.vector.learner.VectorEpisodes`) and the batched observer."""

    def __init__(
        self,
        *,
        num_envs,
        variant,
        episode,
        reward,
        illegal_action,
        device,
        seed,
        compile,
        rule_options,
    ):
        if not isinstance(compile, bool):
            raise ValueError(f"bad value {compile!r} for 'compile': allowed True or False")
        if not isinstance(num_envs, Integral) or not 1 <= num_envs <= MAX_NUM_ENVS:
            raise ValueError(
                f"bad value {num_envs!r} for 'num_envs': allowed an int from 1 to {MAX_NUM_ENVS} (limit MAX_NUM_ENVS)"
            )
        self.num_envs = int(num_envs)
        self.rules = make_rules(variant, **rule_options)
        self.variant = variant
        self.device = as_device(device)
        seed = validate_seed(seed)
        self._seed = secrets.randbits(SEED_BITS) if seed is None else seed  # unseeded: OS entropy
        self.generator = torch.Generator(device=self.device)
        self.episodes = VectorEpisodes(
            self.rules,
            self.num_envs,
            device=self.device,
            generator=self.generator,
            episode=episode,
            reward=reward,
            illegal_action=illegal_action,
            compile=compile,
        )
        #: the batched observer (``observer.spec`` is the scalar observer's spec)
        self.observer = VectorObserver(self.rules, episode == "bummerl", self.device, compile)
        self._obs = torch.zeros((self.num_envs, OBS_SIZE), dtype=torch.float32, device=self.device)
        self._started = False

    @property
    def games(self):
        """The :class:`~schnapsen_env.vector.engine.VectorGames` of the current games."""
        return self.episodes.games

    def _check_started(self, call: str) -> None:
        if not self._started:
            raise RuntimeError(f"{type(self).__name__}.{call}() before reset(): call reset() first")

    def _reseed(self, seed: int | None) -> int | None:
        """The seed a reset deals from (the first: the constructor's), after reseeding the deals
        with it."""
        if validate_seed(seed) is None and not self._started:
            seed = self._seed
        if seed is not None:
            self.generator.manual_seed(derive_seed(seed, DEAL_STREAM))
        return seed


class SchnapsenVectorEnv(_VectorEpisodesEnv):
    """Batched self-play environment (see the module docstring): ``reset(seed=None)`` and
    ``step(actions)`` return a :class:`TimeStep`."""

    def __init__(
        self,
        num_envs: int = 1024,
        variant: str = "schnapsen",
        episode: str = "game",
        reward: str = "game_points",
        illegal_action: str = "raise",
        device=None,
        seed: int | None = None,
        compile: bool = False,  # noqa: A002 - torch.compile's word
        **rule_options: Any,
    ):
        super().__init__(
            num_envs=num_envs,
            variant=variant,
            episode=episode,
            reward=reward,
            illegal_action=illegal_action,
            device=device,
            seed=seed,
            compile=compile,
            rule_options=rule_options,
        )

    def _timestep(self, rewards, terminated) -> TimeStep:
        g = self.games
        p = g.current_player.clamp(min=0)
        obs = self.observer.observe(g, p, self.episodes.bummerl_score, out=self._obs)
        return TimeStep(
            obs.clone(),
            g.legal_mask(),
            g.current_player.clone(),
            rewards,
            terminated,
            torch.zeros_like(terminated),
        )

    def reset(self, seed: int | None = None) -> TimeStep:
        """Deal a new episode in every slot. ``seed`` (an int >= 0): reseed the deal generator
        (stream :data:`DEAL_STREAM` of ``seed``); None keeps drawing from it (first call: the
        constructor's seed, or one drawn from OS entropy)."""
        self._reseed(seed)
        self.episodes.start()
        self._started = True
        z = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        return self._timestep(torch.zeros((self.num_envs, 2), device=self.device), z)

    def step(self, actions) -> TimeStep:
        """One action per episode for its player to move (integers (N,): a tensor, an array or a
        list); see the module docstring for the autoreset. ``ValueError`` (nothing changes) for
        other types or shapes or an illegal action under ``"raise"``; ``RuntimeError`` before
        :meth:`reset`."""
        self._check_started("step")
        ep = self.episodes
        _, over, rewards = ep.step(actions)
        if bool(over.any()):
            ep.start(over)
        return self._timestep(rewards, over)


def _resolve_batched_opponent(opponent: Any, rules: Rules, seed: int, device):
    """A batched opponent (``act(games) -> int64 (N,)``) from a spec string (through the agents
    package's ``make_batched_agent`` entry point) or an object that says ``batched = True``."""
    if isinstance(opponent, str):
        from ..gym_env import _agent_resolver

        make_batched_agent = _agent_resolver("make_batched_agent")
        try:
            return make_batched_agent(opponent, rules=rules, seed=seed, device=device)
        except ValueError as e:
            raise ValueError(f"bad value {opponent!r} for 'opponent': {e}") from None
    if getattr(opponent, "batched", False) and callable(getattr(opponent, "act", None)):
        return opponent
    specs = "agents.make_agent ('random', 'heuristic', ...)"
    raise ValueError(
        f"bad value {opponent!r} for 'opponent': allowed an agent spec string of "
        f"{specs} or a batched agent (agents.players.batched: an object "
        "with batched = True and act(games) -> int64 (N,))"
    )


class SchnapsenVectorGymEnv(_VectorEpisodesEnv, VectorEnv):
    """Single-agent ``gymnasium.vector.VectorEnv`` over the batched engine (see the module
    docstring).

    ``opponent``: a spec of ``agents.make_agent`` (``"random"``, ``"heuristic"``, ``"ppo..."`` run
    batched, others per game) or a batched agent (:mod:`agents.players.batched`: ``act(games[, rows])``,
    optional ``reset(seed)``; optional hooks ``start_episodes(slots, env)``, called with bool (N,)
    ``slots`` as new episodes start there (none after :meth:`load_state_dict`), and
    ``episode_labels(idx) -> list[str]`` naming the opponent of slots ``idx`` in ``final_info``:
    ``agents.training.pool.OpponentPool`` uses both); ``seat``: ``"player_0"``, ``"player_1"`` or
    ``"random"`` (drawn per episode); ``tensors``: return torch tensors (see :meth:`step`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP} if AutoresetMode else {}

    def __init__(
        self,
        num_envs: int = 16,
        opponent: Any = "random",
        seat: str = "random",
        illegal_action: str = "renonce",
        variant: str = "schnapsen",
        episode: str = "game",
        reward: str = "game_points",
        device=None,
        seed: int | None = None,
        render_mode: str | None = None,
        tensors: bool = False,
        compile: bool = False,  # noqa: A002 - torch.compile's word
        **rule_options: Any,
    ):
        from ..gym_env import SEATS

        if render_mode is not None:
            raise ValueError(
                f"bad value {render_mode!r} for 'render_mode': the vector view renders nothing (allowed None)"
            )
        if not isinstance(seat, str) or seat not in SEATS:
            raise ValueError(f"bad value {seat!r} for 'seat': allowed {', '.join(map(repr, SEATS))}")
        if not isinstance(tensors, bool):
            raise ValueError(f"bad value {tensors!r} for 'tensors': allowed True or False")
        super().__init__(
            num_envs=num_envs,
            variant=variant,
            episode=episode,
            reward=reward,
            illegal_action=illegal_action,
            device=device,
            seed=seed,
            compile=compile,
            rule_options=rule_options,
        )
        self.seat, self.tensors = seat, tensors
        self.seat_generator = torch.Generator(device=self.device)
        self.opponent = _resolve_batched_opponent(
            opponent, self.rules, derive_seed(self._seed, OPPONENT_STREAM), self.device
        )
        self.single_observation_space = spaces.Box(
            low=OBS_LOW,
            high=OBS_HIGH,
            shape=(OBS_SIZE,),
            dtype=np.float32,
        )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space,
            self.num_envs,
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space,
            self.num_envs,
        )
        o = self.opponent
        self._opponent_name = getattr(o, "name", type(o).__name__)
        # asked only for its own games
        self._opponent_rows = "rows" in inspect.signature(o.act).parameters
        self._opponent_start = getattr(o, "start_episodes", None)
        self._opponent_labels = getattr(o, "episode_labels", None)
        # the learner's legal actions now: int8 array (N, 31), or bool tensor with tensors
        self._mask = None
        self._aborted = False  # the opponent failed mid-step: step() raises until reset()

    def _new_episodes(self, slots: torch.Tensor) -> None:
        if self.seat == "random":
            seats = torch.randint(
                0,
                2,
                (self.num_envs,),
                generator=self.seat_generator,
                device=self.device,
            )
        else:
            seats = torch.full((self.num_envs,), int(self.seat[-1]), device=self.device)
        self.episodes.start(slots, seats)
        if self._opponent_start is not None:
            self._opponent_start(slots, self)

    def _capture(self, final: dict, rows: torch.Tensor) -> None:
        """Keep the finished games' state rows, seats, Bummerl scores and opponent names at ``rows``
        (bool (N,)) in ``final`` before their slots are dealt anew (made at the first capture of a
        step: steps where nothing ends allocate nothing); :meth:`_finish` reads observations and
        outcomes from them once."""
        g, ep = self.games, self.episodes
        if not final:
            final.update(state=torch.zeros_like(g.state), seat=torch.zeros_like(ep.seat))
            final.update(
                bummerl_scores=torch.zeros_like(ep.scores),
                opponent=[None] * self.num_envs,
            )
        idx = rows.nonzero().squeeze(1)
        for key, src in (("state", g.state), ("seat", ep.seat), ("bummerl_scores", ep.scores)):
            final[key][idx] = src[idx]
        labels = self._opponent_labels(idx) if self._opponent_labels else [self._opponent_name] * idx.numel()
        for i, label in zip(idx.tolist(), labels, strict=True):
            final["opponent"][i] = label

    def _finish(self, final: dict, ended: torch.Tensor) -> None:
        """``final``'s learner observations (``obs``) and outcome fields from its kept state rows:
        the rows ``ended`` (bool (N,)), zeros elsewhere."""
        S = final.pop("state")
        idx = ended.nonzero().squeeze(1)
        final["obs"] = torch.zeros(
            (self.num_envs, OBS_SIZE),
            dtype=torch.float32,
            device=self.device,
        )
        kept = SimpleNamespace(state=S, n=self.num_envs)  # what the observer reads of a VectorGames
        final["obs"][idx] = self.observer.observe(
            kept,
            final["seat"],
            final["bummerl_scores"],
            rows=idx,
        )
        for key, name in _FINAL_FIELDS.items():
            c, width = _COLUMNS[name]
            final[key] = S[:, c] if width == 1 else S[:, c : c + width]

    def _final_info(self, final: dict, rows: np.ndarray) -> dict:
        """Gymnasium's ``final_info`` layout (sync vector env over the scalar view) from
        ``final``."""
        from ..engine import REASONS

        def masked(d: dict) -> dict:
            out = {}
            for k, v in d.items():
                out[k], out[f"_{k}"] = v, rows.copy()
            return out

        c = {k: v.cpu().numpy() for k, v in final.items() if k not in ("obs", "opponent")}
        reason = np.array(
            [REASONS[r] if ok else None for r, ok in zip(c["reason"].tolist(), rows)],
            dtype=object,
        )
        outcome = {
            "finished": rows.copy(),
            **{k: c[k] for k in ("winner", "game_points", "eyes", "tricks")},
        }
        outcome = masked({**outcome, "reason": reason})
        info = {
            "action_mask": np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8),
            "seat": c["seat"],
        }
        info["outcome"] = outcome
        if self.episodes.bummerl:
            info["bummerl_scores"] = c["bummerl_scores"]
        return masked(info)

    def _advance(self, final: dict | None = None) -> tuple:
        """Let the opponent act until the learner is to move everywhere. Returns ``(rewards float32
        (N,), ended bool (N,), skipped int64 (N,))``: the learner's rewards of episodes ended on an
        opponent's move (their final observation and outcome written into ``final``) and per env the
        episodes skipped."""
        ep, g = self.episodes, self.games
        rewards = torch.zeros(self.num_envs, device=self.device)
        ended = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        skipped = torch.zeros(self.num_envs, dtype=torch.int64, device=self.device)
        # the opponent steps the games it is to move in, until the learner is to move everywhere
        while True:
            theirs = (g.current_player >= 0) & (g.current_player != ep.seat)
            if not bool(theirs.any()):
                return rewards, ended, skipped
            _, over, r = ep.step(self._opponent_actions(theirs), theirs)
            if bool(over.any()):
                # the learner's decision in it gets the reward; else it is skipped
                credited = over & ep.acted
                rewards.copy_(torch.where(credited, ep.learner_rewards(r), rewards))
                ended.logical_or_(credited)
                skipped.add_(over & ~credited)
                if final is not None and bool(credited.any()):
                    self._capture(final, credited)
                self._new_episodes(over)

    def _opponent_actions(self, theirs: torch.Tensor) -> torch.Tensor:
        """The opponent's int64 (N,) actions, legal in every game of ``theirs`` (bool (N,)). If the
        opponent raises or answers anything else, the episodes are aborted (``step()`` raises until
        ``reset()``) and the error propagates: the opponent's own, or a ``ValueError`` naming it."""
        self._aborted = True
        g = self.games
        actions = self.opponent.act(g, theirs) if self._opponent_rows else self.opponent.act(g)
        name = self._opponent_name
        try:
            a = batch_actions(actions, self.num_envs, self.device)
        except ValueError as e:
            raise ValueError(f"the opponent {name!r}: {e}") from None
        bits = g.legal_mask_bits()
        illegal = theirs & (((bits >> a.clamp(0, NUM_ACTIONS - 1)) & 1).eq(0) | (a < 0) | (a >= NUM_ACTIONS))
        if bool(illegal.any()):
            i = int(illegal.nonzero()[0, 0])
            legal = [b for b in range(NUM_ACTIONS) if int(bits[i]) >> b & 1]
            raise ValueError(
                f"the opponent {name!r} chose {int(a[i])} in env {i}, which is not one of its legal actions {legal}"
            )
        self._aborted = False
        return a

    def _observe(self, skipped: torch.Tensor | None = None) -> tuple:
        """``(observation, info)`` of the learners now: float32 (N, OBS_SIZE), ``action_mask``
        (int8, or bool with ``tensors``), ``seat`` int64 (N,), ``skipped`` int64 (N,) (0 without
        ``skipped``)."""
        g, ep = self.games, self.episodes
        obs = self.observer.observe(g, ep.seat, ep.bummerl_score, out=self._obs).clone()
        mask, seat = g.legal_mask(), ep.seat.clone()
        skipped = torch.zeros_like(seat) if skipped is None else skipped
        if not self.tensors:
            obs, mask, seat, skipped = (t.cpu().numpy() for t in (obs, mask.to(torch.int8), seat, skipped))
        self._mask = mask  # action_masks() hands out copies of it
        return obs, {
            "action_mask": mask.copy() if not self.tensors else mask.clone(),
            "seat": seat,
            "skipped": skipped,
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new episode in every slot and let the opponent act until the learner is to move.
        ``seed`` (an int >= 0) reseeds the deals, the seat draw and the opponent (their own streams
        of ``seed``); None continues them (first call: the constructor's seed, or one drawn from OS
        entropy)."""
        if options:
            raise ValueError(
                f"reset(options=...) is not supported by the batched view (it deals in every env), got "
                f"{options!r}: allowed None or {{}}"
            )
        seed = self._reseed(seed)
        if seed is not None:
            self.seat_generator.manual_seed(derive_seed(seed, SEAT_STREAM))
            if hasattr(self.opponent, "reset"):
                self.opponent.reset(derive_seed(seed, OPPONENT_STREAM))
        self._aborted = False
        self._new_episodes(torch.ones(self.num_envs, dtype=torch.bool, device=self.device))
        _, _, skipped = self._advance()
        self._started = True
        return self._observe(skipped)

    def action_masks(self):
        """bool (N, 31): the learner's legal actions in each env now (a numpy array, or a tensor
        with ``tensors``). ``RuntimeError`` before :meth:`reset`."""
        self._check_started("action_masks")
        return self._mask.clone() if self.tensors else self._mask.astype(bool)

    def state_dict(self) -> dict:
        """The episodes in progress (games, seats, Bummerl scores, the deal generator) and the seat
        generator, as CPU tensors (``torch.load(..., weights_only=True)`` reads it); the opponent
        keeps its own state. ``RuntimeError`` before :meth:`reset`."""
        self._check_started("state_dict")
        return {
            "episodes": self.episodes.state_dict(),
            "seat_generator": self.seat_generator.get_state(),
        }

    def load_state_dict(self, state: dict) -> tuple:
        """Continue the episodes of :meth:`state_dict` (an env of the same ``num_envs`` and episode
        kind); returns ``(observation, info)`` as :meth:`reset` does. ``ValueError`` naming an entry
        that does not fit."""
        self.episodes.load_state_dict(state["episodes"])
        self.seat_generator.set_state(state["seat_generator"])
        self._started, self._aborted = True, False
        # no new episodes: the opponent learns which env it plays in
        if self._opponent_start is not None:
            self._opponent_start(
                torch.zeros(self.num_envs, dtype=torch.bool, device=self.device),
                self,
            )
        return self._observe()

    def step(self, actions):
        """The learners' actions (integers (N,)), then the opponent's until the learners are to
        move; errors as :meth:`SchnapsenVectorEnv.step`. Returns ``(observation, reward, terminated,
        truncated, info)`` (see the module docstring). With ``tensors``: tensors on ``device``
        (``action_mask`` bool, ``final_info`` the finished episodes' tensors ``winner``,
        ``game_points``, ``reason`` (an index of ``schnapsen_env.engine.REASONS``), ``eyes``,
        ``tricks``, ``seat``, ``bummerl_scores`` and the list ``opponent``, rows
        ``info["_final_info"]``)."""
        self._check_started("step")
        if self._aborted:
            raise RuntimeError("the episodes were aborted by an error of the opponent: call reset() before step()")
        ep = self.episodes
        _, over, r = ep.step(actions)
        reward = ep.learner_rewards(r)
        final: dict = {}
        if bool(over.any()):
            self._capture(final, over)
            self._new_episodes(over)
        r2, ended2, skipped = self._advance(final)
        reward = torch.where(ended2, r2, reward)
        terminated = over | ended2
        obs, info = self._observe(skipped)
        if final:
            self._finish(final, terminated)
        if self.tensors:
            if final:
                info.update(
                    final_obs=final.pop("obs"),
                    _final_obs=terminated,
                    _final_info=terminated,
                )
                info["final_info"] = final
            return obs, reward, terminated, torch.zeros_like(terminated), info
        if final:
            rows = terminated.cpu().numpy()
            info["final_obs"] = final["obs"].cpu().numpy()
            info["_final_obs"] = rows
            info["final_info"] = self._final_info(final, rows)
            info["_final_info"] = rows.copy()
        term = terminated.cpu().numpy()
        return obs, reward.cpu().numpy().astype(np.float32), term, np.zeros_like(term), info
