"""
# Schnapsen

This environment follows the PettingZoo classic environments (read their page
for the general conventions). It is Schnapsen (20 cards) and Sechsundsechzig
(24 cards), two-player trick-taking card games, with every rule preset of
RULES.md §7.

| Import             | `from schnapsen_env import schnapsen_v0`                         |
|--------------------|------------------------------------------------------------------|
| Creation           | `schnapsen_v0.env()`; `pettingzoo.make("aec", "schnapsen_env/schnapsen_v0")` (PZ >= 1.27) |
| Actions            | Discrete                                                         |
| Parallel API       | No (turn-based; one agent may act several times in a row)        |
| Manual Control     | No (see the terminal play CLI)                                   |
| Agents             | `agents= ['player_0', 'player_1']`                               |
| Agents             | 2                                                                |
| Action Shape       | Discrete(31)                                                     |
| Action Values      | 0..30 (`schnapsen_env.actions`)                                  |
| Observation Shape  | Dict: `observation` (214,) float32, `action_mask` (31,) int8     |
| Observation Values | `observation` in [0, high] per entry (table below); mask 0/1     |
| State Shape        | (262,) float32                                                   |

## Arguments

``` python
schnapsen_v0.env(variant="schnapsen", episode="game", reward="game_points",
                 illegal_action="renonce", render_mode=None, **rule_options)
```

* `variant`: a RULES §7 preset: `"schnapsen"` (default), `"schnapsen-sharp"`,
  `"schnapsen-tournament"`, `"sechsundsechzig"`, `"vu-course"`.
* any rule option of RULES §7 (`deck`, `sharp`, `declare`,
  `false_declaration_points`, `closing_counts_later_eyes`, `show_eyes`,
  `allow_closing`, `marriage_leads_king`, `marriage_credit`,
  `bummerl_target`, `schneider_bummerl`) overrides the preset.
* `episode`: `"game"` (one game) or `"bummerl"` (games until one player has
  `bummerl_target` game points, RULES §6; the dealer alternates).
* `reward`: `"game_points"` or `"win_loss"` (see Rewards).
* `illegal_action`: `"renonce"` (default of `env()`): an illegal action ends
  the game as a renonce (RULES §5.4: the offender loses 3 game points);
  `"raise"` (default of `raw_env`): raises the engine's `IllegalActionError`
  (a `ValueError`) and leaves the environment unchanged. An action outside
  0..30 (or not an integer) always raises.
* `render_mode`: `None`, `"ansi"` (returns the text) or `"human"` (prints it).

An unknown keyword or a bad value raises `ValueError` naming the key and the
allowed values. `env()` wraps `raw_env` in PettingZoo's
`OrderEnforcingWrapper`; terminal and illegal steps are handled once, in
`raw_env.step` (`illegal_action`).

## Turns

Turns follow the game: the player on lead may exchange the trump card, close
the talon, announce a marriage (and, under `declare="manual"`, declare 66)
before leading, each as its own step, so one agent may act several times in
a row; `agent_selection` always names the player to act (RULES §3–§5).

## Observation Space

A dict with `observation` (a flat float32 vector) and `action_mask` (int8, one
entry per action, 1 = legal; all zeros for the agent that is not to move).
The observation is the information set of the viewer (RULES §8) and nothing
more, relative to the viewer ("self"/"opponent"), the same size for every
variant and both agents. Card planes are indexed by card id
(`suit * 6 + rank`; suits C S H D, ranks A T K Q J 9; the nine entries stay 0
in the 20-card game). Eyes are card points divided by 66; with
`show_eyes=False` (Scharfschnapsen) they are 0 and the agent must count. The
layout is `schnapsen_env.observation.OBSERVATION_TABLE` (as a Markdown table:
`schnapsen_env.observation.describe_observation()`); `env.unwrapped.observer`
(an `Observer(rules, bummerl)`) builds the observations, and its `spec` is what
training saves in every checkpoint and loading compares.

`state()` returns the full state for centralized critics (float32, 262):
player 0's observation, then player 1's hand (24), then the talon order (24:
`(k+1)/11` for the card drawn k-th from now). It reveals hidden cards.

## Action Space

| id    | action                                                      |
|-------|-------------------------------------------------------------|
| 0–23  | play the card with this id                                  |
| 24–27 | announce the marriage in suit C, S, H, D                    |
| 28    | exchange the lowest trump for the face-up trump card        |
| 29    | close the talon                                             |
| 30    | declare 66 (`declare="manual"` only)                        |

## Rewards

`episode="game"`: at the end of the game the winner gets `+p` and the loser
`-p`, where `p` is the game points won (1, 2 or 3, RULES §5; a renonce costs
3); with `reward="win_loss"` it is `+1`/`-1`. `episode="bummerl"`: 0 after
every game, and at the end `+1`/`-1` for winning/losing the Bummerl, `+2`/`-2`
for a Schneider-Bummerl when the rules count it (`reward="win_loss"`: always
`±1`). Rewards always sum to zero; they are those of
`schnapsen_env.learner.outcome_rewards`; the deals, the Bummerl's next games and the
episode's end are those of `schnapsen_env.learner.LearnerGame`. `infos` are empty dicts
(as in the classic environments): read `env.unwrapped.last_outcome` (the engine's
`Outcome` of the last finished game), `env.unwrapped.game` and `env.unwrapped.bummerl`.

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

from .actions import NUM_ACTIONS, action_to_str
from .engine import GameState, IllegalActionError, Outcome, validate_seed
from .learner import EPISODE_OVER, EPISODES, ILLEGAL_ACTIONS, REWARDS, LearnerGame, _choice, env_rules
from .match import Bummerl
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE, STATE_HIGH, STATE_LOW, STATE_SIZE, Observer, encode_full_state
from .render import render_text
from .replay import to_record
from .rules import Rules

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("human", "ansi")
_ENV_KWARGS = ("variant", "episode", "reward", "illegal_action", "render_mode")


def env(**kwargs: Any) -> AECEnv:
    """The Schnapsen AEC environment in PettingZoo's ``OrderEnforcingWrapper``.

    Keyword arguments as :class:`raw_env`; ``illegal_action`` defaults to ``"renonce"`` here.
    """
    kwargs.setdefault("illegal_action", "renonce")
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):
    """The unwrapped Schnapsen AEC environment (see the module docstring).

    ``raw_env(variant="schnapsen", episode="game", reward="game_points",
    illegal_action="raise", render_mode=None, **rule_options)``. Raises
    ``ValueError`` naming the keyword and the allowed values for an unknown
    keyword or a bad value. ``copy.deepcopy`` and ``pickle`` keep everything,
    the game and the deal generator included.
    """

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
                    "observation": spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self.state_space = spaces.Box(low=STATE_LOW, high=STATE_HIGH, shape=(STATE_SIZE,), dtype=np.float32)
        #: what builds the observations (rules, Bummerl or not); ``observer.spec`` describes them
        self.observer = Observer(self.rules, bummerl=self.episode == "bummerl")
        self._rng = random.Random()
        # the episode (deals, Bummerl, games, rewards, illegal actions): schnapsen_env.learner, no learner seat
        self._core = LearnerGame(self.rules, self.episode, self.reward_kind, self.illegal_action)
        self._game: GameState | None = None  # the core's current game (None before reset), for the hot paths
        self._bummerl_score: tuple | None = None  # game points per seat (Bummerl episodes), else None

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
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._game.current_player]

    def step(self, action: Any) -> None:
        """Play ``action`` (0..30) for ``agent_selection``; terminal and illegal steps are handled here.

        A terminated agent must step with ``None``. An action outside 0..30 raises
        :class:`IllegalActionError` (a ``ValueError``); an illegal one raises it too under
        ``illegal_action="raise"`` (nothing changes) or ends the game as a renonce of the mover
        under ``"renonce"``.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(action, f"not an action id (allowed 0..{NUM_ACTIONS - 1})")
        game = self._game
        player = game.current_player
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
        self.agent_selection = AGENTS[1 - mover]  # the other player steps (with None) first, then the mover

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 (OBS_SIZE,), "action_mask": int8 (31,)}`` for ``agent``."""
        obs, mask = self.observer.state_and_mask(self._game, self.agent_name_mapping[agent], self._bummerl_score)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full state (both hands, talon order): float32 ``(STATE_SIZE,)`` (layout ``STATE_TABLE``)."""
        return encode_full_state(self._game, self._bummerl_score)

    @property
    def game(self) -> GameState | None:
        """The engine state of the current game (read it; do not change it); None before ``reset()``."""
        return self._game

    def record(self) -> dict:
        """The RULES §9 game record of the current game so far, replayable with
        ``python -m schnapsen_env.replay``. A game lost by a renonce ends with the illegal action,
        so its replay reports ``illegal_action`` at that index (RULES §9 replays rules, not penalties)."""
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
        """The :class:`~schnapsen_env.engine.Outcome` of the last finished game of this episode, or None."""
        return self._core.last_outcome

    @property
    def last_illegal_action(self) -> int | None:
        """The action that ended the last game as a renonce (``illegal_action="renonce"``), else None."""
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
