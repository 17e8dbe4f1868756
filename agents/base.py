"""The one agent interface used everywhere (arena, Gymnasium opponent, play CLI, training).

An agent sees only the information set of its seat (RULES §8) and its own seeded
random generator::

    info = state.information_set(player)   # schnapsen_env.engine.InformationSet
    action = agent.act(info)                # one of info.legal_actions (an action id 0..30)

Agents never read a :class:`~schnapsen_env.engine.GameState` directly; search agents
build determinizations with ``GameState.from_information_set``.
"""

from __future__ import annotations

import abc
import random

from schnapsen_env.engine import InformationSet, validate_seed


class Agent(abc.ABC):
    """A player: ``act(info) -> action id`` from ``info.legal_actions``.

    ``seed`` seeds ``self.rng`` (a :class:`random.Random`); an agent takes every
    random choice from ``self.rng``, never from the global generator, so two agents
    built with the same seed make the same choices on the same information sets.
    ``name`` is the agent's spec string (as given to :func:`agents.make_agent`).
    """

    #: spec string of this agent (subclasses set a default; ``make_agent`` sets the full spec)
    name: str = "agent"

    def __init__(self, seed: int | None = None):
        self.seed = validate_seed(seed)  # None or an int >= 0; ValueError otherwise
        self.rng = random.Random(self.seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator (``seed=None`` re-uses the seed given at construction)
        and forget any per-game memory. Called by the arena before each game. Raises
        ``ValueError`` for a seed that is not None or an int >= 0 (``random.Random``
        would silently treat -1 as 1)."""
        seed = validate_seed(seed)
        self.rng = random.Random(self.seed if seed is None else seed)

    @abc.abstractmethod
    def act(self, info: InformationSet) -> int:
        """The action id (0..30, see :mod:`schnapsen_env.actions`) to play now.

        ``info`` is ``state.information_set(player)`` with ``info.current_player ==
        info.player``; the result must be one of ``info.legal_actions``. Raises
        ``ValueError`` if the agent is not to move (``info.legal_actions`` empty).
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


def check_to_move(info: InformationSet) -> tuple:
    """``info.legal_actions``; raises ``ValueError`` when the viewer is not to move."""
    legal = info.legal_actions
    if not legal:
        raise ValueError(
            f"player {info.player} is not to move (current player {info.current_player}, "
            f"terminal={info.is_terminal}): an agent acts only on its own turn"
        )
    return legal
