"""TorchRL adapter: the PettingZoo env as a TorchRL env with the action mask wired in, and a masked
random policy (the ``torchrl`` extra; ``import schnapsen_env`` never imports it).

.. code-block:: python

    from torchrl.collectors import Collector            # SyncDataCollector before TorchRL 0.14
    from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env

    env = make_torchrl_env(variant="schnapsen", seed=0)
    collector = Collector(env, MaskedRandomPolicy(env, seed=0), frames_per_batch=200, total_frames=600)

A tensordict holds per group ``g`` of ``n`` players ``(g, "observation", "observation")`` float32
``(n, 214)``, ``(g, "action_mask")`` bool ``(n, 31)``, ``(g, "mask")`` bool ``(n,)`` (the player to
move), ``(g, "action")`` and ``("next", g, "reward")`` float32 ``(n, 1)``. TorchRL's default random
policy ignores the mask: use :class:`MaskedRandomPolicy` or ``torchrl.modules.MaskedCategorical``.
"""

from __future__ import annotations

import secrets
import warnings
from typing import Any

from .actions import NUM_ACTIONS

try:
    import torch
    from tensordict import TensorDictBase
    from tensordict.nn import TensorDictModuleBase
    from torchrl.data import Composite, OneHot
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ImportError as _e:  # one line naming what is missing and how to get it
    raise ImportError(
        f"schnapsen_env.torchrl needs torch, tensordict and torchrl ({_e}): install them with "
        'pip install torch==2.13.0 && pip install -e ".[torchrl]"'
    ) from None

__all__ = ["MaskedRandomPolicy", "make_torchrl_env"]

#: TorchRL's advisory warning for any PettingZoo other than the one it is tested with (1.24.3)
_PZ_VERSION_WARNING = "PettingZoo in TorchRL is tested using version"


def make_torchrl_env(
    *,
    seed: int | None = None,
    group_map: Any = None,
    categorical_actions: bool = True,
    return_state: bool = False,
    device: Any = None,
    **env_kwargs: Any,
) -> PettingZooWrapper:
    """The PettingZoo env ``schnapsen_v0.env(**env_kwargs)`` as a TorchRL env (see the module
    docstring).

    ``seed``: None or an int >= 0 (the first deal is ``reset(seed=seed)``'s); ``group_map``: None
    (one group per player) or ``MarlGroupMapType.ALL_IN_ONE_GROUP`` (group ``"agents"``, n = 2);
    ``categorical_actions``: int64 ids, else one-hot ``(31,)``; ``return_state``: also the full
    state float32 ``(262,)`` under ``"state"``; ``device``: of the env's tensors. TorchRL's warning
    that it was tested with PettingZoo 1.24.3 only is silenced.
    """
    from . import schnapsen_v0

    pz_env = schnapsen_v0.env(**env_kwargs)  # validates env_kwargs (ValueError naming the key)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_PZ_VERSION_WARNING)
        device_kw = {} if device is None else {"device": device}  # the wrapper's own default otherwise
        return PettingZooWrapper(
            pz_env,
            use_mask=True,
            seed=seed,
            group_map=group_map,
            categorical_actions=categorical_actions,
            return_state=return_state,
            **device_kw,
        )


def _action_keys(action_spec: Composite) -> list[tuple]:
    """Every nested key of ``action_spec`` whose last part is ``"action"`` (one per group)."""
    keys = [k if isinstance(k, tuple) else (k,) for k in action_spec.keys(True, True)]
    return [k for k in keys if k[-1] == "action"]


class MaskedRandomPolicy(TensorDictModuleBase):
    """A uniform random policy over the legal actions, read from each group's ``action_mask``.

    ``env``: a TorchRL env from :func:`make_torchrl_env`, a ``SerialEnv``/``ParallelEnv`` of them,
    or its ``full_action_spec``. Writes ``(group, "action")`` int64 ``(..., n)`` (one-hot where the
    spec is), drawn among the True entries of each mask row (action 0 for an empty row: a finished
    game). ``seed``: None or an int >= 0, for the policy's own CPU ``torch.Generator`` (global
    generators untouched).
    """

    def __init__(self, env_or_spec: Any, *, seed: int | None = None):
        super().__init__()
        spec: Composite = getattr(env_or_spec, "full_action_spec", env_or_spec)
        action_keys = _action_keys(spec)
        #: action key -> the dtype of a one-hot action, or None for an int64 action id
        self._one_hot = {k: spec[k].dtype if isinstance(spec[k], OneHot) else None for k in action_keys}
        self.in_keys = [k[:-1] + ("action_mask",) for k in action_keys]
        self.out_keys = action_keys
        self.seed = secrets.randbits(63) if seed is None else seed
        self.generator = torch.Generator().manual_seed(self.seed)

    def forward(self, tensordict: TensorDictBase) -> TensorDictBase:
        for mask_key, action_key in zip(self.in_keys, self.out_keys):
            mask = tensordict.get(mask_key)
            # uniform among the legal entries: the argmax of U[0,1) scores, illegal entries scored
            # -1
            scores = torch.rand(mask.shape, generator=self.generator).to(mask.device)
            action = scores.masked_fill(~mask, -1.0).argmax(dim=-1)
            one_hot_dtype = self._one_hot[action_key]
            if one_hot_dtype is not None:
                action = torch.nn.functional.one_hot(action, NUM_ACTIONS).to(one_hot_dtype)
            tensordict.set(action_key, action)
        return tensordict
