"""Training rollouts with the policy in the loop: the batched engine against scalar games, one run.

    python benchmarks/rollout_speed.py [--games 4096] [--hidden 256,256] [--threads 1] [--seconds 10]
                                       [--pool self|default] [--compile] [--device cpu]
                                       [--precision float32|bfloat16]

Both sides run the same loop as train.py's rollouts: a masked PPO policy (``agents.neural.ActorCritic``,
random weights) picks the learner's action for every game at once, then the opponents play until the
learner is to move again. ``--pool self``: the opponent is the same policy (pure self-play);
``--pool default``: default.yaml's pool (current policy 0.2, heuristic 0.5, random 0.1, snapshots 0.2
here as the current policy). Env steps count every action applied (learner and opponent).
``--precision bfloat16``: every forward pass of the network (both sides) under ``torch.autocast``,
as ``run.precision: bfloat16`` does in train.py.

* batched: ``agents.ppo.selfplay.SelfPlayGames`` on ``schnapsen_env.vector`` (what train.py uses);
* scalar (the peer): the same loop over ``GameState`` objects, one ``Observer.state_and_mask`` per game
  and step, network opponents batched over the games waiting for them (what train.py did before).

The last line: ``rollout_speed: batched N env steps/s (games G), scalar M env steps/s, ratio R``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import ActorCritic, forward_in, sample_actions  # noqa: E402
from agents.ppo.selfplay import OpponentPool, SelfPlayGames  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from schnapsen_env.engine import GameState  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer  # noqa: E402
from schnapsen_env.rules import Rules  # noqa: E402

from _common import machine_description, run_main  # noqa: E402

POOLS = {
    "self": {"current": 1.0, "agents": {}},
    "default": {"current": 0.4, "agents": {"heuristic": 0.5, "random": 0.1}},
}


def batched(model, rules, args) -> float:
    pool_cfg = POOLS[args.pool]
    pool = OpponentPool(model, pool_cfg["current"], 0.0, pool_cfg["agents"], 1, seed=0, rules=rules, device=args.device)
    gen = torch.Generator(device=args.device).manual_seed(0)
    games = SelfPlayGames(
        rules,
        args.games,
        pool,
        random.Random(0),
        gen,
        device=args.device,
        compile=args.compile,
        precision=args.precision,
    )
    games.reset()

    def step():
        with torch.no_grad():
            logits, _ = forward_in(model, games.obs, args.precision)
            a, _ = sample_actions(logits, games.mask, gen)
        games.step(a)

    for _ in range(3):  # warm-up (and compilation)
        step()
    s0, t = games.env_steps, time.perf_counter()
    while time.perf_counter() - t < args.seconds:
        step()
    return (games.env_steps - s0) / (time.perf_counter() - t)


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
        mask = np.zeros((len(idx), 31), dtype=bool)
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
        for i, a in zip(range(n), batch_net(range(n), lambda i: seats[i])):
            games[i].apply(a)
        steps += n
        advance(list(range(n)))

    step()
    s0, t = steps, time.perf_counter()
    while time.perf_counter() - t < args.seconds:
        step()
    return (steps - s0) / (time.perf_counter() - t)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(text)


def _hidden(text: str) -> list[int]:
    return [_positive(x) for x in text.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=_positive, default=4096, help="games stepped at once (both sides)")
    ap.add_argument("--hidden", type=_hidden, default=[256, 256], help="hidden layer sizes, e.g. 256,256")
    ap.add_argument("--threads", type=_positive, default=1, help="torch threads")
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds per measurement")
    ap.add_argument("--pool", choices=sorted(POOLS), default="self")
    ap.add_argument("--compile", action="store_true", help="the batched engine through torch.compile")
    ap.add_argument("--device", default="cpu", help="torch device of the batched side (cpu, cuda, ...)")
    ap.add_argument(
        "--precision",
        choices=("float32", "bfloat16"),
        default="float32",
        help="arithmetic of the network's forward passes (both sides; train.py's run.precision)",
    )
    args = ap.parse_args()
    hidden = args.hidden
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rules = Rules()
    print(machine_description())
    print(
        f"policy {hidden}, {args.games} games, pool {args.pool}, {args.threads} torch threads, device {args.device}"
        f"{', torch.compile' if args.compile else ''}, precision {args.precision}, {args.seconds:g} s per figure"
    )
    model = ActorCritic(OBS_SIZE, hidden).to(args.device)
    b = batched(model, rules, args)
    s = scalar(model.cpu(), rules, args)
    print(
        f"rollout_speed: batched {b:,.0f} env steps/s (games {args.games}), scalar {s:,.0f} env steps/s, "
        f"ratio {b / s:.1f}"
    )


if __name__ == "__main__":
    sys.exit(run_main(main, "rollout_speed.py"))
