"""An sb3-contrib ``MaskablePPO`` zip as an agent: ``make_agent("sb3:path/to/model.zip")``, or
``sb3:path/to/model.zip,sample=true`` to draw each action from the policy instead of taking its most probable one.

The model is one trained on the Gymnasium view (``schnapsen_env/Schnapsen-v0``, e.g.
``examples/sb3_maskable_ppo.py``) and saved with ``model.save``: it plays the env's observation (float32
``(214,)``) and action mask through :class:`agents.players.base.PolicyAgent`. Needs ``sb3-contrib`` (in ``[dev]``).

Loading runs no code stored in the zip: SB3 would unpickle (cloudpickle) every ``:serialized:`` entry of the
zip's ``data``, so each is given as a stand-in (SB3's ``custom_objects``): the policy class
``MaskableActorCriticPolicy``, the env's spaces (checked against the shapes the zip declares), the training
schedules as the constants the zip states in text (else 0.0; the agent only predicts), pickled
``policy_kwargs`` rebuilt from the text beside them (JSON values, ``activation_fn`` a ``torch.nn`` activation
by name; any other class, such as a features extractor, is refused), anything else None; the weights load with
``torch.load(weights_only=True)``."""

from __future__ import annotations

import json
import os
import re
import zipfile
from typing import Any

import numpy as np

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_HIGH, OBS_LOW, OBS_SIZE

from .base import PolicyAgent, checked_arguments
from ..extras import require

#: a constant schedule as SB3 writes it beside the pickled one (``ConstantSchedule(val=0.2)``)
_CONSTANT_RE = re.compile(r"ConstantSchedule\(val=([-+0-9.eE]+)\)")
#: how SB3 writes a torch activation class in the text beside pickled ``policy_kwargs``
_ACTIVATION_RE = re.compile(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>")
#: the zip's training schedules: SB3 needs a number for each to set the model up
_SCHEDULES = ("learning_rate", "lr_schedule", "clip_range")


class SB3Agent(PolicyAgent):
    """``path``: a ``MaskablePPO.save`` zip, loaded on the CPU; ``sample``: draw the action from the policy with torch's
    CPU generator seeded from this agent's ``rng`` (equal seeds, equal games) instead of its most probable legal action.
    ``ValueError`` without ``path``, or naming it when it is no file, does not load as a ``MaskablePPO`` or was trained
    on other spaces than ``Box((214,))``/``Discrete(31)``; ``ModuleNotFoundError`` without sb3-contrib."""

    name = "sb3"

    @checked_arguments
    def __init__(self, path: str | None = None, sample: bool = False, seed: int | None = None):
        if path is None:
            raise ValueError("the sb3 agent needs a model zip: sb3:PATH.zip")
        maskable_ppo = require("sb3_contrib", f"sb3:{path}", "pip install sb3-contrib").MaskablePPO
        if not os.path.isfile(path):
            raise ValueError(f"sb3 model {path!r}: no such file")
        try:
            stand_ins = _stand_ins(path)
            self.model = maskable_ppo.load(path, device="cpu", custom_objects=stand_ins)
        except Exception as e:  # a zip of anything else: whatever SB3 raises is this file's fault
            reason = f"{type(e).__name__}: {e}"
            raise ValueError(f"sb3 model {path!r} does not load as a MaskablePPO zip: {reason}") from None
        self.path, self.sample = path, sample
        super().__init__(self._predict, seed)

    def _predict(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        masks = action_mask.astype(bool)
        if not self.sample:
            return int(self.model.predict(observation, action_masks=masks, deterministic=True)[0])
        import torch

        with torch.random.fork_rng(devices=[]):  # the caller's torch generator is left as it was
            torch.default_generator.manual_seed(self.rng.getrandbits(63))
            return int(self.model.predict(observation, action_masks=masks, deterministic=False)[0])


def _stand_ins(path: str) -> dict[str, Any]:
    """SB3 ``custom_objects`` for ``path``: a stand-in for every entry of the zip's ``data`` that SB3 would
    unpickle (see the module docstring). ``ValueError`` when the zip declares other spaces than the
    Gymnasium view's or its ``policy_kwargs`` hold a class other than an activation; ``KeyError``,
    ``zipfile.BadZipFile`` or a ``json`` error for a zip of anything else."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    pickled = {key: item for key, item in data.items() if isinstance(item, dict) and ":serialized:" in item}
    observations = pickled.get("observation_space", {})
    declared = (observations.get("_shape"), observations.get("dtype"), pickled.get("action_space", {}).get("n"))
    if declared != ([OBS_SIZE], "float32", str(NUM_ACTIONS)):
        raise ValueError(
            f"its observation shape, dtype and number of actions are {declared}: one trained on the Gymnasium "
            f"view has [{OBS_SIZE}], float32 and {NUM_ACTIONS}"
        )
    stand_ins: dict[str, Any] = dict.fromkeys(pickled)  # training state (buffers, last observation): unused
    if "policy_kwargs" in pickled:
        stand_ins["policy_kwargs"] = _policy_kwargs(pickled["policy_kwargs"])
    for key in _SCHEDULES:
        if key in pickled:
            text = " ".join(str(value) for name, value in pickled[key].items() if name != ":serialized:")
            stated = _CONSTANT_RE.search(text)
            stand_ins[key] = float(stated[1]) if stated else 0.0
    stand_ins["policy_class"] = MaskableActorCriticPolicy
    stand_ins["observation_space"] = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
    stand_ins["action_space"] = spaces.Discrete(NUM_ACTIONS)
    return stand_ins


def _policy_kwargs(item: dict) -> dict[str, Any]:
    """``policy_kwargs`` from the text SB3 writes beside their pickle: JSON values as they are, ``activation_fn``
    a class of ``torch.nn``'s activations by its name. ``ValueError`` naming any other item (a class or
    object that only its pickle holds)."""
    import torch

    kwargs = {}
    for key, value in item.items():
        if key in (":type:", ":serialized:"):
            continue
        named = _ACTIVATION_RE.fullmatch(value) if isinstance(value, str) else None
        if named and named[1] in torch.nn.modules.activation.__all__:
            kwargs[key] = getattr(torch.nn, named[1])
        elif isinstance(value, str):
            raise ValueError(f"its policy_kwargs item {key}={value} exists only as pickled code")
        else:
            kwargs[key] = value
    return kwargs
