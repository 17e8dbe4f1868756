"""Records out: every game the env plays can be saved as a RULES §9 record that replays to its outcome."""

import io
import json
import random

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


def test_play_cli_saves_a_record_that_replays_to_the_outcome(tmp_path, capsys):
    from agents.apps.play import main

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
    from agents.evaluation.arena import main as arena_main

    path = tmp_path / "games.jsonl"
    out = tmp_path / "out"
    argv = "--agents random heuristic --games 10 --seed 4 --variant schnapsen-sharp --no-progress".split()
    assert arena_main([*argv, "--out", str(out), "--save-records", str(path)]) == 0
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
