"""Arena: intervals against hand-computed values, derivable tournaments, duplicate seats,
worker independence, Bummerl play, results files and CLI validation."""

import csv
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from agents.evaluation.arena import AgentError, deal_rng, format_table, main, play_pair, round_robin
from agents.players.base import Agent
from agents.evaluation.stats import mean_interval, wilson_interval
from schnapsen_env.actions import DECLARE
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules

Z = 1.959963984540054


class Declarer(Agent):
    """Declares 66 whenever it may (false declarations), else plays the first legal action."""

    name = "declarer"

    def act(self, info):
        return DECLARE if DECLARE in info.legal_actions else info.legal_actions[0]


class FirstLegal(Agent):
    """Plays the lowest legal action id; remembers its first view of each game."""

    name = "first"

    def reset(self, seed=None):
        super().reset(seed)
        self.first_view = None

    def act(self, info):
        if self.first_view is None:
            self.first_view = (info.player, info.hand, info.dealer, info.trump_card)
            self.views.append(self.first_view)
        return info.legal_actions[0]

    def __init__(self, seed=None):
        super().__init__(seed)
        self.views = []
        self.first_view = None


MANUAL = Rules.preset("schnapsen", declare="manual")


# ------------------------------------------------------------------ intervals
def test_wilson_hand_values():
    lo, hi = wilson_interval(7, 10)
    assert lo == pytest.approx(0.3968, abs=1e-4) and hi == pytest.approx(0.8922, abs=1e-4)  # published values
    assert wilson_interval(10, 10) == pytest.approx((10 / (10 + Z * Z), 1.0))
    assert wilson_interval(0, 10) == pytest.approx((0.0, Z * Z / (10 + Z * Z)))


def test_wilson_is_exact_at_zero_and_n():
    for n in range(1, 2001):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0, n


def test_mean_interval_hand_values():
    # [3, 0] * 5 on 0..3: p = 0.5, the Wilson interval of 5 of 10, times 3
    lo, hi = wilson_interval(5, 10)
    assert mean_interval([3, 0] * 5, 0, 3) == pytest.approx((1.5, 3 * lo, 3 * hi))
    # ten games of 0 points: not a point, exact at the bound
    assert mean_interval([0] * 10, 0, 3) == pytest.approx((0.0, 0.0, 3 * Z * Z / (10 + Z * Z)))
    for n in range(1, 2001):
        assert mean_interval([0] * n, 0, 3)[1] == 0.0 and mean_interval([3] * n, 0, 3)[2] == 3.0, n


# ---------------------------------------------------- derivable tournaments
def test_declarers_duplicate_split_exactly():
    """Two false declarers: the forehand declares at once and loses 3 points, so the dealer's
    agent wins every game; with duplicate deals each agent wins exactly one game per deal."""
    r = play_pair(Declarer(), Declarer(), games=10, seed=1, rules=MANUAL, duplicate=True)
    assert r.wins == [5, 5]
    assert all(g.game_points == 3 and g.reason == "false_declaration" for g in r.records)
    assert r.mean_game_points == pytest.approx([1.5, 1.5])
    assert r.win_rate_ci == pytest.approx(wilson_interval(5, 10))
    assert r.win_rate_ci == pytest.approx((0.236593, 0.763407), abs=1e-5)
    assert r.game_points_ci[0] == pytest.approx([3 * x for x in wilson_interval(5, 10)])
    assert r.net_game_points == 0


def test_declarers_without_duplicate_follow_the_dealer():
    """Without duplicate the winner is the dealer's agent: derive it from the deal seeds."""
    games, seed = 12, 4
    expected_a = 0
    for g in range(games):
        dealer = GameState.from_seed(MANUAL, rng=deal_rng(seed, 0, g)).dealer
        expected_a += dealer == g % 2  # agent A sits in seat g % 2
    r = play_pair(Declarer(), Declarer(), games=games, seed=seed, rules=MANUAL, duplicate=False)
    assert r.wins == [expected_a, games - expected_a]
    assert r.win_rate_ci == pytest.approx(wilson_interval(expected_a, games))
    assert r.mean_game_points == pytest.approx([3 * expected_a / games, 3 * (games - expected_a) / games])


def test_duplicate_swaps_seats_on_identical_deals():
    a, b = FirstLegal(), FirstLegal()
    r = play_pair(a, b, games=8, seed=9, duplicate=True)
    recs = r.records
    for d in range(4):
        g0, g1 = recs[2 * d], recs[2 * d + 1]
        assert (g0.deal, g1.deal) == (d, d)
        assert (g0.seat_a, g1.seat_a) == (0, 1)
        assert g0.dealer == g1.dealer
        # identical deterministic agents on the same deal play the same game: same seat wins
        assert g0.winner != g1.winner and g0.game_points == g1.game_points
        # A's first view in game 2d is B's first view in game 2d+1 (same seat, same deal)
        assert a.views[2 * d] == b.views[2 * d + 1]
        assert a.views[2 * d + 1] == b.views[2 * d]
    assert r.wins == [4, 4]
    assert len({v for v in a.views[::2]}) == 4  # the deals differ from each other


def test_worker_count_does_not_change_results():
    r1 = play_pair("heuristic", "random", games=30, seed=5, workers=1)
    r2 = play_pair("heuristic", "random", games=30, seed=5, workers=2)
    assert r1.records == r2.records
    assert r1.to_dict() == r2.to_dict()


def test_bummerl_play():
    r = play_pair("heuristic", "random", games=4, seed=2, bummerl=True)
    assert r.bummerls == 4 and sum(r.bummerl_wins) == 4
    target = Rules.preset("schnapsen").bummerl_target
    for u in range(4):
        games = [g for g in r.records if g.unit == u]
        pts = [sum(g.game_points for g in games if g.winner == w) for w in (0, 1)]
        winner = 0 if pts[0] >= target else 1
        assert pts[winner] >= target and pts[1 - winner] < target
        assert [g.dealer for g in games] == [(games[0].dealer + i) % 2 for i in range(len(games))]
    assert r.games == len(r.records) >= 4 * 3  # at least 3 games (3 points at most each) per Bummerl
    assert r.to_dict()["bummerl_win_rate_ci"] == list(wilson_interval(r.bummerl_wins[0], 4))


# ------------------------------------------------------------------- files, CLI
def test_cli_writes_results(tmp_path, capsys):
    out = tmp_path / "arena"
    argv = "--agents random heuristic random:seed=3 --games 6 --seed 7 --workers 1 --no-progress --out"
    rc = main([*argv.split(), str(out)])
    assert rc == 0
    data = json.loads((out / "results.json").read_text())
    assert len(data["pairs"]) == 3
    for p in data["pairs"]:
        assert len(p["agents"]) == 2 and p["games"] == 6
        assert sum(p["wins"]) == 6 and len(p["mean_game_points"]) == 2
        lo, hi = p["win_rate_ci"]
        assert 0 <= lo <= p["win_rate"] <= hi <= 1
    assert [p["agents"] for p in data["pairs"]] == [
        ["random", "heuristic"],
        ["random", "random:seed=3"],
        ["heuristic", "random:seed=3"],
    ]
    assert set(data["ratings"]) == {"random", "heuristic", "random:seed=3"}
    for r in data["ratings"].values():
        assert set(r) == {"elo", "low", "high", "games"} and r["low"] <= r["elo"] <= r["high"]
    rows = list(csv.DictReader(open(out / "results.csv")))
    assert len(rows) == 3 and int(rows[0]["wins_a"]) + int(rows[0]["wins_b"]) == 6
    assert len(list(csv.DictReader(open(out / "games.csv")))) == 18
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "heuristic" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--agents", "random", "alphazero"], "unknown agent 'alphazero'"),
        (["--agents", "random"], "at least two agents with distinct names"),
        (["--agents", "random", "heuristic", "--games", "0"], "argument --games: expected a whole number >= 1, got 0"),
        (["--agents", "random", "heuristic", "--save-records", "x.json"], "the name must end in .jsonl"),
    ],
)
def test_cli_validation(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv + ["--no-progress"])
    assert e.value.code == 2
    assert words in capsys.readouterr().err


def test_workers_with_ppo_agents_do_not_deadlock_after_torch_ran_in_parent():
    """Regression: forked workers of a parent whose torch thread pool had run hung while
    building the PPO network; the arena now spawns its workers."""
    pytest.importorskip("torch")  # ppo agents need the [train] extra
    import subprocess
    import sys

    code = (
        "import torch; torch.manual_seed(0); (torch.randn(64, 64) @ torch.randn(64, 64)).sum()\n"
        "from agents.evaluation.arena import play_pair\n"
        "r2 = play_pair('ppo', 'random', games=8, seed=3, workers=2)\n"
        "r1 = play_pair('ppo', 'random', games=8, seed=3, workers=1)\n"
        "import json; print(json.dumps([r2.wins, r1.wins]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    wins_two_workers, wins_one_worker = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sum(wins_two_workers) == 8
    assert wins_two_workers == wins_one_worker


def test_odd_games_play_without_duplicate_deals():
    with pytest.raises(ValueError, match="games must be even with duplicate deals"):
        play_pair("random", "random", games=3, seed=1)
    assert play_pair("random", "random", games=3, seed=1, duplicate=False).games == 3


def test_long_names_keep_the_table_columns_and_ratings_are_best_first():
    names = ["random", "random:seed=12345678901234567890123"]
    report = round_robin(names, games=4, seed=1)
    lines = format_table(report).splitlines()
    end = lines[0].index("games") + len("games")
    assert lines[1][end - 2 : end + 1] == " 4 "  # the games column lines up under its head
    elos = [r["elo"] for r in report["ratings"].values()]
    assert elos == sorted(elos, reverse=True)


# ------------------------------------------------------------------- failures
#: an agent file, loaded as ``FILE.py:NAME`` (in worker processes too)
FAULTY_AGENTS = """
import os
import time

from agents.players.base import Agent


class Exits(Agent):
    def act(self, info):
        os._exit(3)


class Raises(Agent):
    def act(self, info):
        raise KeyError("no such card")


class Slow(Agent):
    def act(self, info):
        time.sleep(0.5)
        return info.legal_actions[0]
"""
#: seconds a test waits for a run before calling it hung
HANG = 120


@pytest.fixture
def faulty(tmp_path):
    path = tmp_path / "faulty.py"
    path.write_text(FAULTY_AGENTS)
    return str(path)


def _arena(*args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "agents.evaluation.arena", *args, "--no-progress"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=HANG)


def test_a_dead_worker_ends_the_run_in_one_line_naming_the_pair_and_games(faulty):
    proc = _arena("--agents", f"{faulty}:Exits", "random", "--games", "4", "--workers", "2")
    assert proc.returncode == 2
    prefix = f"python -m agents.evaluation.arena: error: {faulty}:Exits vs random, game"
    assert proc.stderr.startswith(prefix) and proc.stderr.count("\n") == 1
    assert ": a worker process died (exit code 3: out of memory, an abort or os._exit?)" in proc.stderr


def test_an_agent_exception_is_one_line_with_its_type_message_game_and_move(faulty, capsys):
    with pytest.raises(AgentError) as in_process:
        play_pair(f"{faulty}:Raises", "random", games=2, seed=1)
    message = str(in_process.value)
    assert message.startswith(f"agent '{faulty}:Raises' raised KeyError: 'no such card' in game 0 at move ")
    assert message.endswith(" of the game (the agent's move 1)")
    with pytest.raises(SystemExit) as exit_:
        main(
            ["--agents", f"{faulty}:Raises", "random", "--games", "2", "--seed", "1", "--workers", "2", "--no-progress"]
        )
    assert exit_.value.code == 2
    error = f"python -m agents.evaluation.arena: error: {faulty}:Raises vs random, game 0: {message}"
    assert capsys.readouterr().err == f"{error} (--traceback prints its traceback)\n"


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(child) for child in out.split()]


def test_sigterm_stops_the_arena_with_130_and_leaves_no_worker(faulty):
    argv = [sys.executable, "-m", "agents.evaluation.arena", "--agents", f"{faulty}:Slow", "random", "--workers", "2"]
    proc = subprocess.Popen([*argv, "--games", "40", "--no-progress"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG / 2
    workers = _children(proc.pid)
    while len(workers) < 3 and time.monotonic() < deadline:  # two workers and the resource tracker
        time.sleep(0.2)
        workers = _children(proc.pid)
    time.sleep(1)  # the workers are playing
    proc.terminate()
    assert proc.wait(HANG / 2) == 130
    assert proc.stderr.read() == "python -m agents.evaluation.arena: interrupted: no results written\n"
    deadline = time.monotonic() + HANG / 2
    while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(workers) >= 2
    assert [pid for pid in workers if os.path.exists(f"/proc/{pid}")] == []


@pytest.mark.parametrize("extra, code", [([], 2), (["--no-duplicate"], 0)])
def test_odd_games_are_refused_where_parsed_unless_no_duplicate(extra, code, tmp_path, capsys):
    # with duplicate deals (the default): one line naming what is allowed, before any agent or --out is made
    out = tmp_path / "out"
    argv = ["--agents", "random", "heuristic", "--games", "3", "--workers", "1", "--no-progress", *extra]
    if code:
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--out", str(out)])
        assert exit_.value.code == code and not out.exists()
        line = capsys.readouterr().err.splitlines()[-1]
        assert line.endswith(
            "error: argument --games: expected an even whole number >= 2 (duplicate deals play "
            "each deal twice), or any >= 1 with --no-duplicate, got 3"
        )
    else:
        assert main([*argv, "--out", str(out)]) == 0
        assert json.loads((out / "results.json").read_text())["pairs"][0]["games"] == 3


def test_a_failed_run_leaves_earlier_results_and_records_untouched(faulty, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("earlier results")
    (out / "r.jsonl").write_text("earlier records")
    argv = ["--agents", f"{faulty}:Raises", "random", "--games", "2", "--workers", "1", "--no-progress"]
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--out", str(out), "--save-records", str(out / "r.jsonl")])
    assert exit_.value.code == 2
    assert (out / "results.json").read_text() == "earlier results"
    assert (out / "r.jsonl").read_text() == "earlier records"
    assert sorted(os.listdir(out)) == ["agent_traceback.txt", "r.jsonl", "results.json"]  # the agent's, beside
    assert f"its traceback: {out / 'agent_traceback.txt'})" in capsys.readouterr().err


def test_a_result_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "results.json").mkdir(parents=True)  # os.replace cannot put a file there
    with pytest.raises(SystemExit) as exit_:
        main(["--agents", "random", "heuristic", "--games", "2", "--workers", "1", "--no-progress", "--out", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("python -m agents.evaluation.arena: error: [Errno 21] Is a directory") and err.count("\n") == 1
    )


@pytest.mark.parametrize("games", [0, -2])
def test_games_below_one_is_refused(games):
    with pytest.raises(ValueError, match=f"games must be >= 1, got {games}"):
        play_pair("random", "heuristic", games=games, seed=1)
    with pytest.raises(ValueError, match=f"games must be >= 1, got {games}"):
        round_robin(["random", "heuristic"], games=games, seed=1)


class Returns(Agent):
    """Returns its first legal action converted by ``convert`` (the action kept as ``first``)."""

    def __init__(self, convert, seed=None):
        super().__init__(seed)
        self.convert = convert
        self.name = "returns"
        self.first = None

    def act(self, info):
        self.first = info.legal_actions[0]
        return self.convert(self.first)


@pytest.mark.parametrize(
    "convert, type_name",
    [
        (float, "float"),
        (bool, "bool"),
        (lambda action: np.array([action]), "ndarray (dtype int64, shape (1,))"),
        (str, "str"),
    ],
)
def test_an_action_that_is_not_an_int_is_refused_naming_agent_game_move_value_and_type(convert, type_name):
    agent = Returns(convert)
    with pytest.raises(ValueError) as error:
        play_pair(agent, "random", games=2, seed=1)
    value = convert(agent.first)
    assert str(error.value).startswith(f"agent 'returns' returned {value!r} of type {type_name} in game 0 at move ")
    allowed = "an int, a numpy integer, or a 0-d integer numpy array or torch tensor"
    assert f" of the game (the agent's move 1), not an action id ({allowed}); legal were [" in str(error.value)


def test_numpy_integer_actions_play_like_ints():
    as_numpy = play_pair(Returns(np.int64), "random", games=4, seed=2)
    as_int = play_pair(Returns(int), "random", games=4, seed=2)
    assert as_numpy.records == as_int.records
