"""No view asks an agent to act with an empty mask, and no reset() returns a finished episode.

Under ``declare="manual"`` (RULES §5.1) the player on lead may declare 66 at any
time, so the opponent on lead can end a game (a false declaration) before the
learner has acted. The Gymnasium view deals anew (see ``schnapsen_env.gym_env``),
training does not count it as a learner decision, the AEC env and the arena
ask only the player to move.
"""

import random

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from agents.evaluation.arena import play_game
from agents.players.base import Agent
from schnapsen_env import DECLARE, PRESETS, GameState, Rules, schnapsen_v0
from schnapsen_env.observation import OBS_SIZE

ENV_ID = "schnapsen_env/Schnapsen-v0"
#: every preset, played with manual declaring (schnapsen-sharp has it already)
MANUAL = [(variant, {"declare": "manual"}) for variant in PRESETS]


def always_declare(info):
    """An opponent that declares 66 whenever it may (falsely, at the first lead)."""
    return DECLARE if DECLARE in info.legal_actions else info.legal_actions[0]


def false_declaration_points(rules: Rules, declarer_opponent_had_trick: bool) -> int:
    """RULES §5.1: the opponent of a false declarer wins what the declarer would have won."""
    if rules.false_declaration_points == 2:
        return 2
    return 3 if not declarer_opponent_had_trick else 2


@pytest.mark.parametrize("variant,options", MANUAL)
def test_gym_reset_never_returns_a_finished_game(variant, options):
    env = gymnasium.make(ENV_ID, variant=variant, opponent=always_declare, seat="random", **options)
    rules = env.unwrapped.rules
    skipped_total = 0
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        mask = info["action_mask"]
        assert mask.any(), f"seed {seed}: empty mask at reset"
        np.testing.assert_array_equal(env.unwrapped.action_masks(), mask.astype(bool))
        learner = int(info["seat"][-1])
        for out in info["skipped_outcomes"]:
            # the opponent declared falsely at the first lead: the learner won, with no trick taken
            assert out["reason"] == "false_declaration"
            assert out["winner"] == learner
            assert out["game_points"] == false_declaration_points(rules, False)
            assert out["tricks"] == [0, 0]
        skipped_total += len(info["skipped_outcomes"])
        # the learner acts; the opponent declares at its next lead and loses again
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        if terminated:
            assert info["outcome"]["winner"] in (0, 1)
    # the opponent is forehand in about half of the deals, so games were skipped
    assert skipped_total >= 5


def test_skipped_games_depend_only_on_the_seed():
    def run():
        env = gymnasium.make(ENV_ID, variant="schnapsen-sharp", opponent=always_declare, seat="player_0")
        return [env.reset(seed=s)[1]["skipped_outcomes"] for s in range(20)]

    first = run()
    assert first == run()
    assert any(first) and not all(first)


def test_gym_bummerl_decided_before_the_learner_acts_is_dealt_anew():
    # target 1: one false declaration decides the Bummerl before the learner's first decision
    env = gymnasium.make(
        ENV_ID, variant="schnapsen-sharp", opponent=always_declare, seat="player_1", episode="bummerl", bummerl_target=1
    )
    seen_skip = False
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        assert info["action_mask"].any()
        seen_skip |= bool(info["skipped_outcomes"])
        bummerl = env.unwrapped.aec_env.bummerl
        assert bummerl is not None and not bummerl.is_over
    assert seen_skip


def test_gym_bummerl_game_lost_by_the_opponent_before_the_learner_acts_continues_the_bummerl():
    # target 7: a false declaration is 3 game points for the learner, the Bummerl goes on
    env = gymnasium.make(ENV_ID, variant="schnapsen-sharp", opponent=always_declare, seat="player_1", episode="bummerl")
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        assert info["skipped_outcomes"] == []
        assert info["action_mask"].any()
        scores = env.unwrapped.aec_env.bummerl.scores
        # every game the opponent led, it lost 3 before the learner could act
        assert scores[0] == 0 and scores[1] % 3 == 0


@pytest.mark.parametrize("episode", ["game", "bummerl"])
@pytest.mark.parametrize("variant,options", MANUAL)
def test_aec_env_asks_only_agents_with_a_nonempty_mask(variant, options, episode):
    env = schnapsen_v0.env(variant=variant, episode=episode, **options)
    rng = random.Random(0)
    for seed in range(10):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=2000):
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0, f"{agent} asked to act with an empty mask"
            # declare often, so that games end at the first lead
            env.step(DECLARE if DECLARE in legal and rng.random() < 0.5 else int(rng.choice(legal)))


class RecordingAgent(Agent):
    """Random play that records the size of every legal-action set it was asked about."""

    name = "recording"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.sizes = []

    def act(self, info):
        self.sizes.append(len(info.legal_actions))
        if DECLARE in info.legal_actions and self.rng.random() < 0.5:
            return DECLARE
        return self.rng.choice(info.legal_actions)


@pytest.mark.parametrize("variant,options", MANUAL)
def test_arena_asks_only_agents_with_a_nonempty_mask(variant, options):
    rules = Rules.preset(variant, **options)
    seats = [RecordingAgent(1), RecordingAgent(2)]
    reasons = set()
    for seed in range(40):
        state = play_game(GameState.from_seed(rules, seed), seats)
        reasons.add(state.outcome.reason)
    assert "false_declaration" in reasons
    assert min(seats[0].sizes + seats[1].sizes) >= 1


@pytest.mark.parametrize("variant,options", MANUAL)
def test_training_rollouts_never_give_the_learner_an_empty_mask(variant, options):
    torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
    from agents.players.neural import ActorCritic
    from agents.training.pool import OpponentPool
    from schnapsen_env.vector.env import SchnapsenVectorGymEnv

    pool = OpponentPool(ActorCritic(OBS_SIZE, [8]), current_weight=0.0, agents={"random": 1.0})
    env = SchnapsenVectorGymEnv(32, opponent=pool, variant=variant, seed=0, tensors=True, **options)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        assert info["action_mask"].any(axis=1).all()
        actions = [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"].numpy()]
        _, _, terminated, _, info = env.step(torch.tensor(actions))
        finished += int(terminated.sum())
    assert info["action_mask"].any(axis=1).all()
    assert finished > 32
