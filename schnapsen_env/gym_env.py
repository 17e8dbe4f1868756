"""Gymnasium single-agent view of Schnapsen: the learner plays one seat, a fixed opponent the other.

``gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random", seat="player_0")`` after ``import
schnapsen_env``, or :class:`SchnapsenGymEnv`. Observation: ``Box(0, high, (OBS_SIZE,), float32)``
(:mod:`schnapsen_env.observation`); action: ``Discrete(31)``; mask: ``action_masks()`` bool
``(31,)`` and ``info["action_mask"]`` int8. ``opponent``: a spec of :func:`agents.make_agent`
(resolved through the ``schnapsen_env.agents`` entry point), an agent with ``act(info)`` or a
callable ``f(info) -> action``; ``seat``: ``"player_0"``, ``"player_1"`` or ``"random"``. Reward:
the learner's entry of :func:`schnapsen_env.learner.outcome_rewards` at the end, 0 before. Other
keywords go to :class:`schnapsen_env.schnapsen_v0.raw_env` (``illegal_action`` defaults to
``"renonce"`` here). The final ``info`` adds ``"outcome"`` (RULES §9) and, for a Bummerl,
``"bummerl_scores"``.

``reset(seed=s)`` reseeds the deals (as ``raw_env.reset(seed=s)``), the seat draw and the opponent,
each from its own stream of ``s``. Games that end before the learner's first decision are dealt anew
and listed in ``info["skipped_outcomes"]``. ``copy.deepcopy`` and ``pickle`` copies continue
exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from .actions import NUM_ACTIONS
from .cards import brief_repr
from .engine import validate_seed
from .learner import LearnerGame, _choice
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from .render import render_text
from .schnapsen_v0 import AGENTS, RENDER_MODES, raw_env
from .seeding import OPPONENT_STREAM, SEAT_STREAM, SEED_BITS, stream

SEATS = ("player_0", "player_1", "random")


#: the forms the ``opponent`` keyword takes (quoted in its error messages)
_OPPONENT_FORMS = (
    "allowed an agent spec string NAME[:key=value,...] of agents.make_agent (e.g. 'random', "
    "'heuristic', 'pimc:samples=40', 'ppo:PATH'), an agents.players.base.Agent, or a callable "
    "f(info) -> action"
)


#: the entry-point group through which the agents side resolves spec strings (pyproject.toml):
#: this package never imports the agents package itself (layers point down only)
AGENT_RESOLVERS = "schnapsen_env.agents"


def _agent_resolver(name: str = "make_agent") -> Callable[..., Any]:
    """``name`` (``make_agent``, ``make_batched_agent``) of the installed agents package, found
    through its entry point."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=AGENT_RESOLVERS) if ep.name == name]
    if not found:
        raise ValueError(
            f"no agent resolver installed (entry point {name!r} of group {brief_repr(AGENT_RESOLVERS)}): install "
            "the project (pip install -e .) to use spec strings, or pass an agent object"
        )
    return found[0].load()


def _make_opponent(opponent: Any):
    """``(policy(info) -> action, resettable agent or None)`` from a spec, an Agent or a
    callable."""
    if isinstance(opponent, str):
        try:
            agent = _agent_resolver()(opponent)
        except ValueError as e:
            raise ValueError(f"bad value {brief_repr(opponent)} for 'opponent': {e}; {_OPPONENT_FORMS}") from None
        return agent.act, agent
    act = getattr(opponent, "act", None)
    if callable(act):  # an agents.players.base.Agent (or anything with act(info) and reset(seed))
        return act, opponent if callable(getattr(opponent, "reset", None)) else None
    if callable(opponent):
        return opponent, None
    raise ValueError(f"bad value {brief_repr(opponent)} for 'opponent': {_OPPONENT_FORMS}")


class SchnapsenGymEnv(gymnasium.Env):
    """Single-agent Gymnasium view (see the module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        opponent: str | Callable | Any = "random",
        seat: str = "player_0",
        render_mode: str | None = None,
        illegal_action: str = "renonce",
        **kwargs: Any,
    ):
        _choice("seat", seat, SEATS)
        self._aec = raw_env(render_mode=render_mode, illegal_action=illegal_action, **kwargs)
        self._policy, self._opponent_agent = _make_opponent(opponent)
        self.opponent = opponent
        self.seat = seat
        self.render_mode = render_mode
        self.rules = self._aec.rules
        self.observation_space = spaces.Box(
            low=OBS_LOW,
            high=OBS_HIGH,
            shape=(OBS_SIZE,),
            dtype=np.float32,
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._learner = AGENTS[0]
        # the episode: who moves, game ends, rewards (shared with _aec)
        self._core: LearnerGame = self._aec._core
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        # draws the seat (seat="random"); reseeded from stream SEAT_STREAM
        self._seat_rng = random.Random()
        # draws the opponent's per-episode seeds; stream OPPONENT_STREAM
        self._opponent_rng = random.Random()

    @property
    def aec_env(self) -> raw_env:
        """The underlying PettingZoo environment (read only)."""
        return self._aec

    @property
    def learner(self) -> str:
        """The learner's seat in the current episode (``"player_0"`` or ``"player_1"``)."""
        return self._learner

    @property
    def observer(self):
        """The :class:`~schnapsen_env.observation.Observer` that builds the observations (the
        underlying AEC env's); ``observer.spec`` describes them."""
        return self._aec.observer

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now: bool ``(31,)`` (sb3-contrib ``MaskablePPO``
        convention)."""
        return self._mask.astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (or Bummerl) and let the opponent move until the learner is to act.

        ``info``: ``action_mask`` int8 ``(31,)``, ``seat``, ``skipped_outcomes`` (games ended before
        the learner's first decision). ``ValueError`` for a seed that is not None or an int >= 0."""
        super().reset(seed=validate_seed(seed))
        if seed is not None:
            self._seat_rng = stream(seed, SEAT_STREAM)
            self._opponent_rng = stream(seed, OPPONENT_STREAM)
        self._learner = self._seat_rng.choice(AGENTS[:2]) if self.seat == "random" else self.seat
        core = self._core
        skipped = []
        while True:  # ends: the learner is forehand in about every second deal
            if self._opponent_agent is not None:
                self._opponent_agent.reset(seed=self._opponent_rng.getrandbits(SEED_BITS))
            self._aec.reset(seed=seed)
            seed = None  # a game dealt anew continues the deal stream
            core.set_seat(self._aec.agent_name_mapping[self._learner])
            self._play_opponent()
            if not core.skipped:
                break
            skipped.append(core.outcome_dict())
        obs, info = self._observe()
        info["skipped_outcomes"] = skipped
        return obs, info

    def step(self, action: Any):
        """The learner plays ``action`` (an int 0..30, a numpy integer or a 0-d integer array), then
        the opponent until the learner is on turn again; the reward is the learner's.
        ``IllegalActionError`` (nothing changes) for anything else (or an illegal one under
        ``illegal_action="raise"``); ``RuntimeError`` before ``reset()`` or after the episode
        ended."""
        core = self._core
        if core.over or core.state is None:
            raise RuntimeError("SchnapsenGymEnv.step() before reset() or after the episode ended: call reset() first")
        # through the core; a bad (or, under "raise", illegal) action raises, changes nothing
        self._aec.step(action)
        if not core.over:
            self._play_opponent()
        reward = float(core.learner_reward)  # outcome_rewards(...)[seat]: nonzero only at the end
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, core.over, False, info

    def _play_opponent(self) -> None:
        """Let the opponent act until the learner is on turn or the episode ends. An answer that
        is not one of the opponent's legal actions raises ``ValueError`` naming it."""
        core = self._core
        while not core.over and core.state.current_player != core.seat:
            info = core.state.information_set(core.state.current_player)
            action = self._policy(info)
            if action not in info.legal_actions:
                raise ValueError(
                    f"the opponent {brief_repr(self.opponent)} chose {brief_repr(action)}, which is "
                    f"not one of its legal actions {list(info.legal_actions)}"
                )
            self._aec.step(action)

    def _observe(self):
        obs = self._aec.observe(self._learner)
        self._mask = obs["action_mask"]
        info = {"action_mask": self._mask.copy(), "seat": self._learner}
        if self._core.over:
            core = self._core
            # the RULES §9 result of the last game (with a renonce's action)
            info["outcome"] = core.outcome_dict()
            if core.bummerl is not None:
                info["bummerl_scores"] = list(core.bummerl.scores)
        return obs["observation"], info

    def record(self) -> dict:
        """The RULES §9 record of the current game (see ``raw_env.record``); a game dealt anew at
        ``reset()`` is not part of it."""
        return self._aec.record()

    def episode_records(self) -> list[dict]:
        """The records of every game of the learner's episode (see ``raw_env.episode_records``)."""
        return self._aec.episode_records()

    def render(self) -> str | None:
        """The learner's view as text (``"ansi"`` returns it, ``"human"`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = render_text(
            self._aec.game,
            viewer=self._aec.agent_name_mapping[self._learner],
            bummerl_score=self._aec._bummerl_score,
        )
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        self._aec.close()
