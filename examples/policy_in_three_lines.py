"""A trained policy in three lines: the shipped PPO policy plays one PettingZoo game against the heuristic.

    python examples/policy_in_three_lines.py [--seed 0] [--seat player_0]

``load_policy("ppo")`` acts on the environment's observation dict; ``env_policy("heuristic", env)``
makes any agent callable the same way, ``policy(observation_dict, agent_name) -> action``.
"""

import argparse

from schnapsen_env.cli_io import whole_range
from agents.policy import env_policy, load_policy
from schnapsen_env import schnapsen_v0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=whole_range(0), default=0, help="deal seed (default 0)")
    parser.add_argument(
        "--seat",
        choices=("player_0", "player_1"),
        default="player_0",
        help="the PPO policy's seat",
    )
    args = parser.parse_args(argv)

    env = schnapsen_v0.env(variant="schnapsen")
    other = "player_1" if args.seat == "player_0" else "player_0"
    policies = {args.seat: load_policy("ppo"), other: env_policy("heuristic", env)}
    env.reset(seed=args.seed)
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else policies[name](obs, name))

    o = env.unwrapped.last_outcome
    winner = f"player_{o.winner}"
    print(
        f"ppo ({args.seat}) vs heuristic ({other}), seed {args.seed}: "
        f"{'ppo' if winner == args.seat else 'heuristic'} ({winner}) wins {o.game_points} game point(s) "
        f"({o.reason}; eyes {o.eyes[0]}:{o.eyes[1]}, tricks {o.tricks_won[0]}:{o.tricks_won[1]})"
    )


if __name__ == "__main__":
    main()
