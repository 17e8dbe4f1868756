"""The vector environments (schnapsen_env.vector.env) and the batched learner view (vector.learner)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402

import schnapsen_env  # noqa: E402,F401  (registers the environments)
from schnapsen_env.engine import GameState  # noqa: E402
from schnapsen_env.learner import outcome_rewards  # noqa: E402
from schnapsen_env.match import Bummerl  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer  # noqa: E402
from schnapsen_env.rules import Rules  # noqa: E402
from schnapsen_env.vector.env import SchnapsenVectorEnv, SchnapsenVectorGymEnv  # noqa: E402
from schnapsen_env.vector.learner import VectorEpisodes  # noqa: E402


def random_actions(mask: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    return torch.where(mask, torch.rand(mask.shape, generator=gen), -1.0).argmax(1)


def test_self_play_env_rewards_are_the_scalar_outcome_rewards_of_each_finished_game():
    env = SchnapsenVectorEnv(num_envs=64, seed=3)
    ts = env.reset()
    gen = torch.Generator().manual_seed(0)
    finished = 0
    for _ in range(60):
        assert ts.action_mask.any(dim=1).all()  # same-step autoreset: never an empty mask
        actions = random_actions(ts.action_mask, gen)
        before = [env.games.game_state(i) for i in range(env.num_envs)]
        ts = env.step(actions)
        for i in range(env.num_envs):
            g = before[i]
            g.apply(int(actions[i]))
            if ts.terminated[i]:
                finished += 1
                assert g.outcome is not None
                assert tuple(ts.rewards[i].tolist()) == outcome_rewards(g.outcome)
            else:
                assert g.outcome is None and ts.rewards[i].tolist() == [0.0, 0.0]
    assert finished > 100


def test_self_play_env_observation_is_the_scalar_observation_of_the_player_to_move():
    env = SchnapsenVectorEnv(num_envs=32, variant="sechsundsechzig", seed=1)
    ts = env.reset()
    gen = torch.Generator().manual_seed(1)
    ob = Observer(env.rules)
    for _ in range(20):
        for i in range(env.num_envs):
            g = env.games.game_state(i)
            assert g.current_player == int(ts.current_player[i])
            np.testing.assert_array_equal(ob.fill_state(g, g.current_player), ts.observation[i].numpy())
            assert ts.action_mask[i].nonzero().squeeze(1).tolist() == g.legal_actions()
        ts = env.step(random_actions(ts.action_mask, gen))


def test_bummerl_episode_ends_when_a_player_reaches_the_target_and_pays_the_bummerl_value():
    rules = Rules(bummerl_target=3)
    ep = VectorEpisodes(rules, 32, episode="bummerl", generator=torch.Generator().manual_seed(2))
    ep.start()
    gen = torch.Generator().manual_seed(3)
    ended = 0
    for _ in range(400):
        game_over, over, rewards = ep.step(random_actions(ep.games.legal_mask(), gen))
        for i in over.nonzero().squeeze(1).tolist():
            s = ep.scores[i].tolist()
            b = Bummerl(rules, 0)
            b.scores = list(s)
            assert max(s) >= 3 and tuple(rewards[i].tolist()) == outcome_rewards(None, b)
            ended += 1
        # games ended without deciding the Bummerl: the next game is dealt by the other dealer
        nxt = game_over & ~over
        assert (ep.games.current_player[nxt] >= 0).all()
        if bool(over.any()):
            ep.start(over)
    assert ended > 5


def test_gym_vector_env_refuses_bad_keywords_with_one_line_errors():
    with pytest.raises(ValueError, match="'num_envs'"):
        SchnapsenVectorGymEnv(num_envs=0)
    with pytest.raises(ValueError, match="device"):
        SchnapsenVectorEnv(device="tpu:9")
    with pytest.raises(ValueError, match="limit MAX_NUM_ENVS"):
        SchnapsenVectorEnv(num_envs=10**12)
    assert SchnapsenVectorEnv(num_envs=np.int64(3)).num_envs == 3


def test_vector_episodes_deal_exactly_what_they_are_told():
    rules = Rules()
    ep = VectorEpisodes(rules, 4)
    ep.start([2], seat=torch.tensor([0, 1, 1, 0]))  # game indices select as a bool mask does
    assert ep.games.over.tolist() == [True, True, False, True] and ep.seat.tolist() == [-1, -1, 1, -1]
    ep.start(seat=torch.tensor([0, 1, 0, 1]), first_dealer=torch.tensor([1, 1, 0, 0]))
    assert ep.games.dealer.tolist() == [1, 1, 0, 0] and ep.seat.tolist() == [0, 1, 0, 1]
    for i in range(4):
        g = ep.games.game_state(i)
        assert g.current_player == 1 - g.dealer  # forehand leads (RULES §2)
        assert isinstance(g, GameState)


def test_vector_envs_refuse_bad_options_and_steps_before_reset_with_one_line_errors():
    with pytest.raises(RuntimeError, match="before reset"):
        SchnapsenVectorEnv(num_envs=2).step(torch.zeros(2, dtype=torch.int64))
    gym = SchnapsenVectorGymEnv(num_envs=2)
    with pytest.raises(RuntimeError, match="before reset"):
        gym.action_masks()
    with pytest.raises(ValueError, match="options"):
        gym.reset(options={"reset_mask": [True, False]})


@pytest.mark.parametrize("make", [SchnapsenVectorEnv, SchnapsenVectorGymEnv], ids=["self-play", "gym"])
@pytest.mark.parametrize(
    ("actions", "shown"),
    [
        ([1.5, 2.0, 3.0], "torch.float32 of shape (3,)"),
        (np.zeros(3, dtype=np.float32), "torch.float32 of shape (3,)"),
        (torch.zeros(3, dtype=torch.bool), "torch.bool of shape (3,)"),
        (torch.zeros(4, dtype=torch.int64), "torch.int64 of shape (4,)"),
        (np.zeros((1, 3), dtype=np.int64), "torch.int64 of shape (1, 3)"),
        (5, "torch.int64 of shape ()"),
        (None, "None"),
        ("012", "'012'"),
    ],
)
def test_batched_actions_of_another_type_or_shape_are_refused_naming_them_and_change_nothing(make, actions, shown):
    env = make(num_envs=3, seed=0)
    env.reset()
    before = env.episodes.state_dict()
    with pytest.raises(ValueError) as info:
        env.step(actions)
    assert str(info.value) == f"illegal actions ({shown}): not action ids (allowed ints 0..30 of shape (3,))"
    after = env.episodes.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before if k != "generator")
    assert torch.equal(before["generator"], after["generator"])


@pytest.mark.parametrize(
    "make",
    [lambda: SchnapsenVectorEnv(num_envs=8), lambda: gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=8)],
    ids=["self-play", "make_vec"],
)
def test_unseeded_vector_envs_deal_from_entropy_and_a_seeded_reset_is_reproducible(make):
    """Gymnasium's convention, as the scalar views: no seed draws one from OS entropy."""
    a, b = make(), make()
    decks = [getattr(env, "unwrapped", env).games.deck for env in (a, b)]  # views of the state: they follow it
    a.reset(), b.reset()
    assert not torch.equal(*decks)
    a.reset(seed=11), b.reset(seed=11)
    assert torch.equal(*decks)
    a.reset(seed=12)
    assert not torch.equal(*decks)


def test_a_constructor_seed_deals_as_the_first_reset_with_it():
    a, b = SchnapsenVectorEnv(num_envs=16, seed=5), SchnapsenVectorEnv(num_envs=16)
    a.reset(), b.reset(seed=5)
    assert torch.equal(a.games.deck, b.games.deck)


def test_an_agent_that_cannot_play_the_rules_is_refused_before_any_game():
    from agents import make_batched_agent
    from agents.players.base import Agent

    class OnlyTwentyFour(Agent):
        def act(self, info):
            return info.legal_actions[0]

        def cannot_play(self, rules):
            return None if rules.deck == 24 else "plays only with 24 cards"

    from agents import registry

    real = registry.make_agent
    try:
        registry.make_agent = lambda spec, seed=None: OnlyTwentyFour()
        with pytest.raises(ValueError, match="cannot play these rules: plays only with 24 cards"):
            make_batched_agent("heuristic", rules=Rules())
        assert make_batched_agent("heuristic", rules=Rules(deck=24)).batched
    finally:
        registry.make_agent = real


def _keys(d: dict) -> dict:
    """The nested key layout of an info dict (values dropped)."""
    return {k: _keys(v) if isinstance(v, dict) else None for k, v in d.items()}


@pytest.mark.parametrize("episode", ["game", "bummerl"])
def test_gym_vector_final_info_has_the_sync_layout_and_each_finished_episodes_outcome(episode):
    """At every step where episodes end, ``final_info`` has the key layout of Gymnasium's sync vector env
    over the scalar view (same-step autoreset), and its outcome agrees with the reward: the learner
    (``seat``) won exactly when the reward is positive, by that many game points; ``skipped`` counts per env."""
    from gymnasium.vector import AutoresetMode

    from schnapsen_env.engine import REASONS

    kwargs = {"opponent": "random", "episode": episode}
    sync = gymnasium.make_vec(
        "schnapsen_env/Schnapsen-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        **kwargs,
    )
    vec = gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=16, seed=2, **kwargs)
    layouts = []
    for env in (sync, vec):
        _, info = env.reset(seed=3)
        rng = np.random.default_rng(1)
        checked = 0
        while checked < 40:
            mask = info["action_mask"].astype(bool)
            obs, r, term, _, info = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
            if not term.any():
                assert "final_info" not in info
                continue
            fin = info["final_info"]
            assert info["_final_info"].tolist() == term.tolist() == fin["_outcome"].tolist()
            layouts.append(_keys(fin))
            if env is sync:
                break
            assert info["skipped"].shape == (16,) and info["skipped"].dtype == np.int64
            out = fin["outcome"]
            for i in np.flatnonzero(term):
                won = out["winner"][i] == fin["seat"][i]
                assert won == (r[i] > 0) and out["finished"][i] and out["reason"][i] in REASONS
                w = out["winner"][i]
                assert out["eyes"][i].shape == (2,) and 0 <= out["tricks"][i].sum() <= 10  # 20 cards: 10 tricks
                if out["reason"][i] == "declared_66":
                    assert out["eyes"][i][w] >= 66
                if episode == "game":
                    assert abs(r[i]) == out["game_points"][i] in (1, 2, 3)
                else:  # the Bummerl's last game: its winner reached the target
                    scores = fin["bummerl_scores"][i]
                    assert max(scores) >= 7 and scores[out["winner"][i]] == max(scores)
                checked += 1
            for i in np.flatnonzero(~term):
                assert out["reason"][i] is None and not out["finished"][i]
    assert layouts[0] == layouts[-1]


class _ScriptedOpponent:
    """A batched opponent whose answer the test sets: legal (first legal action), float, illegal, or raising."""

    batched = True
    name = "scripted"

    def __init__(self):
        self.mode = "legal"

    def reset(self, seed=None):
        pass

    def act(self, games, rows=None):
        legal = games.legal_mask()
        if self.mode == "raise":
            raise RuntimeError("opponent crashed")
        if self.mode == "illegal":
            return (~legal).to(torch.int64).argmax(1)
        a = legal.to(torch.int64).argmax(1)
        return a.float() if self.mode == "float" else a


@pytest.mark.parametrize(
    "mode, error, words",
    [
        (
            "float",
            ValueError,
            "the opponent 'scripted': illegal actions (torch.float32 of shape (3,)): not action ids "
            "(allowed ints 0..30 of shape (3,))",
        ),
        ("illegal", ValueError, "the opponent 'scripted' chose 0 in env 0, which is not one of its legal actions"),
        ("raise", RuntimeError, "opponent crashed"),
    ],
)
def test_a_failing_opponent_aborts_the_vector_episodes_as_in_the_scalar_view(mode, error, words):
    """An opponent that raises or answers an illegal or non-integer action never hands the learner a win:
    the error names the opponent, and step() raises until reset() (it was a renonce: +3 for the learner)."""
    opp = _ScriptedOpponent()
    env = gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=3, opponent=opp, seat="player_0")
    obs, info = env.reset(seed=0)
    actions = info["action_mask"].argmax(1)
    opp.mode = mode
    with pytest.raises(error) as e:
        env.step(actions)
    assert words in str(e.value)
    opp.mode = "legal"
    with pytest.raises(RuntimeError, match="aborted by an error of the opponent: call reset"):
        env.step(actions)
    obs, info = env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(info["action_mask"].argmax(1))
    assert reward.shape == (3,) and not (reward == 3).all()


def test_cpu_with_an_index_is_the_cpu():
    for device in ("cpu:0", torch.device("cpu", 0)):
        env = SchnapsenVectorEnv(num_envs=2, device=device)
        assert env.reset().observation.device == torch.device("cpu")
        obs, _ = gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=2, device=device).reset(seed=0)
        assert obs.shape == (2, OBS_SIZE)
