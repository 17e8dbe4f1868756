"""The PettingZoo AEC environment schnapsen_v0: rewards, turns, illegal actions, seeds, state, render
(PettingZoo's own tests run in test_conformance.py)."""

import random

import numpy as np
import pytest

import schnapsen_env
from schnapsen_env import VARIANTS, IllegalActionError, schnapsen_v0
from schnapsen_env.actions import MARRIAGE_BASE, NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE, STATE_SIZE, describe_observation, observation_view
from schnapsen_env.render import render_text

EPISODES = ("game", "bummerl")


def _play(env, rng, record=None):
    """Random legal play to the end; returns the summed rewards per agent."""
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if record is not None:
            record.append((agent, obs, info))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        other = next(a for a in env.agents if a != agent)
        assert env.observe(other)["action_mask"].sum() == 0
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return totals


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("reward", ["game_points", "win_loss"])
def test_random_games_rewards_are_zero_sum_and_equal_game_points(variant, reward):
    env = schnapsen_v0.env(variant=variant, reward=reward)
    rng = random.Random(0)
    for g in range(25):
        env.reset(seed=g)
        totals = _play(env, rng)
        assert sum(totals.values()) == 0
        outcome = env.unwrapped.game.outcome
        assert outcome is not None
        win, lose = f"player_{outcome.winner}", f"player_{1 - outcome.winner}"
        expected = outcome.game_points if reward == "game_points" else 1
        assert totals[win] == expected and totals[lose] == -expected


@pytest.mark.parametrize("reward", ["game_points", "win_loss"])
def test_bummerl_episode_rewards_and_score_in_observation(reward):
    env = schnapsen_v0.env(episode="bummerl", reward=reward)
    rng = random.Random(1)
    for g in range(4):
        env.reset(seed=100 + g)
        record = []
        totals = _play(env, rng, record)
        b = env.unwrapped.bummerl
        assert b.is_over
        expected = b.value if reward == "game_points" else 1
        assert totals[f"player_{b.winner}"] == expected and totals[f"player_{1 - b.winner}"] == -expected
        assert len(b.games) >= 1
        # the observations carry the Bummerl score as it stood
        target = env.unwrapped.rules.bummerl_target
        last_obs = observation_view(record[-1][1]["observation"])
        me = int(record[-1][0][-1])
        assert last_obs["bummerl"][0] == 1
        assert last_obs["bummerl_score_self"][0] == pytest.approx(b.scores[me] / target)
        assert last_obs["bummerl_score_opponent"][0] == pytest.approx(b.scores[1 - me] / target)
        assert env.unwrapped.last_outcome == b.games[-1]


def test_one_agent_may_act_several_times_in_a_row():
    env = schnapsen_v0.env()
    found = False
    for seed in range(200):
        env.reset(seed=seed)
        agent = env.agent_selection
        mask = env.last()[0]["action_mask"]
        marriages = [a for a in range(MARRIAGE_BASE, MARRIAGE_BASE + 4) if mask[a]]
        if marriages:
            env.step(marriages[0])
            assert env.agent_selection == agent  # announce, then lead the king or queen
            mask = env.last()[0]["action_mask"]
            suit = marriages[0] - MARRIAGE_BASE
            assert set(np.flatnonzero(mask)) <= {suit * 6 + 2, suit * 6 + 3}
            found = True
            break
    assert found


def test_illegal_action_raise_leaves_env_unchanged():
    env = schnapsen_v0.env(illegal_action="raise")
    env.reset(seed=3)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = env.agent_selection
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.last()[0]["observation"], obs["observation"])
    assert not any(env.terminations.values())


@pytest.mark.parametrize("episode", EPISODES)
def test_illegal_action_renonce_loses_three_game_points(episode):
    env = schnapsen_v0.env(episode=episode)  # env() defaults to illegal_action="renonce"
    env.reset(seed=4)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    offender = env.agent_selection
    other = next(a for a in env.agents if a != offender)
    env.step(illegal)
    if episode == "game":
        assert all(env.terminations.values())
        assert env.rewards[offender] == -3 and env.rewards[other] == 3
        assert env.unwrapped.last_outcome.reason == "renonce"
        assert env.unwrapped.last_illegal_action == illegal
        assert env.infos[offender] == {}
    else:
        assert not any(env.terminations.values())  # the Bummerl goes on with the next game
        assert env.unwrapped.bummerl.scores[int(other[-1])] == 3
        assert env.unwrapped.last_outcome.reason == "renonce"
        assert env.unwrapped.bummerl.games[-1].winner == int(other[-1])
        assert env.rewards[offender] == 0


@pytest.mark.parametrize("mode", ["raise", "renonce"])
@pytest.mark.parametrize("action", [NUM_ACTIONS, -1])
def test_actions_outside_the_space_always_raise(mode, action):
    env = schnapsen_v0.env(illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(action)
    assert not any(env.terminations.values())


@pytest.mark.parametrize("kind", [np.int64, np.uint8, np.array])
def test_numpy_integer_actions_are_accepted(kind):
    env = schnapsen_v0.env()
    env.reset(seed=0)
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    env.step(kind(legal[0]))
    assert env.unwrapped.game.history[0] == (env.unwrapped.game.dealer ^ 1, int(legal[0]))
    assert type(env.unwrapped.game.history[0][1]) is int


def test_a_0d_integer_tensor_is_an_action_and_a_float_tensor_is_not():
    """What a torch policy's ``argmax`` gives for one observation steps the env (one reading of an action for
    the env and the agents: ``schnapsen_env.engine.action_id``)."""
    torch = pytest.importorskip("torch")
    env = schnapsen_v0.raw_env()
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(torch.tensor(float(legal)))
    env.step(torch.tensor(legal))
    assert env.unwrapped.game.history[0] == (env.unwrapped.game.dealer ^ 1, legal)
    assert type(env.unwrapped.game.history[0][1]) is int


#: what a step is given, and how the refusal names it
NOT_ACTIONS = [
    (6.7, "6.7"),
    (np.float32(6.5), repr(np.float32(6.5))),  # numpy < 2 writes 6.5
    ("6", "'6'"),
    (-0.5, "-0.5"),
    (None, "None"),
    (True, "True"),
    (np.array([6]), "array([6])"),
    (np.array(6.0), "array(6.)"),
]


@pytest.mark.parametrize("make", [schnapsen_v0.env, schnapsen_v0.raw_env])
@pytest.mark.parametrize(("action", "shown"), NOT_ACTIONS)
def test_non_integer_actions_are_refused_naming_them_and_change_nothing(make, action, shown):
    env = make()  # env(): renonce, raw_env: raise; either way refused, not cast
    env.reset(seed=0)
    before = (env.agent_selection, env.unwrapped.record(), dict(env.terminations))
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    assert str(info.value) == f"illegal action {shown}: not an action id (allowed ints 0..30)"
    assert (env.agent_selection, env.unwrapped.record(), dict(env.terminations)) == before


@pytest.mark.parametrize("make", [schnapsen_v0.env, schnapsen_v0.raw_env])
def test_a_step_after_the_episode_warns_to_reset_first(make, caplog):
    env = make()
    env.reset(seed=0)
    _play(env, random.Random(0))
    record = env.unwrapped.record()
    env.step(3)
    assert caplog.messages == [
        "[WARNING]: step() called after all agents are terminated or truncated. Should reset() first."
    ]
    assert env.unwrapped.record() == record


def test_rule_options_override_the_preset():
    env = schnapsen_v0.raw_env(variant="schnapsen-sharp", show_eyes=True, bummerl_target=3)
    assert env.rules.sharp and env.rules.show_eyes and env.rules.bummerl_target == 3


def test_reset_seed_makes_deals_reproducible():
    a, b = schnapsen_v0.env(), schnapsen_v0.env()
    a.reset(seed=42)
    b.reset(seed=42)
    np.testing.assert_array_equal(a.last()[0]["observation"], b.last()[0]["observation"])
    assert a.unwrapped.game.talon == b.unwrapped.game.talon
    decks = set()
    for s in range(10):
        a.reset(seed=s)
        decks.add((a.unwrapped.game.talon, a.unwrapped.game.hands[0]))
    assert len(decks) == 10
    a.reset(seed=5)
    first = a.unwrapped.game.talon
    a.reset()  # unseeded reset continues the seeded generator: a new deal
    assert a.unwrapped.game.talon != first


def test_state_reveals_everything_observation_does_not():
    env = schnapsen_v0.env()
    env.reset(seed=8)
    st = env.state()
    assert st.shape == (STATE_SIZE,) and st.dtype == np.float32
    assert env.unwrapped.state_space.contains(st)
    game = env.unwrapped.game
    hand1 = st[OBS_SIZE : OBS_SIZE + 24]
    assert sorted(np.flatnonzero(hand1).tolist()) == [c for c in range(24) if game.hands[1] >> c & 1]
    obs0 = observation_view(env.observe("player_0")["observation"])
    assert not np.any(obs0["hand"] * hand1)


def test_render_shows_only_the_viewers_hand():
    env = schnapsen_v0.env(render_mode="ansi")
    env.reset(seed=12)
    text = env.render()
    game = env.unwrapped.game
    viewer = game.current_player
    opp_cards = [c for c in range(24) if game.hands[1 - viewer] >> c & 1]
    own_cards = [c for c in range(24) if game.hands[viewer] >> c & 1]
    from schnapsen_env.render import card_text

    assert all(card_text(c) in text for c in own_cards)
    assert not any(card_text(c) in text.replace(card_text(game.trump_card), "") for c in opp_cards)
    full = render_text(game, viewer=None)
    assert all(card_text(c) in full for c in opp_cards)
    de = render_text(game, viewer=viewer, lang="de", symbols=False)
    assert "Atout" in de and "Hand" in de


def test_observation_table_is_the_spec_field_table():
    for variant, episode in (("schnapsen", "game"), ("schnapsen-sharp", "bummerl")):
        env = schnapsen_v0.raw_env(variant=variant, episode=episode)
        spec = env.observer.spec
        assert spec["rules"] == env.rules.to_dict() and spec["bummerl"] == (episode == "bummerl")
        table = describe_observation(spec)
        assert len(table.splitlines()) == 2 + len(spec["fields"]) and spec["size"] == OBS_SIZE
        box = env.observation_space("player_0")["observation"]
        assert box.shape == (spec["size"],) and box.dtype == np.dtype(spec["dtype"])
        assert [float(box.high[f["offset"]]) for f in spec["fields"]] == [
            float(np.float32(f["high"])) for f in spec["fields"]
        ]
    assert schnapsen_env.__name__ == "schnapsen_env"
