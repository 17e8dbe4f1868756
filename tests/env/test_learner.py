"""The learner's episode core (schnapsen_env.learner) on its own, and its users agreeing.

Known values by hand: outcome_rewards of games and Bummerls (RULES §5, §6), a Bummerl of
three renonces (RULES §5.4: 3 game points each, so 9:0 after three games, a Schneider-Bummerl),
an episode that ends before the learner's first decision (declare="manual", RULES §5.1),
illegal actions (an error and nothing changed, or a renonce). Then the Gymnasium view, the
batched view (what training steps) and the arena give the learner the same rewards for the
same deals and actions, and all of them (and raw_env) go through the one outcome_rewards;
env() as a learner's env, the Gymnasium view and the batched view skip the same episodes.
"""

import copy
import pickle
import random

import pytest

from schnapsen_env import DECLARE, GameState, IllegalActionError, Outcome, Rules, schnapsen_v0
from schnapsen_env import learner as core_mod
from schnapsen_env.actions import action_to_str
from schnapsen_env.engine import NOBODY
from schnapsen_env.gym_env import SchnapsenGymEnv
from schnapsen_env.learner import EPISODE_OVER, NEXT_GAME, PLAYING, LearnerGame, outcome_rewards
from schnapsen_env.match import Bummerl

SCHNAPSEN = Rules.preset("schnapsen")


def outcome(winner: int, points: int) -> Outcome:
    return Outcome(winner, points, "points", (66, 20), (4, 1))


# ------------------------------------------------------------------ outcome_rewards
@pytest.mark.parametrize("winner,points,expected", [(0, 1, (1, -1)), (1, 2, (-2, 2)), (0, 3, (3, -3))])
def test_game_rewards_are_the_game_points_won_and_lost(winner, points, expected):
    assert outcome_rewards(outcome(winner, points)) == expected
    assert outcome_rewards(outcome(winner, points), reward="win_loss") == ((1, -1) if winner == 0 else (-1, 1))


def test_bummerl_rewards_are_zero_until_it_is_decided_then_one_or_two():
    b = Bummerl(SCHNAPSEN, 0)
    for pts in (3, 3):
        b.record(outcome(0, pts))
        assert outcome_rewards(outcome(0, pts), b) == (0, 0)  # 3:0, 6:0: undecided
    b.record(outcome(0, 1))  # 7:0: won, the loser has no game point: Schneider-Bummerl
    assert outcome_rewards(None, b) == (2, -2)
    assert outcome_rewards(None, b, "win_loss") == (1, -1)
    plain = Bummerl(Rules.preset("schnapsen", schneider_bummerl=False), 1)
    for w, pts in ((1, 3), (1, 3), (1, 1)):
        plain.record(outcome(w, pts))
    assert outcome_rewards(None, plain) == (-1, 1)  # Schneider not counted: 1
    one_each = Bummerl(SCHNAPSEN, 0)
    for w, pts in ((1, 1), (0, 3), (0, 3), (0, 2)):
        one_each.record(outcome(w, pts))
    assert one_each.scores == [8, 1] and outcome_rewards(None, one_each) == (1, -1)


# ------------------------------------------------------------------ the core
def illegal_action(state: GameState) -> int:
    mask = state.legal_mask()
    return next(a for a in range(24) if not mask >> a & 1)


def test_a_bummerl_of_renonces_by_hand():
    """Player 1 renonces in every game: 3, 6, 9 game points for player 0, a Schneider-Bummerl."""
    core = LearnerGame(SCHNAPSEN, episode="bummerl", illegal_action="renonce")
    first = core.start(random.Random(3), seat=1)
    assert core.games == [first] and core.bummerl_score == (0, 0) and core.current_player == first.current_player
    events = []
    while not core.over:
        state = core.state
        p = core.current_player
        action = illegal_action(state) if p == 1 else state.legal_actions()[0]
        events.append(core.step(action))
    assert [e for e in events if e != PLAYING] == [NEXT_GAME, NEXT_GAME, EPISODE_OVER]
    assert core.bummerl_score == (9, 0) and core.winner == 0
    assert core.rewards == (2, -2) and core.learner_reward == -2 and core.acted and not core.skipped
    dealers = [g.dealer for g in core.games]
    assert dealers == [core.first_dealer, 1 - core.first_dealer, core.first_dealer]  # RULES §6: alternates
    assert all(g.outcome.reason == "renonce" and g.outcome.winner == 0 for g in core.games)
    assert sorted(core.renonces) == [0, 1, 2] and core.last_illegal_action == core.renonces[2]
    assert core.outcome_dict()["illegal_action_id"] == core.renonces[2]
    assert core.outcome_dict()["illegal_action"] == action_to_str(core.renonces[2])  # as records write it
    assert core.current_player == NOBODY and not core.learner_to_move
    for kind, schneider, expected in (("win_loss", True, (1, -1)), ("game_points", False, (1, -1))):
        rules = Rules.preset("schnapsen", schneider_bummerl=schneider)
        other = LearnerGame(rules, episode="bummerl", reward=kind, illegal_action="renonce")
        other.start(random.Random(3), seat=1)
        while not other.over:
            s = other.state
            other.step(illegal_action(s) if s.current_player == 1 else s.legal_actions()[0])
        assert other.rewards == expected


def test_deals_are_those_of_the_engine_and_the_aec_env():
    for seed in range(5):
        core = LearnerGame(SCHNAPSEN)
        ref = GameState.from_seed(SCHNAPSEN, seed)
        state = core.start(random.Random(seed))
        assert (state.deck, state.dealer) == (ref.deck, ref.dealer)
        given = LearnerGame(SCHNAPSEN).start(random.Random(seed), first_dealer=1)
        assert given.dealer == 1 and given.deck == ref.deck  # shuffled first, dealer given
        rng = random.Random(seed)
        b = Bummerl.from_seed(SCHNAPSEN, rng)
        env = schnapsen_v0.raw_env(episode="bummerl")
        env.reset(seed=seed)
        assert (env.game.deck, env.game.dealer) == (b.new_game(rng).deck, b.dealer)
        bcore = LearnerGame(SCHNAPSEN, episode="bummerl")
        assert bcore.start(random.Random(seed)).deck == env.game.deck


def manual_game_declared_at_once(episode: str) -> LearnerGame:
    core = LearnerGame(Rules.preset("schnapsen", declare="manual"), episode=episode)
    state = core.start(random.Random(0))
    core.set_seat(1 - state.current_player)  # the learner is not on lead
    assert DECLARE in state.legal_actions()
    assert core.apply(DECLARE)  # the leader declares 66 with no trick: a false declaration
    return core


def test_an_episode_over_before_the_learners_first_decision_is_skipped():
    core = manual_game_declared_at_once("game")
    assert core.end_game() == EPISODE_OVER
    out = core.last_outcome
    assert out.reason == "false_declaration" and out.winner == core.seat
    assert core.skipped and not core.acted  # no learner decision: nothing to credit
    assert core.rewards[core.seat] == out.game_points == 3  # what outcome_rewards says, were it credited
    assert core.learner_reward == 0  # but a skipped episode carries no learner reward
    # in a Bummerl the Bummerl goes on: the next game is dealt, nothing is skipped
    bcore = manual_game_declared_at_once("bummerl")
    assert bcore.end_game() == NEXT_GAME
    assert not bcore.over and not bcore.skipped and bcore.bummerl_score[bcore.seat] == 3
    assert bcore.state.dealer != bcore.games[0].dealer and len(bcore.games) == 2


def snapshot(core: LearnerGame) -> tuple:
    s = core.state
    return (list(s.history), s.current_player, s.legal_mask(), s.outcome, core.acted, len(core.games))


@pytest.mark.parametrize("policy", ["raise", "renonce"])
def test_illegal_actions(policy):
    core = LearnerGame(SCHNAPSEN, illegal_action=policy)
    state = core.start(random.Random(2), seat=0)
    before = snapshot(core)
    for bad in (-1, 31):  # not an action id: always an error, nothing changed
        with pytest.raises(IllegalActionError):
            core.apply(bad)
        assert snapshot(core) == before
    mover = state.current_player
    if policy == "raise":
        with pytest.raises(IllegalActionError):
            core.apply(illegal_action(state))
        assert snapshot(core) == before
        assert core.apply(state.legal_actions()[0]) is False
    else:
        action = illegal_action(state)
        assert core.step(action) == EPISODE_OVER
        assert state.outcome.reason == "renonce" and state.outcome.winner == 1 - mover
        assert core.rewards == outcome_rewards(state.outcome) and abs(core.rewards[0]) == 3
        assert core.last_illegal_action == action and core.acted == (mover == 0)


def test_copies_continue_like_the_original():
    core = LearnerGame(SCHNAPSEN, episode="bummerl")
    core.start(random.Random(7), seat=0)
    rng = random.Random(1)
    for _ in range(40):
        core.step(rng.choice(core.state.legal_actions()))
    copies = [copy.deepcopy(core), pickle.loads(pickle.dumps(core))]
    runs = []
    for c in [core, *copies]:
        r = random.Random(5)
        while not c.over:
            c.step(r.choice(c.state.legal_actions()))
        runs.append((c.rewards, c.bummerl_score, [g.deck for g in c.games], [g.history for g in c.games]))
    assert runs[0] == runs[1] == runs[2]


# ------------------------------------------------------------------ the users agree
def pick(info) -> int:
    """A deterministic policy that is neither always first nor always last."""
    legal = info.legal_actions
    return legal[(len(info.history) * 7 + info.player) % len(legal)]


def gym_rewards(episode: str, seeds) -> list:
    out = []
    for s in seeds:
        env = SchnapsenGymEnv(opponent=pick, seat=f"player_{s % 2}", episode=episode)
        env.reset(seed=s)
        game = env.aec_env
        done, total = False, 0.0
        while not done:
            _, r, done, _, _ = env.step(pick(game.game.information_set(s % 2)))
            total += r
        out.append(total)
    return out


def batched_env(episode: str, seeds, opponent, rules=SCHNAPSEN, seat=None):
    """The batched Gymnasium view (tensors) whose slot i deals what the scalar views deal for seed i: every
    game of slot i comes from the deal stream random.Random(seed i) (LearnerGame.start, then a Bummerl's
    next games), the learner in seat ``seat`` (default i % 2)."""
    torch = pytest.importorskip("torch")
    from agents.players.base import Agent
    from agents.players.batched import ScalarAgents
    from schnapsen_env.vector.env import SchnapsenVectorGymEnv

    class Opponent(Agent):
        def act(self, info):
            return opponent(info)

    n = len(seeds)
    env = SchnapsenVectorGymEnv(
        n, opponent=ScalarAgents(Opponent()), episode=episode, illegal_action="raise", tensors=True, **rules.to_dict()
    )
    rngs = [random.Random(s) for s in seeds]
    seats = torch.tensor([s % 2 if seat is None else seat for s in seeds])

    def deal(slots, dealers):
        for i in slots:
            g = GameState.from_seed(rules, rng=rngs[i], dealer=dealers[i])
            env.games.reset([list(g.deck)], [g.dealer], torch.tensor([i]))

    def new_episodes(slots):
        env.episodes.start(slots, seats)
        idx = slots.nonzero().squeeze(1).tolist()
        if episode == "bummerl":  # Bummerl.from_seed draws the first dealer, then the deal
            deal(idx, {i: rngs[i].randrange(2) for i in idx})
        else:  # GameState.from_seed: the deal, then the dealer
            deal(idx, {i: None for i in idx})

    def deal_next(slots):  # the next game of a Bummerl: the other dealer, from the same deal stream
        idx = slots.nonzero().squeeze(1).tolist()
        deal(idx, {i: 1 - int(env.games.dealer[i]) for i in idx})

    env.episodes._deal_next = deal_next
    env._new_episodes = new_episodes
    return env


def batched_episodes(env, k: int) -> tuple[list, list]:
    """Per slot: the learner's rewards of its first ``k`` episodes and the episodes skipped before them."""
    import torch

    n = env.num_envs
    rewards, skipped = [[] for _ in range(n)], [0] * n
    _, info = env.reset()
    for i in range(n):
        skipped[i] += int(info["skipped"][i])
    while any(len(r) < k for r in rewards):
        seat = info["seat"].tolist()
        actions = [pick(env.games.game_state(i).information_set(seat[i])) for i in range(n)]
        _, r, term, _, info = env.step(torch.tensor(actions))
        for i in term.nonzero().squeeze(1).tolist():
            if len(rewards[i]) < k:
                rewards[i].append(float(r[i]))
                skipped[i] += int(info["skipped"][i]) * (len(rewards[i]) < k)  # skips before the next one
    return rewards, skipped


def batched_rewards(episode: str, seeds) -> list:
    return [r[0] for r in batched_episodes(batched_env(episode, seeds, pick), 1)[0]]


def arena_rewards(episode: str, seeds, monkeypatch) -> list:
    from agents.evaluation import arena
    from agents.players.base import Agent

    class Pick(Agent):
        def act(self, info):
            return pick(info)

    monkeypatch.setattr(arena, "deal_rng", lambda seed, pair, deal: random.Random(seeds[deal]))
    units = arena._play_units(
        Pick(),
        Pick(),
        SCHNAPSEN,
        range(len(seeds)),
        seed=0,
        pair_index=0,
        duplicate=False,
        bummerl=episode == "bummerl",
    )
    out = []
    for records, bummerl_winner, value, _ in units:
        if episode == "bummerl":  # A (the learner's seat, u % 2 in unit u) won (winner 0) or lost the Bummerl
            out.append(float(value if bummerl_winner == 0 else -value))
        else:
            (g,) = records
            out.append(float(g.game_points if g.winner == 0 else -g.game_points))
    return out


@pytest.mark.parametrize("episode", ["game", "bummerl"])
def test_gym_training_and_arena_give_the_same_rewards(episode, monkeypatch):
    seeds = list(range(12))
    expected = gym_rewards(episode, seeds)
    assert batched_rewards(episode, seeds) == expected
    assert arena_rewards(episode, seeds, monkeypatch) == expected
    assert len({abs(r) for r in expected}) > 1  # the deals give different values


def test_every_user_goes_through_outcome_rewards(monkeypatch):
    real = core_mod.outcome_rewards
    monkeypatch.setattr(core_mod, "outcome_rewards", lambda *a, **k: tuple(10 * r for r in real(*a, **k)))
    seeds = list(range(6))
    gym = gym_rewards("bummerl", seeds)
    assert {abs(r) for r in gym} <= {10.0, 20.0}
    assert batched_rewards("bummerl", seeds) == gym
    assert arena_rewards("bummerl", seeds, monkeypatch) == gym
    env = schnapsen_v0.raw_env()
    env.reset(seed=0)
    while not env.terminations["player_0"]:
        env.step(pick(env.game.information_set(env.game.current_player)))
    assert abs(env.rewards["player_0"]) in (10, 20, 30)


def sometimes_declare(info):
    """An opponent that, on lead, declares 66 falsely in about half of the deals (RULES §5.1, manual)."""
    if DECLARE in info.legal_actions and not info.history and info.hand % 2 == 0:
        return DECLARE
    return pick(info)


def aec_episodes(seed: int, seat: int, k: int, rules: Rules) -> tuple[list, int]:
    """env() with the learner in ``seat``: its rewards of the first ``k`` episodes in which it acted, and the
    episodes before them that ended before its first decision (each next episode continues the deal stream)."""
    env = schnapsen_v0.env(**rules.to_dict())
    learner = f"player_{seat}"
    rewards, skipped = [], 0
    env.reset(seed=seed)
    while len(rewards) < k:
        acted = False
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == learner:
                    if acted:
                        rewards.append(float(reward))
                    else:
                        skipped += 1
                env.step(None)
                continue
            info = env.unwrapped.game.information_set(env.unwrapped.game.current_player)
            acted |= agent == learner
            env.step(pick(info) if agent == learner else sometimes_declare(info))
        env.reset()
    return rewards, skipped


def test_every_view_skips_the_episodes_that_end_before_the_learners_first_decision():
    """RULES §5.1 manual declaring: the opponent on lead may end a game before the learner acts. env() as a
    learner's env, the Gymnasium view and the batched view (what train.py steps) deal the same games per seed
    and agree on the learner's rewards, its episodes and the skipped ones (LearnerGame.learner_reward's rule)."""
    rules = Rules.preset("schnapsen", declare="manual")
    seeds, k = list(range(8)), 4
    aec = [aec_episodes(s, s % 2, k, rules) for s in seeds]
    gym = []
    for s in seeds:
        env = SchnapsenGymEnv(opponent=sometimes_declare, seat=f"player_{s % 2}", **rules.to_dict())
        rewards, skipped = [], 0
        _, info = env.reset(seed=s)
        while len(rewards) < k:
            skipped += len(info["skipped_outcomes"])
            done = False
            while not done:
                _, r, done, _, _ = env.step(pick(env.aec_env.game.information_set(s % 2)))
            rewards.append(r)
            _, info = env.reset()
        gym.append((rewards, skipped))
    batched_rewards_, batched_skipped = batched_episodes(batched_env("game", seeds, sometimes_declare, rules), k)
    assert gym == aec
    assert list(zip(batched_rewards_, batched_skipped)) == aec
    assert sum(sk for _, sk in aec) >= 3 and all(len(r) == k for r, _ in aec)
