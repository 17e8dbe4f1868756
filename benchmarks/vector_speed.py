"""Random legal play through the batched engine against the scalar engine, measured in one run.

    python benchmarks/vector_speed.py [--batch 8192] [--seconds 5] [--threads 1] [--device cpu]
                                      [--variant schnapsen] [--compile] [--seed 0] [--write-docs]

Engine steps: batched ``legal_mask`` + a random legal action per game + ``step``; scalar (the peer):
one ``GameState`` at a time. Env steps add the observation of the player to move and the mask. A
step is one action applied to a game in play. Parity of the engines is tests/vector/test_vector.py's
job."""

from __future__ import annotations

import random
import time

import torch
from _common import count, machine_description, parse_args, parser, positive, publish

from schnapsen_env.engine import GameState
from schnapsen_env.observation import Observer
from schnapsen_env.rules import PRESETS, Rules
from schnapsen_env.vector.engine import VectorGames, as_device
from schnapsen_env.vector.observation import VectorObserver


def batched_steps_per_second(
    rules: Rules,
    batch: int,
    seconds: float,
    device,
    seed: int,
    observe: bool,
    compile: bool,
) -> float:
    """Random legal play in ``batch`` games at once for ``seconds``: applied actions per second."""
    vg = VectorGames(rules, batch, device, compile=compile)
    gen = torch.Generator(device=device).manual_seed(seed)
    vg.reset(*vg.random_deals(batch, gen))
    obs = VectorObserver(rules, False, device=device) if observe else None

    def step() -> torch.Tensor:
        mask = vg.legal_mask()
        playing = vg.current_player >= 0
        vg.step(torch.where(mask, torch.rand(mask.shape, generator=gen, device=device), -1.0).argmax(1))
        if obs is not None:
            obs.observe(vg, vg.current_player.clamp(min=0))
            vg.legal_mask()
        over = vg.over.nonzero().squeeze(1)
        if over.numel():
            vg.reset(*vg.random_deals(over.numel(), gen), games=over)
        return playing.sum()

    for _ in range(5):  # warm-up (and compilation)
        step()
    applied = torch.zeros((), dtype=torch.int64, device=device)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(8):
            applied += step()
        int(applied)  # waits for an accelerator
    return int(applied) / (time.perf_counter() - t0)


def scalar_steps_per_second(rules: Rules, seconds: float, seed: int, observe: bool) -> float:
    """Random legal play, one game at a time, for ``seconds``: applied actions per second."""
    rng, ob = random.Random(seed), Observer(rules, False)
    applied, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = GameState.from_seed(rules, rng=rng)
        while state.outcome is None:
            state.apply(rng.choice(state.legal_actions()))
            applied += 1
            if observe:
                ob.state_and_mask(state, max(state.current_player, 0))
    return applied / (time.perf_counter() - t0)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument(
        "--batch",
        type=positive,
        default=8192,
        help="games stepped at once by the batched engine",
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds each measurement runs")
    ap.add_argument(
        "--threads",
        type=count,
        default=1,
        help="torch CPU threads (0: torch's own choice)",
    )
    ap.add_argument(
        "--device",
        type=as_device,
        default="cpu",
        help="torch device of the batched engine",
    )
    ap.add_argument("--variant", default="schnapsen", choices=PRESETS, help="the preset played")
    ap.add_argument(
        "--compile",
        action="store_true",
        help="the batched mask and transition through torch.compile",
    )
    args = parse_args(ap)
    if args.threads:
        torch.set_num_threads(args.threads)
    machine, rules = machine_description(), Rules.preset(args.variant)
    lines = [
        f"{machine}; `python benchmarks/vector_speed.py --batch {args.batch}{' --compile' * args.compile}`, "
        f"torch {torch.__version__} on {args.device}, {torch.get_num_threads()} torch thread(s), {args.variant}, "
        f"{args.seconds:g} s per figure:",
        f"\n| | batched (batch {args.batch}) | scalar `GameState` (peer) | ratio |\n|---|---:|---:|---:|",
    ]
    for label, observe in (
        ("engine steps/s", False),
        ("env steps/s (step + observation + mask)", True),
    ):
        b = batched_steps_per_second(
            rules,
            args.batch,
            args.seconds,
            args.device,
            args.seed,
            observe,
            args.compile,
        )
        s = scalar_steps_per_second(rules, args.seconds, args.seed, observe)
        lines.append(f"| {label} | {b:,.0f} | {s:,.0f} | {b / s:.1f}x |")
    publish("vector_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
