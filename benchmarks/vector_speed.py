"""Vector speed: random legal play through the batched engine against the scalar engine, one run.

Both engines play uniformly random legal actions for ``--seconds`` each, in the same process:

* engine only -- batched: ``VectorGames.legal_mask`` + a random legal action per game +
  ``VectorGames.step``, finished games dealt anew in place with ``random_deals``; scalar: one
  ``GameState`` at a time, ``legal_actions`` + ``random.Random.choice`` + ``apply``, a new
  ``GameState.from_seed`` when it ends;
* env steps -- the engine step plus the observation of the player to move and the mask:
  batched ``VectorGames.step`` + ``VectorObserver.observe`` + ``legal_mask``; scalar
  ``GameState.apply`` + ``Observer.state_and_mask``.

A step is one action actually applied (a game in play; the entries of finished games are not
counted). ``--parity N`` first drives N games per preset through both engines with the same
actions (seeded deals, random legal actions with marriages, exchanges, closings and declarations
favoured) and compares the legal masks, the state fields (hands, eyes, tricks, player to move),
the outcomes and the observations (of player ``step % 2``) at every step, as
``tests/test_vector.py`` does, and prints the number of games that disagreed (must be 0; the exit
status is 1 otherwise). The last line reads::

    vector_speed: batched N steps/s (batch B), scalar M steps/s, ratio R

(engine only). Usage: ``python benchmarks/vector_speed.py [--batch 8192] [--seconds 5]
[--threads 1] [--device cpu|cuda] [--variant schnapsen] [--parity N] [--compile] [--seed 0]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - the message is the point
    sys.exit('vector_speed: needs PyTorch: install the [train] extra (pip install -e ".[train]")')

from schnapsen_env.actions import CLOSE, DECLARE, MARRIAGE_BASE
from schnapsen_env.engine import GameState
from schnapsen_env.observation import Observer
from schnapsen_env.rules import PRESETS, Rules
from schnapsen_env.vector.env import MAX_NUM_ENVS  # noqa: E402

from schnapsen_env.vector.engine import VectorGames, as_device
from schnapsen_env.vector.observation import VectorObserver
from agents.arena import whole_range
from _common import count, machine_description, run_main, seconds  # benchmarks/_common.py (on sys.path)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def batched_steps_per_second(
    rules: Rules, batch: int, seconds: float, device: torch.device, seed: int, observe: bool, compile: bool = False
) -> float:  # noqa: A002
    """Random legal play in ``batch`` games at once for ``seconds``: applied actions per second."""
    vg = VectorGames(rules, batch, device, compile=compile)
    gen = torch.Generator(device=device).manual_seed(seed)
    vg.reset(*vg.random_deals(batch, gen))
    obs = VectorObserver(rules, False, device=device) if observe else None

    def step() -> torch.Tensor:
        mask = vg.legal_mask()
        playing = vg.current_player >= 0
        actions = torch.where(mask, torch.rand(mask.shape, generator=gen, device=device), -1.0).argmax(1)
        vg.step(actions)
        if obs is not None:
            obs.observe(vg, vg.current_player.clamp(min=0))
            vg.legal_mask()
        over = vg.over.nonzero().squeeze(1)
        if over.numel():
            vg.reset(*vg.random_deals(over.numel(), gen), games=over)
        return playing.sum()

    for _ in range(5):  # warm-up
        step()
    _sync(device)
    applied = torch.zeros((), dtype=torch.int64, device=device)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(8):
            applied += step()
        _sync(device)
    elapsed = time.perf_counter() - t0
    return int(applied) / elapsed


def scalar_steps_per_second(rules: Rules, seconds: float, seed: int, observe: bool) -> float:
    """Random legal play, one game at a time, for ``seconds``: applied actions per second."""
    rng = random.Random(seed)
    choice = rng.choice
    ob = Observer(rules, False) if observe else None
    applied = 0
    t0 = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(50):
            state = GameState.from_seed(rules, rng=rng)
            if ob is None:
                while state.outcome is None:
                    state.apply(choice(state.legal_actions()))
                    applied += 1
            else:
                while state.outcome is None:
                    state.apply(choice(state.legal_actions()))
                    applied += 1
                    ob.state_and_mask(state, max(state.current_player, 0))
        elapsed = time.perf_counter() - t0
    return applied / elapsed


# ---------------------------------------------------------------------- parity


def _choose(g: GameState, rng: random.Random) -> int:
    """A legal action, marriages, exchanges, closings and (with 66 in sight) declarations favoured."""
    acts = g.legal_actions()
    special = [a for a in acts if a >= MARRIAGE_BASE]
    rng.shuffle(special)
    for a in special:
        if a == DECLARE:
            eyes = g.eyes[g.current_player]
            chance = 0.7 if eyes >= 66 else 0.15 if eyes >= 50 else 0.01
        elif a == CLOSE:
            chance = 0.12
        else:
            chance = 0.7  # a marriage or the exchange
        if rng.random() < chance:
            return a
    cards = [a for a in acts if a < MARRIAGE_BASE]
    return rng.choice(cards or acts)


def parity_chunk(rules: Rules, seeds: range, device: torch.device, report: list, compile: bool = False) -> int:  # noqa: A002
    """Drive the games dealt from ``seeds`` through both engines; the number of games that disagreed
    anywhere (the first few differences are appended to ``report``)."""
    n = len(seeds)
    vg = VectorGames(rules, n, device, compile=compile)
    vg.reset_from_seeds(seeds)
    gs = [GameState.from_seed(rules, s) for s in seeds]
    ob, vob = Observer(rules, False), VectorObserver(rules, False, device=device)
    rng = random.Random(seeds.start)
    bad: set[int] = set()

    def differ(i: int, what: str) -> None:
        if i not in bad:
            bad.add(i)
            if len(report) < 10:
                report.append(f"{rules!r} seed {seeds[i]}: {what}")

    step = 0
    while True:
        bits = vg.legal_mask_bits().tolist()
        viewer = step % 2
        obs = vob.observe(vg, torch.full((n,), viewer, device=device)).cpu().numpy()
        fields = list(zip(*[t.tolist() for t in (vg.current_player, vg.hands, vg.eyes, vg.tricks_won)]))
        actions = []
        for i, g in enumerate(gs):
            if bits[i] != (g.legal_mask() if g.outcome is None else 0):
                differ(i, f"legal mask at step {step}")
            if fields[i] != (g.current_player, g.hands, g.eyes, g.tricks_won):
                differ(
                    i,
                    f"state at step {step}: batched {fields[i]}, scalar "
                    f"{(g.current_player, g.hands, g.eyes, g.tricks_won)}",
                )
            if not np.array_equal(obs[i], ob.fill_state(g, viewer)):
                differ(i, f"observation of player {viewer} at step {step}")
            if g.outcome is not None:
                if vg.outcome(i) != g.outcome:
                    differ(i, f"outcome: batched {vg.outcome(i)}, scalar {g.outcome}")
                actions.append(0)
                continue
            a = _choose(g, rng)
            g.apply(a)
            actions.append(a)
        if all(g.outcome is not None for g in gs) and bool(vg.over.all()):
            break
        try:
            vg.step(torch.tensor(actions, device=device))
        except ValueError as e:  # the batched engine refused an action the scalar one took
            for i in getattr(e, "games", range(n)):
                differ(i, f"step {step}: {e}")
            break
        step += 1
    return len(bad)


def run_parity(
    games: int,
    device: torch.device,
    seed: int,
    compile: bool = False,  # noqa: A002
    chunk: int = 8192,
) -> tuple[int, list]:
    report: list = []
    disagreements = 0
    for k, name in enumerate(PRESETS):
        rules = Rules.preset(name)
        t0 = time.perf_counter()
        start = seed + k * games
        for lo in range(start, start + games, chunk):
            disagreements += parity_chunk(rules, range(lo, min(lo + chunk, start + games)), device, report, compile)
        print(f"parity {name:22s} {games} games compared move for move in {time.perf_counter() - t0:.1f} s", flush=True)
    return disagreements, report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--batch", type=whole_range(1, MAX_NUM_ENVS), default=8192, help="games stepped at once by the batched engine"
    )
    ap.add_argument("--seconds", type=seconds, default=5.0, help="seconds each measurement runs")
    ap.add_argument(
        "--threads",
        type=whole_range(0),
        default=1,
        help="torch CPU threads (default 1: each op on a batch is small, and several threads on a "
        "busy machine slow it down many times; 0: torch's own choice)",
    )
    ap.add_argument("--device", default="cpu", help="torch device of the batched engine (cpu, cuda, cuda:1, ...)")
    ap.add_argument("--variant", default="schnapsen", choices=list(PRESETS), help="the preset played")
    ap.add_argument(
        "--parity",
        type=count,
        default=0,
        metavar="N",
        help="first compare both engines move for move on N games per preset (0: skip)",
    )
    ap.add_argument(
        "--compile",
        action="store_true",
        help="VectorGames(compile=True): the mask and the transition through torch.compile",
    )
    ap.add_argument("--seed", type=count, default=0)
    args = ap.parse_args()
    try:
        device = as_device(args.device)
        torch.empty(1, device=device)
    except (ValueError, RuntimeError, AssertionError) as e:  # AssertionError: torch built without CUDA
        ap.error(f"--device {args.device}: {str(e).splitlines()[0]}")
    if args.threads:
        torch.set_num_threads(args.threads)
    print(machine_description())
    print(
        f"torch {torch.__version__}, device {device}, {torch.get_num_threads()} torch threads, "
        f"variant {args.variant}, {args.seconds:g} s per figure{', torch.compile' if args.compile else ''}"
    )

    disagreements = 0
    if args.parity:
        disagreements, report = run_parity(args.parity, device, args.seed, args.compile)
        for line in report:
            print(f"  disagreement: {line}")
        print(f"parity: {disagreements} disagreements in {args.parity} games per preset ({len(PRESETS)} presets)")

    rules = Rules.preset(args.variant)
    figures = {}
    for observe in (False, True):
        label = "env steps" if observe else "engine"
        b = batched_steps_per_second(rules, args.batch, args.seconds, device, args.seed, observe, args.compile)
        s = scalar_steps_per_second(rules, args.seconds, args.seed, observe)
        figures[label] = (b, s)
        print(
            f"{label:9s}  batched {b:14,.0f} steps/s (batch {args.batch})   scalar {s:12,.0f} steps/s   "
            f"ratio {b / s:.1f}",
            flush=True,
        )
    b, s = figures["engine"]
    print(f"vector_speed: batched {b:,.0f} steps/s (batch {args.batch}), scalar {s:,.0f} steps/s, ratio {b / s:.1f}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(run_main(main, "vector_speed.py"))
