"""RLlib (Ray) adapter: the Schnapsen game as an RLlib ``MultiAgentEnv`` for its action-masking RLModule.

    import schnapsen_env.rllib                  # registers ENV_NAME with Ray (ray.tune.registry.register_env)
    from ray.rllib.algorithms.ppo import PPOConfig
    config = PPOConfig().environment(schnapsen_env.rllib.ENV_NAME, env_config={"variant": "schnapsen"})

Needs the ``[rllib]`` extra. :class:`SchnapsenMultiAgentEnv` is ``schnapsen_v0.raw_env`` turn by
turn: the observation dict holds only the agent to act (both at the end, with zero-sum rewards and
``terminateds["__all__"]``), each ``{"observations": float32 (OBS_SIZE,), "action_mask": float32
(31,)}``. ``env_config`` takes ``schnapsen_v0.env``'s keywords (``illegal_action`` defaults to
``"renonce"``: RLlib's env check steps with an unmasked action). :func:`action_mask_module_spec` is
the module's ``RLModuleSpec``; :func:`observation_batch` makes the batch its ``forward_inference``
takes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .actions import NUM_ACTIONS
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from .schnapsen_v0 import AGENTS, raw_env

_INSTALL_HINT = (
    'schnapsen_env.rllib needs Ray RLlib: pip install "schnapsen-env[rllib]" '
    '(or pip install -e ".[rllib]" from a clone)'
)

try:
    import gymnasium as gym
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import register_env
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(_INSTALL_HINT) from e

#: the name this module registers with Ray (``config.environment(ENV_NAME, env_config={...})``)
ENV_NAME = "schnapsen_v0"
#: the observation keys of RLlib's action-masking RLModule
OBS_KEY = "observations"
MASK_KEY = "action_mask"

OBSERVATION_SPACE = gym.spaces.Dict(
    {
        OBS_KEY: gym.spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
        MASK_KEY: gym.spaces.Box(low=0.0, high=1.0, shape=(NUM_ACTIONS,), dtype=np.float32),
    }
)
ACTION_SPACE = gym.spaces.Discrete(NUM_ACTIONS)


class SchnapsenMultiAgentEnv(MultiAgentEnv):
    """Schnapsen for RLlib (see the module docstring). ``config``: ``raw_env`` keyword arguments."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        # RLlib's EnvContext is a dict (with worker_index etc. as attributes)
        kwargs = dict(config or {})
        kwargs.setdefault("illegal_action", "renonce")
        self.env = raw_env(**kwargs)
        self.agents = self.possible_agents = list(AGENTS)
        self.observation_spaces = {a: OBSERVATION_SPACE for a in AGENTS}
        self.action_spaces = {a: ACTION_SPACE for a in AGENTS}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)

    def _obs(self, agent: str) -> dict:
        o = self.env.observe(agent)
        return {OBS_KEY: o["observation"], MASK_KEY: o["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed)
        agent = self.env.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict: dict):
        env = self.env
        agent = env.agent_selection
        env.step(int(action_dict[agent]))
        # the episode is over: both agents see the end and get their reward
        if env.terminations[agent]:
            obs = {a: self._obs(a) for a in AGENTS}
            rewards = {a: float(env.rewards[a]) for a in AGENTS}
            return obs, rewards, {"__all__": True}, {"__all__": False}, {}
        nxt = env.agent_selection
        return {nxt: self._obs(nxt)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def render(self) -> str | None:
        return self.env.render()


def env_creator(env_config: dict | None = None) -> SchnapsenMultiAgentEnv:
    """What :func:`register` hands to Ray: ``SchnapsenMultiAgentEnv(env_config)``."""
    return SchnapsenMultiAgentEnv(env_config)


def register(name: str = ENV_NAME) -> str:
    """Register :func:`env_creator` with Ray under ``name`` (done for :data:`ENV_NAME` on import)
    and return it; call it again after ``ray.shutdown()`` and a new ``ray.init()``."""
    register_env(name, env_creator)
    return name


def action_mask_module_spec(hidden: tuple | list = (256, 256), activation: str = "relu"):
    """``RLModuleSpec`` of RLlib's action-masking PPO torch module, an MLP with ``hidden``
    widths."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=OBSERVATION_SPACE,
        action_space=ACTION_SPACE,
        model_config=dict(
            fcnet_hiddens=list(hidden),
            fcnet_activation=activation,
            head_fcnet_hiddens=[],
            vf_share_layers=False,
        ),
    )


def observation_batch(observation: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
    """The batch of one decision for the action-masking module's ``forward_inference``: ``{"obs":
    {"observations": float32 (1, OBS_SIZE), "action_mask": float32 (1, 31)}}`` (torch tensors)."""
    import torch

    def row(x) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x, dtype=np.float32)).reshape(1, -1)

    return {"obs": {OBS_KEY: row(observation), MASK_KEY: row(mask)}}


register()
