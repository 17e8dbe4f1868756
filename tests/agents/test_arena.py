"""Arena: intervals against hand-computed values, derivable tournaments, duplicate seats,
worker independence, Bummerl play, results files and CLI validation."""

import csv
import json

import pytest

from agents.arena import deal_rng, format_table, main, play_pair, round_robin
from agents.base import Agent
from agents.stats import mean_interval, wilson_interval
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
    rc = main([*"--agents random heuristic random:seed=3 --games 6 --seed 7 --no-progress --out".split(), str(out)])
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
        "from agents.arena import play_pair\n"
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
