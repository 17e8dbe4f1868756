"""The learner's view of N episodes at once: :class:`schnapsen_env.learner.LearnerGame` over tensors.

:class:`VectorEpisodes` holds ``num_envs`` episodes on a
:class:`~schnapsen_env.vector.engine.VectorGames` with the learner's seat per episode, the Bummerl
scores and the deal generator, and keeps ``LearnerGame``'s meanings: the rewards of
:func:`schnapsen_env.learner.outcome_rewards` (tabulated at construction) and skipped episodes. Used
by :mod:`schnapsen_env.vector.env` (and so by ``train.py``).
"""

from __future__ import annotations

import torch

from ..engine import Outcome
from .. import learner  # outcome_rewards read at call time (tests substitute it)
from ..learner import EPISODES, REWARDS, _choice
from ..match import Bummerl
from ..rulebook import CLOSING_FAILED_NO_TRICK_POINTS
from ..rules import Rules
from .engine import VectorGames, selection_mask

__all__ = ["VectorEpisodes"]

_MAX_GAME_POINTS = CLOSING_FAILED_NO_TRICK_POINTS  # 3: the most game points one game can give


def _reward_tables(rules: Rules, reward: str, device) -> tuple[torch.Tensor, torch.Tensor]:
    """``outcome_rewards`` over its domain: game episodes ``[winner, game points] -> (r0, r1)`` (2,
    4, 2); Bummerl episodes ``[winner, loser has game points] -> (r0, r1)`` (2, 2, 2)."""
    game = torch.zeros((2, _MAX_GAME_POINTS + 1, 2), dtype=torch.float32)
    for w in (0, 1):
        for gp in range(1, _MAX_GAME_POINTS + 1):
            outcome = Outcome(w, gp, "declared_66", (0, 0), (0, 0))
            game[w, gp] = torch.tensor(learner.outcome_rewards(outcome, None, reward))
    bummerl = torch.zeros((2, 2, 2), dtype=torch.float32)
    for w in (0, 1):
        for loser_points in (0, 1):
            b = Bummerl(rules, 0)
            b.scores[w], b.scores[1 - w] = rules.bummerl_target, loser_points
            bummerl[w, loser_points] = torch.tensor(learner.outcome_rewards(None, b, reward))
    return game.to(device), bummerl.to(device)


class VectorEpisodes:
    """``num_envs`` episodes from learners' seats (see the module docstring).

    ``generator``: the ``torch.Generator`` of every deal (default: seeded from OS entropy);
    ``compile``: the engine through ``torch.compile``. ``ValueError`` naming a bad keyword. Tensors
    (change them through the methods): ``games``
    (:class:`~schnapsen_env.vector.engine.VectorGames`), ``seat`` int64 (N,) (-1: none), ``scores``
    int64 (N, 2) (Bummerl game points), ``acted`` bool (N,), ``first_dealer`` int64 (N,).
    """

    def __init__(
        self,
        rules: Rules,
        num_envs: int,
        *,
        episode: str = "game",
        reward: str = "game_points",
        illegal_action: str = "raise",
        device=None,
        generator: torch.Generator | None = None,
        compile: bool = False,
    ):
        self.episode, self.reward = (
            _choice("episode", episode, EPISODES),
            _choice("reward", reward, REWARDS),
        )
        self.games = g = VectorGames(rules, num_envs, device, illegal_action, compile)
        self.rules = g.rules
        self.n = g.n
        self.device = g.device
        n, dev = g.n, g.device
        if generator is None:
            generator = torch.Generator(device=dev)
            generator.seed()
        self.generator = generator
        self.bummerl = episode == "bummerl"
        self.seat = torch.full((n,), -1, dtype=torch.int64, device=dev)
        self.scores = torch.zeros((n, 2), dtype=torch.int64, device=dev)
        self.acted = torch.zeros(n, dtype=torch.bool, device=dev)
        self.first_dealer = torch.zeros(n, dtype=torch.int64, device=dev)
        self._game_rewards, self._bummerl_rewards = _reward_tables(g.rules, reward, dev)

    # ------------------------------------------------------------------ episodes
    def start(
        self,
        slots: torch.Tensor | None = None,
        seat: torch.Tensor | None = None,
        first_dealer: torch.Tensor | None = None,
    ) -> None:
        """Start new episodes in ``slots`` (bool mask (N,) or indices; None: all):
        ``seat``/``first_dealer`` int (N,) per slot (None: no seat / dealer drawn with the deal)."""
        g = self.games
        slots = torch.ones(self.n, dtype=torch.bool, device=self.device) if slots is None else slots
        idx = selection_mask(slots, self.n, self.device).nonzero().squeeze(1)
        if idx.numel() == 0:
            return
        decks, dealers = g.random_deals(idx.numel(), self.generator)
        if first_dealer is not None:
            dealers = first_dealer[idx]
        g._deal(idx, decks, dealers)
        self.seat[idx] = -1 if seat is None else seat[idx]
        self.scores[idx] = 0
        self.acted[idx] = False
        self.first_dealer[idx] = dealers

    def step(self, actions: torch.Tensor, slots: torch.Tensor | None = None) -> tuple:
        """Apply ``actions`` (int64 (N,)) in ``slots`` (bool mask (N,) or indices; None: every game
        in play).

        Returns ``(game_over, episode_over, rewards)``: bool (N,), bool (N,) (the next game of an
        undecided Bummerl is dealt at once), float32 (N, 2) rewards per player of the ended episodes
        (0 elsewhere). Illegal actions: as ``VectorGames.step``."""
        g = self.games
        if slots is not None:
            slots = selection_mask(slots, self.n, self.device)
        mover = g.current_player.clone()
        game_over = g.step(actions, slots)
        stepped = mover >= 0 if slots is None else (mover >= 0) & slots
        self.acted |= stepped & (mover == self.seat)
        w = g.winner.clamp(min=0)
        if not self.bummerl:
            rewards = self._game_rewards[w, g.game_points.clamp(0, _MAX_GAME_POINTS)]
            rewards = torch.where(game_over.unsqueeze(1), rewards, torch.zeros_like(rewards))
            return game_over, game_over, rewards
        gained = torch.where(game_over, g.game_points, 0)
        self.scores[:, 0] += torch.where(w == 0, gained, 0)
        self.scores[:, 1] += torch.where(w == 0, 0, gained)
        decided = game_over & (self.scores.max(dim=1).values >= self.rules.bummerl_target)
        winner = (self.scores[:, 1] > self.scores[:, 0]).long()
        loser_points = (torch.where(winner == 0, self.scores[:, 1], self.scores[:, 0]) > 0).long()
        rewards = self._bummerl_rewards[winner, loser_points]
        rewards = torch.where(decided.unsqueeze(1), rewards, torch.zeros_like(rewards))
        self._deal_next(game_over & ~decided)
        return game_over, decided, rewards

    def _deal_next(self, slots: torch.Tensor) -> None:
        """The next game of each Bummerl in ``slots``: the dealer alternates (RULES §6)."""
        idx = slots.nonzero().squeeze(1)
        if idx.numel() == 0:
            return
        g = self.games
        decks, _ = g.random_deals(idx.numel(), self.generator)
        g._deal(idx, decks, 1 - g.dealer[idx])

    @property
    def bummerl_score(self) -> torch.Tensor | None:
        """int64 (N, 2): the Bummerl game points per player (what the observer encodes), or None in
        game episodes."""
        return self.scores if self.bummerl else None

    def learner_rewards(self, rewards: torch.Tensor) -> torch.Tensor:
        """float32 (N,): each episode's learner's entry (``seat``) of per-player ``rewards``
        (float32 (N, 2), as :meth:`step` returns them), 0 where the learner has not acted: the rule
        of :attr:`schnapsen_env.learner.LearnerGame.learner_reward` (an episode that ends before the
        learner's first decision is skipped, with no reward to credit). Read it before new episodes
        start there."""
        mine = rewards.gather(1, self.seat.clamp(min=0).unsqueeze(1)).squeeze(1)
        return torch.where(self.acted, mine, 0.0)

    def state_dict(self) -> dict:
        """The state matrix of the games, the episodes' tensors and the generator state
        (checkpoint-safe: ``torch.load(..., weights_only=True)`` reads it)."""
        return {
            **{k: v.cpu() for k, v in self._saved().items()},
            "generator": self.generator.get_state(),
        }

    def _saved(self) -> dict:
        return {
            "state": self.games.state,
            **{k: getattr(self, k) for k in ("seat", "scores", "acted", "first_dealer")},
        }

    def load_state_dict(self, d: dict) -> None:
        """Restore :meth:`state_dict`; ``ValueError`` naming a missing or misshapen entry."""
        saved = self._saved()
        for k, cur in saved.items():
            v = d.get(k)
            if not isinstance(v, torch.Tensor) or v.shape != cur.shape or v.dtype != cur.dtype:
                raise ValueError(f"saved episodes: entry {k!r} does not fit {self.n} episodes of this kind")
        for k, cur in saved.items():
            cur.copy_(d[k].to(self.device))
        self.games._mask_cache = None
        self.generator.set_state(d["generator"])
