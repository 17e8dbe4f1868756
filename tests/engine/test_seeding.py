"""Every random stream is derived independently from the user's seed.

Two generators built from the same seed once leaked a hidden card: the
Gymnasium view drew the learner's seat from ``random.Random(seed)`` and the
AEC env shuffled the deck with another ``random.Random(seed)``, so the seat
told which suit the bottom talon card was not. These tests check that no
public value (the seat, the dealer) is correlated with a hidden card across
seeds, for every view that draws both, with a chi-square test of
independence (deterministic seeds, so the test cannot flake).
"""

import random

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from agents.evaluation.arena import deal_rng, derive_seed
from schnapsen_env import GameState, Rules, schnapsen_v0, seeding
from schnapsen_env.cards import suit_of
from schnapsen_env.observation import OBS_SIZE

ENV_ID = "schnapsen_env/Schnapsen-v0"


SEEDS = range(2000)
#: chi-square critical value, 3 degrees of freedom (2 x 4 table), p = 0.001
CHI2_3DF_999 = 16.27


def chi_square(pairs) -> float:
    """Pearson's chi-square statistic of independence of the two values in ``pairs``."""
    rows = sorted({a for a, _ in pairs})
    cols = sorted({b for _, b in pairs})
    table = np.zeros((len(rows), len(cols)))
    for a, b in pairs:
        table[rows.index(a), cols.index(b)] += 1
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    return float(((table - expected) ** 2 / expected).sum())


def test_chi_square_detects_the_leak_of_the_first_build():
    # the seat drawn from the same stream that shuffled the deck (what the first build did)
    pairs = []
    for s in SEEDS:
        seat = random.Random(s).choice((0, 1))
        g = GameState.from_seed(Rules.preset("schnapsen"), s)
        pairs.append((seat, suit_of(g.talon[-1])))
    assert chi_square(pairs) > 100


def test_gym_seat_says_nothing_about_hidden_cards():
    env = gymnasium.make(ENV_ID, opponent="random", seat="random")
    bottom, first_draw = [], []
    for s in SEEDS:
        _, info = env.reset(seed=s)
        game = env.unwrapped.aec_env.game
        seat = info["seat"]
        # history holds at most the opponent's first lead; the talon is untouched until a trick ends
        bottom.append((seat, suit_of(game.talon[-1])))
        first_draw.append((seat, suit_of(game.talon[0])))
    assert {seat for seat, _ in bottom} == {"player_0", "player_1"}
    # each seat sees every suit at the bottom of the talon (the first build: never hearts for player_0)
    assert len(set(bottom)) == 8
    assert chi_square(bottom) < CHI2_3DF_999
    assert chi_square(first_draw) < CHI2_3DF_999


def test_aec_dealer_says_nothing_about_hidden_cards():
    env = schnapsen_v0.raw_env()
    pairs = []
    for s in SEEDS:
        env.reset(seed=s)
        pairs.append((env.game.dealer, suit_of(env.game.talon[-1])))
    assert chi_square(pairs) < CHI2_3DF_999


def test_training_seat_says_nothing_about_hidden_cards():
    pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
    from agents.players.neural import ActorCritic
    from agents.training.pool import OpponentPool
    from schnapsen_env.vector.env import SchnapsenVectorGymEnv

    rules = Rules.preset("schnapsen")
    pool = OpponentPool(ActorCritic(OBS_SIZE, [4]), current_weight=0.0, agents={"random": 1.0})
    env = SchnapsenVectorGymEnv(len(SEEDS), opponent=pool, seed=5, tensors=True)  # train.py's env
    _, info = env.reset()
    last_talon_card = env.games.deck[:, rules.deck - 1].tolist()
    pairs = [(int(info["seat"][i]), suit_of(last_talon_card[i])) for i in range(env.num_envs)]
    assert chi_square(pairs) < CHI2_3DF_999


def test_streams_of_one_seed_are_independent_and_stable():
    # the deal stream is random.Random(seed); named streams differ from it and from each other
    draws = {name: seeding.stream(7, name).getrandbits(64) for name in ("seat", "opponent", "games")}
    assert len(set(draws.values())) == 3
    assert random.Random(7).getrandbits(64) not in draws.values()
    # keyed by the string "7/seat": the same on every run and machine
    assert seeding.stream(7, "seat").getrandbits(64) == random.Random("7/seat").getrandbits(64)
    assert seeding.derive_seed(7, "seat") == random.Random("7/seat").getrandbits(seeding.SEED_BITS)
    assert 0 <= seeding.derive_seed(2**70, "x") < 2**seeding.SEED_BITS


def test_arena_streams_are_the_seeding_streams():
    # the arena's deals and agent seeds (documented in agents.evaluation.arena) come from schnapsen_env.seeding
    assert deal_rng(3, 1, 5).getrandbits(64) == random.Random("3/1/5").getrandbits(64)
    assert derive_seed(3, 1, 4, "A") == random.Random("3/1/4/A").getrandbits(63)


def test_play_cli_opponent_does_not_draw_from_the_deal_stream():
    import io

    from agents.players.base import Agent
    from agents.apps.play import play_game_cli

    class Seeds(Agent):
        name = "seeds"
        seen: list = []

        def reset(self, seed=None):
            Seeds.seen.append(seed)
            super().reset(seed)

        def act(self, info):
            return info.legal_actions[0]

    play_game_cli(Seeds(), Rules.preset("schnapsen"), 12, 0, "en", io.StringIO(""), io.StringIO())
    assert Seeds.seen == [seeding.derive_seed(12, seeding.OPPONENT_STREAM)]
    assert Seeds.seen[0] != 12


@pytest.mark.parametrize("seed", [-1, 1.5])
def test_agents_refuse_bad_seeds(seed):
    from agents import make_agent

    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        make_agent("random", seed=seed)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        make_agent("random", seed=3).reset(seed=seed)
