"""Bummerl and match on top of single games (RULES.md §6).

A :class:`Bummerl` is a sequence of games: the dealer alternates after every game, the first player
to collect ``rules.bummerl_target`` (default 7) game points wins it; if the loser has 0 game points
it counts double (Schneider-Bummerl, unless ``schneider_bummerl=False``). A :class:`Match` is first
to ``bummerls_to_win`` (2 or 3) Bummerl wins; each Bummerl starts at 0:0.
"""

from __future__ import annotations

import random

from .cards import brief_repr
from .engine import NUM_PLAYERS, GameState, Outcome
from .rules import Rules


class BummerlOverError(ValueError):
    """A game was dealt or recorded after the Bummerl (or match) was decided."""


class Bummerl:
    """Score keeper for one Bummerl: ``scores`` game points per player, ``dealer`` of the next game,
    ``games`` the outcomes so far. :class:`BummerlOverError` when used after it is decided."""

    def __init__(self, rules: Rules, first_dealer: int):
        self.rules = rules
        self.scores = [0, 0]  # game points won in this Bummerl; both < target until decided
        self.dealer = first_dealer  # dealer of the next game; alternates after every game
        self.games: list[Outcome] = []  # outcomes in order

    @classmethod
    def from_seed(cls, rules: Rules, rng: random.Random) -> "Bummerl":
        """A Bummerl whose first dealer is drawn from ``rng`` (RULES §2)."""
        return cls(rules, rng.randrange(NUM_PLAYERS))

    @property
    def is_over(self) -> bool:
        return max(self.scores) >= self.rules.bummerl_target

    @property
    def winner(self) -> int | None:
        """The player who reached the target, or None while undecided."""
        return (0 if self.scores[0] >= self.rules.bummerl_target else 1) if self.is_over else None

    @property
    def is_schneider(self) -> bool:
        """The loser has 0 game points (a Schneider-Bummerl, if the rules count it)."""
        w = self.winner
        return w is not None and self.scores[1 - w] == 0

    @property
    def value(self) -> int:
        """Bummerl won: 2 for a Schneider-Bummerl (when enabled), else 1; 0 while undecided."""
        if not self.is_over:
            return 0
        return 2 if (self.is_schneider and self.rules.schneider_bummerl) else 1

    def _check_open(self) -> None:
        if self.is_over:
            raise BummerlOverError("the Bummerl is over; start a new one")

    def new_game(self, rng: random.Random) -> GameState:
        """The next game with a deck shuffled by ``rng`` and the current dealer
        (:class:`BummerlOverError` once the Bummerl is decided)."""
        self._check_open()
        return GameState.from_seed(self.rules, rng=rng, dealer=self.dealer)

    def record(self, outcome: Outcome) -> None:
        """Add a finished game's game points to the winner; the dealer alternates."""
        self._check_open()
        self.scores[outcome.winner] += outcome.game_points
        self.games.append(outcome)
        self.dealer = 1 - self.dealer


class Match:
    """First to ``bummerls_to_win`` Bummerl wins (RULES §6); ``bummerl_wins`` per player (a
    Schneider-Bummerl counts 2 when the rules say so)."""

    def __init__(self, rules: Rules, first_dealer: int, bummerls_to_win: int = 2):
        if type(bummerls_to_win) is not int or bummerls_to_win < 1:
            raise ValueError(f"bummerls_to_win must be a whole number >= 1, got {brief_repr(bummerls_to_win)}")
        self.rules = rules
        self.bummerls_to_win = bummerls_to_win
        self.bummerl_wins = [0, 0]
        self.bummerl = Bummerl(rules, first_dealer)
        self.finished: list[Bummerl] = []

    @property
    def is_over(self) -> bool:
        return max(self.bummerl_wins) >= self.bummerls_to_win

    @property
    def winner(self) -> int | None:
        return (0 if self.bummerl_wins[0] >= self.bummerls_to_win else 1) if self.is_over else None

    def new_game(self, rng: random.Random) -> GameState:
        if self.is_over:
            raise BummerlOverError("the match is over")
        return self.bummerl.new_game(rng)

    def record(self, outcome: Outcome) -> None:
        """Record a game; when its Bummerl is decided, score it and start the next at 0:0."""
        if self.is_over:
            raise BummerlOverError("the match is over")
        b = self.bummerl
        b.record(outcome)
        if b.is_over:
            self.bummerl_wins[b.winner] += b.value
            self.finished.append(b)
            self.bummerl = Bummerl(self.rules, b.dealer)
