"""Expert iteration (Anthony et al. 2017): a search teaches the network, as one resumable run.

    python -m agents.training.exit --config configs/exit.yaml [--run-dir DIR] [key=value ...]

1. **labels**: the student (``labels.agents``, e.g. ``ppo-strong``) plays ``labels.games`` deals
   (DAgger: the states the network itself reaches); the teacher search (``labels.teacher``) labels
   each talon-open state with its visit shares and root value, the others exactly
   (:func:`agents.evaluation.labels.generate`). Written in blocks of :data:`BLOCK` deals to ``DIR/labels/``: a
   stopped run keeps its finished blocks;
2. **clone**: the network of ``clone.init`` trained on them (:func:`agents.training.pretrain.pretrain`:
   masked cross-entropy toward the visit shares, squared error toward the root value) ->
   ``DIR/clone.pt``;
3. **finetune**: PPO (:mod:`agents.training.train`) with the ``finetune`` config from the clone
   (``model.init``), pulled toward it by ``ppo.kl_init_coef`` (decaying to 0) -> ``DIR/finetune/``
   (``policy.pt`` is the result).

Counts, never wall time: the same config and seed give the same network on a machine. Run the same
command with the same ``--run-dir`` to continue: each finished step is reused as it is (other
``labels``/``clone`` values are refused there: they need a new run directory), the fine-tuning
resumed with the ``finetune.*`` overrides a resume may change (extend it with
``finetune.run.total_updates=N``). Exit status 0 done, 2 a config error (one line, before anything
runs), the training's status otherwise (:func:`agents.training.train.main`). ``--config`` defaults to
``configs/exit.yaml`` of the clone this file is in (an installed package has none)."""

from __future__ import annotations

import argparse
import json
import sys
from schnapsen_env.cli_io import one_line
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import Field, PositiveInt, model_validator

from agents.evaluation import labels
from agents.extras import require
from agents.players.neural import load_model
from agents.players.shipped import SHIPPED

from .config import ConfigError, Section, apply_overrides, load_config, read_yaml, validate
from .pretrain import pretrain, save
from .run import FIXED_ON_RESUME
from .train import main as train_main

tqdm = require("tqdm", "agents.training.exit").tqdm

#: the default --config: configs/ of the clone this file is in
DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "exit.yaml"
#: deals per labels block (one file of ``DIR/labels/``; what a stopped run loses at most)
BLOCK = 64
#: the files of a run directory
LABELS_DIR = "labels"
CLONE = "clone.pt"
FINETUNE_CONFIG = "finetune.yaml"
FINETUNE_DIR = "finetune"
MADE_WITH = "exit.json"  #: what the run directory's labels and clone were made with (check_run_dir)


class LabelsStep(Section):
    """Step 1: who plays, who labels (:func:`agents.evaluation.labels.generate`)."""

    games: PositiveInt = 1024
    """Deals played (indices 0..games-1 of ``seed``)."""
    agents: list[str] = Field(["ppo-strong"], min_length=1)
    """The student: agent specs, each seat's drawn per game."""
    teacher: str = "search:iterations=2000"
    """The search whose visit shares and root value are cloned (a spec with ``distribution``)."""
    explore: float = Field(0.0, ge=0, le=1)
    """Share of uniformly random moves (more varied states)."""
    workers: PositiveInt = 2
    """Processes (the labels do not depend on it)."""

    @model_validator(mode="after")
    def _specs(self) -> LabelsStep:
        labels.check_specs(self.agents, self.teacher)
        return self


class CloneStep(Section):
    """Step 2: the network trained on the labels (:func:`agents.training.pretrain.pretrain`)."""

    init: str = "ppo-strong"
    """The network to start from: a shipped name or a ``policy.pt``; ``finetune.model.hidden`` must
    match."""
    epochs: PositiveInt = 4
    """Passes over the labels."""
    batch: PositiveInt = 256
    """Minibatch size."""
    lr: float = Field(1e-4, gt=0)
    """Adam learning rate."""


class ExitConfig(Section):
    """``configs/exit.yaml``: the three steps and one seed."""

    name: str = "exit"
    """The run's name (its default directory ``runs/NAME-seedN``)."""
    seed: int = Field(0, ge=0)
    """Seeds the deals of the labels, the clone's minibatches and the fine-tuning
    (``seeding.seed``)."""
    labels: LabelsStep = Field(default_factory=LabelsStep)
    clone: CloneStep = Field(default_factory=CloneStep)
    finetune: dict[str, Any] = {}
    """A ``train.py`` config (the sections of ``configs/default.yaml``); ``model.init`` is set to
    the clone."""


def finetune_config(cfg: ExitConfig, run_dir: Path) -> dict:
    """The fine-tuning's ``train.py`` config as a dict (validated; :class:`ConfigError` naming
    ``finetune.``)."""
    try:
        base = cfg.finetune | {"name": cfg.finetune.get("name", cfg.name)}
        overrides = [("model.init", str(run_dir / CLONE)), ("seeding.seed", cfg.seed)]
        return load_config(base=base, overrides=overrides).to_dict()
    except ConfigError as e:
        message = str(e)
        unknown = message.startswith("unknown key '")
        raise ConfigError(message.replace("'", "'finetune.", 1) if unknown else f"finetune.{message}") from None


def check_run_dir(cfg: ExitConfig, run_dir: Path) -> None:
    """Record in ``run_dir`` (:data:`MADE_WITH`) the seed and the ``labels`` and ``clone`` values
    its steps are made with, or, when it holds them, :class:`ConfigError` naming the first that this
    run changes (``labels.games`` and ``labels.workers`` may change)."""
    dump = {
        "labels": cfg.labels.model_dump(exclude={"games", "workers"}),
        "clone": cfg.clone.model_dump(),
    }
    now = {"seed": cfg.seed} | {f"{step}.{k}": v for step, values in dump.items() for k, v in values.items()}
    path = run_dir / MADE_WITH
    if not path.exists():
        run_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(now, indent=1))
        return
    for key, then in json.loads(path.read_text()).items():
        if now.get(key) != then:
            raise ConfigError(f"{run_dir} was made with {key}={then!r}, not {now.get(key)!r}: give another --run-dir")


def label_blocks(cfg: ExitConfig, run_dir: Path) -> dict:
    """Step 1: the label arrays of all deals, each block generated unless its file exists."""
    (run_dir / LABELS_DIR).mkdir(parents=True, exist_ok=True)
    step, parts = cfg.labels, []
    with tqdm(total=step.games, unit="game", desc="labels") as bar:
        for first in range(0, step.games, BLOCK):
            path, partial = (run_dir / LABELS_DIR / f"deals-{first:07d}{end}" for end in (".npz", ".tmp.npz"))
            games = min(BLOCK, step.games - first)
            if not path.exists():
                arrays = labels.generate(
                    games,
                    step.agents,
                    step.explore,
                    1.0,
                    cfg.seed,
                    step.workers,
                    teacher=step.teacher,
                    first=first,
                )
                np.savez(partial, **arrays)
                partial.replace(path)
            with np.load(path) as f:
                parts.append(dict(f))
            bar.update(games)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agents.training.exit",
        description=__doc__.splitlines()[0],
    )
    ap.add_argument(
        "--config",
        default=str(DEFAULT_CONFIG),
        help=f"the run's YAML config (default {DEFAULT_CONFIG})",
    )
    ap.add_argument(
        "--run-dir",
        type=Path,
        help="the run directory (default runs/NAME-seedN); again: continue",
    )
    ap.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="dotted overrides, e.g. labels.games=64",
    )
    args = ap.parse_args(argv)
    try:
        cfg = validate(
            ExitConfig,
            apply_overrides(read_yaml(args.config), args.overrides, ExitConfig),
        )
        run_dir = args.run_dir or Path("runs") / f"{cfg.name}-seed{cfg.seed}"
        tuning = finetune_config(cfg, run_dir)
        try:
            init = load_model(SHIPPED.get(cfg.clone.init, cfg.clone.init))[0]
        except (ValueError, OSError) as e:
            raise ConfigError(f"clone.init: {e} (shipped: {', '.join(SHIPPED)})") from None
        if init.hidden != tuning["model"]["hidden"]:
            layers = f"has hidden layers {init.hidden}, finetune.model.hidden is {tuning['model']['hidden']}"
            raise ConfigError(f"clone.init: {cfg.clone.init!r} {layers}: give the same widths")
        check_run_dir(cfg, run_dir)
    except (ConfigError, ValueError, OSError) as e:
        print(f"config error: {one_line(e)}", file=sys.stderr)
        return 2
    if not (run_dir / CLONE).exists():
        arrays = label_blocks(cfg, run_dir)
        c = cfg.clone
        model, losses = pretrain(
            arrays,
            epochs=c.epochs,
            batch=c.batch,
            lr=c.lr,
            seed=cfg.seed,
            init=init,
        )
        info = c.model_dump() | {"states": len(arrays["deal"]), "losses": losses}
        save(model, run_dir / CLONE, arrays["observation"][0], info)
        print(f"clone: {len(arrays['deal'])} states, loss {losses[0]:.4f} -> {losses[-1]:.4f}: {run_dir / CLONE}")
    finetune = run_dir / FINETUNE_DIR
    # the finetune.KEY=VALUE overrides a resume may change go on
    if (finetune / "checkpoint.pt").exists():
        again = [o.removeprefix("finetune.") for o in args.overrides if o.startswith("finetune.")]
        again = [o for o in again if not any(o.startswith((k + ".", k + "=")) for k in FIXED_ON_RESUME)]
        return train_main(["--resume", str(finetune), *again])
    (run_dir / FINETUNE_CONFIG).write_text(yaml.safe_dump(tuning, sort_keys=False))
    return train_main(["--config", str(run_dir / FINETUNE_CONFIG), "--run-dir", str(finetune)])


if __name__ == "__main__":
    sys.exit(main())
