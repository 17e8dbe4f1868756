"""Gymnasium single-agent view of Schnapsen: the learner plays one seat, a fixed opponent the other.

Created by ``gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random", seat="player_0")``
after ``import schnapsen_env`` (registration happens there), or directly as
:class:`SchnapsenGymEnv`.

* **Observation space**: a flat ``Box(0, high, (OBS_SIZE,), float32)``, the
  observation of :mod:`schnapsen_env.observation` (the learner's information
  set, RULES §8). Flat, so SB3's ``MlpPolicy`` (and sb3-contrib
  ``MaskablePPO``) take it without a custom feature extractor.
* **Action space**: ``Discrete(31)`` (:mod:`schnapsen_env.actions`).
* **Action mask**: ``action_masks()`` returns a bool ``(31,)`` array (the
  sb3-contrib ``MaskablePPO`` convention, found through wrappers by
  ``get_action_masks``); ``info["action_mask"]`` holds the same as int8.
* **Observer**: ``env.unwrapped.observer`` is the underlying AEC env's
  :class:`~schnapsen_env.observation.Observer`; ``observer.spec`` describes the observation.
* **Opponent** (``opponent=``): a name or spec of :func:`agents.make_agent`
  (``"random"``, ``"heuristic"``, ``"pimc:samples=40"`` ...; resolved through
  the ``schnapsen_env.agents`` entry point that the agents package declares, so
  this module never imports it), an :class:`agents.base.Agent`, or a
  callable ``f(info: InformationSet) -> action``. It sees only its own
  information set.
* **Seat** (``seat=``): ``"player_0"``, ``"player_1"`` or ``"random"`` (drawn at
  every reset from the seeded generator).
* **Reward**: as the PettingZoo env (``episode``, ``reward``), the learner's entry of
  :func:`schnapsen_env.learner.outcome_rewards` (the one function that turns a result
  into rewards): the learner's game points won or lost at the end of the game (±1..3,
  RULES §5), ``reward="win_loss"`` for ±1, ``episode="bummerl"`` for ±1/±2 at the end
  of a Bummerl (RULES §6); 0 before the end. ``terminated`` is True at the episode's end,
  ``truncated`` always False (no time limit).
* **The loop** (whose turn it is, dealing the next game of a Bummerl, ending the episode,
  skipping episodes without a learner decision) is that of
  :class:`schnapsen_env.learner.LearnerGame`, the core shared with training's rollouts and
  the arena; the underlying ``raw_env`` holds it and every action goes through it.
* Other keywords (``variant``, ``episode``, ``reward``, ``illegal_action``,
  ``render_mode``, rule options) go to :class:`schnapsen_env.schnapsen_v0.raw_env`;
  ``illegal_action`` defaults to ``"renonce"`` here (an unmasked illegal action
  loses the game, 3 game points), ``"raise"`` raises instead.
* ``info``: ``"action_mask"`` and ``"seat"`` always; at the end also ``"outcome"``
  (the RULES §9 result line of the last game) and, for a Bummerl, ``"bummerl_scores"``.

``reset(seed=s)`` reseeds the deals, the seat draw and the opponent, each
from its own stream of ``s`` (:mod:`schnapsen_env.seeding`): the deals from
``random.Random(s)`` exactly as ``raw_env.reset(seed=s)`` and
``GameState.from_seed(rules, s)``, the seat and the opponent's seeds from
streams keyed ``"s/seat"`` and ``"s/opponent"``, so the seat says nothing
about the deal. Bad arguments raise ``ValueError`` naming the keyword and the
allowed values.

**A game that ends before the learner's first decision** (under ``declare="manual"``
the opponent on lead may declare 66 first) is not an episode of the learner:
``reset()`` books it and deals the next one from the same deal stream until the
learner is to act (in a Bummerl the Bummerl goes on), so the observation of
``reset()`` always has a non-empty mask. Such games are listed in
``info["skipped_outcomes"]`` (RULES §9 result dicts, usually ``[]``); they carry no reward.

Copies: ``copy.deepcopy`` and ``pickle`` of the env mid-game continue exactly like the
original (the opponent must be picklable for ``pickle``).
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
from .learner import LearnerGame
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from .render import render_text
from .schnapsen_v0 import AGENTS, RENDER_MODES, raw_env
from .seeding import OPPONENT_STREAM, SEAT_STREAM, SEED_BITS, stream

SEATS = ("player_0", "player_1", "random")


#: the forms the ``opponent`` keyword takes (quoted in its error messages)
_OPPONENT_FORMS = (
    "allowed an agent spec string NAME[:key=value,...] of agents.make_agent (e.g. 'random', "
    "'heuristic', 'pimc:samples=40', 'ppo:PATH'), an agents.base.Agent, or a callable "
    "f(info) -> action"
)


#: the entry-point group through which the agents side resolves spec strings (pyproject.toml):
#: this package never imports the agents package itself (layers point down only)
AGENT_RESOLVERS = "schnapsen_env.agents"


def _agent_resolver() -> Callable[[str], Any]:
    """``make_agent`` of the installed agents package, found through its entry point (loaded once)."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=AGENT_RESOLVERS) if ep.name == "make_agent"]
    if not found:
        raise ValueError(
            f"no agent resolver installed (entry point group {brief_repr(AGENT_RESOLVERS)}): install the "
            "project (pip install -e .) to use spec strings, or pass an Agent or a callable"
        )
    return found[0].load()


def _make_opponent(opponent: Any):
    """``(policy(info) -> action, resettable agent or None)`` from a spec, an Agent or a callable."""
    if isinstance(opponent, str):
        try:
            agent = _agent_resolver()(opponent)
        except ValueError as e:
            raise ValueError(f"bad value {brief_repr(opponent)} for 'opponent': {e}; {_OPPONENT_FORMS}") from None
        return agent.act, agent
    act = getattr(opponent, "act", None)
    if callable(act):  # an agents.base.Agent (or anything with act(info) and reset(seed))
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
        if not isinstance(seat, str) or seat not in SEATS:
            raise ValueError(f"bad value {brief_repr(seat)} for 'seat': allowed {', '.join(map(repr, SEATS))}")
        self._aec = raw_env(render_mode=render_mode, illegal_action=illegal_action, **kwargs)
        self._policy, self._opponent_agent = _make_opponent(opponent)
        self.opponent = opponent
        self.seat = seat
        self.render_mode = render_mode
        self.rules = self._aec.rules
        self.observation_space = spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._learner = AGENTS[0]
        self._core: LearnerGame = self._aec._core  # the episode: who moves, game ends, rewards (shared with _aec)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._seat_rng = random.Random()  # draws the seat (seat="random"); reseeded from stream SEAT_STREAM
        self._opponent_rng = random.Random()  # draws the opponent's per-episode seeds; stream OPPONENT_STREAM

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
        """Legal actions of the learner now: bool ``(31,)`` (sb3-contrib ``MaskablePPO`` convention)."""
        return self._mask.astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (or Bummerl); the opponent moves first if it is on turn.

        Returns ``(observation, info)``: the learner is to act (the mask is never
        empty); ``info["action_mask"]`` is int8 ``(31,)``, ``info["seat"]`` the
        learner's seat and ``info["skipped_outcomes"]`` the games that ended
        before the learner's first decision and were dealt anew (see the module
        docstring; usually ``[]``). ``options`` is unused. Raises ``ValueError`` for a seed that
        is not None or an int >= 0.
        """
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
        """The learner plays ``action`` (0..30), then the opponent until the learner is on turn again.

        Returns ``(observation, reward, terminated, truncated, info)``; the reward is
        the learner's (nonzero only at the end). Raises the engine's ``IllegalActionError``
        for an action outside 0..30 (or an illegal one with ``illegal_action="raise"``).
        """
        core = self._core
        self._aec.step(action)  # through the core; a bad (or, under "raise", illegal) action raises, changes nothing
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
            info["outcome"] = core.outcome_dict()  # the RULES §9 result of the last game (with a renonce's action)
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
            self._aec.game, viewer=self._aec.agent_name_mapping[self._learner], bummerl_score=self._aec._bummerl_score
        )
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        self._aec.close()
