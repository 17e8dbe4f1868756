"""Real integration: the OpenSpiel game ``python_schnapsen`` (schnapsen_env.openspiel) against the engine,
OpenSpiel's own random simulation test, ISMCTS and outcome-sampling MCCFR. Skips without open_spiel."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import schnapsen_env.openspiel as sos  # noqa: E402
from schnapsen_env import DECLARE, MAX_GAME_LENGTH, NUM_ACTIONS, GameState, Rules  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer  # noqa: E402

VARIANTS = ("schnapsen", "schnapsen-sharp", "schnapsen-tournament", "sechsundsechzig", "vu-course")


def random_games(game, n, seed, on_state=None):
    """Play ``n`` random games (chance by its probabilities; declaring 66 only 10% of the times it is
    legal); call ``on_state(state)`` at every state."""
    rng = np.random.RandomState(seed)
    finals = []
    for _ in range(n):
        s = game.new_initial_state()
        while True:
            if on_state is not None:
                on_state(s)
            if s.is_terminal():
                break
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes())
                s.apply_action(int(rng.choice(actions, p=probs)))
            else:
                legal = s.legal_actions()
                if DECLARE in legal and len(legal) > 1 and rng.rand() < 0.9:
                    legal.remove(DECLARE)  # declare="manual": a random declaration would end most games at once
                s.apply_action(int(rng.choice(legal)))
        finals.append(s)
    return finals


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_random_simulation_with_serialization(variant):
    game = sos.load_game(variant)
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


def test_game_info_matches_our_constants():
    game = pyspiel.load_game("python_schnapsen")
    assert game.num_distinct_actions() == NUM_ACTIONS == 31
    assert game.max_game_length() == MAX_GAME_LENGTH == 39
    assert game.num_players() == 2
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-3.0, 3.0, 0.0)
    assert game.max_chance_outcomes() == 24
    assert game.observation_tensor_size() == OBS_SIZE == 214
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM


def test_chance_nodes_deal_uniformly_and_sum_to_one():
    for variant, deck in (("schnapsen", 20), ("sechsundsechzig", 24)):
        game = sos.load_game(variant)
        s = game.new_initial_state()
        assert s.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the dealer
        s.apply_action(1)
        dealt = []
        while s.is_chance_node():
            outcomes = s.chance_outcomes()
            assert len(outcomes) == deck - len(dealt)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
            assert {p for _, p in outcomes} == {1.0 / (deck - len(dealt))}
            assert not set(a for a, _ in outcomes) & set(dealt)
            card = outcomes[len(outcomes) // 2][0]
            dealt.append(card)
            s.apply_action(card)
        assert len(dealt) == deck
        assert s.engine.deck == tuple(dealt) and s.engine.dealer == 1
        assert s.current_player() == 0  # forehand: the dealer's opponent leads
        assert len(s.history()) == deck + 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_observations_and_returns_equal_the_engine(variant):
    game = sos.load_game(variant)
    rules = Rules.preset(variant)
    observer = Observer(rules)
    checked = [0]

    def check(s):
        if s.engine is None:  # during the deal: no moves yet, zero observations
            assert s.is_chance_node()
            for p in (0, 1):
                assert s.observation_tensor(p) == [0.0] * OBS_SIZE
            return
        # an independent engine from the chance outcomes, replayed with the same moves
        hist = s.history()
        deck_size = rules.deck
        ref = GameState(rules, hist[1 : deck_size + 1], hist[0])
        for a in hist[deck_size + 1 :]:
            ref.apply(a)
        assert ref.history == s.engine.history
        if s.is_terminal():
            o = ref.outcome
            assert s.returns() == (
                [o.game_points, -o.game_points] if o.winner == 0 else [-o.game_points, o.game_points]
            )
            assert sum(s.returns()) == 0.0
            return
        assert s.current_player() == ref.current_player
        assert s.legal_actions() == ref.legal_actions()
        mask = s.legal_actions_mask()
        assert mask == [1 if ref.is_legal(a) else 0 for a in range(NUM_ACTIONS)]
        for p in (0, 1):
            ours = observer.fill_state(ref, p)
            assert np.array_equal(np.asarray(s.observation_tensor(p), dtype=np.float32), ours)
        checked[0] += 1

    finals = random_games(game, 8, seed=3, on_state=check)
    assert checked[0] > 8 * 10
    assert all(f.is_terminal() and abs(f.returns()[0]) in (1.0, 2.0, 3.0) for f in finals)


def test_information_state_string_is_perfect_recall_and_private():
    game = pyspiel.load_game("python_schnapsen")
    s = random_games(game, 1, seed=5)[0]
    g = s.engine
    for p in (0, 1):
        text = s.information_state_string(p)
        assert text.startswith(f"p{p}|dealer {g.dealer}|hand ")
        # every move is in it, in order; the opponent's draws are not
        moves = [part for part in text.split("|") if ":" in part]
        assert len(moves) == len(g.history)
    # dealer 1: player 0 gets deck positions 0-2, 7-8, player 1 3-5, 9-10, the trump card is at 6
    deck = [c for c in range(24) if c % 6 != 5]

    def dealt(order):
        st = game.new_initial_state()
        for a in [1] + order:
            st.apply_action(a)
        return st

    base = dealt(deck)
    swap_in_hand = dealt(deck[:3] + [deck[4], deck[3]] + deck[5:])  # the same hand, dealt in another order
    swap_with_talon = dealt(deck[:3] + [deck[11]] + deck[4:11] + [deck[3]] + deck[12:])  # player 1's hand differs
    assert base.information_state_string(1) == swap_in_hand.information_state_string(1)
    assert base.information_state_string(0) == swap_with_talon.information_state_string(0)
    assert base.information_state_string(1) != swap_with_talon.information_state_string(1)
    assert base.information_state_string(0) == "p0|dealer 1|hand AC TC KC KS QS|trump TS"


@pytest.mark.parametrize("variant", ("schnapsen", "schnapsen-sharp", "sechsundsechzig"))
def test_resample_from_infostate_is_consistent_with_the_information_set(variant):
    game = sos.load_game(variant)
    rng = np.random.RandomState(11)
    counts = {"resamples": 0, "other_world": 0, "closed_with_unseen": 0}

    def check(s):
        if s.is_chance_node() or s.is_terminal():
            return
        p = s.current_player()
        r = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(int(rng.randint(1 << 30)), 0.0, 1.0))
        assert isinstance(r, sos.SchnapsenState)
        assert r.information_state_string(p) == s.information_state_string(p)
        info = s.engine.information_set(p)
        assert r.engine.information_set(p) == info  # RULES §8: the same information set
        assert r.observation_tensor(p) == s.observation_tensor(p)
        assert r.legal_actions() == s.legal_actions()
        r.engine.validate()
        # it is the engine's determinization of that information set with its own hidden cards
        o = 1 - p
        det = GameState.from_information_set(info, r.engine.hands[o], r.engine.talon[r.engine.talon_pos :])
        assert det.hands == r.engine.hands and det.eyes == r.engine.eyes
        assert det.legal_actions() == r.engine.legal_actions()
        # the player not to move can be resampled too
        r_o = s.resample_from_infostate(o, pyspiel.UniformProbabilitySampler(int(rng.randint(1 << 30)), 0.0, 1.0))
        assert r_o.engine.information_set(o) == s.engine.information_set(o)
        assert r_o.information_state_string(o) == s.information_state_string(o)
        counts["resamples"] += 1
        counts["closed_with_unseen"] += s.engine.closed_by >= 0 and info.unseen != 0
        if r.engine.hands[o] != s.engine.hands[o]:
            counts["other_world"] += 1

    random_games(game, 12, seed=7, on_state=check)
    assert counts["resamples"] > 100
    assert counts["closed_with_unseen"] > 0  # the hard case: phase-2 follows constrain the opponent's hand
    assert counts["other_world"] > counts["resamples"] // 3  # it really samples


def test_resample_is_seeded_by_the_sampler():
    game = pyspiel.load_game("python_schnapsen")
    s = game.new_initial_state()
    for a in [0] + [c for c in range(24) if c % 6 != 5]:
        s.apply_action(a)
    p = s.current_player()
    one = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(42, 0.0, 1.0))
    two = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(42, 0.0, 1.0))
    assert one.history() == two.history()


def test_ismcts_runs_and_plays_legal_moves():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_schnapsen")
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=2.0, max_simulations=20, random_state=rs
    )
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.uniform))
    s = game.new_initial_state()
    moves = 0
    while not s.is_terminal():
        if s.is_chance_node():
            actions, probs = zip(*s.chance_outcomes())
            s.apply_action(int(rs.choice(actions, p=probs)))
        elif s.current_player() == 0:
            policy = bot.get_policy(s)
            assert {a for a, _ in policy} <= set(s.legal_actions())
            assert sum(p for _, p in policy) == pytest.approx(1.0)
            a = bot.step(s)
            assert a in s.legal_actions()
            s.apply_action(a)
            moves += 1
        else:
            s.apply_action(int(rs.choice(s.legal_actions())))
    assert moves >= 3 and abs(s.returns()[0]) in (1.0, 2.0, 3.0)


def test_outcome_sampling_mccfr_runs():
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    np.random.seed(0)  # the solver samples with numpy's global generator
    game = pyspiel.load_game("python_schnapsen")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(10):
        solver.iteration()
    policy = solver.average_policy()
    tables = solver._infostates  # information state string -> [regrets, average policy sums]
    assert len(tables) > 10 * 5
    assert all(1 <= len(regrets) <= NUM_ACTIONS and len(avg) == len(regrets) for regrets, avg in tables.values())
    assert any(np.any(regrets != 0) for regrets, _ in tables.values())

    def check(s):
        if not (s.is_chance_node() or s.is_terminal()):
            probs = policy.action_probabilities(s)
            assert sorted(probs) == s.legal_actions() and sum(probs.values()) == pytest.approx(1.0)

    random_games(game, 2, seed=0, on_state=check)


def test_parameters_select_the_preset_and_override_it():
    game = pyspiel.load_game("python_schnapsen", {"variant": "schnapsen-sharp"})
    assert game.rules == Rules.preset("schnapsen-sharp") and game.variant == "schnapsen-sharp"
    game = pyspiel.load_game("python_schnapsen", {"variant": "schnapsen-sharp", "marriage_credit": "next_trick"})
    assert game.rules == Rules.preset("schnapsen-sharp", marriage_credit="next_trick")
    game = pyspiel.load_game("python_schnapsen", {"deck": 24, "declare": "manual", "false_declaration_points": 2})
    assert game.rules == Rules(deck=24, declare="manual", false_declaration_points=2)
    # the game's parameters are the effective options, so its string loads the same rules back
    for variant in VARIANTS:
        game = sos.load_game(variant, show_eyes=False)
        again = pyspiel.load_game(str(game))
        assert again.rules == game.rules == Rules.preset(variant, show_eyes=False)
        assert again.get_parameters()["variant"] == variant
    assert sos.load_game("schnapsen", false_declaration_points=2).get_parameters()["false_declaration_points"] == 2


def rules_error(**kwargs):
    with pytest.raises(ValueError) as e:
        Rules.preset(**kwargs)
    return str(e.value)


@pytest.mark.parametrize(
    "params, rules_kwargs",
    [
        ({"deck": 22}, {"deck": 22}),
        ({"variant": "skat"}, {"name": "skat"}),
        ({"declare": "sometimes"}, {"declare": "sometimes"}),
        ({"bummerl_target": 0}, {"bummerl_target": 0}),
        ({"marriage_credit": "never"}, {"marriage_credit": "never"}),
    ],
)
def test_bad_parameter_values_give_the_rules_one_line_error(params, rules_kwargs):
    expected = rules_error(**rules_kwargs)
    with pytest.raises(ValueError) as e:
        pyspiel.load_game("python_schnapsen", params)
    assert str(e.value) == expected and "\n" not in expected
    # the Rules-style helper gives the same message
    kwargs = dict(params)
    variant = kwargs.pop("variant", "schnapsen")
    with pytest.raises(ValueError) as e:
        sos.load_game(variant, **kwargs)
    assert str(e.value) == expected


def test_false_declaration_points_and_unknown_names():
    with pytest.raises(ValueError) as e:
        pyspiel.load_game("python_schnapsen", {"false_declaration_points": 3})
    assert str(e.value) == "bad value 3 for option 'false_declaration_points': allowed 0 (= \"as_if_correct\") or 2"
    # unknown names and wrong types: OpenSpiel refuses them itself (one line); the helper gives the Rules error
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'decks'"):
        pyspiel.load_game("python_schnapsen", {"decks": 24})
    with pytest.raises(ValueError) as e:
        sos.load_game("schnapsen", decks=24)
    assert str(e.value) == str(pytest.raises(ValueError, Rules.preset, "schnapsen", decks=24).value)
    with pytest.raises(ValueError) as e:
        sos.load_game("schnapsen", sharp="yes")
    assert str(e.value) == "bad value 'yes' for option 'sharp': allowed true or false"


def test_importing_schnapsen_env_does_not_import_pyspiel():
    code = (
        "import sys, json, schnapsen_env, schnapsen_env.engine, schnapsen_env.observation;"
        "a = 'pyspiel' in sys.modules; import schnapsen_env.openspiel, pyspiel;"
        "print(json.dumps([a, 'python_schnapsen' in pyspiel.registered_names()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False, True]


def test_example_plays_ismcts_against_random():
    root = Path(__file__).resolve().parents[2]
    script = str(root / "examples" / "openspiel_ismcts.py")
    proc = subprocess.run(
        [sys.executable, script, "--games", "2", "--simulations", "10"],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("ISMCTS (10 simulations) vs random, schnapsen: ") and lines[0].endswith(
        " of 2 (random vs random is 0)"
    )
    assert lines[1].startswith("wall time: ")


def test_impossible_chance_outcomes_and_illegal_moves_are_one_line_errors():
    game = pyspiel.load_game("python_schnapsen")
    s = game.new_initial_state()
    with pytest.raises(ValueError, match=r"^chance outcome 2 is not possible here: allowed dealer 0 or 1$"):
        s.apply_action(2)
    s.apply_action(0)
    with pytest.raises(ValueError, match=r"^chance outcome 5 is not possible here: allowed a card id not dealt yet$"):
        s.apply_action(5)  # the nine of clubs: not in the 20-card deck
    for c in [c for c in range(24) if c % 6 != 5]:
        s.apply_action(c)
    assert s.current_player() == 1 and 29 in s.legal_actions()
    before = s.history()
    with pytest.raises(ValueError) as e:
        s.apply_action(30)  # declaring is an action only under declare="manual"
    assert "\n" not in str(e.value) and s.engine.history == [] and s.history() == before
