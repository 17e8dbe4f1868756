"""Agents for schnapsen-env, in four rooms, each a package that says what it holds:

- :mod:`agents.players`: the agents themselves (the :class:`Agent` interface, random, heuristic, expert, the
  exact solver, PIMC, PIMC with opponent modelling, the information-set search, the PPO policies, adapters);
- :mod:`agents.evaluation`: playing them against each other (the arena, the ladder, statistics, provenance,
  worker processes, solver labels);
- :mod:`agents.apps`: playing them yourself (the terminal game, the web app);
- :mod:`agents.training`: making new ones (PPO self-play, expert iteration, best responses, RLlib self-play).

Beside them: :mod:`agents.registry` builds any agent from a spec string (``make_agent("pimc:samples=40")``;
the grammar is in its docstring) and imports your own agent by its path; :mod:`agents.policy` puts a policy
on environment observations; :mod:`agents.extras` names a missing optional package in one line. This module
only hands names on: importing it imports neither torch nor any agent's module but the ones named here.
"""

from .players.base import Agent, PolicyAgent
from .players.random_agent import RandomAgent
from .players.shipped import SHIPPED
from .registry import (
    AGENT_NAMES,
    agent_class,
    make_agent,
    make_batched_agent,
    parse_spec,
    portable_spec,
    user_package,
)

__all__ = [
    "AGENT_NAMES",
    "SHIPPED",
    "Agent",
    "PolicyAgent",
    "RandomAgent",
    "agent_class",
    "make_agent",
    "make_batched_agent",
    "parse_spec",
    "portable_spec",
    "user_package",
]
