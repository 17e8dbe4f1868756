"""A trained policy in three lines: the shipped PPO policy plays one PettingZoo game against the heuristic.

    python examples/policy_in_three_lines.py [--seed 0] [--seat player_0]

``load_policy("ppo")`` gives an object that acts on the environment's observation dict;
``env_policy("heuristic", env)`` makes any agent (which needs the engine's information set)
callable the same way, ``policy(observation_dict, agent_name) -> action``.
"""

from __future__ import annotations

import argparse

from agents.policy import env_policy, load_policy
from schnapsen_env import schnapsen_v0


def seed_arg(text: str) -> int:
    """A deal seed: a whole number >= 0 (else argparse's error and exit status 2)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"bad seed {text[:40]!r}: allowed a whole number >= 0")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=seed_arg, default=0, help="deal seed, a whole number >= 0 (default 0)")
    parser.add_argument(
        "--seat", choices=("player_0", "player_1"), default="player_0", help="the PPO policy's seat (default player_0)"
    )
    args = parser.parse_args(argv)

    env = schnapsen_v0.env(variant="schnapsen")
    other = "player_1" if args.seat == "player_0" else "player_0"
    policies = {args.seat: load_policy("ppo"), other: env_policy("heuristic", env)}
    names = {args.seat: "ppo", other: "heuristic"}

    env.reset(seed=args.seed)
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else policies[name](obs, name))

    o = env.unwrapped.last_outcome
    winner = f"player_{o.winner}"
    print(
        f"ppo ({args.seat}) vs heuristic ({other}), seed {args.seed}: {names[winner]} ({winner}) wins "
        f"{o.game_points} game point{'s' if o.game_points != 1 else ''} "
        f"({o.reason}; eyes {o.eyes[0]}:{o.eyes[1]}, tricks {o.tricks_won[0]}:{o.tricks_won[1]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
