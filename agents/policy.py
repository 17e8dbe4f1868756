"""Use a trained policy on environment observations, and any agent as a PettingZoo policy.

    from agents.policy import env_policy, load_policy
    policy = load_policy("ppo")             # or "ppo-strong", "ppo:runs/x/policy.pt", a checkpoint path
    action = policy.act(obs["observation"], obs["action_mask"])   # or policy(obs_dict, agent_name)
    opponent = env_policy("heuristic", env)  # any agent, acting on env.unwrapped.game's information set

:func:`load_policy` returns a :class:`agents.players.neural.Policy`. One network plays every variant (the
rule options are part of the observation) but well only the one it was trained on: the first
observation whose ``rule_*`` or ``bummerl`` entries differ warns once
(:class:`agents.players.base.RulesMismatchWarning`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from schnapsen_env.observation import RULE_FIELDS, observer_for, rules_from_observation
from schnapsen_env.rules import Rules

from .players.shipped import SHIPPED
from .registry import make_agent, parse_spec
from .players.base import action_id
from .players.neural import Policy

#: the default spec of :func:`load_policy`; policy specs name a shipped policy (``ppo``,
#: ``ppo-strong``: :data:`agents.SHIPPED`) or a checkpoint: ``ppo:PATH,sample=true,seed=3``
SPEC_NAME = "ppo"
SPEC_KEYS = ("path", "sample", "seed")  #: keys a ``ppo:`` spec may set for :func:`load_policy`


def rule_entries(rules: Rules) -> np.ndarray:
    """The ``rule_*`` entries of an observation under ``rules`` (float32, in :data:`RULE_FIELDS`
    order)."""
    return observer_for(rules).rule_entries()


def _is_policy_spec(spec: Any) -> bool:
    return isinstance(spec, str) and spec.partition(":")[0] in SHIPPED


def load_policy(
    spec_or_path: str | os.PathLike = SPEC_NAME,
    device: str | torch.device = "cpu",
    sample: bool = False,
    seed: int | None = None,
    rules: Rules | str | Mapping | None = None,
) -> Policy:
    """A :class:`Policy` from a spec (``"ppo"``, ``"ppo:PATH,sample=true,seed=3"``; its items win
    over the arguments) or a checkpoint path, checked against ``rules``. ``ValueError`` for a bad
    spec or an unfit checkpoint, ``CheckpointNotFoundError`` for a missing one."""
    path = name = os.fspath(spec_or_path)
    if _is_policy_spec(spec_or_path):
        spec_name, kwargs = parse_spec(spec_or_path)
        unknown = set(kwargs) - set(SPEC_KEYS)
        if unknown:
            raise ValueError(
                f"unknown key {sorted(unknown)[0]!r} in policy spec {spec_or_path!r}: allowed keys "
                f"are {', '.join(SPEC_KEYS)}"
            )
        path = str(kwargs.get("path", SHIPPED[spec_name]))
        sample, seed = kwargs.get("sample", sample), kwargs.get("seed", seed)
    return Policy.load(path, name=name, device=device, sample=sample, seed=seed, play_rules=rules)


class AgentEnvPolicy:
    """``policy(observation_dict, agent_name) -> action`` for an :class:`~agents.players.base.Agent` in a
    ``schnapsen_v0`` AEC env, acting on the env's information set (the observation is not read)."""

    def __init__(self, agent: Any, env: Any):
        self.agent = agent
        self.env = env
        self._raw = env.unwrapped

    def __call__(self, observation: Any = None, agent_name: str | None = None) -> int:
        raw = self._raw
        player = raw.agent_name_mapping[agent_name or raw.agent_selection]
        # a float is refused, not cut
        return action_id(self.agent.act(raw.game.information_set(player)))

    def __repr__(self) -> str:
        return f"AgentEnvPolicy(agent={self.agent!r})"


def env_policy(agent_or_spec: Any, env: Any, seed: int | None = None) -> Policy | AgentEnvPolicy:
    """A callable ``policy(observation_dict, agent_name) -> action`` for a ``schnapsen_v0`` AEC env,
    from an agent spec, an object with ``act(info)`` or a :class:`Policy`, checked against the env's
    rules."""
    # else: an agent
    if _is_policy_spec(agent_or_spec) and set(parse_spec(agent_or_spec)[1]) <= set(SPEC_KEYS):
        agent_or_spec = load_policy(agent_or_spec, seed=seed)
    if isinstance(agent_or_spec, Policy):
        raw = env.unwrapped
        agent_or_spec.check_rules(raw.rules, stacklevel=2)
        agent_or_spec.check_episode(raw.observer.bummerl, stacklevel=2)
        return agent_or_spec
    if isinstance(agent_or_spec, str):
        agent_or_spec = make_agent(agent_or_spec, seed=seed)
    return AgentEnvPolicy(agent_or_spec, env)


__all__ = [
    "AgentEnvPolicy",
    "Policy",
    "RULE_FIELDS",
    "env_policy",
    "load_policy",
    "rule_entries",
    "rules_from_observation",
]
