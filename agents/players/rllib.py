"""A policy trained with Ray RLlib as an arena agent: ``make_agent("rllib:checkpoint=PATH")``.

``PATH``: an RLlib (new API stack) ``Algorithm``, ``MultiRLModule`` or ``RLModule`` checkpoint of
the action-masking PPO module of :mod:`schnapsen_env.rllib`. Spec items: ``checkpoint`` (or a bare
first item), ``module`` (default ``main``), ``sample`` (default greedy, ties to the lowest id),
``seed``. The agent encodes the information set (:func:`schnapsen_env.observation.encode`) and plays
single games; when ``PATH/schnapsen_env.json`` names its training rules it warns once under others.
Needs the ``[rllib]`` extra; no Ray cluster.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from schnapsen_env.cli_io import one_line
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.engine import InformationSet
from schnapsen_env.rules import Rules

from .base import Agent, RulesCheck, action_from_probs, check_current_player

INSTALL_HINT = (
    'the rllib agent needs Ray RLlib: pip install "schnapsen-env[rllib]" (or pip install -e ".[rllib]" from a clone)'
)
#: the file beside an RLlib checkpoint that records what the policy was trained on
METADATA_FILE = "schnapsen_env.json"
#: where an Algorithm checkpoint keeps its modules (new API stack)
_ALGORITHM_MODULES = ("learner_group", "learner", "rl_module")


def _import_rllib():
    try:
        import torch
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModule
        from ray.rllib.core.rl_module.rl_module import RLModule

        from schnapsen_env import rllib as adapter
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return torch, RLModule, MultiRLModule, adapter


def module_directory(checkpoint: str | os.PathLike, module: str = "main") -> Path:
    """The directory of module ``module`` in an RLlib checkpoint; ``ValueError`` naming the path
    when it holds no checkpoint or not that module (naming those it holds)."""
    p = Path(checkpoint)
    where = f"RLlib checkpoint {str(p)!r}"
    if not p.is_dir():
        raise ValueError(f"{where}: {'a file, not a checkpoint directory' if p.exists() else 'no such directory'}")
    base = p.joinpath(*_ALGORITHM_MODULES) if p.joinpath(*_ALGORITHM_MODULES).is_dir() else p
    if not (base / "class_and_ctor_args.pkl").is_file():
        raise ValueError(
            f"{where}: not an RLlib (new API stack) Algorithm or RLModule checkpoint (no class_and_ctor_args.pkl)"
        )
    subs = sorted(d.name for d in base.iterdir() if (d / "class_and_ctor_args.pkl").is_file())
    if subs and module not in subs:
        raise ValueError(f"{where} has no module {module!r}: it has {', '.join(subs)} (choose one with module=NAME)")
    return base / module if subs else base  # no modules inside: a single RLModule checkpoint


def _trained_rules(checkpoint: Path) -> Rules | None:
    meta = checkpoint / METADATA_FILE
    if not meta.is_file():
        return None
    try:
        return Rules.from_dict(json.loads(meta.read_text(encoding="utf-8"))["rules"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"RLlib checkpoint {str(checkpoint)!r}: unreadable {METADATA_FILE}: {e}") from None


class RLlibAgent(Agent):
    """An RLlib action-masking policy (see the module docstring). Raises ``ValueError`` for a path
    that holds no such checkpoint or module, ``ImportError`` without Ray RLlib."""

    name = "rllib"

    def __init__(
        self,
        checkpoint: str | None = None,
        module: str = "main",
        sample: bool = False,
        seed: int | None = None,
    ):
        super().__init__(seed)
        if checkpoint is None:
            raise ValueError("the rllib agent needs a checkpoint: rllib:checkpoint=PATH")
        torch, RLModule, MultiRLModule, adapter = _import_rllib()
        self.checkpoint = str(checkpoint)
        self.module_id = module
        self.sample = sample
        directory = module_directory(checkpoint, module)
        try:
            rl_module = RLModule.from_checkpoint(str(directory))
        except Exception as e:  # noqa: BLE001 - RLlib raises many kinds; say which checkpoint failed
            raise ValueError(
                f"RLlib checkpoint {self.checkpoint!r}: cannot load module {module!r}: "
                f"{type(e).__name__}: {one_line(e)[:300]}"
            ) from None
        if isinstance(rl_module, MultiRLModule):
            rl_module = rl_module[module]
        rl_module.eval()
        self.module = rl_module
        self._torch = torch
        self._batch = adapter.observation_batch
        self._rules_check = RulesCheck(_trained_rules(Path(checkpoint)))

    @property
    def trained_rules(self) -> Rules | None:
        """The rules the policy was trained on (from ``schnapsen_env.json``), or None if unknown."""
        return self._rules_check.trained

    def policy(self, info: InformationSet) -> np.ndarray:
        """Probabilities float64 ``(NUM_ACTIONS,)`` of the masked policy (0 for illegal actions)."""
        from schnapsen_env.observation import encode

        legal = check_current_player(info)
        self._rules_check.check(info.rules, self.name, stacklevel=3)
        mask = np.zeros(NUM_ACTIONS, dtype=np.float32)
        mask[list(legal)] = 1.0
        torch = self._torch
        with torch.inference_mode():
            logits = self.module.forward_inference(self._batch(encode(info), mask))["action_dist_inputs"][0].double()
        logits = logits.masked_fill(torch.from_numpy(mask == 0), float("-inf"))
        return torch.softmax(logits, dim=0).numpy()

    def act(self, info: InformationSet) -> int:
        return action_from_probs(self.policy(info), info.legal_actions, self.sample, self.rng)


__all__ = ["INSTALL_HINT", "METADATA_FILE", "RLlibAgent", "module_directory"]
