"""An sb3-contrib ``MaskablePPO`` zip as an agent: ``make_agent("sb3:path/to/model.zip")``, or
``sb3:path/to/model.zip,sample=true`` to draw each action from the policy instead of taking its most probable one.

The model is one trained on the Gymnasium view (``schnapsen_env/Schnapsen-v0``, e.g.
``examples/sb3_maskable_ppo.py``) and saved with ``model.save``: it plays the env's observation (float32
``(214,)``) and action mask through :class:`agents.base.PolicyAgent`. Needs ``sb3-contrib`` (in ``[dev]``)."""

from __future__ import annotations

import os

import numpy as np

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE

from .base import PolicyAgent, checked_arguments
from .extras import require


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
            self.model = maskable_ppo.load(path, device="cpu")
        except Exception as e:  # a zip of anything else: whatever SB3 raises is this file's fault
            reason = f"{type(e).__name__}: {e}"
            raise ValueError(f"sb3 model {path!r} does not load as a MaskablePPO zip: {reason}") from None
        spaces = (self.model.observation_space.shape, getattr(self.model.action_space, "n", None))
        if spaces != ((OBS_SIZE,), NUM_ACTIONS):
            raise ValueError(
                f"sb3 model {path!r} takes observations of shape {spaces[0]} and {spaces[1]} actions: "
                f"one trained on the Gymnasium view takes ({OBS_SIZE},) and {NUM_ACTIONS}"
            )
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
