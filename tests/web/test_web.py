"""The web app of ``python -m agents.apps.web`` through Flask's test client: every endpoint, bad input
(a JSON 4xx error and nothing changed), games that do not interfere, seeds, and no hidden
information in any response (RULES §8)."""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web app needs Flask: pip install -e '.[web]'")

from agents.apps.web.__main__ import main as web_main  # noqa: E402
from agents.apps.web.app import MAX_BODY, MAX_RECORDS, MAX_SEED, MAX_WEB_SAMPLES, create_app  # noqa: E402
from schnapsen_env.cards import parse_card  # noqa: E402
from schnapsen_env.engine import GameState  # noqa: E402
from schnapsen_env.match import Bummerl  # noqa: E402
from schnapsen_env.replay import replay_json  # noqa: E402
from schnapsen_env.rules import VARIANTS, Rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "cases"
CASE = CASES / "close-02-wins-3-though-opponent-wins-later.json"


@pytest.fixture
def app():
    return create_app(opponent="random", variant="schnapsen")


@pytest.fixture
def client(app):
    return app.test_client()


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def first_legal(view) -> int:
    return view["legal"][0]["id"]


def play_out(client, game_id: str, view: dict, limit: int = 100) -> dict:
    for _ in range(limit):
        if view["outcome"]:
            return view
        r = client.post(f"/api/games/{game_id}/action", json={"action": first_legal(view)})
        assert r.status_code == 200, r.json
        view = r.json["steps"][-1]
    raise AssertionError("the game did not end")


def assert_error(r, status: int, code: str | None = None):
    assert r.status_code == status, (r.status_code, r.data[:300])
    assert r.is_json and set(r.json) >= {"error", "message"} and r.json["message"], r.data[:300]
    if code:
        assert r.json["error"] == code, r.json


def without_ids(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "game_id"}


# ------------------------------------------------------------------ pages and config
def test_pages_static_files_and_config(client):
    for url, needle in [
        ("/", b"New game"),
        ("/replay", b"replay-file"),
        ("/arena", b"/api/arena"),
        ("/static/play.js", b"playSteps"),
        ("/static/common.js", b"cardEl"),
        ("/static/style.css", b".card"),
    ]:
        r = client.get(url)
        assert r.status_code == 200 and needle in r.data, url
    assert_error(client.get("/static/nope.js"), 404, "not_found")
    assert_error(client.delete("/api/games"), 405, "method_not_allowed")
    for url in ("/api/replay/file", "/api/arena", "/api/arena/ratings.png"):  # no --replay, no --arena
        assert_error(client.get(url), 404, "not_found")
    c = client.get("/api/config").json
    assert c["variants"] == list(VARIANTS) and "pimc" in c["agents"] and c["checkpoints"] == []
    assert c["opponent"] == "random" and c["variant"] == "schnapsen"
    assert c["replay_file"] is None and c["arena"] is False


# ------------------------------------------------------------------ playing
def test_new_game_view_is_the_players_information(client):
    g = new_game(client, seed=3)
    v = g["steps"][-1]
    assert v["seat"] == 0 and v["seed"] == "3" and v["game_number"] == 1
    state = GameState.from_seed(Rules.preset("schnapsen"), seed=3)
    if v["last"] is None:  # the player leads: nothing has been played
        assert [c["id"] for c in v["hand"]] == [c for c in range(24) if state.hands[0] >> c & 1]
    assert v["trump_card"]["id"] == state.trump_card and v["dealer"] == state.dealer
    assert v["talon_size"] == 9 and v["opponent_hand_size"] == 5 - (v["last"] is not None)
    assert v["eyes"] == [0, 0] and v["bummerl"]["scores"] == [0, 0] and v["outcome"] is None
    assert all(set(a) == {"id", "text", "label", "player"} for a in v["legal"])
    assert all(c["name"].count(" of ") == 1 for c in v["hand"])
    assert "seed" not in json.dumps(new_game(client))  # a seed the user did not give is never sent


def test_a_bummerl_to_its_end(client):
    g = new_game(client, seed=1, opponent="heuristic")
    gid, v = g["game_id"], g["steps"][-1]
    for number in range(1, 30):
        assert v["game_number"] == number and v["outcome"] is None
        assert_error(client.post(f"/api/games/{gid}/next", json={}), 409, "no_next_game")
        scores = v["bummerl"]["scores"]
        v = play_out(client, gid, v)
        o = v["outcome"]
        assert o["explanation"] and o["reason_text"] and o["reason"] in ("declared_66", "last_trick", "closing_failed")
        assert v["bummerl"]["scores"][o["winner"]] == scores[o["winner"]] + o["game_points"]
        # a finished game takes no action and stays as it is
        assert_error(client.post(f"/api/games/{gid}/action", json={"action": 0}), 400, "illegal_action")
        assert client.get(f"/api/games/{gid}").json == v
        if v["bummerl"]["winner"] is not None:
            break
        dealer = v["dealer"]
        v = client.post(f"/api/games/{gid}/next", json={}).json["steps"][-1]
        assert (
            v["dealer"] == 1 - dealer
            and v["bummerl"]["scores"] == client.get(f"/api/games/{gid}").json["bummerl"]["scores"]
        )
    assert max(v["bummerl"]["scores"]) >= 7 and v["bummerl"]["value"] in (1, 2)
    r = client.post(f"/api/games/{gid}/next", json={})
    assert_error(r, 409, "no_next_game")
    assert "Bummerl is over" in r.json["message"]


def test_same_seed_same_game_and_games_do_not_interfere(client):
    a, b = new_game(client, seed=42, seat=1), new_game(client, seed=42, seat=1)
    assert without_ids(a) == without_ids(b) != without_ids(new_game(client, seed=43, seat=1))
    va, vb = a["steps"][-1], b["steps"][-1]
    while not va["outcome"]:  # moves in game a leave game b as it was
        b_before = client.get(f"/api/games/{b['game_id']}").json
        ra = client.post(f"/api/games/{a['game_id']}/action", json={"action": first_legal(va)}).json
        assert client.get(f"/api/games/{b['game_id']}").json == b_before
        rb = client.post(f"/api/games/{b['game_id']}/action", json={"action": first_legal(vb)}).json
        assert without_ids(ra) == without_ids(rb)
        va, vb = ra["steps"][-1], rb["steps"][-1]


def test_actions_by_text_and_bad_actions_change_nothing(client):
    g = new_game(client, seed=9)
    gid, v = g["game_id"], g["steps"][-1]
    not_held = next(c for c in range(20) if c not in {c["id"] for c in v["hand"]})
    before = client.get(f"/api/games/{gid}").json
    for body, code in [
        ({"action": not_held}, "illegal_action"),
        ({"action": "declare"}, "illegal_action"),
        ({"action": 31}, "illegal_action"),
        ({"action": -1}, "illegal_action"),
        ({"action": None}, "bad_action"),
        ({"action": "play XX"}, "bad_action"),
        ({}, "bad_action"),
        ([1], "bad_json"),
    ]:
        assert_error(client.post(f"/api/games/{gid}/action", json=body), 400, code)
    assert client.get(f"/api/games/{gid}").json == before
    text = v["legal"][0]["text"]  # the RULES §9 text of a legal action
    r = client.post(f"/api/games/{gid}/action", json={"action": text})
    assert r.status_code == 200 and r.json["steps"][0]["last"]["text"] == text


@pytest.mark.parametrize(
    "body,code",
    [
        ({"opponent": "nobody"}, "bad_opponent"),
        ({"opponent": "pimc:samples=x"}, "bad_opponent"),
        ({"opponent": 3}, "bad_opponent"),
        ({"opponent": "agents.players.heuristic:HeuristicAgent"}, "bad_opponent"),  # no code is imported over HTTP
        ({"opponent": f"pimc:samples={MAX_WEB_SAMPLES + 1}"}, "bad_opponent"),
        ({"variant": "skat"}, "bad_variant"),
        ({"seed": -1}, "bad_seed"),
        ({"seed": "abc"}, "bad_seed"),
        ({"seed": 1.5}, "bad_seed"),
        ({"seed": MAX_SEED + 1}, "bad_seed"),
        ({"seed": str(10**35)}, "bad_seed"),
        ({"seat": 2}, "bad_seat"),
        ({"colour": "red"}, "bad_request"),
    ],
)
def test_new_game_bad_input(app, client, body, code):
    r = client.post("/api/games", json=body)
    assert_error(r, 400, code)
    assert list(body)[0] in r.json["message"]  # names the key
    assert len(app.extensions["schnapsen_web_games"]) == 0


def test_seeds_up_to_2_63_minus_1_are_sent_back_as_strings(client):
    a, b = new_game(client, seed=MAX_SEED), new_game(client, seed=str(MAX_SEED))
    assert a["steps"][-1]["seed"] == b["steps"][-1]["seed"] == str(MAX_SEED) == str(2**63 - 1)
    assert a["steps"][-1]["hand"] == b["steps"][-1]["hand"]


def test_unknown_game_id(client):
    for r in (
        client.get("/api/games/nope"),
        client.post("/api/games/nope/action", json={"action": 0}),
        client.post("/api/games/nope/next", json={}),
    ):
        assert_error(r, 404, "unknown_game")


def test_opponent_specs_and_variants(client):
    for spec in ("heuristic", "pimc:samples=4", "random:seed=3", f"pimc:samples={MAX_WEB_SAMPLES}"):
        assert new_game(client, opponent=spec, seed=2, seat=1)["steps"][-1]["opponent"] == spec
    for variant in VARIANTS:
        if variant == "vu-course":
            continue
        v = new_game(client, variant=variant, seed=4)["steps"][-1]
        assert v["variant"] == variant and len(v["hand"]) == Rules.preset(variant).hand_size
        assert (v["eyes"] is None) == (not Rules.preset(variant).show_eyes)


def test_checkpoints_over_http_only_from_the_checkpoints_folder(tmp_path):
    pytest.importorskip("torch")
    folder = ROOT / "agents" / "players" / "checkpoints"
    c = create_app(checkpoints=str(folder)).test_client()
    assert c.get("/api/config").json["checkpoints"] == [f"ppo:{p.name}" for p in sorted(folder.glob("*.pt"))]
    assert (
        new_game(c, opponent="ppo:ppo_default.pt", seed=1)["steps"][-1]["opponent"]
        == f"ppo:{folder / 'ppo_default.pt'}"
    )
    (tmp_path / "outside.pt").write_bytes(b"x")
    messages = set()
    for spec in [
        "ppo:../checkpoints/../../README.md",
        f"ppo:{folder / 'ppo_default.pt'}",
        "ppo:missing.pt",
        f"ppo:path={tmp_path / 'outside.pt'}",
        "rllib:/etc",
        f"sb3:{tmp_path / 'outside.pt'}",  # SB3 unpickles its zip: no file over HTTP
    ]:
        r = c.post("/api/games", json={"opponent": spec})
        assert_error(r, 400, "bad_opponent")
        messages.add(r.json["message"].replace(repr(spec), "SPEC"))
    assert len(messages) == 1 and "--checkpoints" in messages.pop()
    plain = create_app().test_client()  # no --checkpoints: no path at all
    assert_error(plain.post("/api/games", json={"opponent": "ppo:ppo_default.pt"}), 400, "bad_opponent")
    # the command line takes a checkpoint path, and a request may name that default
    c = create_app(opponent=str(folder / "ppo_default.pt")).test_client()
    default = c.get("/api/config").json["opponent"]
    assert default == f"ppo:{folder / 'ppo_default.pt'}"
    assert new_game(c, opponent=default, seed=1)["steps"][-1]["opponent"] == default


def test_an_opponent_that_cannot_play_the_variant_is_refused_at_creation(app, client):
    pytest.importorskip("schnapsen", reason="vu:* agents need the PyPI schnapsen package")
    r = client.post("/api/games", json={"opponent": "vu:rand", "variant": "schnapsen"})
    assert_error(r, 400, "bad_opponent")
    assert "vu-course" in r.json["message"] and not app.extensions["schnapsen_web_games"]
    v = new_game(client, opponent="vu:rand", variant="vu-course", seed=1, seat=1)["steps"][-1]
    assert v["current_player"] == 1 or v["outcome"]


def test_a_failing_opponent_leaves_the_game_unchanged(app, client):
    gid = new_game(client, seed=8)["game_id"]
    before = client.get(f"/api/games/{gid}").json

    def broken(info):
        raise RuntimeError("boom")

    app.extensions["schnapsen_web_games"][gid].opponent.act = broken
    r = client.post(f"/api/games/{gid}/action", json={"action": first_legal(before)})
    assert_error(r, 400, "opponent_failed")
    assert "boom" in r.json["message"] and client.get(f"/api/games/{gid}").json == before


def test_the_least_recently_used_game_is_dropped(app, client, monkeypatch):
    import agents.apps.web.app as web_app

    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    first, second = new_game(client, seed=1)["game_id"], new_game(client, seed=2)["game_id"]
    assert client.get(f"/api/games/{first}").status_code == 200  # first is now used more recently than second
    third = new_game(client, seed=3)["game_id"]
    assert list(app.extensions["schnapsen_web_games"]) == [first, third]
    r = client.get(f"/api/games/{second}")
    assert_error(r, 404, "unknown_game")
    assert "at most 2" in r.json["message"]


# ------------------------------------------------------------------ no hidden information
def test_responses_hold_no_hidden_card(app, client):
    for seed in range(6):
        g = new_game(client, seed=seed, opponent="heuristic", variant=VARIANTS[seed % 4], seat=seed % 2)
        gid, s, v = g["game_id"], app.extensions["schnapsen_web_games"][g["game_id"]], g["steps"][-1]
        while not v["outcome"]:
            text = client.post(f"/api/games/{gid}/action", json={"action": first_legal(v)}).get_data(as_text=True)
            unseen = s.state.information_set(s.seat).unseen
            for code in re.findall(r'"code": ?"(\w+)"', text):
                assert not unseen >> parse_card(code, s.rules.deck) & 1, f"hidden card {code} sent"
            assert not re.search(r'"(deck|talon|hands)"', text)
            v = json.loads(text)["steps"][-1]
        if not Rules.preset(s.variant).show_eyes:
            assert v["eyes"] is None and v["held_marriage_eyes"] is None


def test_the_talon_order_is_not_sent(app, client):
    """Two deals differing in the order of the last two talon cards answer alike until one of them is drawn."""
    rules = Rules.preset("schnapsen")
    deck = list(GameState.from_seed(rules, seed=12).deck[:20])
    late = GameState(rules, deck, 1).talon[-2:]
    swapped = [{late[0]: late[1], late[1]: late[0]}.get(c, c) for c in deck]
    ids, sessions = [], []
    for d in (deck, swapped):  # the player (seat 0) is forehand: dealer 1
        gid = new_game(client, seed=0, opponent="heuristic")["game_id"]
        s = app.extensions["schnapsen_web_games"][gid]
        s.state, s.bummerl = GameState(rules, d, 1), Bummerl(rules, 1)
        s.reset_opponent()
        ids.append(gid)
        sessions.append(s)
    v = client.get(f"/api/games/{ids[0]}").json
    assert v == client.get(f"/api/games/{ids[1]}").json
    compared = 0
    while not v["outcome"]:
        ra, rb = (client.post(f"/api/games/{gid}/action", json={"action": first_legal(v)}).json for gid in ids)
        if any(c not in s.state.talon[s.state.talon_pos :] for s in sessions for c in late):
            break  # drawn
        assert ra == rb
        v, compared = ra["steps"][-1], compared + 1
    assert compared >= 3


# ------------------------------------------------------------------ replay
def case_text(path=CASE) -> str:
    return path.read_text(encoding="utf-8")


def test_replay_json_text_frames_and_cli_line(client):
    r = client.post("/api/replay", json={"text": case_text()})
    assert r.status_code == 200
    (rec,) = r.json["records"]
    expected = json.loads(CASE.with_name(CASE.name.replace(".json", ".expected.json")).read_text())
    assert rec["result"] == expected and json.loads(rec["line"]) == expected
    record = json.loads(case_text())
    assert len(rec["frames"]) == len(record["actions"]) + 1
    first = rec["frames"][0]
    assert len(first["hands"][0]) == len(first["hands"][1]) == 5 and first["action"] is None
    assert len(first["talon"]) == first["talon_size"] == 9
    assert [f["action"]["text"] for f in rec["frames"][1:]] == record["actions"]
    assert rec["frames"][-1]["outcome"]["winner"] == expected["winner"]
    assert rec["frames"][-1]["outcome"]["explanation"].startswith(("Player 0", "Player 1", "Nobody"))


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json"))[::9], ids=lambda p: p.stem)
def test_replay_agrees_with_the_cli_on_rule_cases(client, path):
    path = path.with_name(path.name.replace(".expected.json", ".json"))
    r = client.post("/api/replay", json={"text": path.read_text(encoding="utf-8"), "name": path.name})
    assert r.json["records"][0]["result"] == replay_json(path.read_bytes())
    assert r.status_code in (200, 400)


def test_replay_jsonl_upload_with_a_bad_line(client):
    good = json.loads(case_text())
    illegal = dict(good, actions=good["actions"] + ["play AC"])
    lines = [json.dumps(good), "", "  \r", "{not json", json.dumps(illegal)]
    r = client.post("/api/replay", json={"text": "\n".join(lines) + "\n", "name": "games.jsonl"})
    assert r.status_code == 200
    recs = r.json["records"]
    assert [set(x) for x in recs] == [{"result", "line"}] * 3  # the result lines only
    assert recs[0]["result"]["finished"] is True
    assert recs[1]["line"] == json.dumps(replay_json(b"{not json"))
    assert recs[2]["result"]["error"] == "illegal_action" and recs[2]["result"]["index"] == len(good["actions"])
    # the viewer asks for a record's frames by sending its line as a .json
    (one,) = client.post("/api/replay", json={"text": lines[4], "name": "record.json"}).json["records"]
    assert one["result"] == recs[2]["result"]
    assert len(one["frames"]) == len(good["actions"]) + 1 and one["failed_action"]["text"] == "play AC"


@pytest.mark.parametrize(
    "text,name",
    [
        ("", "x.json"),
        ("{", "x.json"),
        ("[]", "x.json"),
        ('{"deck": ["AH"], "dealer": 0}', "x.json"),
        ("NaN", "x.json"),
        ("\n \n", "x.jsonl"),
    ],
)
def test_replay_invalid_record_is_a_400_with_the_cli_text(client, text, name):
    r = client.post("/api/replay", json={"text": text, "name": name})
    assert_error(r, 400, "invalid_record")
    expected = replay_json(text.strip())
    assert r.json["message"] == expected["message"] and r.json["records"][0]["line"] == json.dumps(expected)


def test_replay_bad_requests(client):
    assert_error(client.post("/api/replay", json={}), 400, "bad_text")
    assert_error(client.post("/api/replay", json={"text": 3}), 400, "bad_text")
    assert_error(client.post("/api/replay", json={"text": "{}", "name": 3}), 400, "bad_name")


def test_replay_at_its_limits(client):
    line = json.dumps(json.loads(case_text()))
    r = client.post("/api/replay", json={"text": "\n".join([line] * MAX_RECORDS), "name": "g.jsonl"})
    assert r.status_code == 200 and len(r.json["records"]) == MAX_RECORDS
    assert "frames" not in r.get_data(as_text=True) and len(r.data) < 250 * MAX_RECORDS  # result lines only
    r = client.post("/api/replay", json={"text": "\n".join([line] * (MAX_RECORDS + 1)), "name": "g.jsonl"})
    assert_error(r, 413, "too_many_records")
    assert f"at most {MAX_RECORDS}" in r.json["message"]
    assert_error(client.post("/api/replay", data=b" " * (MAX_BODY + 1), content_type="application/json"), 413)


def test_replay_file_from_the_command_line(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_text(case_text().strip() + "\n" + case_text().strip() + "\n")
    c = create_app(replay=str(path)).test_client()
    assert c.get("/api/config").json["replay_file"] == "two.jsonl"
    r = c.get("/api/replay/file")
    assert r.status_code == 200 and r.get_data(as_text=True) == path.read_text()


# ------------------------------------------------------------------ arena
def test_arena_results(tmp_path):
    out = tmp_path / "arena"
    cmd = [
        sys.executable,
        "-m",
        "agents.evaluation.arena",
        "--agents",
        "random",
        "heuristic",
        "--games",
        "4",
        "--seed",
        "1",
    ]
    subprocess.run([*cmd, "--workers", "1", "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
    c = create_app(arena=str(out)).test_client()
    assert c.get("/api/config").json["arena"] is True
    d = c.get("/api/arena").json
    assert d["results"]["games_per_pair"] == 4
    assert d["table"]["header"][:2] == ["agent_a", "agent_b"] and d["table"]["rows"][0][:2] == ["random", "heuristic"]
    assert {row[0] for row in d["ratings"]["rows"]} == {"random", "heuristic"} and d["has_plot"]
    png = c.get("/api/arena/ratings.png")
    assert png.status_code == 200 and png.data[:8] == b"\x89PNG\r\n\x1a\n"


def test_arena_files_that_do_not_parse(tmp_path):
    (tmp_path / "ratings.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    r = create_app(arena=str(tmp_path)).test_client().get("/api/arena")
    assert_error(r, 422, "bad_arena_file")
    assert "ratings.csv" in r.json["message"]
    (tmp_path / "ratings.csv").unlink()
    (tmp_path / "results.json").write_text('{"elo": NaN}')  # sent as null: the browser's JSON has no NaN
    assert create_app(arena=str(tmp_path)).test_client().get("/api/arena").get_data(as_text=True).count("null") >= 1


# ------------------------------------------------------------------ the command line
def test_create_app_refuses_bad_arguments(tmp_path):
    for kwargs, words in (
        ({"opponent": "nobody"}, "unknown agent"),
        ({"opponent": f"pimc:samples={MAX_WEB_SAMPLES + 1}"}, str(MAX_WEB_SAMPLES)),
        ({"variant": "skat"}, "skat"),
        ({"replay": str(tmp_path / "missing.json")}, "--replay"),
        ({"arena": str(tmp_path / "none")}, "--arena"),
        ({"arena": str(tmp_path)}, "--arena"),
        ({"checkpoints": str(tmp_path / "none")}, "--checkpoints"),
    ):
        with pytest.raises(ValueError, match=words):
            create_app(**kwargs)


@pytest.mark.parametrize("argv", [["--variant", "skat"], ["--port", "65536"], ["--port", "-1"], ["--port", "http"]])
def test_cli_refuses_bad_options(capsys, argv):
    with pytest.raises(SystemExit) as e:
        web_main(argv)
    assert e.value.code == 2 and argv[1] in capsys.readouterr().err


def test_cli_bad_arguments_are_one_line_before_the_banner(capsys):
    assert web_main(["--opponent", "nobody"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "unknown agent 'nobody'" in err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        assert web_main(["--port", str(busy.getsockname()[1])]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("error: cannot listen on")
    assert web_main(["--host", "no-such-host.invalid", "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no-such-host.invalid" in err


# ------------------------------------------------------------------ the HTTP boundary
def test_posts_that_are_not_json_are_refused_everywhere(app, client):
    gid = new_game(client, seed=4)["game_id"]
    before = client.get(f"/api/games/{gid}").json
    for url in ("/api/games", f"/api/games/{gid}/action", f"/api/games/{gid}/next", "/api/replay"):
        for kwargs in (
            {"data": '{"action": 0, "text": "{}"}', "content_type": "text/plain"},
            {"data": '{"action": 0, "text": "{}"}'},  # no Content-Type
            {"data": "seed=5", "content_type": "application/x-www-form-urlencoded"},
            {"data": {"file": (io.BytesIO(b"{}"), "x.json")}, "content_type": "multipart/form-data"},
        ):
            assert_error(client.post(url, **kwargs), 415, "not_json")
        for data in (b"\x00garbage", b"{not json", b"[1, 2]"):
            assert_error(client.post(url, data=data, content_type="application/json"), 400, "bad_json")
    assert len(app.extensions["schnapsen_web_games"]) == 1
    assert client.get(f"/api/games/{gid}").json == before


def test_posts_from_another_origin_are_refused(app, client):
    gid = new_game(client, seed=4)["game_id"]
    before = client.get(f"/api/games/{gid}").json
    foreign = [
        {"Origin": "http://attacker.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:9999"},
        {"Referer": "http://attacker.example/page.html"},
    ]
    for headers in foreign:
        for url, body in (
            ("/api/games", {}),
            (f"/api/games/{gid}/action", {"action": first_legal(before)}),
            (f"/api/games/{gid}/next", {}),
            ("/api/replay", {"text": case_text()}),
        ):
            assert_error(client.post(url, json=body, headers=headers), 403, "foreign_origin")
    assert len(app.extensions["schnapsen_web_games"]) == 1
    assert client.get(f"/api/games/{gid}").json == before
    # the server's own pages
    for headers in ({"Origin": "http://localhost"}, {"Referer": "http://localhost/?seed=3"}):
        assert client.post("/api/games", json={}, headers=headers).status_code == 201


def test_only_the_servers_own_hosts_are_answered(tmp_path):
    replay = tmp_path / "r.json"
    replay.write_text(case_text())
    (tmp_path / "results.csv").write_text("agent_a,agent_b\n")
    c = create_app(replay=str(replay), arena=str(tmp_path), host="192.168.1.5").test_client()
    gid = new_game(c, seed=1)["game_id"]
    for host in ("attacker.example:8000", "attacker.example", "127.0.0.1.attacker.example", "10.0.0.1:8000"):
        for url in ("/", f"/api/games/{gid}", "/api/replay/file", "/api/arena", "/api/config"):
            assert_error(c.get(url, headers={"Host": host}), 400, "bad_host")
        assert_error(c.post("/api/games", json={}, headers={"Host": host}), 400, "bad_host")
    for host in ("127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]:8000", "192.168.1.5:8000"):
        assert c.get(f"/api/games/{gid}", headers={"Host": host}).status_code == 200
    assert create_app(host="::1").test_client().get("/", headers={"Host": "[::1]:8000"}).status_code == 200


def test_unknown_keys_are_named_on_every_post(client):
    gid = new_game(client, seed=4)["game_id"]
    legal = client.get(f"/api/games/{gid}").json["legal"][0]["id"]
    for url, body in (
        (f"/api/games/{gid}/action", {"action": legal, "sneaky": 1}),
        (f"/api/games/{gid}/next", {"sneaky": 1}),
        ("/api/replay", {"text": "{}", "sneaky": 1}),
        ("/api/games", {"sneaky": 1}),
    ):
        r = client.post(url, json=body)
        assert_error(r, 400, "bad_request")
        assert "'sneaky'" in r.json["message"]
    # an empty JSON body is {}
    assert_error(client.post(f"/api/games/{gid}/next", content_type="application/json"), 409, "no_next_game")


def test_command_line_user_agent_is_in_the_agent_list_and_plays():
    app = create_app(opponent="agents.players.heuristic:HeuristicAgent")
    client = app.test_client()
    assert client.get("/api/config").json["agents"][-1] == "agents.players.heuristic:HeuristicAgent"
    r = client.post("/api/games", json={"opponent": "agents.players.heuristic:HeuristicAgent", "seed": 1})
    assert r.status_code == 201 and r.json["steps"][-1]["opponent"] == "agents.players.heuristic:HeuristicAgent"
