"""benchmarks/ladder_calibration.py: the rung lists per version, a resumed calibration equal to an uninterrupted
one, and the requests it refuses (another run's --out, a published ladder file, an unknown version). The
rungs played here are cheap ones (random, heuristic, expert) at a few games a pair."""

import importlib.util
import json
import os
import pathlib
import signal
import sys

import pytest

from agents.evaluation.arena import play_pair

ROOT = pathlib.Path(__file__).resolve().parents[2]
_PATH = ROOT / "benchmarks" / "ladder_calibration.py"
sys.path.insert(0, str(_PATH.parent))  # the script's own import of _common
_spec = importlib.util.spec_from_file_location("ladder_calibration", _PATH)
calibration = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("ladder_calibration", calibration)  # NamedTuples need their module registered
_spec.loader.exec_module(calibration)

Rung = calibration.Rung
#: a version of cheap rungs for the tests: 3 pairs
CHEAP_VERSION = 9
CHEAP_RUNGS = (Rung(spec="random", seed=101), Rung(spec="heuristic", seed=102), Rung(spec="expert", seed=103))


@pytest.fixture
def cheap_rungs(monkeypatch):
    monkeypatch.setattr(calibration, "RUNGS", {**calibration.RUNGS, CHEAP_VERSION: CHEAP_RUNGS})


def _command(folder: pathlib.Path, *options: str) -> list[str]:
    """The script's arguments for the cheap version, 4 games a pair, in ``folder``."""
    out = ["--out", str(folder / "out"), "--ladder-file", str(folder / "ladder.json")]
    return ["--version", str(CHEAP_VERSION), "--games", "4", "--workers", "1", "--no-progress", *out, *options]


def _played_pairs(monkeypatch, stop_at: int | None = None) -> list[int]:
    """Record the pair index of every pair the round robin plays; SIGTERM (as ``kill PID``) when it reaches
    pair ``stop_at``."""
    played = []

    def play(*args, pair_index, **options):
        if pair_index == stop_at:
            os.kill(os.getpid(), signal.SIGTERM)
        played.append(pair_index)
        return play_pair(*args, pair_index=pair_index, **options)

    monkeypatch.setattr("agents.evaluation.arena.play_pair", play)
    return played


def _unprovenanced(ladder: dict) -> dict:
    """A ladder file without where and when it was calibrated."""
    timeless = {key: value for key, value in ladder["calibration"].items() if key not in ("measured", "provenance")}
    return {**ladder, "calibration": timeless}


def test_the_v1_rungs_are_the_shipped_ladders_and_v2_adds_search_on_top():
    shipped = json.loads((ROOT / "agents" / "evaluation" / "ladder_v1.json").read_text())
    assert calibration.RUNGS[1] == tuple(Rung(spec=rung["opponent"], seed=rung["seed"]) for rung in shipped["rungs"])
    assert calibration.RUNGS[2][:-1] == calibration.RUNGS[1]
    assert calibration.RUNGS[2][-1] == Rung(spec="search:leaf=rollout,iterations=80000", seed=107)


def test_a_resumed_calibration_writes_the_ladder_of_an_uninterrupted_one(cheap_rungs, tmp_path, monkeypatch, capsys):
    whole = tmp_path / "whole"
    parts = tmp_path / "parts"
    assert calibration.main(_command(whole)) == 0
    with monkeypatch.context() as patch:
        played = _played_pairs(patch, stop_at=1)
        assert calibration.main(_command(parts)) == 130
    assert played == [0]
    assert f"1 pairs kept in {parts / 'out' / 'pairs.json'}" in capsys.readouterr().err
    assert not (parts / "ladder.json").exists()
    with monkeypatch.context() as patch:
        played = _played_pairs(patch)
        assert calibration.main(_command(parts)) == 0
    assert played == [1, 2]
    assert "3 rungs, 3 pairs x 4 games = 12 games; 1 pairs kept" in capsys.readouterr().out
    resumed = json.loads((parts / "ladder.json").read_text())
    uninterrupted = json.loads((whole / "ladder.json").read_text())
    resumed_without_history = {**resumed, "calibration": dict(resumed["calibration"])}
    assert len(resumed_without_history["calibration"].pop("resumed")) == 1
    assert _unprovenanced(resumed_without_history) == _unprovenanced(uninterrupted)
    assert [rung["opponent"] for rung in resumed["rungs"]] == ["random", "heuristic", "expert"]
    assert resumed["rungs"][0]["rating"] == 0.0 and resumed["rungs"][2]["rating"] > 0
    for name in ("results.json", "games.csv"):
        assert (parts / "out" / name).read_text() == (whole / "out" / name).read_text()


def test_an_out_of_other_settings_is_refused_in_one_line(cheap_rungs, tmp_path, monkeypatch, capsys):
    assert calibration.main(_command(tmp_path)) == 0
    (tmp_path / "ladder.json").unlink()
    played = _played_pairs(monkeypatch)
    other = [option if option != "4" else "6" for option in _command(tmp_path)]
    with pytest.raises(SystemExit) as refused:
        calibration.main(other)
    error = capsys.readouterr().err
    assert refused.value.code == 2 and error.count("\n") == 1 and played == []
    held = "v9 (random, heuristic, expert) at --games 4, --seed 20261203"
    assert f"holds pairs of {held}, not v9 (random, heuristic, expert) at --games 6" in error


def test_an_existing_ladder_file_is_replaced_only_with_force(cheap_rungs, tmp_path, monkeypatch, capsys):
    shipped = ROOT / "agents" / "evaluation" / "ladder_v1.json"
    before = shipped.read_bytes()
    played = _played_pairs(monkeypatch)
    with pytest.raises(SystemExit) as refused:
        calibration.main(["--version", "1", "--games", "2", "--out", str(tmp_path / "v1")])
    error = capsys.readouterr().err
    assert refused.value.code == 2 and error.count("\n") == 1
    assert f"{shipped} exists: a published ladder is a fixed scale" in error
    assert shipped.read_bytes() == before and played == [] and not (tmp_path / "v1").exists()
    (tmp_path / "ladder.json").write_text("{}")
    with pytest.raises(SystemExit):
        calibration.main(_command(tmp_path))
    assert calibration.main(_command(tmp_path, "--force")) == 0
    assert json.loads((tmp_path / "ladder.json").read_text())["ladder_version"] == CHEAP_VERSION


def test_an_unknown_version_is_refused_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit) as refused:
        calibration.main(["--version", "7"])
    error = capsys.readouterr().err
    assert refused.value.code == 2 and "unknown ladder version 7: known versions are 1, 2" in error


def test_ray_with_workers_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as refused:
        calibration.main(["--ray", "--workers", "2"])
    error = capsys.readouterr().err
    assert refused.value.code == 2 and error.count("\n") == 1 and "--workers is for local processes" in error


@pytest.fixture
def kept_pairs(cheap_rungs, tmp_path, monkeypatch, capsys):
    """The pairs file of a calibration of the cheap rungs stopped at its second pair (pair 0 kept)."""
    with monkeypatch.context() as patch:
        _played_pairs(patch, stop_at=1)
        assert calibration.main(_command(tmp_path)) == 130
    capsys.readouterr()
    return tmp_path / "out" / "pairs.json"


def _wrong_index(kept):
    kept["pairs"]["1"] = kept["pairs"].pop("0")


def _stranger(kept):
    kept["pairs"]["0"]["agents"][1] = "pimc"


def _two_records_for_2000(kept):
    kept["games"] = 2000
    pair = kept["pairs"]["0"]
    pair.update(games=2000, wins=[1000, 1000])
    pair["records"] = pair["records"][:2]


@pytest.mark.parametrize(
    "edit, games, fault",
    [
        (_wrong_index, "4", "pairs.1.pair_index: 0, kept under 1"),
        (_stranger, "4", "pairs.0.agents: pimc: not a rung of v9"),
        (_two_records_for_2000, "2000", "pairs.0.records: 2 for 2000 games"),
    ],
)
def test_a_faulty_pairs_file_is_refused_in_one_line_naming_the_field(
    kept_pairs, monkeypatch, capsys, edit, games, fault
):
    """Edited or truncated by hand: one line naming the file and the field, exit 2, nothing played, the file
    byte for byte as it was."""
    kept = json.loads(kept_pairs.read_text())
    edit(kept)
    kept_pairs.write_text(json.dumps(kept) + "\n")
    before = kept_pairs.read_bytes()
    played = _played_pairs(monkeypatch)
    command = [games if option == "4" else option for option in _command(kept_pairs.parent.parent)]
    with pytest.raises(SystemExit) as refused:
        calibration.main(command)
    error = capsys.readouterr().err
    assert (refused.value.code, error) == (2, f"{calibration.build_parser().prog}: error: {kept_pairs}: {fault}\n")
    assert kept_pairs.read_bytes() == before and played == []


def test_a_second_calibration_on_one_out_is_refused_naming_the_first(cheap_rungs, tmp_path, monkeypatch, capsys):
    """While the first plays its second pair, the same command again is refused in one line naming the first's
    PID, the kept pair untouched; the first finishes."""
    pairs_file = tmp_path / "out" / "pairs.json"
    seen = []

    def play(*args, pair_index, **options):
        if pair_index == 1:
            kept = pairs_file.read_bytes()
            with pytest.raises(SystemExit) as refused:
                calibration.main(_command(tmp_path))
            seen.append((refused.value.code, capsys.readouterr().err, pairs_file.read_bytes() == kept))
        return play_pair(*args, pair_index=pair_index, **options)

    monkeypatch.setattr("agents.evaluation.arena.play_pair", play)
    assert calibration.main(_command(tmp_path)) == 0
    in_use = f"{tmp_path / 'out'} is in use by another calibration (PID {os.getpid()})"
    assert seen == [
        (2, f"{calibration.build_parser().prog}: error: {in_use}: wait for it to end, or choose another --out\n", True)
    ]
    assert json.loads((tmp_path / "ladder.json").read_text())["ladder_version"] == CHEAP_VERSION


def test_the_default_version_is_the_published_ladder(capsys):
    assert calibration.build_parser().parse_args([]).version == 1
    with pytest.raises(SystemExit) as refused:
        calibration.main([])
    error = capsys.readouterr().err
    assert refused.value.code == 2 and "ladder_v1.json exists: a published ladder is a fixed scale" in error
