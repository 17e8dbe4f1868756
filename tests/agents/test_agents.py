"""Agents: legal actions only, reproducible, the factory, heuristic strength, the vu adapter."""

import random

import pytest

from agents import Agent, RandomAgent, make_agent
from agents.evaluation.arena import play_pair
from agents.players.heuristic import HeuristicAgent, beats, count_eyes
from schnapsen_env.engine import GameState
from schnapsen_env.rules import VARIANTS, Rules


def play_checked(agents, rules, seed):
    """Play one game, asserting every chosen action is legal; returns (actions, decisions)."""
    state = GameState.from_seed(rules, seed=seed)
    actions = []
    while not state.is_terminal:
        p = state.current_player
        info = state.information_set(p)
        a = agents[p].act(info)
        assert a in info.legal_actions, (agents[p].name, a, info.legal_actions)
        assert a in state.legal_actions()
        state.apply(a)
        actions.append(a)
    return actions, state


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_and_heuristic_only_play_legal_actions(variant):
    rules = Rules.preset(variant)
    decisions = 0
    for g in range(150):
        pair = [make_agent("heuristic", seed=g), make_agent("random", seed=g)]
        if g % 2:
            pair.reverse()
        actions, state = play_checked(pair, rules, 1000 + g)
        decisions += len(actions)
        assert state.outcome.winner in (0, 1)
    assert decisions > 1000  # thousands of states over the presets


def test_random_agent_depends_on_seed():
    rules = Rules.preset("schnapsen")
    a = [play_checked([make_agent("random", seed=1), make_agent("random", seed=2)], rules, s)[0] for s in range(5)]
    b = [play_checked([make_agent("random", seed=3), make_agent("random", seed=2)], rules, s)[0] for s in range(5)]
    assert a != b


def test_reset_restores_the_seeded_generator():
    agent = RandomAgent(seed=11)
    first = [agent.rng.random() for _ in range(3)]
    agent.reset()
    assert [agent.rng.random() for _ in range(3)] == first


def test_act_when_not_to_move_raises():
    state = GameState.from_seed(Rules.preset("schnapsen"), seed=1)
    other = 1 - state.current_player
    with pytest.raises(ValueError, match="not to move"):  # every agent's act starts with base.check_to_move
        make_agent("heuristic").act(state.information_set(other))


def test_heuristic_beats_random_clearly():
    r = play_pair("heuristic", "random", games=200, seed=3, duplicate=True)
    assert r.games == 200
    assert r.wins[0] / r.games >= 0.70, r.to_dict()


def test_heuristic_tactics():
    """A few hand-checked positions: exchange first, trump marriage first, cheapest winner in phase 2."""
    rules = Rules.preset("schnapsen")
    # deck order (RULES §2): forehand deck[0:3]+[7:9], dealer [3:6]+[9:11], trump deck[6]
    deck = "JH KH QH AC TC KC AH KS QS QC JC TH AS TS JS KD QD JD TD AD".split()
    state = GameState(rules, deck, dealer=1)  # player 0 is forehand, trump hearts (AH turned up)
    h = HeuristicAgent()
    info = state.information_set(0)
    assert h.act(info) == 28  # exchange the trump jack
    state.apply(28)
    a = h.act(state.information_set(0))
    assert a == 24 + 2  # the trump marriage (hearts) before the spades marriage
    # phase 2 following: cheapest winning card
    assert beats(0, 1, 3) and not beats(1, 0, 3) and beats(18, 0, 3)


def test_count_eyes_matches_engine_when_hidden():
    """The heuristic's own eye count (for show_eyes=false) agrees with the engine's."""
    shown = Rules.preset("schnapsen-sharp", show_eyes=True)
    hidden = Rules.preset("schnapsen-sharp")
    for seed in range(20):
        rng = random.Random(seed)
        s_shown = GameState.from_seed(shown, seed=seed)
        s_hidden = GameState.from_seed(hidden, seed=seed)
        while not s_shown.is_terminal:
            p = s_shown.current_player
            assert count_eyes(s_hidden.information_set(p)) == (list(s_shown.eyes), list(s_shown.held_marriage_eyes))
            a = rng.choice(s_shown.legal_actions())
            s_shown.apply(a)
            s_hidden.apply(a)


# ------------------------------------------------------------------ factory
def test_make_agent_sets_name_and_seed():
    a = make_agent("random", seed=4)
    assert isinstance(a, Agent) and a.name == "random" and a.seed == 4
    assert make_agent("random:seed=9", seed=4).seed == 9  # the spec's seed wins
    assert isinstance(make_agent("heuristic"), HeuristicAgent)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("minimax", ["unknown agent 'minimax'", "random", "heuristic", "pimc"]),
        ("pimc:depth=3", ["unknown key 'depth'", "samples"]),
        ("random:seed=1,seed=2", ["bad item 'seed=2'", "each key once"]),
    ],
)
def test_make_agent_bad_specs(spec, words):
    with pytest.raises(ValueError) as e:
        make_agent(spec)
    for w in words:
        assert w in str(e.value)


# ---------------------------------------------------------------- vu adapter
def test_vu_bots_play_legal_actions_under_vu_course():
    pytest.importorskip("schnapsen")
    rules = Rules.preset("vu-course")
    for spec in ("vu:rand", "vu:bully", "vu:rdeep,samples=2,depth=2"):
        for g in range(3):
            pair = [make_agent(spec, seed=g), make_agent("heuristic")]
            if g % 2:
                pair.reverse()
            play_checked(pair, rules, 200 + g)


def test_vu_reproducible_and_validated():
    pytest.importorskip("schnapsen")
    rules = Rules.preset("vu-course")
    runs = [
        play_checked([make_agent("vu:rdeep,samples=2,depth=2", seed=1), make_agent("random", seed=2)], rules, 7)[0]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    g = GameState.from_seed(Rules.preset("schnapsen"), seed=1)
    with pytest.raises(ValueError, match="vu-course"):
        make_agent("vu:rand").act(g.information_set(g.current_player))
    with pytest.raises(ValueError, match="vu:rdeep only"):
        make_agent("vu:bully,samples=3")


def test_spec_seed_must_be_a_non_negative_whole_number():
    with pytest.raises(ValueError, match="bad agent spec 'heuristic:seed=-1': seed"):
        make_agent("heuristic:seed=-1")
    assert make_agent("random:seed=0").seed == 0


def test_vu_missing_package_says_how_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "schnapsen", None)  # import schnapsen -> ImportError
    with pytest.raises(ImportError) as e:
        make_agent("vu:rand")
    msg = str(e.value)
    assert 'pip install "schnapsen-env[vu]"' in msg and 'pip install -e ".[vu]"' in msg
    assert "pip install schnapsen==0.0.5" in msg
