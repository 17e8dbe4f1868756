"""Pretrain the PPO network on solver labels (:mod:`agents.labels`), as a start for ``train.py ... model.init=F``.

The policy head learns by cross-entropy toward the best actions (uniform over the legal actions whose label
is maximal), the value head by squared error toward the state's value (the maximal label). Objective
``win``: labels are first taken as their sign (win/loss, the ``win_loss`` reward), ties broken by game
points, the value target is the sign; ``points``: game points (-3..+3, the ``game_points`` reward).
The file is a ``policy.pt`` as ``train.py`` writes it (:func:`agents.neural.load_model` reads it).

    python -m agents.ppo.pretrain LABELS.npz --out init.pt [--hidden 256 256] [--epochs 10] [--objective win]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import torch

from agents.arena import whole_range
from agents.neural import ActorCritic, masked_log_probs
from schnapsen_env.observation import OBS_SIZE, Observer, rules_from_observation

from .run import FORMAT, atomic_save

OBJECTIVES = ("win", "points")
#: weight of the value loss against the policy loss (as ``ppo.vf_coef``)
VALUE_WEIGHT = 0.5
#: lexicographic (sign, game points) as one number: sign first, points (|label| <= 3) break ties
SIGN_WEIGHT = 10.0


def targets(labels: np.ndarray, mask: np.ndarray, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """``(policy target float32 (N, A): uniform over the best legal actions, value target float32 (N,))`` from
    ``labels`` float32 ``(N, A)`` (game points) and ``mask`` bool ``(N, A)``."""
    score = labels + SIGN_WEIGHT * np.sign(labels) if objective == "win" else labels.copy()
    score[~mask] = -np.inf
    best = score == score.max(1, keepdims=True)
    value = np.where(mask, labels, -np.inf).max(1)
    value = np.sign(value) if objective == "win" else value
    return (best / best.sum(1, keepdims=True)).astype(np.float32), value.astype(np.float32)


def pretrain(
    arrays: dict,
    hidden: Sequence[int] = (256, 256),
    epochs: int = 10,
    batch: int = 1024,
    lr: float = 1e-3,
    objective: Literal["win", "points"] = "win",
    seed: int = 0,
) -> tuple[ActorCritic, list]:
    """``(network, mean loss per epoch)``: an :class:`~agents.neural.ActorCritic` trained on the label arrays
    (``observation``, ``action_mask``, ``labels`` of :mod:`agents.labels`) with Adam, minibatches drawn by a
    torch generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the initial weights
    model = ActorCritic(OBS_SIZE, hidden)
    policy, value = (torch.from_numpy(t) for t in targets(arrays["labels"], arrays["action_mask"], objective))
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
    """Write ``model`` as a ``policy.pt`` (the rules read off one ``observation`` of the labels); ``info``
    (plain data) is kept under ``pretrain``."""
    rules = rules_from_observation(observation)
    ckpt = {"format": FORMAT, "model": {k: v.detach().cpu() for k, v in model.state_dict().items()}}
    ckpt |= {"model_config": model.model_config(), "observation_spec": Observer(rules).spec, "rules": rules.to_dict()}
    atomic_save(ckpt | {"pretrain": info}, Path(path))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.ppo.pretrain", description=__doc__.splitlines()[0])
    ap.add_argument("labels", help="a .npz of python -m agents.labels")
    ap.add_argument("--out", required=True, help="the checkpoint to write (for train.py model.init=...)")
    ap.add_argument("--hidden", type=whole_range(1), nargs="+", default=[256, 256], help="as model.hidden")
    ap.add_argument("--epochs", type=whole_range(1), default=10)
    ap.add_argument("--batch", type=whole_range(1), default=1024, help="minibatch size")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--objective", choices=OBJECTIVES, default="win")
    ap.add_argument("--seed", type=whole_range(0), default=0)
    args = ap.parse_args(argv)
    with np.load(args.labels) as f:
        arrays = {k: f[k] for k in ("observation", "action_mask", "labels")}
    if not len(arrays["labels"]):
        ap.error(f"{args.labels} holds no labelled states")
    torch.set_num_threads(1)
    model, losses = pretrain(arrays, args.hidden, args.epochs, args.batch, args.lr, args.objective, args.seed)
    info = {k: v for k, v in vars(args).items() if k != "out"} | {"states": len(arrays["labels"]), "losses": losses}
    save(model, args.out, arrays["observation"][0], info)
    print(f"{len(arrays['labels'])} states, {args.epochs} epochs, loss {losses[0]:.4f} -> {losses[-1]:.4f}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
