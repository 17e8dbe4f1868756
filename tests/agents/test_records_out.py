"""Records out: every game the env plays can be saved as a RULES §9 record that replays to its outcome."""

import io
import json
import random

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import PRESETS, schnapsen_v0
from schnapsen_env.replay import replay_record


def play(env, rng):
    for _ in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("variant", PRESETS)
def test_env_record_replays_to_the_outcome(variant):
    env = schnapsen_v0.env(variant=variant)
    rng = random.Random(0)
    for seed in range(15):
        env.reset(seed=seed)
        play(env, rng)
        record = env.unwrapped.record()
        assert set(record) == {"variant", "options", "dealer", "deck", "actions"}
        assert record["variant"] == variant and record["options"] == {}
        result = replay_record(json.loads(json.dumps(record)))
        assert result == env.unwrapped.last_outcome.to_dict() | {"finished": True}


def test_record_mid_game_replays_to_the_same_position():
    env = schnapsen_v0.env(variant="schnapsen", closing_counts_later_eyes=True)
    env.reset(seed=4)
    rng = random.Random(1)
    for _ in range(7):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    record = env.unwrapped.record()
    assert record["options"] == {"closing_counts_later_eyes": True}
    result = replay_record(record)
    assert result["finished"] is False and result["to_move"] == env.unwrapped.game.current_player
    assert result["tricks"] == list(env.unwrapped.game.tricks_won)


def test_bummerl_episode_records_every_game():
    env = schnapsen_v0.env(episode="bummerl", bummerl_target=3)
    env.reset(seed=2)
    play(env, random.Random(2))
    records = env.unwrapped.episode_records()
    outcomes = env.unwrapped.bummerl.games
    assert len(records) == len(outcomes) >= 1
    for rec, out in zip(records, outcomes, strict=True):
        assert replay_record(rec) == out.to_dict() | {"finished": True}
    # the dealer alternates from game to game
    assert [r["dealer"] for r in records] == [(records[0]["dealer"] + k) % 2 for k in range(len(records))]


def test_gym_view_record_replays_to_the_outcome():
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="heuristic", seat="random")
    obs, info = env.reset(seed=9)
    rng = random.Random(3)
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert replay_record(env.unwrapped.record()) == info["outcome"] | {"finished": True}


def test_play_cli_saves_a_record_that_replays_to_the_outcome(tmp_path, capsys):
    from agents.play import main

    path = tmp_path / "game.json"
    out = io.StringIO()
    rc = main(["--opponent", "random", "--seed", "5", "--save-record", str(path)], inp=io.StringIO("1\n" * 60), out=out)
    assert rc == 0
    record = json.loads(path.read_text())
    result = replay_record(record)
    assert result["finished"] is True
    assert f"wins {result['game_points']} game point(s) ({result['reason']})" in out.getvalue()
    # the replay CLI reads the saved file
    from schnapsen_env.replay import main as replay_main

    assert replay_main([str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == result


def test_play_cli_saves_an_abandoned_game_too(tmp_path):
    from agents.play import main

    path = tmp_path / "game.json"
    assert (
        main(
            ["--opponent", "random", "--seed", "5", "--save-record", str(path)],
            inp=io.StringIO("1\nquit\n"),
            out=io.StringIO(),
        )
        == 1
    )
    result = replay_record(json.loads(path.read_text()))
    assert result["finished"] is False and len(json.loads(path.read_text())["actions"]) >= 1


def test_a_renonce_is_recorded_with_its_illegal_action():
    env = schnapsen_v0.env()
    env.reset(seed=0)
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    illegal = next(a for a in range(31) if a not in legal)
    env.step(illegal)
    assert env.unwrapped.last_outcome.reason == "renonce"
    record = env.unwrapped.record()
    from schnapsen_env.actions import action_to_str

    assert record["actions"] == [action_to_str(illegal)]
    result = replay_record(record)
    assert result["error"] == "illegal_action" and result["index"] == 0


def test_bummerl_renonce_games_keep_their_illegal_action():
    env = schnapsen_v0.env(episode="bummerl", bummerl_target=3)
    env.reset(seed=1)
    rng = random.Random(4)
    for _ in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)) if rng.random() < 0.9 else next(a for a in range(31) if a not in legal))
    outcomes = env.unwrapped.bummerl.games
    records = env.unwrapped.episode_records()
    assert any(o.reason == "renonce" for o in outcomes)
    for rec, out in zip(records, outcomes, strict=True):
        result = replay_record(rec)
        if out.reason == "renonce":
            assert result["error"] == "illegal_action" and result["index"] == len(rec["actions"]) - 1
        else:
            assert result == out.to_dict() | {"finished": True}


def test_arena_saves_records_that_replay_to_every_game(tmp_path, capsys):
    from agents.arena import main as arena_main

    path = tmp_path / "games.jsonl"
    out = tmp_path / "out"
    assert (
        arena_main(
            [
                "--agents",
                "random",
                "heuristic",
                "--games",
                "10",
                "--seed",
                "4",
                "--variant",
                "schnapsen-sharp",
                "--no-progress",
                "--out",
                str(out),
                "--save-records",
                str(path),
            ]
        )
        == 0
    )
    assert "wrote 10 records to" in capsys.readouterr().out
    lines = path.read_text().splitlines()
    import csv

    with open(out / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(lines) == len(rows) == 10
    for line, row in zip(lines, rows, strict=True):
        record = json.loads(line)
        assert record["variant"] == "schnapsen-sharp" and int(row["dealer"]) == record["dealer"]
        result = replay_record(record)
        assert result["finished"] is True and result["reason"] == row["reason"]
        assert result["game_points"] == int(row["game_points"])
        winner_seat = result["winner"]
        seat_a = int(row["seat_a"])
        assert row["winner"] == (row["agent_a"] if winner_seat == seat_a else row["agent_b"])


def test_arena_bummerl_records_every_game(tmp_path):
    from agents.arena import main as arena_main

    path = tmp_path / "games.jsonl"
    assert (
        arena_main(
            [
                "--agents",
                "random",
                "heuristic",
                "--games",
                "2",
                "--bummerl",
                "--no-progress",
                "--save-records",
                str(path),
            ]
        )
        == 0
    )
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) >= 2 * 3  # a Bummerl to 7 takes at least three games
    assert all(replay_record(r)["finished"] for r in records)


@pytest.mark.parametrize(
    "where,message",
    [
        ("missing/g.jsonl", "No such file or directory"),
        ("dir.jsonl", "Is a directory"),
        # JSON lines: a .json name would not replay, and results.json is a file --out writes
        ("results.json", "the name must end in .jsonl"),
        ("file.jsonl/g.jsonl", "Not a directory"),
    ],
)
def test_arena_checks_the_records_path_before_playing(tmp_path, capsys, monkeypatch, where, message):
    import agents.arena as arena

    (tmp_path / "dir.jsonl").mkdir()
    (tmp_path / "file.jsonl").write_text("{}")
    played = []
    monkeypatch.setattr(arena, "round_robin", lambda *a, **k: played.append(a))
    with pytest.raises(SystemExit) as e:
        arena.main(
            [
                "--agents",
                "random",
                "heuristic",
                "--games",
                "2",
                "--no-progress",
                "--save-records",
                str(tmp_path / where),
            ]
        )
    assert e.value.code == 2 and played == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
