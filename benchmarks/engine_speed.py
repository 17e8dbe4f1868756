"""Engine and env speed with random legal play, next to peers measured in the same run.

    python benchmarks/engine_speed.py [--games 4000] [--steps 100000] [--runs 5] [--seed 0] [--write-docs]

Games/s of random-vs-random games per preset (peer: the PyPI ``schnapsen`` package's ``RandBot``
games, ``pip install -e ".[vu]"``); AEC steps/s of ``env()`` and ``raw_env``, observation and mask
read through ``last()`` (peers: PettingZoo's ``leduc_holdem_v4`` and ``connect_four_v3``, ``pip
install -e ".[bench]"``). Medians of ``--runs`` runs; a peer that is not installed is listed as
such."""

from __future__ import annotations

import contextlib
import random
import statistics
import time

import numpy as np
from _common import machine_description, parse_args, parser, positive, publish

from schnapsen_env import schnapsen_v0
from schnapsen_env.engine import GameState
from schnapsen_env.rules import VARIANTS, Rules


def games_per_second(variant: str, games: int, seed: int) -> float:
    rules, rng = Rules.preset(variant), random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(games):
        state = GameState.from_seed(rules, rng=rng)
        while state.outcome is None:
            state.apply(rng.choice(state.legal_actions()))
    return games / (time.perf_counter() - t0)


def pypi_games_per_second(games: int, seed: int) -> float:
    from schnapsen.bots import RandBot
    from schnapsen.game import SchnapsenGamePlayEngine

    engine = SchnapsenGamePlayEngine()
    t0 = time.perf_counter()
    for i in range(games):
        bots = RandBot(random.Random(seed + 2 * i)), RandBot(random.Random(seed + 2 * i + 1))
        engine.play_game(*bots, random.Random(seed + i))
    return games / (time.perf_counter() - t0)


def aec_steps_per_second(env, steps: int, seed: int) -> float:
    """Steps per second over ``steps`` AEC ``step()`` calls of random legal actions."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        obs, _reward, terminated, truncated, _info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(legal[rng.randrange(len(legal))]))
        if not env.agents:
            env.reset()
    return steps / (time.perf_counter() - t0)


def median(runs: list[float]) -> str:
    return f"{statistics.median(runs):,.0f}"


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--games", type=positive, default=4000, help="games per run and preset")
    ap.add_argument("--steps", type=positive, default=100_000, help="AEC steps per run and env")
    ap.add_argument(
        "--runs",
        type=positive,
        default=5,
        help="runs per figure (the median is shown)",
    )
    args = parse_args(ap)
    machine = machine_description()
    ours = {v: [games_per_second(v, args.games, args.seed + r) for r in range(args.runs)] for v in VARIANTS}
    try:
        pypi = [pypi_games_per_second(max(1, args.games // 4), args.seed + r) for r in range(args.runs)]
        ratio = statistics.median(ours["schnapsen"]) / statistics.median(pypi)
        peer = f"PyPI `schnapsen` {median(pypi)} (ours {ratio:.1f}x)"
    except ImportError:
        peer = 'PyPI `schnapsen`: not installed (`pip install -e ".[vu]"`)'

    envs = {"env()": schnapsen_v0.env(), "raw_env": schnapsen_v0.raw_env()}
    # the [bench] extra (pettingzoo[classic]: pygame, rlcard, ...)
    with contextlib.suppress(ImportError):
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4

        envs |= {"leduc_holdem_v4": leduc_holdem_v4.env(), "connect_four_v3": connect_four_v3.env()}
    steps: dict[str, list[float]] = {name: [] for name in envs}
    for r in range(args.runs):  # interleaved, so background load hits all alike
        for name, env in envs.items():
            steps[name].append(aec_steps_per_second(env, args.steps, args.seed + r))
    aec = statistics.median(steps["env()"])
    others = [p for p in steps if p not in ("env()", "raw_env")]
    peers = [f"`{p}` {median(steps[p])} ({aec / statistics.median(steps[p]):.2f}x)" for p in others]
    peers = peers or ['PettingZoo classic: not installed (`pip install -e ".[bench]"`)']
    rows = [f"| random games/s, `{v}` | {median(r)} | {peer if v == 'schnapsen' else ''} |" for v, r in ours.items()]
    lines = [
        f"{machine}; `python benchmarks/engine_speed.py --games {args.games} --steps {args.steps}`, "
        f"medians of {args.runs} runs:",
        "\n| figure | ours | peer (same run) |\n|---|---:|---|",
        *rows,
        f"| AEC steps/s through `env()` | {median(steps['env()'])} | {', '.join(peers)} |",
        f"| AEC steps/s through `raw_env` | {median(steps['raw_env'])} | |",
    ]
    publish("engine_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
