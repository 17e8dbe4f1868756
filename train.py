"""PPO self-play for Schnapsen (CleanRL style: the whole algorithm on this page).

    python train.py --config configs/default.yaml [--seed N] [key=value ...]
    python train.py --resume RUN_DIR [key=value ...]

* Policy: an actor-critic MLP (``agents.neural.ActorCritic``) over the env's observation
  (``schnapsen_env.observation.encode_state``); illegal actions get no probability, no
  gradient and no entropy (masked logits).
* Rollouts: ``ppo.num_games`` games in lockstep (``agents.ppo.selfplay.SelfPlayGames``), so
  the policy runs batched; one transition per learner decision; the opponent (current
  policy, a frozen snapshot, or a baseline agent, drawn per episode by the weights of
  ``opponents``) is part of the environment. Reward at the end of an episode.
* Update: GAE, clipped PPO objective, clipped value loss, entropy bonus, Adam.
* Every ``eval.every`` updates: ``agents.arena.play_pair`` against ``eval.opponents``
  (duplicate deals, greedy policy); at the end a table over ``eval.final_games`` games.
* Logs: ``RUN_DIR/progress.csv``, TensorBoard events in ``RUN_DIR``, a tqdm bar.
* Checkpoints: ``RUN_DIR/checkpoint.pt`` (atomic; ``torch.load(..., weights_only=True)``)
  with the policy, optimizer, config, counters, snapshots, games in progress and every RNG
  state, so ``--resume`` continues step for step. ``RUN_DIR/policy.pt`` is the small
  policy-only file for ``PPOAgent`` (``--opponent ppo:RUN_DIR/policy.pt``).

Exit codes: 0 done, 2 bad command line or config (a message naming the key, no traceback).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch

from agents.neural import ActorCritic, PPOAgent, masked_entropy, masked_log_probs, sample_actions
from agents.ppo.config import ConfigError, TrainConfig, load_config
from agents.ppo.selfplay import OpponentPool, SelfPlayGames, _rng_from_state, _rng_state
from schnapsen_env.observation import OBS_SIZE

CHECKPOINT = "checkpoint.pt"
POLICY = "policy.pt"
CSV_NAME = "progress.csv"
#: checkpoint format version
FORMAT = 1
#: offsets that derive independent seeds from the master seed
SEED_GAMES, SEED_SAMPLING, SEED_AGENTS, SEED_EVAL = 1, 2, 3, 4
#: config keys a resumed run must keep (saved games, network shape and generators depend on them)
FIXED_ON_RESUME = ("seeding.seed", "game", "model", "ppo.num_games", "opponents.agents", "opponents.max_snapshots")
LOSS_KEYS = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]


# ------------------------------------------------------------------------- helpers
def atomic_save(obj: dict, path: Path) -> None:
    """``torch.save`` to a temporary file, then ``os.replace``: a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def global_rng_state() -> dict:
    np_state = np.random.get_state()
    return {"python": _rng_state(random), "torch": torch.get_rng_state(),
            "numpy": [np_state[0], torch.from_numpy(np_state[1].astype(np.int64)), int(np_state[2]),
                      int(np_state[3]), float(np_state[4])]}


def set_global_rng_state(d: dict) -> None:
    random.setstate(_rng_from_state(d["python"]))
    torch.set_rng_state(d["torch"])
    n = d["numpy"]
    np.random.set_state((n[0], n[1].numpy().astype(np.uint32), n[2], n[3], n[4]))


def evaluate(model: ActorCritic, cfg: TrainConfig, games: int, update: int) -> dict:
    """Greedy policy vs each ``eval.opponents`` spec via ``agents.arena.play_pair`` (same deals every time)."""
    from agents.arena import play_pair

    out = {}
    model.eval()
    for spec in cfg.eval.opponents:
        agent = PPOAgent.from_model(model, seed=cfg.seeding.seed + SEED_EVAL)
        agent.name = f"ppo@{update}"
        r = play_pair(agent, spec, games=games, seed=cfg.seeding.seed + SEED_EVAL, rules=cfg.rules(),
                      duplicate=cfg.eval.duplicate)
        out[spec] = r.to_dict()
    model.train()
    return out


def eval_table(results: dict) -> str:
    lines = [f"{'opponent':<24} {'games':>6} {'win rate':>9} {'95% CI':>15} {'points/game (ppo : opp)':>24}"]
    for spec, r in results.items():
        lo, hi = r["win_rate_ci"]
        pa, pb = r["mean_game_points"]
        lines.append(f"{spec:<24} {r['games']:>6} {r['win_rate']:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>15} "
                     f"{f'{pa:.3f} : {pb:.3f}':>24}")
    return "\n".join(lines)


def export_policy(ckpt: dict, path: Path) -> None:
    """The small policy-only checkpoint (what ``PPOAgent`` needs) next to the full one."""
    atomic_save({k: ckpt[k] for k in ("format", "model", "model_config", "config", "rules", "update",
                                       "env_steps", "learner_steps")}, path)


# --------------------------------------------------------------------------- train
def train(cfg: TrainConfig, run_dir: Path, resume: dict | None = None, stop_after: int | None = None) -> dict:
    """Run (or continue from ``resume``, a loaded checkpoint) the PPO loop; returns the final evaluation."""
    torch.set_num_threads(cfg.seeding.torch_threads)
    torch.use_deterministic_algorithms(cfg.seeding.deterministic)
    seed = cfg.seeding.seed
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)  # the weight init
    rules = cfg.rules()
    p = cfg.ppo
    N, T, B = p.num_games, p.rollout_steps, cfg.batch_size

    model = ActorCritic(OBS_SIZE, cfg.model.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=p.lr, eps=1e-5)
    games_rng = random.Random(seed + SEED_GAMES)  # deals, seats, opponent choice
    gen = torch.Generator().manual_seed(seed + SEED_SAMPLING)  # action sampling, minibatches
    o = cfg.opponents
    pool = OpponentPool(model, o.current, o.snapshots, o.agents, o.max_snapshots, seed + SEED_AGENTS)
    games = SelfPlayGames(rules, N, pool, games_rng, gen, cfg.game.episode, cfg.game.reward, o.sample)

    update, learner_steps, elapsed = 0, 0, 0.0
    if resume is None:
        games.reset()
    else:
        model.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        update, learner_steps, elapsed = resume["update"], resume["learner_steps"], resume["elapsed"]
        pool.load_state_dict(resume["pool"])
        games_rng.setstate(_rng_from_state(resume["rng"]["games"]))
        gen.set_state(resume["rng"]["sampling"])
        set_global_rng_state(resume["rng"]["global"])
        games.load_state_dict(resume["games"])

    # logging: CSV (rows after the checkpoint are dropped on resume), TensorBoard, tqdm
    run_dir.mkdir(parents=True, exist_ok=True)
    eval_cols = [f"eval_{s}_{k}" for s in cfg.eval.opponents for k in ("win_rate", "points")]
    header = ["update", "env_steps", "learner_steps", "time_s", "rollout_steps_per_s", "lr", *LOSS_KEYS,
              "episodes", "episode_reward", *eval_cols]
    csv_path = run_dir / CSV_NAME
    rows = []
    if resume is not None and csv_path.exists():
        with open(csv_path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["update"]) <= update]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    writer = None
    if cfg.run.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir), purge_step=update + 1 if resume is not None else None)
    from tqdm import tqdm

    bar = tqdm(total=cfg.run.total_updates, initial=update, desc=cfg.name, unit="update",
               disable=not cfg.run.progress, dynamic_ncols=True)
    latest_eval = ""

    # rollout storage
    obs_buf = torch.zeros((T, N, OBS_SIZE))
    mask_buf = torch.zeros((T, N, games.mask.shape[1]), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.int64)
    logp_buf, val_buf = torch.zeros((T, N)), torch.zeros((T, N))
    rew_buf, done_buf = torch.zeros((T, N)), torch.zeros((T, N))

    def checkpoint() -> dict:
        ckpt = {"format": FORMAT, "model": model.state_dict(), "model_config": model.model_config(),
                "config": cfg.to_dict(), "rules": rules.to_dict(), "optimizer": optimizer.state_dict(),
                "update": update, "env_steps": games.env_steps, "learner_steps": learner_steps,
                "elapsed": elapsed, "pool": pool.state_dict(), "games": games.state_dict(),
                "rng": {"games": _rng_state(games_rng), "sampling": gen.get_state(), "global": global_rng_state()}}
        atomic_save(ckpt, run_dir / CHECKPOINT)
        export_policy(ckpt, run_dir / POLICY)
        return ckpt

    ran = 0
    while update < cfg.run.total_updates:
        t0 = time.perf_counter()
        if p.anneal_lr:
            optimizer.param_groups[0]["lr"] = p.lr * (1.0 - update / cfg.run.total_updates)

        # ---- rollout: T learner decisions in each of N games
        steps0 = games.env_steps
        model.eval()
        for t in range(T):
            obs_buf[t] = torch.from_numpy(games.obs)
            mask_buf[t] = torch.from_numpy(games.mask)
            with torch.no_grad():
                logits, value = model(obs_buf[t])
                action, logp = sample_actions(logits, mask_buf[t], gen)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            reward, done = games.step(action.tolist())
            rew_buf[t] = torch.from_numpy(reward)
            done_buf[t] = torch.from_numpy(done.astype(np.float32))
        with torch.no_grad():
            _, next_value = model(torch.from_numpy(games.obs))
        rollout_time = time.perf_counter() - t0
        rollout_sps = (games.env_steps - steps0) / rollout_time
        learner_steps += B

        # ---- GAE: done_buf[t] = the episode ended right after decision t
        adv = torch.zeros((T, N))
        last = torch.zeros(N)
        for t in reversed(range(T)):
            nonterminal = 1.0 - done_buf[t]
            nxt = next_value if t == T - 1 else val_buf[t + 1]
            delta = rew_buf[t] + p.gamma * nxt * nonterminal - val_buf[t]
            last = delta + p.gamma * p.gae_lambda * nonterminal * last
            adv[t] = last
        ret = adv + val_buf

        # ---- PPO update
        b_obs, b_mask = obs_buf.reshape(B, -1), mask_buf.reshape(B, -1)
        b_act, b_logp, b_val = act_buf.reshape(B), logp_buf.reshape(B), val_buf.reshape(B)
        b_adv, b_ret = adv.reshape(B), ret.reshape(B)
        model.train()
        stats = {k: [] for k in LOSS_KEYS[:-1]}
        for _epoch in range(p.update_epochs):
            perm = torch.randperm(B, generator=gen)
            for start in range(0, B, p.minibatch_size):
                mb = perm[start:start + p.minibatch_size]
                logits, new_val = model(b_obs[mb])
                logp_all = masked_log_probs(logits, b_mask[mb])
                new_logp = logp_all.gather(1, b_act[mb].unsqueeze(1)).squeeze(1)
                entropy = masked_entropy(logp_all, b_mask[mb]).mean()
                log_ratio = new_logp - b_logp[mb]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfrac = ((ratio - 1.0).abs() > p.clip_coef).float().mean()
                mb_adv = b_adv[mb]
                if p.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * torch.clamp(ratio, 1 - p.clip_coef, 1 + p.clip_coef)).mean()
                if p.clip_vloss:
                    v_clipped = b_val[mb] + torch.clamp(new_val - b_val[mb], -p.clip_coef, p.clip_coef)
                    v_loss = 0.5 * torch.max((new_val - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((new_val - b_ret[mb]) ** 2).mean()
                loss = pg_loss - p.ent_coef * entropy + p.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), p.max_grad_norm)
                optimizer.step()
                for k, v in zip(stats, (pg_loss, v_loss, entropy, approx_kl, clipfrac), strict=True):
                    stats[k].append(v.item())
            if p.target_kl is not None and approx_kl.item() > p.target_kl:
                break
        var_y = b_ret.var().item()
        explained = float("nan") if var_y == 0 else 1 - (b_ret - b_val).var().item() / var_y
        update += 1
        ran += 1
        if update % o.snapshot_every == 0:
            pool.add_snapshot()

        # ---- logging
        finished = games.pop_finished()
        elapsed += time.perf_counter() - t0
        row = {"update": update, "env_steps": games.env_steps, "learner_steps": learner_steps,
               "time_s": round(elapsed, 3), "rollout_steps_per_s": round(rollout_sps, 1),
               "lr": optimizer.param_groups[0]["lr"], "episodes": len(finished),
               "episode_reward": float(np.mean([r for _, r, _ in finished])) if finished else ""}
        row.update({k: float(np.mean(v)) for k, v in stats.items()})
        row["explained_variance"] = explained
        by_opp: dict = {}
        for label, _r, won in finished:
            by_opp.setdefault(label, []).append(won)
        if update % cfg.eval.every == 0 or update == cfg.run.total_updates:
            t_eval = time.perf_counter()
            results = evaluate(model, cfg, cfg.eval.games, update)
            elapsed += time.perf_counter() - t_eval
            for spec, r in results.items():
                row[f"eval_{spec}_win_rate"] = r["win_rate"]
                row[f"eval_{spec}_points"] = r["mean_game_points"][0] - r["mean_game_points"][1]
            latest_eval = " ".join(f"{s}:{r['win_rate']:.2f}" for s, r in results.items())
        with open(csv_path, "a", newline="") as f:
            csv.DictWriter(f, fieldnames=header).writerow(row)
        if writer is not None:
            for k, v in row.items():
                if k != "update" and v != "":
                    writer.add_scalar(k.replace("eval_", "eval/", 1) if k.startswith("eval_") else f"train/{k}",
                                      float(v), update)
            for label, wins in by_opp.items():
                writer.add_scalar(f"train_win_rate/{label}", float(np.mean(wins)), update)
        bar.set_postfix_str(f"{rollout_sps:,.0f} steps/s" + (f" | eval {latest_eval}" if latest_eval else ""))
        bar.update(1)

        if update % cfg.run.checkpoint_every == 0 or update == cfg.run.total_updates or ran == stop_after:
            checkpoint()
        if ran == stop_after:
            break
    bar.close()
    if writer is not None:
        writer.close()

    final = {}
    if update == cfg.run.total_updates and cfg.eval.final_games > 0 and stop_after != ran:
        final = evaluate(model, cfg, cfg.eval.final_games, update)
        (run_dir / "eval.json").write_text(json.dumps(final, indent=1))
        print(f"\nfinal evaluation after {update} updates, {games.env_steps:,} env steps, "
              f"{elapsed:.1f} s (duplicate deals, greedy policy):")
        print(eval_table(final))
    return final


# ----------------------------------------------------------------------------- CLI
def parse_args(argv):
    ap = argparse.ArgumentParser(description="PPO self-play training for schnapsen-env",
                                 epilog="example: python train.py --config configs/default.yaml ppo.lr=1e-4")
    ap.add_argument("--config", help="YAML config file (configs/*.yaml)")
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint.pt")
    ap.add_argument("--seed", type=int, help="master seed (same as seeding.seed=N)")
    ap.add_argument("--run-dir", help="run directory (same as run.dir=PATH)")
    ap.add_argument("--stop-after", type=int, metavar="K",
                    help="checkpoint and stop after K updates of this invocation (as if killed then)")
    ap.add_argument("overrides", nargs="*", metavar="key=value", help="dotted config overrides, e.g. ppo.lr=1e-4")
    # intermixed: overrides may stand before, between and after the options
    return ap.parse_intermixed_args(argv)


def _option_override(overrides: list, option: str, key: str, value) -> None:
    """Append ``key=value`` for a command-line ``option``; ConfigError if ``key=`` is also overridden."""
    given = [o for o in overrides if o.partition("=")[0] == key]
    if given:
        raise ConfigError(f"{option} {value} and {given[0]} both set {key}: give only one of them")
    # a JSON string is a YAML string: a path such as "2024" or "a: b" stays text
    overrides.append(f"{key}={json.dumps(value) if isinstance(value, str) else value}")


def check_run_dir(run_dir: Path) -> None:
    """ConfigError unless ``run_dir`` is (or can be made as) a writable directory; creates nothing."""
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"run.dir: {str(run_dir)!r} is an existing file, not a directory: choose another path")
    parent = run_dir
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"run.dir: cannot create {str(run_dir)!r}: {str(parent)!r} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"run.dir: cannot write into {str(parent)!r} (permission denied): choose another path")


def main(argv=None) -> int:
    args = parse_args(argv)
    overrides = list(args.overrides)
    resume = None
    try:
        if args.seed is not None:
            _option_override(overrides, "--seed", "seeding.seed", args.seed)
        if args.resume:
            if args.config:
                raise ConfigError("give either --config (a new run) or --resume RUN_DIR (its config is in the "
                                  "checkpoint; change it with key=value overrides)")
            ckpt_path = Path(args.resume) / CHECKPOINT
            if not ckpt_path.is_file():
                raise ConfigError(f"--resume: no {CHECKPOINT} in {args.resume!r}")
            try:
                resume = torch.load(ckpt_path, map_location="cpu", weights_only=True)
                resume["config"], resume["model"]  # noqa: B018 - a training checkpoint has both
            except Exception as e:  # noqa: BLE001 - torch raises many kinds; one line naming the file
                raise ConfigError(f"--resume: cannot load {str(ckpt_path)!r}: not a checkpoint.pt written by "
                                  f"train.py ({type(e).__name__})") from None
            cfg = load_config(base=resume["config"], overrides=overrides)
            old = load_config(base=resume["config"]).to_dict()
            for key in FIXED_ON_RESUME:
                section, _, name = key.partition(".")
                if (cfg.to_dict()[section][name] if name else cfg.to_dict()[section]) != \
                        (old[section][name] if name else old[section]):
                    raise ConfigError(f"{key}: cannot change when resuming (the saved games, network and "
                                      f"generators depend on it); start a new run instead")
            run_dir = Path(args.resume)
        else:
            if not args.config:
                raise ConfigError("give --config FILE (e.g. configs/default.yaml) or --resume RUN_DIR")
            if args.run_dir is not None:
                if not args.run_dir.strip():
                    raise ConfigError("--run-dir: empty path: give a directory, or leave the option out for a "
                                      "new directory under runs/")
                _option_override(overrides, "--run-dir", "run.dir", args.run_dir)
            cfg = load_config(args.config, overrides)
            run_dir = Path(cfg.run.dir or f"runs/{cfg.name}-seed{cfg.seeding.seed}-{time.strftime('%Y%m%d-%H%M%S')}")
            check_run_dir(run_dir)
            if (run_dir / CHECKPOINT).exists():
                raise ConfigError(f"run.dir: {str(run_dir)!r} already holds a run; resume it with --resume "
                                  f"{run_dir} or choose another directory")
        if args.stop_after is not None and args.stop_after < 1:
            raise ConfigError(f"--stop-after: bad value {args.stop_after}: allowed a whole number >= 1")
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    print(f"run directory: {run_dir}", file=sys.stderr)
    train(cfg, run_dir, resume, args.stop_after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
