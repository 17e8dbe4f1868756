"""Public functions of the engine, the match and the envs check their arguments' types.

Any value of the wrong kind gives a ``ValueError`` naming the argument (never a
``TypeError``/``AttributeError`` from deep inside, never a silent default).
"""

import random

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import GameState, Rules, schnapsen_v0
from schnapsen_env.match import Bummerl, Match

RULES = Rules.preset("schnapsen")
#: values of the wrong kind for almost any argument
JUNK = [None, "x", 1.5, -1, [1], {}, {"a": 1}, np.float64(1), b"ab", True, 2**100, float("nan"), object(),
        [None] * 20, [1.0] * 20, [True] * 20, np.arange(20).astype(float)]


def ids(values):
    return [f"{type(v).__name__}:{str(v)[:20]}" for v in values]


@pytest.mark.parametrize("deck", JUNK + ["AC" * 10, np.int64(3)], ids=ids(JUNK + ["AC" * 10, np.int64(3)]))
def test_game_state_rejects_a_deck_of_the_wrong_kind(deck):
    with pytest.raises(ValueError, match="deck"):
        GameState(RULES, deck, 0)


def test_game_state_takes_a_numpy_deck_of_ids():
    deck = np.array([c for c in range(24) if c % 6 != 5])  # the 20 card ids without the nines
    state = GameState(RULES, deck, 1)
    assert state.dealer == 1 and len(state.legal_actions()) > 0


@pytest.mark.parametrize("rng", JUNK + [np.random.default_rng(0)], ids=ids(JUNK + [np.random.default_rng(0)]))
def test_deals_need_a_random_generator(rng):
    with pytest.raises(ValueError, match=r"rng must be a random.Random"):
        Bummerl.from_seed(RULES, rng)
    if rng is not None:  # from_seed(rng=None) is the documented unseeded deal
        with pytest.raises(ValueError, match=r"rng must be a random.Random"):
            GameState.from_seed(RULES, rng=rng)
        with pytest.raises(ValueError, match=r"rng must be a random.Random"):
            Bummerl(RULES, 0).new_game(rng)


def test_new_game_without_a_generator_is_refused_not_dealt_at_random():
    # None used to deal an unseeded random game silently
    with pytest.raises(ValueError, match=r"rng must be a random.Random, got NoneType"):
        Bummerl(RULES, 0).new_game(None)
    with pytest.raises(ValueError, match=r"rng must be a random.Random, got NoneType"):
        Match(RULES, 0).new_game(None)


@pytest.mark.parametrize("player", [np.float64(1), 1.0, True, None, "0", 2, -1], ids=ids([np.float64(1), 1.0, True,
                                                                                         None, "0", 2, -1]))
def test_information_set_needs_player_0_or_1(player):
    with pytest.raises(ValueError, match=r"^player must be 0 or 1, got "):
        GameState.from_seed(RULES, 1).information_set(player)


def test_information_set_takes_numpy_ints():
    state = GameState.from_seed(RULES, 1)
    assert state.information_set(np.int64(1)) == state.information_set(1)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, [1]], ids=ids([-1, 1.5, "3", True, [1]]))
def test_env_resets_reject_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        schnapsen_v0.env().reset(seed=seed)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        gymnasium.make("schnapsen_env/Schnapsen-v0").reset(seed=seed)


@pytest.mark.parametrize("value", JUNK, ids=ids(JUNK))
def test_env_keywords_reject_junk(value):
    for key in ("variant", "episode", "reward", "illegal_action"):
        with pytest.raises(ValueError, match=f"'{key}'"):
            schnapsen_v0.env(**{key: value})
    with pytest.raises(ValueError, match="'seat'"):
        gymnasium.make("schnapsen_env/Schnapsen-v0", seat=value)


@pytest.mark.parametrize("value", [1.5, b"ab", {}, {"a": 1}, [1], np.float64(1)], ids=ids([1.5, b"ab", {}, {"a": 1}, [1],
                                                                                        np.float64(1)]))
def test_gym_opponent_of_the_wrong_kind(value):
    with pytest.raises(ValueError, match="'opponent'"):
        gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=value)


@pytest.mark.parametrize("action", [None, 1.5, "3", True, np.float64(2), [0, 1], 31, -1],
                         ids=ids([None, 1.5, "3", True, np.float64(2), [0, 1], 31, -1]))
def test_step_rejects_non_actions_and_changes_nothing(action):
    env = schnapsen_v0.env()
    env.reset(seed=1)
    before = env.unwrapped.game.history[:]
    with pytest.raises(ValueError, match="not an action id"):
        env.step(action)
    assert env.unwrapped.game.history == before
    rng = random.Random(0)
    env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))


@pytest.mark.parametrize("player", [1.0, True, np.float64(1), None, 2], ids=ids([1.0, True, np.float64(1), None, 2]))
def test_renonce_needs_player_0_or_1(player):
    state = GameState.from_seed(RULES, 1)
    with pytest.raises(ValueError, match=r"^player must be 0 or 1, got "):
        state.renonce(player)
    assert state.outcome is None


def test_renonce_of_a_numpy_player_stores_plain_ints():
    state = GameState.from_seed(RULES, 1)
    state.renonce(np.int64(1))
    assert type(state.outcome.winner) is int and state.outcome.winner == 0


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True], ids=ids([-1, 1.5, "x", True]))
def test_agents_refuse_bad_seeds(seed):
    from agents import make_agent

    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        make_agent("random", seed=seed)
    agent = make_agent("random", seed=3)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        agent.reset(seed=seed)


HUGE = 10**5000


def test_huge_ints_give_the_projects_own_short_errors():
    with pytest.raises(ValueError, match=r"^seed must be None or a non-negative int, got .{0,80}$"):
        schnapsen_v0.env().reset(seed=-HUGE)
    env = schnapsen_v0.env()
    env.reset(seed=1)
    from schnapsen_env import IllegalActionError

    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(HUGE)
    with pytest.raises(IllegalActionError):
        GameState.from_seed(RULES, 1).apply(HUGE)
    with pytest.raises(ValueError) as e:
        schnapsen_v0.env(variant="x" * 10**6)
    assert len(str(e.value)) < 400


def test_a_huge_seed_deals_in_every_view():
    # raw_env and the Gymnasium view (whose seat and opponent streams are keyed by the seed) agree
    env = schnapsen_v0.raw_env()
    env.reset(seed=HUGE)
    gym_env = gymnasium.make("schnapsen_env/Schnapsen-v0", seat="random")
    obs, info = gym_env.reset(seed=HUGE)
    assert gym_env.unwrapped.aec_env.game.talon == env.game.talon
    assert info["seat"] in ("player_0", "player_1")
