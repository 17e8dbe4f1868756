"""OpenSpiel's ISMCTS against a uniform random player on ``python_schnapsen`` (docs: toolkits/openspiel).

    python examples/openspiel_ismcts.py [--games 10] [--simulations 100] [--variant schnapsen] [--seed 0]

ISMCTS plays seat 0 in even games, seat 1 in odd ones; deals, bot and random player are seeded from
``--seed``. Prints ISMCTS's mean game points per game (random against random is 0), its wins and the
wall time. Needs the ``[openspiel]`` extra.
"""

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import schnapsen_env.openspiel  # noqa: F401  (registers python_schnapsen)
from schnapsen_env import VARIANTS

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--games", type=int, default=10, help="games to play (default 10)")
ap.add_argument(
    "--simulations",
    type=int,
    default=100,
    help="ISMCTS simulations per move (default 100)",
)
ap.add_argument(
    "--variant",
    default="schnapsen",
    choices=VARIANTS,
    help="RULES §7 preset (default schnapsen)",
)
ap.add_argument(
    "--seed",
    type=int,
    default=0,
    help="seed of the deals, the bot and the random player",
)
args = ap.parse_args()
t0 = time.perf_counter()
game = pyspiel.load_game("python_schnapsen", {"variant": args.variant})
rng = np.random.RandomState(args.seed)
evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
bot = ismcts.ISMCTSBot(
    game,
    evaluator,
    uct_c=2.0,
    max_simulations=args.simulations,
    random_state=rng,
)
# OpenSpiel's default resampler draws from an unseeded sampler: sample the worlds from our seeded
# generator
bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.uniform))
points, wins = 0.0, 0
for i in range(args.games):
    seat = i % 2
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() == seat:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    points += state.returns()[seat]
    wins += state.returns()[seat] > 0
print(
    f"ISMCTS ({args.simulations} simulations) vs random, {args.variant}: {points / args.games:+.2f} game points "
    f"per game, won {wins} of {args.games} (random vs random is 0)"
)
print(f"wall time: {time.perf_counter() - t0:.1f} s")
