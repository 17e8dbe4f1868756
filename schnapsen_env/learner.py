"""The learner's view of an episode: one core for the PettingZoo env, the Gymnasium view, training and the arena.

An episode is one game or one Bummerl (games until a player has ``rules.bummerl_target`` game
points, RULES §6). :class:`LearnerGame` applies an action for whoever is to act (with the
illegal-action rule), books a finished game, deals the next one of the episode or ends it with the
rewards of :func:`outcome_rewards`. An episode that ends before the learner's first decision (a
manual declaration by the opponent) is :attr:`LearnerGame.skipped` and carries no reward. Rewards
are game points or Bummerl won (``reward="win_loss"``: ±1), never eyes.
"""

from __future__ import annotations

import random

from .actions import NUM_ACTIONS, action_to_str
from .cards import brief_repr
from .engine import NOBODY, NOT_AN_ACTION, GameState, IllegalActionError, Outcome, action_id
from .match import Bummerl
from .rules import PRESETS, Rules

#: episode kinds: one game, or one Bummerl (RULES §6)
EPISODES = ("game", "bummerl")
#: reward kinds: game points (Bummerl won) or ±1
REWARDS = ("game_points", "win_loss")
#: what an illegal action does: ends the game as a renonce of the mover (RULES §5.4), or raises
ILLEGAL_ACTIONS = ("renonce", "raise")

#: :meth:`LearnerGame.end_game` / :meth:`LearnerGame.step` results
PLAYING = 0  #: the game goes on
NEXT_GAME = 1  #: the game ended and the next game of the Bummerl is dealt
EPISODE_OVER = 2  #: the game ended and so did the episode (rewards are set)


def _choice(name: str, value, allowed: tuple) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"bad value {brief_repr(value)} for {name!r}: allowed {', '.join(map(repr, allowed))}")
    return value


def env_rules(variant: str, env_keywords: tuple, **rule_options) -> Rules:
    """``Rules.preset(variant, **rule_options)`` from an environment's keywords; one-line
    ``ValueError`` for a keyword not in ``env_keywords`` nor a rule option, an unknown ``variant``
    or a bad option value."""
    options = tuple(Rules.__dataclass_fields__)
    for key in rule_options:
        if key not in options:
            allowed = ", ".join(tuple(env_keywords) + options)
            raise ValueError(f"unknown keyword {brief_repr(key)}: allowed are {allowed}")
    _choice("variant", variant, tuple(PRESETS))
    return Rules.preset(variant, **rule_options)


def outcome_rewards(
    outcome: Outcome | None, bummerl: Bummerl | None = None, reward: str = "game_points"
) -> tuple[int, int]:
    """The rewards ``(player 0, player 1)`` of a finished game, ints summing to 0, in game points.

    Game episode: the winner gets ``+outcome.game_points`` (1..3, RULES §5), the loser minus that.
    Bummerl episode (``bummerl`` after recording ``outcome``, which is not read then): ``(0, 0)``
    until it is decided, then ``±bummerl.value`` (1, or 2 for a Schneider-Bummerl, RULES §6).
    ``reward="win_loss"``: both values are 1.
    """
    if bummerl is None:
        winner, points = outcome.winner, outcome.game_points
    elif bummerl.is_over:
        winner, points = bummerl.winner, bummerl.value
    else:
        return (0, 0)
    if reward == "win_loss":
        points = 1
    return (points, -points) if winner == 0 else (-points, points)


class LearnerGame:
    """One episode (a game or a Bummerl) from a learner's seat; see the module docstring.

    ``LearnerGame(rules, episode="game", reward="game_points", illegal_action="raise")``;
    :meth:`start` deals. Attributes (change them only through the methods): ``seat`` (the learner's
    player id or None), ``state`` (the current :class:`GameState`), ``bummerl`` (the
    :class:`Bummerl` or None), ``first_dealer``, ``games`` (the episode's games, current last),
    ``renonces`` (``{game index: the illegal action}``), ``acted`` (the learner has decided),
    ``over``, ``rewards`` (:func:`outcome_rewards` once ``over``, else ``(0, 0)``), ``last_outcome``
    and ``last_illegal_action`` (of the last booked game).
    """

    def __init__(
        self,
        rules: Rules,
        episode: str = "game",
        reward: str = "game_points",
        illegal_action: str = "raise",
    ):
        self.rules = rules
        self.episode = episode
        self.reward = reward
        self.illegal_action = illegal_action
        self.seat: int | None = None
        self.state: GameState | None = None
        self.bummerl: Bummerl | None = None
        self.first_dealer = 0
        self.games = []
        self.renonces = {}
        self.acted = False
        self.over = False
        self.rewards = (0, 0)
        self.last_outcome: Outcome | None = None
        self.last_illegal_action: int | None = None
        self.rng: random.Random | None = None

    # ------------------------------------------------------------------ dealing
    def start(
        self,
        rng: random.Random,
        seat: int | None = None,
        first_dealer: int | None = None,
    ) -> GameState:
        """Start a new episode and return its first game, dealt from ``rng`` (kept for the Bummerl's
        next games). ``seat``: the learner's player id or None; ``first_dealer``: 0/1 or None (drawn
        from ``rng``, RULES §2)."""
        rules = self.rules
        if self.episode == "bummerl":
            b = Bummerl.from_seed(rules, rng) if first_dealer is None else Bummerl(rules, first_dealer)
            state = b.new_game(rng)
        else:
            b, state = None, GameState.from_seed(rules, rng=rng, dealer=first_dealer)
        self.rng = rng
        self.seat = seat
        self.bummerl = b
        self.first_dealer = state.dealer
        self.state = state
        self.games = [state]
        self.renonces = {}
        self.acted = False
        self.over = False
        self.rewards = (0, 0)
        self.last_outcome = self.last_illegal_action = None
        return state

    def set_seat(self, seat: int | None) -> None:
        """Name the learner's seat (0/1, or None) of an episode that has no action yet (``raw_env``
        deals without a seat; the Gymnasium view names its learner right after)."""
        self.seat = seat

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """The player id (0/1) to act now; ``NOBODY`` (-1) once the game or the episode is over."""
        return NOBODY if self.over else self.state.current_player

    @property
    def learner_to_move(self) -> bool:
        """The learner (``seat``) is to act now."""
        return not self.over and self.state.current_player == self.seat

    @property
    def skipped(self) -> bool:
        """The episode is over and the learner never acted in it (no learner reward)."""
        return self.over and not self.acted

    @property
    def winner(self) -> int | None:
        """The episode's winner (the game's, or the Bummerl's), or None while it is not over."""
        if not self.over:
            return None
        return self.last_outcome.winner if self.bummerl is None else self.bummerl.winner

    @property
    def learner_reward(self) -> int:
        """``rewards[seat]``, but 0 for a :attr:`skipped` episode (no learner decision to
        credit)."""
        # skipped: nothing to credit
        return 0 if self.over and not self.acted else self.rewards[self.seat]

    @property
    def bummerl_score(self) -> tuple | None:
        """Game points per player in the Bummerl so far (a tuple), or None in a game episode."""
        return None if self.bummerl is None else tuple(self.bummerl.scores)

    def outcome_dict(self) -> dict:
        """The RULES §9 result of the last booked game; after a renonce also ``"illegal_action"``
        (RULES §9 text, e.g. ``"play AS"``) and ``"illegal_action_id"``."""
        d = self.last_outcome.to_dict()
        if self.last_illegal_action is not None:
            d["illegal_action"] = action_to_str(self.last_illegal_action)
            d["illegal_action_id"] = self.last_illegal_action
        return d

    # ------------------------------------------------------------------ acting
    def apply(self, action: int) -> bool:
        """Play ``action`` (0..30) for the player to act; True when it ended the game (then call
        :meth:`end_game`).

        An illegal action raises :class:`IllegalActionError` (nothing changed) under
        ``illegal_action="raise"`` and is a renonce of the mover (RULES §5.4) under ``"renonce"``;
        an action outside 0..30 always raises."""
        state = self.state
        player = state.current_player
        if self.illegal_action == "raise":
            state.apply(action)
        else:
            if type(action) is not int:
                action = action_id(action)
            if not 0 <= action < NUM_ACTIONS:
                raise IllegalActionError(action, NOT_AN_ACTION)
            if state.legal_mask() >> action & 1:
                state.apply(action)
            else:
                state.renonce(player)
                self.renonces[len(self.games) - 1] = action
        if player == self.seat:
            self.acted = True
        return state.outcome is not None

    def end_game(self) -> int:
        """Book the finished current game: :data:`NEXT_GAME` when the Bummerl goes on (its next game
        is now ``state``, RULES §6), else :data:`EPISODE_OVER` (``over`` set, ``rewards`` =
        :func:`outcome_rewards`)."""
        outcome = self.state.outcome
        self.last_outcome = outcome
        self.last_illegal_action = self.renonces.get(len(self.games) - 1)
        b = self.bummerl
        if b is not None:
            b.record(outcome)
            if not b.is_over:
                self.state = state = b.new_game(self.rng)
                self.games.append(state)
                return NEXT_GAME
        self.over = True
        self.rewards = outcome_rewards(outcome, b, self.reward)
        return EPISODE_OVER

    def step(self, action: int) -> int:
        """:meth:`apply` then, if the game ended, :meth:`end_game`: :data:`PLAYING`,
        :data:`NEXT_GAME` or :data:`EPISODE_OVER`. Errors as those two methods."""
        return self.end_game() if self.apply(action) else PLAYING
