"""Seconds of one PPO update of configs/default.yaml by torch thread count, on free cores and beside a busy process.

    python benchmarks/update_threads.py [--threads 1 2] [--repeats 3] [--write-docs]

One rollout of the default config (``ppo.num_games`` x ``ppo.rollout_steps`` learner decisions; ``run.compile``
off, which does not touch the update) fills the buffer; then :func:`agents.training.train.ppo_update` runs on it once
per arm and repeat, the arms interleaved: each thread count alone, and beside one process spinning a Python loop
(another job holding a core). Prints the median seconds per arm, the machine and its load average before and
after (``seeding.update_threads`` is the setting this informs)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from _common import ROOT, machine_description, parse_args, parser, positive, publish

#: a process that keeps one core busy until it is killed
SPINNER = "while True: pass"


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--threads", type=positive, nargs="+", default=[1, 2], help="torch thread counts to time")
    ap.add_argument("--repeats", type=positive, default=3, help="updates per arm")
    args = parse_args(ap, argv, seed=None)

    import torch

    from agents.training import train
    from agents.training.config import load_config

    cfg = load_config(ROOT / "configs" / "default.yaml", ["run.compile=false"])
    training = train.setup(cfg, None)
    training.start(*training.env.reset())
    next_value = train.rollout(training, cfg.run.precision)
    adv, ret = train.advantages(training.buf, next_value, cfg.ppo.gamma, cfg.ppo.gae_lambda)
    machine = machine_description()  # the load average before the arms
    seconds: dict[tuple[int, bool], list[float]] = {
        (threads, busy): [] for busy in (False, True) for threads in args.threads
    }
    for _ in range(args.repeats):
        for threads, busy in seconds:
            spinner = subprocess.Popen([sys.executable, "-c", SPINNER]) if busy else None
            torch.set_num_threads(threads)
            start = time.perf_counter()
            train.ppo_update(
                training.model, training.optimizer, training.buf, adv, ret, cfg.ppo, training.gen, cfg.run.precision
            )
            seconds[threads, busy].append(time.perf_counter() - start)
            if spinner is not None:
                spinner.kill()
                spinner.wait()
    samples = training.buf["act"].numel()
    lines = [
        f"{machine}, {os.getloadavg()[0]:.2f} at the end; "
        f"`python benchmarks/update_threads.py --repeats {args.repeats}`, one PPO update of "
        f"configs/default.yaml ({samples:,} samples, {cfg.ppo.update_epochs} epochs of {cfg.ppo.minibatch_size}), "
        "median of the repeats, arms interleaved:",
        "",
        "| update threads | seconds per update | beside one busy process |",
        "|---|---|---|",
    ]
    for threads in args.threads:
        alone = statistics.median(seconds[threads, False])
        beside = statistics.median(seconds[threads, True])
        lines.append(f"| {threads} | {alone:.2f} | {beside:.2f} |")
    publish("update_threads", "\n".join(lines), args.write_docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
