"""Faults of schnapsen_env.learner found by a fresh user, each pinned by the behaviour it fixes.

resume() refuses pieces that do not fit together (one-line ValueError naming what and what
was expected); calls before start() raise LearnerOrderError (a RuntimeError), not a raw
AttributeError; outcome_rewards() names the Outcome/Bummerl it needs; a skipped episode has
learner_reward 0; start() refuses a non-Random rng; outcome_dict() gives a renonce's illegal
action as RULES §9 text (with its id under "illegal_action_id"); numpy integers are seats.
"""

import random

import numpy as np
import pytest

from schnapsen_env import DECLARE, GameState, Outcome, Rules
from schnapsen_env.actions import action_to_str
from schnapsen_env.gym_env import SchnapsenGymEnv
from schnapsen_env.learner import EPISODE_OVER, LearnerGame, LearnerOrderError, outcome_rewards
from schnapsen_env.match import Bummerl

SCHNAPSEN = Rules.preset("schnapsen")
SECHSUNDSECHZIG = Rules.preset("sechsundsechzig")


def one_line_value_error(call, *words):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    return msg


# ------------------------------------------------------------------ 1. resume() checks the pieces fit
def test_resume_refuses_a_state_under_other_rules():
    core = LearnerGame(SECHSUNDSECHZIG)
    state = GameState.from_seed(SCHNAPSEN, 0)  # 20 cards in a 24-card LearnerGame
    one_line_value_error(lambda: core.resume(random.Random(0), state, seat=0), "state", "deck=20 (expected 24)")
    assert core.state is None  # nothing taken over


def test_resume_refuses_a_bummerl_under_other_rules():
    core = LearnerGame(SCHNAPSEN, episode="bummerl")
    b = Bummerl(Rules.preset("schnapsen", bummerl_target=11), 0)
    state = GameState.from_seed(SCHNAPSEN, 0, dealer=0)
    one_line_value_error(lambda: core.resume(random.Random(0), state, seat=0, bummerl=b),
                         "bummerl", "bummerl_target=11 (expected 7)")


def test_resume_refuses_a_bummerl_whose_dealer_is_not_the_states():
    core = LearnerGame(SCHNAPSEN, episode="bummerl")
    b = Bummerl(SCHNAPSEN, 0)
    b.record(Outcome(0, 1, "points", (66, 40), (4, 1)))  # the next game is dealt by player 1
    state = GameState.from_seed(SCHNAPSEN, 0, dealer=0)
    one_line_value_error(lambda: core.resume(random.Random(0), state, seat=0, bummerl=b), "dealer", "0", "1")
    good = GameState.from_seed(SCHNAPSEN, 0, dealer=1)
    core.resume(random.Random(0), good, seat=0, bummerl=b)
    assert core.first_dealer == 0 and core.state is good  # the first game was dealt by 0
    one_line_value_error(lambda: core.resume(random.Random(0), good, seat=0, bummerl=b, first_dealer=1),
                         "first_dealer", "0")


def test_resume_refuses_a_non_bool_acted():
    core = LearnerGame(SCHNAPSEN)
    state = GameState.from_seed(SCHNAPSEN, 0)
    one_line_value_error(lambda: core.resume(random.Random(0), state, acted="no"), "acted", "bool", "'no'")
    one_line_value_error(lambda: core.resume(random.Random(0), state, acted=1), "acted")
    core.resume(random.Random(0), state, acted=np.bool_(True))
    assert core.acted is True


def test_resume_refuses_a_missing_or_extra_bummerl_and_a_bad_rng():
    state = GameState.from_seed(SCHNAPSEN, 0, dealer=0)
    one_line_value_error(lambda: LearnerGame(SCHNAPSEN, episode="bummerl").resume(random.Random(0), state),
                         "Bummerl")
    one_line_value_error(lambda: LearnerGame(SCHNAPSEN).resume(random.Random(0), state, bummerl=Bummerl(SCHNAPSEN, 0)),
                         "bummerl", "None")
    one_line_value_error(lambda: LearnerGame(SCHNAPSEN).resume(None, state), "rng", "random.Random")


def test_resume_of_fitting_pieces_plays_on_as_before():
    core = LearnerGame(SCHNAPSEN, episode="bummerl")
    b = Bummerl(SCHNAPSEN, 1)
    state = b.new_game(random.Random(3))
    core.resume(random.Random(4), state, seat=np.int64(1), bummerl=b, first_dealer=1, acted=False)
    assert core.seat == 1 and type(core.seat) is int and core.first_dealer == 1
    rng = random.Random(5)
    while not core.over:
        core.step(rng.choice(core.state.legal_actions()))
    assert core.bummerl.is_over and sum(core.rewards) == 0


# ------------------------------------------------------------------ 2. calls before start()
@pytest.mark.parametrize("policy", ["raise", "renonce"])
def test_calls_before_start_raise_an_order_error_naming_start(policy):
    core = LearnerGame(SCHNAPSEN, illegal_action=policy)
    calls = [lambda: core.to_move, lambda: core.learner_to_move, lambda: core.apply(3), lambda: core.step(3),
             lambda: core.step(-5), lambda: core.end_game()]
    for call in calls:
        with pytest.raises(LearnerOrderError, match=r"call start\(\)"):
            call()
    assert issubclass(LearnerOrderError, RuntimeError)
    core.start(random.Random(0), seat=0)
    assert core.to_move in (0, 1) and core.learner_to_move == (core.to_move == 0)


# ------------------------------------------------------------------ 3. outcome_rewards() argument types
@pytest.mark.parametrize("bad", [None, "x", {}])
def test_outcome_rewards_needs_an_outcome_or_a_bummerl(bad):
    msg = one_line_value_error(lambda: outcome_rewards(bad), "Outcome", "Bummerl")
    assert "AttributeError" not in msg


def test_outcome_rewards_refuses_a_bummerl_that_is_not_one():
    one_line_value_error(lambda: outcome_rewards(Outcome(0, 1, "points", (66, 20), (4, 1)), bummerl="b"),
                         "Bummerl", "'b'")
    one_line_value_error(lambda: outcome_rewards("x", bummerl=Bummerl(SCHNAPSEN, 0)), "Outcome")
    assert outcome_rewards(None, Bummerl(SCHNAPSEN, 0)) == (0, 0)  # None allowed with a Bummerl


# ------------------------------------------------------------------ 4. a skipped episode has no learner reward
def test_a_skipped_episode_has_learner_reward_zero():
    core = LearnerGame(Rules.preset("schnapsen", declare="manual"))
    state = core.start(random.Random(0))
    core.set_seat(1 - state.current_player)
    assert core.step(DECLARE) == EPISODE_OVER  # the leader declares falsely before the learner acts
    assert core.skipped and core.learner_reward == 0
    assert core.rewards[core.seat] == 3  # the result itself (raw_env's rewards) is unchanged


def test_the_gym_view_still_skips_and_rewards_only_acted_episodes():
    env = SchnapsenGymEnv(variant="schnapsen-sharp", opponent="random", seat="player_1")
    for seed in range(6):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any()
        done, total = False, 0.0
        while not done:
            _, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            total += reward
        out = info["outcome"]
        assert total == (1 if out["winner"] == 1 else -1) * out["game_points"]


# ------------------------------------------------------------------ 5. start() refuses a non-Random rng
@pytest.mark.parametrize("rng", [None, 0, np.random.default_rng(0)])
def test_start_refuses_an_rng_that_is_not_a_random_random(rng):
    core = LearnerGame(SCHNAPSEN)
    one_line_value_error(lambda: core.start(rng), "rng", "random.Random")
    assert core.state is None


# ------------------------------------------------------------------ 6. outcome_dict() as records write it
def test_outcome_dict_gives_the_illegal_action_as_text_and_id():
    core = LearnerGame(SCHNAPSEN, illegal_action="renonce")
    state = core.start(random.Random(2), seat=0)
    bad = next(a for a in range(31) if not state.legal_mask() >> a & 1)
    assert core.step(bad) == EPISODE_OVER
    d = core.outcome_dict()
    assert d["illegal_action"] == action_to_str(bad) and d["illegal_action_id"] == bad
    assert d["reason"] == "renonce"


def test_gym_info_outcome_names_the_illegal_action_as_text():
    env = SchnapsenGymEnv()
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -3 and info["outcome"]["illegal_action"] == action_to_str(illegal)


# ------------------------------------------------------------------ numpy integer seats
def test_numpy_integer_seats_are_accepted_and_bools_refused():
    core = LearnerGame(SCHNAPSEN)
    core.start(random.Random(0), seat=np.int64(1))
    assert core.seat == 1 and type(core.seat) is int
    core.set_seat(np.int32(0))
    assert core.seat == 0 and type(core.seat) is int
    for bad in (True, np.bool_(False), 2, np.int64(2), 1.0, "0"):
        msg = one_line_value_error(lambda bad=bad: LearnerGame(SCHNAPSEN).start(random.Random(0), seat=bad),
                                   "seat")
        assert "0, 1 or None" in msg
