"""The batched engine (schnapsen_env.vector) against the scalar engine, and the replay through it.

* Parity: random games (seeded, favouring marriages, exchanges, closings and declarations so that
  the rare paths occur) driven with the same actions through ``VectorGames`` and scalar
  ``GameState`` s: the legal masks, both players' observations (single games and with a Bummerl
  score), the state fields and the outcomes agree at every step, on every preset and with options mixed.
* Every public rule case (tests/cases) replays through the batched engine to its expected line.
* Illegal actions: ``"raise"`` changes nothing and names the game; ``"renonce"`` ends exactly those
  games as the scalar ``LearnerGame(illegal_action="renonce")`` does. Bad constructor arguments: one-line errors.
* ``python -m schnapsen_env.replay --engine vector`` prints byte for byte what the scalar replay prints.
"""

import json
import pathlib
import random
import sys
from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402,F401

import schnapsen_env  # noqa: E402,F401  (registers the environments)
from schnapsen_env import schnapsen_v0  # noqa: E402
from schnapsen_env.actions import CLOSE, action_to_str, DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS  # noqa: E402
from schnapsen_env.engine import REASONS, GameState, IllegalActionError  # noqa: E402
from schnapsen_env.learner import LearnerGame  # noqa: E402
from schnapsen_env.observation import Observer  # noqa: E402
from schnapsen_env.replay import main, replay_lines, replay_lines_vector, replay_record, replay_records_vector  # noqa: E402
from schnapsen_env.rules import PRESETS, Rules  # noqa: E402
from schnapsen_env.vector.engine import VectorGames, VectorIllegalActionError  # noqa: E402
from schnapsen_env.vector.observation import VectorObserver  # noqa: E402

CASES = pathlib.Path(__file__).parents[1] / "cases"
CASE_RECORDS = sorted(p for p in CASES.glob("*.json") if not p.name.endswith(".expected.json"))

#: every preset, and the options mixed on top of them
RULE_SETS = [Rules.preset(name) for name in PRESETS] + [
    Rules.preset("schnapsen", declare="manual", false_declaration_points=2, show_eyes=False),
    Rules.preset("schnapsen-tournament", declare="manual", marriage_credit="next_trick", marriage_leads_king=True),
    Rules.preset(
        "sechsundsechzig",
        declare="manual",
        closing_counts_later_eyes=True,
        allow_closing=False,
        false_declaration_points=2,
    ),
    Rules.preset("sechsundsechzig", sharp=True, marriage_credit="next_trick", show_eyes=False),
]


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Each op here is small: one thread (several on a busy machine slow torch down many times)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


PARITY_GAMES = 2500  # per rule set
OBSERVED_GAMES = 400  # per rule set, whose observations are compared at every step


def choose(g: GameState, rng: random.Random) -> int:
    """A legal action of ``g``, the special ones (marriage, exchange, closing, declaring) favoured:
    random play alone rarely closes, and a manual declaration with 66 is rarer still."""
    acts = g.legal_actions()
    special = [a for a in acts if a >= MARRIAGE_BASE]
    rng.shuffle(special)
    for a in special:
        if a == DECLARE:
            p = g.current_player
            chance = 0.7 if g.eyes[p] >= 66 else 0.15 if g.eyes[p] >= 50 else 0.01
        elif a == CLOSE:
            chance = 0.12
        else:  # a marriage or the exchange
            chance = 0.7
        if rng.random() < chance:
            return a
    cards = [a for a in acts if a < MARRIAGE_BASE]
    return rng.choice(cards or acts)


#: the state fields both engines keep, by the same names
FIELDS = "current_player hands eyes tricks_won known trump_card lead_card pending_marriage held_marriage_eyes closed_by"


def scalar_fields(g: GameState) -> tuple:
    return tuple(getattr(g, name) for name in FIELDS.split())


def vector_fields(vg: VectorGames) -> list:
    return list(zip(*[getattr(vg, name).tolist() for name in FIELDS.split()]))


def check_observations(rules, vg, gs, observers, score, context):
    n = len(gs)
    for bummerl, (ob, vob) in observers.items():
        s = score[:n] if bummerl else None
        for viewer in (0, 1):
            got = vob.observe(vg, torch.full((vg.n,), viewer), score if bummerl else None)[:n].numpy()
            some = torch.arange(n - 1, -1, -3)  # the same rows encoded alone
            alone = vob.observe(vg, torch.full((vg.n,), viewer), score if bummerl else None, rows=some).numpy()
            assert np.array_equal(alone, got[some.numpy()]), f"{context}: observations of some rows"
            want = np.stack(
                [ob.fill_state(g, viewer, bummerl_score=None if s is None else s[i].tolist()) for i, g in enumerate(gs)]
            )
            if not np.array_equal(got, want):
                i, j = np.argwhere(got != want)[0]
                raise AssertionError(
                    f"{context}: observation of game {i}, viewer {viewer}, bummerl {bummerl}, "
                    f"element {j}: batched {got[i, j]}, scalar {want[i, j]}"
                )


def run_parity(rules: Rules, n: int, seed: int, observe: bool, renonce_rate: float = 0.003) -> Counter:
    """Drive ``n`` games through both engines with the same actions (a few of them illegal:
    renonces); assert agreement at every step (with ``observe``, of the observations too); return
    counts of the outcomes and rare paths."""
    vg = VectorGames(rules, n, illegal_action="renonce")
    vg.reset_from_seeds(range(seed, seed + n))
    gs = [GameState.from_seed(rules, s) for s in range(seed, seed + n)]
    assert vg.deck[:, : rules.deck].tolist() == [list(g.deck) for g in gs]
    observers = {
        False: (Observer(rules, False), VectorObserver(rules, False)),
        True: (Observer(rules, True), VectorObserver(rules, True)),
    }
    score = torch.randint(0, rules.bummerl_target, (n, 2), generator=torch.Generator().manual_seed(seed))
    rng = random.Random(seed)
    seen: Counter = Counter()
    arange = torch.arange(NUM_ACTIONS)
    step = 0
    while True:
        context = f"{rules!r}, step {step}"
        some = torch.arange(n - 1, -1, -3)  # a subset of the games, out of order
        some_bits = vg.legal_mask_bits(some).tolist()  # computed for these rows alone (no cache after a step)
        bits = vg.legal_mask_bits().tolist()
        assert some_bits == [bits[i] for i in some.tolist()], f"{context}: masks of some rows"
        for i, g in enumerate(gs):
            assert bits[i] == (g.legal_mask() if g.outcome is None else 0), f"{context}: mask of game {i}"
        assert torch.equal(vg.legal_mask(), ((vg.legal_mask_bits().unsqueeze(1) >> arange) & 1).bool())
        if observe:
            check_observations(rules, vg, gs, observers, score, context)
        if all(g.outcome is not None for g in gs):
            break
        actions = []
        # every other step moves a random third of the games only (step(actions, games): those rows alone)
        subset = [step % 2 == 0 or rng.random() < 0.3 for _ in gs]
        for g, moves in zip(gs, subset):
            if g.outcome is not None or not moves:
                actions.append(0)
            elif rng.random() < renonce_rate:  # an illegal action: the mover's renonce
                illegal = [a for a in range(NUM_ACTIONS) if not g.legal_mask() >> a & 1]
                actions.append(rng.choice(illegal))
                g.renonce(g.current_player)
            else:
                a = choose(g, rng)
                actions.append(a)
                g.apply(a)
                if g.outcome is not None and a >= MARRIAGE_BASE and a < EXCHANGE:
                    seen["66 by a marriage"] += 1
        before = vg.over.clone()
        ended = vg.step(torch.tensor(actions), None if step % 2 == 0 else torch.tensor(subset))
        step += 1
        now_over = torch.tensor([g.outcome is not None for g in gs])
        assert torch.equal(ended, now_over & ~before), f"{context}: games ended by the step"
        for i, (g, fields) in enumerate(zip(gs, vector_fields(vg))):
            assert fields == scalar_fields(g), f"{context}: game {i}: batched {fields}, scalar {scalar_fields(g)}"
            assert vg.outcome(i) == g.outcome, f"{context}: game {i}: {vg.outcome(i)} != {g.outcome}"
    for g in gs:
        seen[g.outcome.reason] += 1
        if g.outcome.reason == "last_trick" and rules.deck == 24:
            seen["last trick in Sechsundsechzig"] += 1
        if g.outcome.reason == "closing_failed":
            seen["closing failed"] += 1
        if g.closed_by >= 0:
            seen["closed"] += 1
    return seen


def test_batched_engine_matches_scalar_engine_on_every_preset_and_mixed_options():
    seen: Counter = Counter()
    for k, rules in enumerate(RULE_SETS):
        got = run_parity(rules, PARITY_GAMES, 10_000 * k, observe=False)
        assert sum(got[r] for r in REASONS) == PARITY_GAMES, rules
        seen += got
    # every way a game can end occurred, and the rare paths too
    assert {r: seen[r] > 0 for r in REASONS} == {r: True for r in REASONS}, seen
    for path in ("66 by a marriage", "last trick in Sechsundsechzig", "closing failed", "closed"):
        assert seen[path] > 0, (path, seen)


def test_batched_observations_match_the_scalar_observer_for_both_players_with_and_without_bummerl_score():
    seen: Counter = Counter()
    for k, rules in enumerate(RULE_SETS):
        seen += run_parity(rules, OBSERVED_GAMES, 10_000 * k + 5000, observe=True)
    assert {r: seen[r] > 0 for r in REASONS} == {r: True for r in REASONS}, seen


# ---------------------------------------------------------------------- the public rule cases


def _matches(got: dict, exp: dict) -> bool:
    if "error" in exp:
        return got.get("error") == exp["error"] and got.get("index") == exp.get("index")
    return got == exp


def test_every_rule_case_replays_through_the_batched_engine_one_batch_per_rules_set(monkeypatch):
    records = [json.loads(p.read_text()) for p in CASE_RECORDS]
    batches = []
    original = VectorGames.__init__

    def counting_init(self, rules=None, num_games=1, *args, **kwargs):
        batches.append((rules, num_games))
        original(self, rules, num_games, *args, **kwargs)

    monkeypatch.setattr(VectorGames, "__init__", counting_init)
    got = replay_records_vector(records)
    for p, line in zip(CASE_RECORDS, got, strict=True):
        expected = json.loads(p.with_name(p.stem + ".expected.json").read_text())
        assert _matches(line, expected), f"{p.name}: expected {expected}, got {line}"
    # the messages too are the scalar replay's
    assert got == [replay_record(r) for r in records]
    # one batch per rules set, holding all its valid records
    assert len({r for r, _ in batches}) == len(batches) >= 5
    assert sum(n for _, n in batches) == sum("invalid_record" not in json.dumps(x) for x in got)
    assert max(n for _, n in batches) >= 30


# ---------------------------------------------------------------------- illegal actions


def _tensors(vg: VectorGames) -> dict:
    return {k: v.clone() for k, v in vars(vg).items() if isinstance(v, torch.Tensor) and not k.startswith("_")}


def _play_random(vg: VectorGames, steps: int, gen: torch.Generator) -> None:
    for _ in range(steps):
        mask = vg.legal_mask()
        vg.step(torch.where(mask, torch.rand(mask.shape, generator=gen), -1.0).argmax(1))


def test_compiled_engine_and_observer_match_the_eager_ones_on_whole_batches_and_subsets():
    """compile=True (dynamic shapes) plays the same games as the eager functions, with steps of
    every game and of a few (the rows-alone path) mixed, and the observer agrees on both."""
    rules = Rules.preset("schnapsen-tournament")
    n = 96
    eager, compiled = VectorGames(rules, n), VectorGames(rules, n, compile=True)
    for vg in (eager, compiled):
        vg.reset_from_seeds(range(500, 500 + n))
    obs_eager, obs_compiled = VectorObserver(rules), VectorObserver(rules, compile=True)
    gen = torch.Generator().manual_seed(4)
    for step in range(60):
        mask = eager.legal_mask()
        assert torch.equal(mask, compiled.legal_mask()), step
        viewer = eager.current_player.clamp(min=0)
        assert torch.equal(obs_eager.observe(eager, viewer), obs_compiled.observe(compiled, viewer)), step
        some = torch.arange(0, n, 7)
        assert torch.equal(
            obs_eager.observe(eager, viewer, rows=some), obs_compiled.observe(compiled, viewer, rows=some)
        ), step
        if bool(eager.over.all()):
            break
        actions = torch.where(mask, torch.rand(mask.shape, generator=gen), -1.0).argmax(1)
        moving = None if step % 2 == 0 else torch.rand(n, generator=gen) < 0.2
        assert torch.equal(eager.step(actions, moving), compiled.step(actions, moving)), step
        assert torch.equal(eager.state, compiled.state), step
    assert bool(eager.over.all())


def test_a_selection_of_games_is_a_bool_mask_or_indices_everywhere():
    """step(games=), reset(games=), legal_mask(rows) and observe(rows=) take the same two forms."""
    rules = Rules.preset("schnapsen")
    ob = VectorObserver(rules)
    viewer = torch.tensor([0, 1, 0, 1, 0])
    by_mask, by_index = VectorGames(rules, 5), VectorGames(rules, 5)
    for vg in (by_mask, by_index):
        vg.reset_from_seeds(range(5))
    mask, index = torch.tensor([True, False, True, True, False]), [0, 2, 3]
    assert torch.equal(by_mask.legal_mask(mask), by_mask.legal_mask(index))
    assert torch.equal(by_mask.legal_mask(mask.numpy()), by_mask.legal_mask(torch.tensor(index)))
    assert torch.equal(ob.observe(by_mask, viewer, rows=mask), ob.observe(by_mask, viewer, rows=index))
    gen = torch.Generator().manual_seed(3)
    while not bool(by_mask.over[mask].all()):
        legal = by_mask.legal_mask()
        actions = torch.multinomial(legal.float() + (~legal.any(1, keepdim=True)).float(), 1, generator=gen)[:, 0]
        ended_m = by_mask.step(actions, mask)
        ended_i = by_index.step(actions, index)
        assert torch.equal(ended_m, ended_i)
        assert torch.equal(by_mask.state, by_index.state)
        assert not bool(ended_m[~mask].any())
    assert not bool(by_mask.over[~mask].any())  # games 1 and 4 never moved


def _an_illegal_action(bits: int) -> int:
    return next(a for a in range(NUM_ACTIONS) if not bits >> a & 1)


def test_illegal_action_under_raise_names_the_game_and_changes_nothing():
    rules = Rules.preset("schnapsen")
    vg = VectorGames(rules, 32)
    vg.reset_from_seeds(range(32))
    _play_random(vg, 3, torch.Generator().manual_seed(1))
    mask = vg.legal_mask()
    actions = mask.float().argmax(1)
    bits = vg.legal_mask_bits().tolist()
    actions[5] = _an_illegal_action(bits[5])
    actions[17] = _an_illegal_action(bits[17])
    before = _tensors(vg)
    assert len(before) >= 25
    with pytest.raises(VectorIllegalActionError) as info:
        vg.step(actions)
    g5 = vg.game_state(5)
    with pytest.raises(IllegalActionError) as scalar:
        g5.apply(int(actions[5]))
    assert info.value.games == [5, 17]
    assert info.value.actions == [int(actions[5]), int(actions[17])]
    assert info.value.reason == scalar.value.reason
    assert str(info.value) == (
        f"illegal action {action_to_str(int(actions[5]))!r} in game 5 (and 1 more games): {scalar.value.reason}"
    )
    after = _tensors(vg)
    for k, v in before.items():
        assert torch.equal(v, after[k]), k
    # stepping a few games only (their rows alone are stepped): the same error, nothing changed
    few = torch.zeros(32, dtype=torch.bool)
    few[[2, 5, 17]] = True
    with pytest.raises(VectorIllegalActionError) as info:
        vg.step(actions, few)
    assert (info.value.games, info.value.actions) == ([5, 17], [int(actions[5]), int(actions[17])])
    assert info.value.reason == scalar.value.reason
    after = _tensors(vg)
    for k, v in before.items():
        assert torch.equal(v, after[k]), k
    out_of_range = actions.clone()
    out_of_range[5] = NUM_ACTIONS
    with pytest.raises(VectorIllegalActionError, match=r"in game 5 \(and 1 more games\): not an action id"):
        vg.step(out_of_range)
    # the same batch with the two legal: it steps
    actions[5] = mask[5].float().argmax()
    actions[17] = mask[17].float().argmax()
    vg.step(actions)
    assert (vg.num_actions == before["num_actions"] + (before["current_player"] >= 0).long()).all()


def test_illegal_actions_under_renonce_end_exactly_those_games_as_the_scalar_learner_does():
    rules = Rules.preset("schnapsen-sharp")
    n = 40
    learners = []
    for s in range(n):
        lg = LearnerGame(rules, illegal_action="renonce")
        lg.start(random.Random(s))
        learners.append(lg)
    vg = VectorGames(rules, n, illegal_action="renonce")
    vg.reset([list(lg.state.deck) for lg in learners], [lg.state.dealer for lg in learners])
    rng = random.Random(7)
    renonced = 0
    for step in range(40):
        actions = []
        expected_end = []
        for lg in learners:
            state = lg.state
            if state.outcome is not None:
                actions.append(0)
                expected_end.append(False)
                continue
            illegal = rng.random() < 0.08
            if illegal:
                a = rng.choice([a for a in range(NUM_ACTIONS) if not state.legal_mask() >> a & 1])
                renonced += 1
            else:
                a = rng.choice(state.legal_actions())
            mover = state.current_player
            actions.append(a)
            ended = lg.apply(a)
            expected_end.append(ended)
            if illegal:
                assert ended and (state.outcome.winner, state.outcome.game_points, state.outcome.reason) == (
                    1 - mover,
                    3,
                    "renonce",
                )
        ended = vg.step(torch.tensor(actions))
        assert ended.tolist() == expected_end, step
        for i, lg in enumerate(learners):
            assert vg.outcome(i) == lg.state.outcome, (step, i)
            assert int(vg.current_player[i]) == lg.state.current_player
            assert vg.hands[i].tolist() == lg.state.hands
        if all(lg.state.outcome is not None for lg in learners):
            break
    assert renonced >= 10
    reasons = Counter(int(r) for r in vg.reason)
    assert reasons[REASONS.index("renonce")] >= 10
    assert set(vg.game_points[vg.reason == REASONS.index("renonce")].tolist()) == {3}


def _message(fn) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    text = str(info.value)
    assert "\n" not in text
    return text


def test_constructor_arguments_are_checked_once_with_one_line_errors():
    rules = Rules.preset("schnapsen")
    assert _message(lambda: VectorGames(rules, 0)) == "bad value 0 for 'num_games': allowed an int from 1 to 1048576"
    assert _message(lambda: VectorGames("schnapsen", 2)) == "rules must be a Rules object, got str"
    assert _message(lambda: VectorGames(rules, 2, device="gpu9")).startswith("unknown torch device 'gpu9'")
    assert (
        _message(lambda: VectorGames(rules, 2, illegal_action="skip"))
        == "bad value 'skip' for 'illegal_action': allowed 'renonce', 'raise'"
    )


# ---------------------------------------------------------------------- replay --engine vector


def _both(capsys, path) -> tuple:
    """(exit status, stdout, stderr) of the scalar and of the vector replay of ``path``, in process."""
    out = []
    for engine in ("scalar", "vector"):
        code = main(["--engine", engine, str(path)])
        c = capsys.readouterr()
        out.append((code, c.out, c.err))
    return out[0], out[1]


def _env_records(seed: int) -> list:
    """Records written by the environment's own record writer: finished games of every preset (with
    options), games cut midway, Bummerl episodes."""
    rng = random.Random(seed)
    records = []
    for variant in PRESETS:
        for options in ({}, {"declare": "manual", "closing_counts_later_eyes": True}):
            env = schnapsen_v0.env(variant=variant, **options)
            for s in range(12):
                env.reset(seed=seed + s)
                cut = rng.choice([None, None, 3, 9])
                for k, _ in enumerate(env.agent_iter()):
                    obs, _, terminated, truncated, _ = env.last()
                    if terminated or truncated:
                        env.step(None)
                        continue
                    if k == cut:
                        break
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                records.append(env.unwrapped.record())
    env = schnapsen_v0.env(episode="bummerl", bummerl_target=3)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    records += env.unwrapped.episode_records()
    return records


def _spoiled(records: list, rng: random.Random) -> list:
    """Bad copies: an action after the end, a card not held, an action dropped, a bad key or card."""
    bad = []
    for r in records:
        r = json.loads(json.dumps(r))
        kind = rng.randrange(5)
        if kind == 0:
            r["actions"].append(rng.choice(r["actions"] or ["close"]))
        elif kind == 1 and r["actions"]:
            r["actions"].insert(rng.randrange(len(r["actions"])), "play " + r["deck"][-1])
        elif kind == 2 and r["actions"]:
            del r["actions"][rng.randrange(len(r["actions"]))]
        elif kind == 3:
            r["deck"][0] = r["deck"][1]
        else:
            r["extra"] = 1
        bad.append(r)
    return bad


def test_vector_replay_of_records_from_the_record_writer_and_spoiled_ones_is_byte_identical(tmp_path, capsys):
    records = _env_records(5)
    assert len(records) >= 120
    spoiled = _spoiled(records, random.Random(3))
    path = tmp_path / "games.jsonl"
    lines = [json.dumps(r) for r in records + spoiled]
    random.Random(1).shuffle(lines)
    path.write_text("\n".join(lines) + "\n")
    scalar, vector = _both(capsys, path)
    assert scalar == vector
    results = [json.loads(x) for x in vector[1].splitlines()]
    assert len(results) == len(lines)
    kinds = Counter(r["error"] if "error" in r else "finished" if r["finished"] else "unfinished" for r in results)
    assert kinds["finished"] >= 60 and kinds["unfinished"] >= 10, kinds
    assert kinds["illegal_action"] >= 30 and kinds["invalid_record"] >= 20, kinds


def test_vector_replay_in_chunks_gives_the_scalar_results_in_order():
    records = _env_records(11)[:60]
    data = [json.dumps(r).encode() + b"\n" for r in _spoiled(records, random.Random(4)) + records] + [b"x\n", b"\n"]
    want = list(replay_lines(iter(data)))
    for chunk in (1, 7, 4096):
        assert list(replay_lines_vector(iter(data), chunk=chunk)) == want


def test_vector_replay_without_torch_is_one_line_naming_the_train_extra(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.jsonl"
    path.write_text("{}\n")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert main(["--engine", "vector", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "install the [train] extra" in captured.err
    assert captured.err.startswith("replay: --engine vector needs PyTorch")
    assert main([str(path)]) == 1  # the scalar replay needs no torch
