"""
# Schnapsen

A PettingZoo classic-style AEC environment of Schnapsen (20 cards) and
Sechsundsechzig (24 cards), with every rule preset of RULES.md §7.

| Import             | `from schnapsen_env import schnapsen_v0`                         |
|--------------------|------------------------------------------------------------------|
| Creation           | `schnapsen_v0.env()`; `pettingzoo.make("aec", "schnapsen_env/schnapsen_v0")` (PZ >= 1.27) |
| Agents             | `['player_0', 'player_1']` (turn-based; one may act several times in a row) |
| Action Space       | Discrete(31), ids of `schnapsen_env.actions`                     |
| Observation Space  | Dict: `observation` (214,) float32 in [0, high], `action_mask` (31,) int8 |
| State Shape        | (262,) float32                                                   |

## Arguments

``` python
schnapsen_v0.env(variant="schnapsen", episode="game", reward="game_points",
                 illegal_action="renonce", render_mode=None, **rule_options)
```

* `variant`: a RULES §7 preset; any rule option of RULES §7 overrides it.
* `episode`: `"game"` or `"bummerl"` (games until one player has
  `bummerl_target` game points, RULES §6; the dealer alternates).
* `reward`: `"game_points"` or `"win_loss"` (see Rewards).
* `illegal_action`: `"renonce"` (default of `env()`): an illegal action ends the game as a renonce
  (RULES §5.4: the offender loses 3 game points); `"raise"` (default of `raw_env`): raises the
  engine's `IllegalActionError` (a `ValueError`), nothing changes. Anything but an int 0..30 (a
  numpy integer or 0-d integer array counts; a bool, float, string or 1-element array does not)
  always raises it.
* `render_mode`: `None`, `"ansi"` (returns the text) or `"human"` (prints it).

A bad keyword or value raises `ValueError` naming it and the allowed values. `env()` wraps `raw_env`
in PettingZoo's `OrderEnforcingWrapper`; terminal and illegal steps are handled once, in
`raw_env.step`.

## Observation

`observation` is the viewer's information set (RULES §8) relative to the viewer ("self"/"opponent"),
the same size for every variant: card planes by card id, eyes / 66 (0 with `show_eyes=False`), the
rule options; layout `schnapsen_env.observation.OBSERVATION_TABLE` (`describe_observation()` prints
it). `action_mask` is 1 for legal actions, all zeros for the agent not to move.
`env.unwrapped.observer.spec` describes the numbers (checkpoints save it). `state()` is the full
state for centralized critics: player 0's observation, player 1's hand (24), the talon order (24:
`(k+1)/11` for the card drawn k-th).

## Rewards

Game points (RULES §5: the winner `+p`, the loser `-p`, `p` in 1..3; a renonce 3), or in a Bummerl
episode `±1` (`±2` for a Schneider-Bummerl) at its end; `reward="win_loss"`: `±1`. They are
`schnapsen_env.learner.outcome_rewards`; the deals and the episode's end are those of
`schnapsen_env.learner.LearnerGame`. `infos` are empty dicts: read `env.unwrapped.last_outcome`,
`.game` and `.bummerl`.

## Version History

* v0: Initial release.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .actions import NUM_ACTIONS, action_to_str
from .engine import GameState, Outcome, validate_seed
from .learner import (
    EPISODE_OVER,
    EPISODES,
    ILLEGAL_ACTIONS,
    REWARDS,
    LearnerGame,
    _choice,
    env_rules,
)
from .match import Bummerl
from .observation import (
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    STATE_HIGH,
    STATE_LOW,
    STATE_SIZE,
    Observer,
    encode_full_state,
)
from .render import render_text
from .replay import to_record
from .rules import Rules

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("human", "ansi")
_ENV_KWARGS = ("variant", "episode", "reward", "illegal_action", "render_mode")


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in PettingZoo's ``OrderEnforcingWrapper``; ``illegal_action`` defaults to
    ``"renonce"``."""
    kwargs.setdefault("illegal_action", "renonce")
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with ``last()``, ``step()`` and the per-episode
    attributes read from ``raw_env`` directly once reset, not through ``BaseWrapper.__getattr__``
    (faster: ``benchmarks/engine_speed.py`` times ``env()``)."""

    def last(self, observe: bool = True) -> tuple:
        return self.env.last(observe) if self._has_reset else super().last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)


for _name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
    # before reset(): PettingZoo's "cannot be accessed before reset"
    setattr(
        _OrderEnforcing,
        _name,
        property(lambda self, n=_name: getattr(self.env, n) if self._has_reset else self.__getattr__(n)),
    )


class raw_env(AECEnv, EzPickle):
    """The unwrapped Schnapsen AEC environment (see the module docstring); ``illegal_action``
    defaults to ``"raise"``. ``ValueError`` naming a bad keyword or value. ``copy.deepcopy`` and
    ``pickle`` keep everything."""

    metadata: ClassVar[dict] = {
        "render_modes": list(RENDER_MODES),
        "name": "schnapsen_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "schnapsen",
        episode: str = "game",
        reward: str = "game_points",
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **rule_options: Any,
    ):
        EzPickle.__init__(
            self,
            variant=variant,
            episode=episode,
            reward=reward,
            illegal_action=illegal_action,
            render_mode=render_mode,
            **rule_options,
        )
        super().__init__()
        self.rules: Rules = env_rules(variant, _ENV_KWARGS, **rule_options)
        self.variant = variant
        self.episode = _choice("episode", episode, EPISODES)
        self.reward_kind = _choice("reward", reward, REWARDS)
        self.illegal_action = _choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if render_mode is not None:
            _choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode

        self.possible_agents = list(AGENTS)
        self.agent_name_mapping = {a: i for i, a in enumerate(AGENTS)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=OBS_LOW,
                        high=OBS_HIGH,
                        shape=(OBS_SIZE,),
                        dtype=np.float32,
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self.state_space = spaces.Box(
            low=STATE_LOW,
            high=STATE_HIGH,
            shape=(STATE_SIZE,),
            dtype=np.float32,
        )
        #: what builds the observations (rules, Bummerl or not); ``observer.spec`` describes them
        self.observer = Observer(self.rules, bummerl=self.episode == "bummerl")
        self._rng = random.Random()
        # the episode (deals, Bummerl, games, rewards, illegal actions): schnapsen_env.learner, no
        # learner seat
        self._core = LearnerGame(self.rules, self.episode, self.reward_kind, self.illegal_action)
        # the core's current game (None before reset), for the hot paths
        self._game: GameState | None = None
        # game points per seat (Bummerl episodes), else None
        self._bummerl_score: tuple | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (or start a new Bummerl). ``seed`` (None or an int >= 0) makes the
        deals reproducible: the deck shuffles and dealers are drawn from ``random.Random(seed)``;
        without a seed the generator continues. ``options`` is unused."""
        if seed is not None:
            self._rng = random.Random(validate_seed(seed))
        core = self._core
        self._game = core.start(self._rng)
        self._bummerl_score = core.bummerl_score
        self.agents = list(AGENTS)
        self.rewards, self._cumulative_rewards = dict.fromkeys(AGENTS, 0), dict.fromkeys(AGENTS, 0)
        self.terminations, self.truncations = (
            dict.fromkeys(AGENTS, False),
            dict.fromkeys(AGENTS, False),
        )
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._game.current_player]

    def step(self, action: Any) -> None:
        """Play ``action`` (an int 0..30) for ``agent_selection`` (``None`` for a terminated agent).
        Anything else raises :class:`IllegalActionError` (nothing changes); an illegal one raises it
        too (``"raise"``) or is a renonce of the mover (``"renonce"``). After the episode:
        PettingZoo's "reset() first" warning."""
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has stepped with None: PettingZoo's "reset() first" warning
            return EnvLogger.warn_step_after_terminated_truncated()
        if dead:
            self._was_dead_step(action)
            return
        game = self._game
        player = game.current_player
        # not an action id (any mode) or illegal ("raise"): IllegalActionError
        ended = self._core.apply(action)
        self._cumulative_rewards[agent] = 0
        if ended:
            self._game_over(player)
        else:
            self.agent_selection = AGENTS[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _game_over(self, mover: int) -> None:
        """Book the finished game: the core deals the next game of a Bummerl or ends the episode."""
        core = self._core
        ended = core.end_game() == EPISODE_OVER
        self._bummerl_score = core.bummerl_score
        if not ended:
            self._game = core.state
            self.agent_selection = AGENTS[self._game.current_player]
            return
        self.rewards = dict(zip(AGENTS, core.rewards))
        self._accumulate_rewards()
        self.terminations = {a: True for a in AGENTS}
        # the other player steps (with None) first, then the mover
        self.agent_selection = AGENTS[1 - mover]

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 (OBS_SIZE,), "action_mask": int8 (31,)}`` for ``agent``."""
        obs, mask = self.observer.state_and_mask(
            self._game,
            self.agent_name_mapping[agent],
            self._bummerl_score,
        )
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full state (both hands, talon order): float32 ``(STATE_SIZE,)`` (layout
        ``STATE_TABLE``)."""
        return encode_full_state(self._game, self._bummerl_score)

    @property
    def game(self) -> GameState | None:
        """The engine state of the current game (read it; do not change it); None before
        ``reset()``."""
        return self._game

    def record(self) -> dict:
        """The RULES §9 game record of the current game so far, replayable with ``python -m
        schnapsen_env.replay``. A game lost by a renonce ends with the illegal action, so its replay
        reports ``illegal_action`` at that index (RULES §9 replays rules, not penalties)."""
        return self._record(len(self._core.games) - 1)

    def _record(self, index: int) -> dict:
        core = self._core
        record = to_record(core.games[index], self.variant)
        if index in core.renonces:  # the illegal action is not in the game's history: add it
            record["actions"].append(action_to_str(core.renonces[index]))
        return record

    def episode_records(self) -> list[dict]:
        """The records of every game of this episode so far (a Bummerl's games in order)."""
        return [self._record(i) for i in range(len(self._core.games))]

    @property
    def last_outcome(self) -> Outcome | None:
        """The :class:`~schnapsen_env.engine.Outcome` of the last finished game of this episode, or
        None."""
        return self._core.last_outcome

    @property
    def last_illegal_action(self) -> int | None:
        """The action that ended the last game as a renonce (``illegal_action="renonce"``), else
        None."""
        return self._core.last_illegal_action

    @property
    def bummerl(self) -> Bummerl | None:
        """The Bummerl score keeper (``episode="bummerl"``), else None."""
        return self._core.bummerl

    def render(self) -> str | None:
        """The view of the agent to act as text: ``"ansi"`` returns it, ``"human"`` prints it."""
        if self.render_mode is None:
            logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer = self.agent_name_mapping.get(self.agent_selection)
        text = render_text(self._game, viewer=viewer, bummerl_score=self._bummerl_score)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

    def __getstate__(self) -> dict:
        """The whole env, game included (``EzPickle`` alone would rebuild a fresh, un-reset env)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __str__(self) -> str:
        return "schnapsen_v0"
