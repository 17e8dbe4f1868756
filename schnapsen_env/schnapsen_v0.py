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
`OrderEnforcingWrapper`; illegal actions are handled by the environment
itself (`illegal_action`), so no `TerminateIllegalWrapper` or
`AssertOutOfBoundsWrapper` is needed.

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
layout is `schnapsen_env.observation.OBSERVATION_TABLE`; `env.unwrapped.observer`
(an `Observer(rules, bummerl)`) builds the observations, and its `spec` (a plain
dict: `version`, `size`, this table as `fields`, the `rules` and `bummerl`
context) is what training saves in every checkpoint and loading compares:

| index | name | high | meaning |
|---|---|---|---|
| 0–23 | `hand` | 1 | cards in the viewer's hand |
| 24–47 | `opponent_known` | 1 | opponent's cards known to be in hand (exchange, marriage partner, last trump card) |
| 48–71 | `unseen` | 1 | cards the viewer has not seen: opponent's unknown cards and face-down talon |
| 72–95 | `trump_card` | 1 | the face-up trump card under the talon (one-hot; all 0 once drawn) |
| 96–119 | `lead_card` | 1 | the card led in the current trick (one-hot; all 0 before the lead) |
| 120–143 | `played_self` | 1 | cards the viewer played in finished tricks |
| 144–167 | `played_opponent` | 1 | cards the opponent played in finished tricks |
| 168–171 | `trump_suit` | 1 | the trump suit (one-hot) |
| 172–175 | `pending_marriage` | 1 | suit announced at this lead whose king/queen is not led yet (one-hot) |
| 176–179 | `marriages_self` | 1 | suits of the marriages the viewer announced |
| 180–183 | `marriages_opponent` | 1 | suits of the marriages the opponent announced |
| 184 | `to_move` | 1 | 1 if the viewer is to act now |
| 185 | `is_leader` | 1 | 1 if the viewer is on lead in the current trick |
| 186 | `is_dealer` | 1 | 1 if the viewer dealt (the opponent was forehand) |
| 187 | `closed_by_self` | 1 | 1 if the viewer closed the talon |
| 188 | `closed_by_opponent` | 1 | 1 if the opponent closed the talon |
| 189 | `closed_opponent_had_trick` | 1 | after a closing: 1 if the closer's opponent had won a trick then |
| 190 | `exchanged_by_self` | 1 | 1 if the viewer exchanged the trump card |
| 191 | `exchanged_by_opponent` | 1 | 1 if the opponent exchanged the trump card |
| 192 | `rule_deck_24` | 1 | rules: 24-card Sechsundsechzig |
| 193 | `rule_sharp` | 1 | rules: sharp (Scharfschnapsen limits) |
| 194 | `rule_declare_manual` | 1 | rules: declare="manual" |
| 195 | `rule_false_declaration_2` | 1 | rules: false_declaration_points=2 |
| 196 | `rule_closing_counts_later_eyes` | 1 | rules: closing_counts_later_eyes |
| 197 | `rule_show_eyes` | 1 | rules: show_eyes (eye fields below are filled) |
| 198 | `rule_allow_closing` | 1 | rules: allow_closing |
| 199 | `rule_marriage_leads_king` | 1 | rules: marriage_leads_king |
| 200 | `rule_marriage_credit_next_trick` | 1 | rules: marriage_credit="next_trick" |
| 201 | `rule_schneider_bummerl` | 1 | rules: schneider_bummerl |
| 202 | `bummerl` | 1 | 1 if the episode is a Bummerl (the score fields are filled) |
| 203 | `talon_size` | 1 | face-down talon cards / 11 |
| 204 | `opponent_hand_size` | 1 | cards in the opponent's hand / 6 |
| 205 | `tricks_won_self` | 1 | tricks won by the viewer / 12 |
| 206 | `tricks_won_opponent` | 1 | tricks won by the opponent / 12 |
| 207 | `eyes_self` | 3.48 | viewer's credited eyes / 66 (0 if hidden) |
| 208 | `eyes_opponent` | 3.48 | opponent's credited eyes / 66 (0 if hidden) |
| 209 | `held_marriage_eyes_self` | 3.48 | viewer's announced, not yet credited marriage eyes / 66 (0 if hidden) |
| 210 | `held_marriage_eyes_opponent` | 3.48 | opponent's announced, not yet credited marriage eyes / 66 (0 if hidden) |
| 211 | `closed_opponent_eyes` | 3.48 | after a closing: the closer's opponent's eyes then / 66 (0 if hidden) |
| 212 | `bummerl_score_self` | 3 | viewer's game points in this Bummerl / bummerl_target |
| 213 | `bummerl_score_opponent` | 3 | opponent's game points in this Bummerl / bummerl_target |

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
`schnapsen_env.learner.outcome_rewards`, the one function that turns a result into rewards
(the Gymnasium view, training and the arena use it too), and the deals, the Bummerl's next
games and the episode's end are those of `schnapsen_env.learner.LearnerGame`. `infos` are empty dicts (as in the classic
environments; a key present only at some steps breaks replay buffers such as
Tianshou's): read `env.unwrapped.last_outcome` (the engine's `Outcome` of the
last finished game), `env.unwrapped.game` and `env.unwrapped.bummerl`.

## Version History

* v0: Initial release.
"""

from __future__ import annotations

import operator
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import NUM_ACTIONS
from .engine import GameState, IllegalActionError, validate_seed
from .learner import EPISODE_OVER, EPISODES, ILLEGAL_ACTIONS, REWARDS, LearnerGame, _choice, env_rules
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
from .rules import Rules
from .cards import brief_repr

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("human", "ansi")
_RULE_OPTIONS = tuple(Rules.__dataclass_fields__)
_ENV_KWARGS = ("variant", "episode", "reward", "illegal_action", "render_mode")



def env(**kwargs: Any) -> AECEnv:
    """The Schnapsen AEC environment, wrapped PettingZoo-classic style (``OrderEnforcingWrapper``).

    Keyword arguments as :class:`raw_env`; ``illegal_action`` defaults to
    ``"renonce"`` here. Raises ``ValueError`` for an unknown keyword or a bad value.
    """
    kwargs.setdefault("illegal_action", "renonce")
    return _OrderEnforcing(raw_env(**kwargs))


_RESET_FIRST = "{} cannot be accessed before reset"
#: attributes that exist only after reset() (PettingZoo's OrderEnforcingWrapper list)
_RESET_ATTRIBUTES = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents",
                               "agents", "_cumulative_rewards"})


class EnvOrderError(AssertionError, RuntimeError):
    """A call in the wrong order: ``last()``, ``step()``, ``observe()``, ``state()`` or
    ``render()`` before ``reset()``, or ``last()`` after the episode ended (every agent
    has stepped with ``None``). The message names the call and what to do. An
    ``AssertionError`` (what PettingZoo's ``OrderEnforcingWrapper`` raises) and a
    ``RuntimeError``; ``raw_env`` and ``env()`` raise the same."""


def _known_agent(agent: Any) -> str:
    """``agent`` if it is one of :data:`AGENTS`, else ``ValueError`` naming the allowed names."""
    if isinstance(agent, str) and agent in AGENTS:
        return agent
    raise ValueError(f"unknown agent {brief_repr(agent)}: allowed {', '.join(map(repr, AGENTS))}")


def _reset_first(call: str) -> EnvOrderError:
    return EnvOrderError(f"reset() needs to be called before {call}")


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the hot attributes and ``last()`` forwarded
    directly instead of through ``__getattr__`` (several microseconds less per step).
    Calls before ``reset()`` raise the same :class:`EnvOrderError` as ``raw_env``."""

    def last(self, observe: bool = True):
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        # raw_env checks the order itself (before reset, after the end): one place for both
        self._has_updated = True
        self.env.step(action)

    def observe(self, agent: str):
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        return self.env.state()

    def render(self):
        return self.env.render()

    def _forward(name: str):
        def get(self):
            if not self._has_reset:
                raise AttributeError(_RESET_FIRST.format(name))
            return getattr(self.env, name)

        return property(get)

    agents = _forward("agents")
    agent_selection = _forward("agent_selection")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    num_agents = _forward("num_agents")
    del _forward


class raw_env(AECEnv, EzPickle):
    """The unwrapped Schnapsen AEC environment (see the module docstring).

    ``raw_env(variant="schnapsen", episode="game", reward="game_points",
    illegal_action="raise", render_mode=None, **rule_options)``. Raises
    ``ValueError`` naming the keyword and the allowed values for an unknown
    keyword or a bad value. ``copy.deepcopy`` and ``pickle`` keep everything,
    the game and the deal generator included: a copy made mid-game continues
    exactly like the original.
    """

    metadata: ClassVar[dict] = {
        "render_modes": list(RENDER_MODES),
        "name": "schnapsen_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, variant: str = "schnapsen", episode: str = "game", reward: str = "game_points",
                 illegal_action: str = "raise", render_mode: str | None = None, **rule_options: Any):
        EzPickle.__init__(self, variant=variant, episode=episode, reward=reward, illegal_action=illegal_action,
                          render_mode=render_mode, **rule_options)
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
            a: spaces.Dict({
                "observation": spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            })
            for a in AGENTS
        }
        self.state_space = spaces.Box(low=STATE_LOW, high=STATE_HIGH, shape=(STATE_SIZE,), dtype=np.float32)
        #: what builds the observations (rules, Bummerl or not); ``observer.spec`` describes them
        self.observer = Observer(self.rules, bummerl=self.episode == "bummerl")
        self._rng = random.Random()
        # the episode (deals, Bummerl, games, rewards, illegal actions): schnapsen_env.learner, no learner seat
        self._core = LearnerGame(self.rules, self.episode, self.reward_kind, self.illegal_action)
        self._game = None  # the core's current GameState (None before reset), kept here for the hot paths
        self._bummerl_score = None  # tuple of game points per seat (Bummerl episodes), else None

    def __getattr__(self, name: str):
        # only reached when normal lookup fails: the per-episode attributes before reset()
        if name in _RESET_ATTRIBUTES:
            raise AttributeError(_RESET_FIRST.format(name))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {brief_repr(name)}")

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``; ``ValueError`` for an unknown agent."""
        return self.observation_spaces[_known_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``; ``ValueError`` for an unknown agent."""
        return self.action_spaces[_known_agent(agent)]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (or start a new Bummerl). ``seed`` makes the deals reproducible:
        the deck shuffles and dealers are drawn from ``random.Random(seed)``; without a seed
        the generator continues (first created from OS entropy). ``options`` is accepted
        and unused: the env has no reset options (PettingZoo's ``api_test`` passes arbitrary
        ones, so refusing them would break the API contract)."""
        if seed is not None:
            self._rng = random.Random(validate_seed(seed))
        core = self._core
        self._game = core.start(self._rng)  # a game: GameState.from_seed(rules, rng); a Bummerl: Bummerl.from_seed
        self._bummerl_score = core.bummerl_score
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._game.current_player]

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> None:
        """Play ``action`` (0..30) for ``agent_selection``; terminal and illegal steps are handled here.

        A terminated agent must step with ``None``. An action that is not an
        integer in 0..30 raises :class:`IllegalActionError` (a ``ValueError``);
        an illegal one raises it too under ``illegal_action="raise"`` (nothing
        changes) or ends the game as a renonce of the mover under ``"renonce"``.
        """
        game = self._game
        if game is None:
            raise _reset_first("step()")
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has stepped with None: the episode is over
            logger.warn("step() called after all agents are terminated or truncated: call reset() first")
            return
        if dead:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            action = _to_action(action)
        if not (0 <= action < NUM_ACTIONS):
            raise IllegalActionError(action, f"not an action id (allowed ints 0..{NUM_ACTIONS - 1})")
        player = game.current_player
        # "raise": the engine's IllegalActionError with the reason, nothing changed; "renonce": the game ends
        ended = self._core.apply(action)
        self._cumulative_rewards[agent] = 0
        if ended:
            self._game_over(player)
        else:
            self.agent_selection = AGENTS[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _game_over(self, mover: int) -> None:
        """Book the finished game (the core deals the next game of a Bummerl or ends the episode
        with the rewards of :func:`schnapsen_env.learner.outcome_rewards`)."""
        core = self._core
        if core.end_game() != EPISODE_OVER:
            self._game = core.state
            self._bummerl_score = core.bummerl_score
            self.agent_selection = AGENTS[self._game.current_player]
            return
        self._bummerl_score = core.bummerl_score
        r0, r1 = core.rewards
        self.rewards[AGENTS[0]] = r0
        self.rewards[AGENTS[1]] = r1
        self._accumulate_rewards()
        for a in AGENTS:
            self.terminations[a] = True
        # the other player steps (with None) first, then the mover
        self.agent_selection = AGENTS[1 - mover]

    # ------------------------------------------------------------------ observe
    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of ``agent_selection``.

        Raises :class:`EnvOrderError` before ``reset()`` and once the episode is over
        (every agent has stepped with ``None``).
        """
        try:
            agent = self.agent_selection
            return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                    self.terminations[agent], self.truncations[agent], self.infos[agent])
        except (AttributeError, KeyError, EnvOrderError):  # checked here, off the hot path
            if self._game is None:
                raise _reset_first("last()") from None
            if not self.agents:
                raise EnvOrderError("the episode is over (every agent has stepped with None): "
                                    "call reset() before last()") from None
            raise

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 (OBS_SIZE,), "action_mask": int8 (31,)}`` for ``agent``.

        Raises :class:`EnvOrderError` before ``reset()``, ``ValueError`` for an unknown agent.
        """
        game = self._game
        if game is None:
            raise _reset_first("observe()")
        player = self.agent_name_mapping[_known_agent(agent)]
        obs, mask = self.observer._state_and_mask(game, player, self._bummerl_score)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full state (both hands, talon order): float32 ``(STATE_SIZE,)`` (layout ``STATE_TABLE``).

        Raises :class:`EnvOrderError` before ``reset()``.
        """
        if self._game is None:
            raise _reset_first("state()")
        return encode_full_state(self._game, self._bummerl_score)

    @property
    def game(self) -> GameState:
        """The engine state of the current game (read it; do not change it)."""
        return self._game

    def record(self) -> dict:
        """The RULES §9 game record of the current game so far (the finished game once the episode
        is over): ``{"variant", "options", "dealer", "deck", "actions"}``, replayable with
        ``python -m schnapsen_env.replay``. A game lost by a renonce (``illegal_action="renonce"``)
        ends with the illegal action, so its replay reports ``illegal_action`` at that index (RULES
        §9 replays rules, not penalties). Raises :class:`EnvOrderError` before ``reset()``."""
        if self._game is None:
            raise _reset_first("record()")
        return self._record(len(self._core.games) - 1)

    def _record(self, index: int) -> dict:
        from .actions import action_to_str
        from .replay import to_record

        core = self._core
        record = to_record(core.games[index], self.variant)
        if index in core.renonces:  # the illegal action is not in the game's history: add it
            record["actions"].append(action_to_str(core.renonces[index]))
        return record

    def episode_records(self) -> list[dict]:
        """The records of every game of this episode so far (one for ``episode="game"``; a
        Bummerl's games in order, the current one last). Raises :class:`EnvOrderError` before ``reset()``."""
        if self._game is None:
            raise _reset_first("episode_records()")
        return [self._record(i) for i in range(len(self._core.games))]

    @property
    def last_outcome(self):
        """The :class:`~schnapsen_env.engine.Outcome` of the last finished game of this episode
        (in a Bummerl the current game may already be the next one), or None."""
        return self._core.last_outcome

    @property
    def last_illegal_action(self) -> int | None:
        """The action that ended the last game as a renonce (``illegal_action="renonce"``), else None."""
        return self._core.last_illegal_action

    @property
    def bummerl(self) -> Bummerl | None:
        """The Bummerl score keeper (``episode="bummerl"``), else None."""
        return self._core.bummerl

    # ------------------------------------------------------------------ render
    def render(self) -> str | None:
        """``"ansi"``: the table as a string; ``"human"``: printed. The view is that of the agent
        to act (``agent_selection``): its own hand only, eyes only when the rules show them.
        ``render_mode=None``: Gymnasium's "no render mode" warning and ``None``. Raises
        :class:`EnvOrderError` before ``reset()``, whatever the render mode."""
        if self._game is None:
            raise _reset_first("render()")
        if self.render_mode is None:
            logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer = self.agent_name_mapping[self.agent_selection] if self.agent_selection else None
        text = render_text(self._game, viewer=viewer, bummerl_score=self._bummerl_score)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ copies
    def __getstate__(self) -> dict:
        """The whole env, game included (``EzPickle`` alone would rebuild a fresh, un-reset env)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __str__(self) -> str:
        return "schnapsen_v0"


def _to_action(action: Any) -> int:
    """An action id from an int-like value (numpy integers included); raises ``IllegalActionError``."""
    if isinstance(action, (bool, np.bool_)) or action is None:
        raise IllegalActionError(action, f"not an action id (allowed ints 0..{NUM_ACTIONS - 1})")
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    try:
        return operator.index(action)
    except TypeError:
        raise IllegalActionError(action, f"not an action id (allowed ints 0..{NUM_ACTIONS - 1})") from None
