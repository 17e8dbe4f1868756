"""Training rollouts with the policy in the loop: the batched engine against scalar games, one run.

    python benchmarks/rollout_speed.py [--games 4096] [--hidden 256,256] [--threads 1] [--seconds 10]
        [--pool self|default] [--compile] [--device cpu] [--precision float32|bfloat16] [--write-docs]

Both sides run train.py's rollout loop with a masked policy (``ActorCritic``, random weights) for the
learner in every game at once, then the opponents (``--pool self``: the same policy; ``default``: also
heuristic and random) until the learner is to move. Batched: ``SchnapsenVectorGymEnv(opponent=OpponentPool,
tensors=True)`` (what train.py steps);
scalar (the peer): ``GameState`` objects, one ``Observer.state_and_mask`` per game and step.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import torch
from _common import add_docs_flag, machine_description, positive, publish

from agents.heuristic import HeuristicAgent
from agents.neural import ActorCritic, forward_in, sample_actions
from agents.ppo.pool import OpponentPool
from agents.random_agent import RandomAgent
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.engine import GameState
from schnapsen_env.observation import OBS_SIZE, Observer
from schnapsen_env.rules import Rules
from schnapsen_env.vector.env import SchnapsenVectorGymEnv

POOLS = {
    "self": {"current": 1.0, "agents": {}},
    "default": {"current": 0.4, "agents": {"heuristic": 0.5, "random": 0.1}},
}


def batched(model, rules, args) -> float:
    pool_cfg = POOLS[args.pool]
    gen = torch.Generator(device=args.device).manual_seed(0)
    pool = OpponentPool(
        model,
        current_weight=pool_cfg["current"],
        agents=pool_cfg["agents"],
        rules=rules,
        device=args.device,
        generator=gen,
        precision=args.precision,
    )
    env = SchnapsenVectorGymEnv(
        args.games, opponent=pool, device=args.device, seed=0, tensors=True, compile=args.compile, **rules.to_dict()
    )
    now = list(env.reset())

    def step():
        with torch.no_grad():
            logits, _ = forward_in(model, now[0], args.precision)
            a, _ = sample_actions(logits, now[1]["action_mask"], gen)
        obs, _, _, _, info = env.step(a)
        now[:] = obs, info

    for _ in range(3):  # warm-up (and compilation)
        step()
    steps, s0, t = 0, pool.actions, time.perf_counter()
    while time.perf_counter() - t < args.seconds:
        step()
        steps += args.games
    return (steps + pool.actions - s0) / (time.perf_counter() - t)


def scalar(model, rules, args) -> float:
    """The scalar loop: games, seats and opponents as train.py's rollouts before the batched engine."""
    pool_cfg = POOLS[args.pool]
    rng = random.Random(0)
    gen = torch.Generator().manual_seed(0)
    observer = Observer(rules)
    agents = {"heuristic": HeuristicAgent(), "random": RandomAgent(seed=1)}
    kinds = ["net"] + list(pool_cfg["agents"])
    weights = [pool_cfg["current"]] + list(pool_cfg["agents"].values())
    n = args.games
    games, seats, opps = [None] * n, [0] * n, ["net"] * n
    steps = 0

    def new(i):
        games[i] = GameState.from_seed(rules, rng.getrandbits(32))
        seats[i] = rng.randrange(2)
        opps[i] = rng.choices(kinds, weights)[0]

    def batch_net(idx, player_of):
        obs = np.zeros((len(idx), OBS_SIZE), dtype=np.float32)
        mask = np.zeros((len(idx), NUM_ACTIONS), dtype=bool)
        for j, i in enumerate(idx):
            o, m = observer.state_and_mask(games[i], player_of(i))
            obs[j], mask[j] = o, m
        with torch.no_grad():
            logits, _ = forward_in(model, torch.from_numpy(obs), args.precision)
            a, _ = sample_actions(logits, torch.from_numpy(mask), gen)
        return a.tolist()

    def advance(todo):
        nonlocal steps
        while todo:
            nets, again = [], []
            for i in todo:
                g = games[i]
                if g.outcome is not None:
                    new(i)
                    g = games[i]
                if g.current_player == seats[i]:
                    continue
                if opps[i] == "net":
                    nets.append(i)
                else:
                    g.apply(agents[opps[i]].act(g.information_set(g.current_player)))
                    steps += 1
                    again.append(i)
            if nets:
                for i, a in zip(nets, batch_net(nets, lambda i: games[i].current_player)):
                    games[i].apply(a)
                steps += len(nets)
                again.extend(nets)
            todo = again

    for i in range(n):
        new(i)
    advance(list(range(n)))

    def step():
        nonlocal steps
        for i, a in enumerate(batch_net(range(n), lambda i: seats[i])):
            games[i].apply(a)
        steps += n
        advance(list(range(n)))

    step()
    s0, t = steps, time.perf_counter()
    while time.perf_counter() - t < args.seconds:
        step()
    return (steps - s0) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=positive, default=4096, help="games stepped at once (both sides)")
    ap.add_argument(
        "--hidden", type=lambda t: [positive(x) for x in t.split(",")], default=[256, 256], help="e.g. 256,256"
    )
    ap.add_argument("--threads", type=positive, default=1, help="torch threads")
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds per measurement")
    ap.add_argument("--pool", choices=sorted(POOLS), default="self")
    ap.add_argument("--compile", action="store_true", help="the batched engine through torch.compile")
    ap.add_argument("--device", default="cpu", help="torch device of the batched side (cpu, cuda, ...)")
    ap.add_argument("--precision", choices=("float32", "bfloat16"), default="float32", help="of the forward passes")
    add_docs_flag(ap)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    machine, rules = machine_description(), Rules()
    model = ActorCritic(OBS_SIZE, args.hidden).to(args.device)
    b = batched(model, rules, args)
    s = scalar(model.cpu(), rules, args)
    lines = [
        f"{machine}; `python benchmarks/rollout_speed.py --games {args.games} --pool {args.pool} "
        f"--threads {args.threads} --precision {args.precision}{' --compile' * args.compile}`, policy {args.hidden} "
        f"on {args.device}, {args.seconds:g} s per figure:",
        "",
        "| | batched | scalar games (peer) | ratio |",
        "|---|---:|---:|---:|",
        f"| env steps/s, {args.games} games | {b:,.0f} | {s:,.0f} | {b / s:.1f}x |",
    ]
    publish("rollout_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
