"""Pretrain the PPO network on solver labels (:mod:`agents.evaluation.labels`), as a start for
``train.py ... model.init=F``.

The policy head learns by cross-entropy toward the policy target, the value head by squared error toward the value
target. Targets: a teacher's soft labels where the file has them (``policy``, ``value``: expert iteration,
``agents.evaluation.labels --teacher``), else :func:`agents.evaluation.labels.targets` of the exact labels (uniform over
the best actions; objective ``win``: signs first, the ``win_loss`` reward; ``points``: game points, the ``game_points``
reward). ``--init`` starts from a checkpoint's
weights (a shipped name or a path) instead of random ones. The file is a ``policy.pt`` as
``train.py`` writes it (:func:`agents.players.neural.load_model`).

    python -m agents.training.pretrain LABELS.npz --out init.pt [--hidden 256 256 | --init ppo-strong] [--epochs 10]"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import torch

from agents.evaluation.labels import OBJECTIVES, targets
from agents.players.neural import ActorCritic, load_model, masked_log_probs
from agents.players.shipped import SHIPPED
from schnapsen_env.cli_io import whole_range
from schnapsen_env.observation import OBS_SIZE, Observer, rules_from_observation

from .run import FORMAT, atomic_save

#: weight of the value loss against the policy loss (as ``ppo.vf_coef``)
VALUE_WEIGHT = 0.5


def pretrain(
    arrays: dict,
    hidden: Sequence[int] = (256, 256),
    epochs: int = 10,
    batch: int = 1024,
    lr: float = 1e-3,
    objective: Literal["win", "points"] = "win",
    seed: int = 0,
    init: ActorCritic | None = None,
) -> tuple[ActorCritic, list]:
    """``(network, mean loss per epoch)``: an :class:`~agents.players.neural.ActorCritic` (``init``, trained
    in place, or a new one of ``hidden``) trained on the label arrays of :mod:`agents.evaluation.labels`
    (``observation``, ``action_mask``, and ``policy`` with ``value`` or else ``labels``) with Adam,
    minibatches drawn by a torch generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the initial weights
    model = ActorCritic(OBS_SIZE, hidden) if init is None else init.train()
    soft = "policy" in arrays  # a teacher's labels, else the targets of the exact ones
    pair = (arrays["policy"], arrays["value"]) if soft else targets(arrays["labels"], arrays["action_mask"], objective)
    policy, value = (torch.from_numpy(t) for t in pair)
    obs, mask = torch.from_numpy(arrays["observation"]), torch.from_numpy(arrays["action_mask"])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        total, order = 0.0, torch.randperm(len(obs), generator=gen)
        for idx in order.split(batch):
            logits, v = model(obs[idx])
            logp = masked_log_probs(logits, mask[idx]).masked_fill(~mask[idx], 0.0)
            loss = -(policy[idx] * logp).sum(1).mean() + VALUE_WEIGHT * (v - value[idx]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        losses.append(total / len(obs))
    return model.eval(), losses


def save(model: ActorCritic, path: str | Path, observation: np.ndarray, info: dict) -> None:
    """Write ``model`` as a ``policy.pt`` (the rules read off one ``observation`` of the labels);
    ``info`` (plain data) is kept under ``pretrain``."""
    rules = rules_from_observation(observation)
    ckpt = {
        "format": FORMAT,
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "model_config": model.model_config(),
        "observation_spec": Observer(rules).spec,
        "rules": rules.to_dict(),
        "pretrain": info,
    }
    atomic_save(ckpt, Path(path))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agents.training.pretrain",
        description=__doc__.splitlines()[0],
    )
    ap.add_argument("labels", help="a .npz of python -m agents.evaluation.labels")
    ap.add_argument(
        "--out",
        required=True,
        help="the checkpoint to write (for train.py model.init=...)",
    )
    net = ap.add_mutually_exclusive_group()
    net.add_argument(
        "--hidden",
        type=whole_range(1),
        nargs="+",
        default=[256, 256],
        help="as model.hidden",
    )
    net.add_argument(
        "--init",
        help="start from this checkpoint (a shipped name such as ppo-strong, or a path)",
    )
    ap.add_argument("--epochs", type=whole_range(1), default=10)
    ap.add_argument("--batch", type=whole_range(1), default=1024, help="minibatch size")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="win",
        help="for exact labels (not a teacher's)",
    )
    ap.add_argument("--seed", type=whole_range(0), default=0)
    args = ap.parse_args(argv)
    try:
        with np.load(args.labels) as f:
            arrays = dict(f)
    except (OSError, ValueError) as e:
        ap.error(f"cannot read labels {args.labels!r}: {e}")
    if not len(arrays["labels"]):
        ap.error(f"{args.labels} holds no labelled states")
    try:
        init = load_model(SHIPPED.get(args.init, args.init))[0] if args.init else None
    except (ValueError, OSError) as e:
        ap.error(f"--init: {e} (shipped: {', '.join(SHIPPED)})")
    torch.set_num_threads(1)
    model, losses = pretrain(
        arrays,
        args.hidden,
        args.epochs,
        args.batch,
        args.lr,
        args.objective,
        args.seed,
        init,
    )
    info = {k: v for k, v in vars(args).items() if k != "out"} | {
        "states": len(arrays["labels"]),
        "losses": losses,
    }
    save(model, args.out, arrays["observation"][0], info)
    print(f"{len(arrays['labels'])} states, {args.epochs} epochs, loss {losses[0]:.4f} -> {losses[-1]:.4f}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
