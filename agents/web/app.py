"""The Flask application of ``python -m agents.web``: play, replay and arena results in the browser.

The server keeps every game (a :class:`~schnapsen_env.engine.GameState` inside a
:class:`~schnapsen_env.match.Bummerl`) in memory under a random game id. What it sends
about a game in progress is built from ``state.information_set(seat)`` alone
(RULES §8): the browser never receives a hidden card, the deck, or a seed the user did
not give. Every bad request gets a JSON error ``{"error": CODE, "message": TEXT}`` with a
4xx status and changes nothing.

JSON API (all under ``/api``):

- ``GET /config``: variants, agent names, the defaults and what the command line loaded.
- ``POST /games`` ``{"opponent"?, "variant"?, "seed"? (0..2**63-1, number or digits), "seat"?}``: a new Bummerl, its
  first game dealt (the deal of ``GameState.from_seed(rules, seed)``, the opponent reseeded from the seed's
  opponent stream as in ``python -m agents.play``). Returns ``{"game_id", "steps", "view"}``
  (a view holds ``"seed"`` as a string when the user gave one).
- ``GET /games/<id>``: the player's view.
- ``POST /games/<id>/action`` ``{"action": id or RULES §9 text}``: the player's move, then the
  opponent's until the player is to move or the game is over. ``steps`` holds the view after each
  move (the browser shows the opponent's moves one by one), ``view`` the last.
- ``POST /games/<id>/next``: the next game of the Bummerl once a game is over.
- ``POST /replay`` (a ``file`` upload, or JSON ``{"text", "name"?}``): a RULES §9 record (``.json``) or
  several (``.jsonl``) checked by :mod:`schnapsen_env.replay`, as frames with both hands.
- ``GET /replay/file``: the ``--replay`` file of the command line, the same way.
- ``GET /arena``, ``GET /arena/ratings.png``: the ``--arena`` folder of ``python -m agents.arena --out``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request, send_file, send_from_directory
from werkzeug.exceptions import HTTPException

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS, action_to_str, parse_action
from schnapsen_env.cards import SUIT_NAMES_EN, SUIT_SYMBOLS, card_to_str, iter_cards, rank_of, suit_of
from schnapsen_env.engine import NO_CARD, GameState, IllegalActionError, validate_seed
from schnapsen_env.match import Bummerl
from schnapsen_env.render import action_text, card_text, reason_text
from schnapsen_env.replay import InvalidRecordError, parse_record, replay_json
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed

from .. import AGENT_NAMES, make_agent

STATIC = Path(__file__).resolve().parent / "static"
#: games kept in memory at most (the least recently used is dropped first)
MAX_GAMES = 1000
#: largest upload or request body (a .jsonl of many records)
MAX_BODY = 16 * 1024 * 1024
#: most records of a .jsonl file shown (more: 413)
MAX_RECORDS = 2000
#: most replay frames (positions) in one response, all records together (more: 413)
MAX_FRAMES = 200_000
#: largest seed accepted (2**63 - 1); views send the seed back as a string (JavaScript numbers round above 2**53)
MAX_SEED = 2**63 - 1
#: most ``samples`` (worlds or rollouts per move) of an opponent the web app accepts: more blocks a request
MAX_WEB_SAMPLES = 200


class WebError(Exception):
    """A bad request: answered as ``{"error": code, "message": message}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


# ------------------------------------------------------------------ cards and actions as JSON
def card_json(card: int) -> dict:
    s = suit_of(card)
    return {"id": card, "code": card_to_str(card), "name": card_text(card, "en", symbols=False),
            "de": card_text(card, "de", symbols=False), "short": card_text(card, "en"),
            "suit": SUIT_NAMES_EN[s], "symbol": SUIT_SYMBOLS[s], "rank": rank_of(card), "red": s in (2, 3)}


def cards_json(mask: int) -> list:
    return [card_json(c) for c in iter_cards(mask)]


def action_kind(action: int) -> str:
    if action < MARRIAGE_BASE:
        return "play"
    if action < EXCHANGE:
        return "marriage"
    return {EXCHANGE: "exchange", CLOSE: "close", DECLARE: "declare"}[action]


def action_json(action: int, player: int | None = None) -> dict:
    out = {"id": action, "kind": action_kind(action), "text": action_to_str(action),
           "label": action_text(action, "en", symbols=False), "de": action_text(action, "de", symbols=False)}
    if action < MARRIAGE_BASE:
        out["card"] = card_json(action)
    if player is not None:
        out["player"] = player
    return out


def trick_json(t) -> dict:
    return {"leader": t.leader, "lead": card_json(t.lead), "follow": card_json(t.follow), "winner": t.winner}


SCALE_TEXT = {3: "the loser won no trick", 2: "the loser won a trick but has 32 eyes or fewer",
              1: "the loser has 33 eyes or more"}


def explain_outcome(outcome, closed_by: int, rules: Rules, names: tuple[str, str]) -> str:
    """Why the game ended and why it is worth its game points (RULES §5), in English.

    ``names`` are the players as sentence subjects ("You", "The opponent" or "Player 0")."""
    w, loser = outcome.winner, 1 - outcome.winner

    def who(p: int, verb: str, start: bool = False) -> str:  # "you win" / "the opponent wins"
        n = names[p] if start or names[p].startswith("Player") else names[p][0].lower() + names[p][1:]
        return f"{n} {verb if names[p] == 'You' else verb + 's'}"

    pts = outcome.game_points
    gp = f"{pts} game point{'s' if pts != 1 else ''}"
    if outcome.reason == "declared_66":
        text = f"{names[w]} reached 66 eyes ({outcome.eyes[w]}) and won {gp}: "
        if closed_by >= 0 and not rules.closing_counts_later_eyes:
            text += "the talon was closed, so the loser's eyes and tricks at the moment of closing count; "
        return text + SCALE_TEXT.get(pts, "by the RULES §5 scale") + "."
    if outcome.reason == "last_trick":
        return (f"Nobody reached 66; {who(w, 'take')} the last trick and with it {gp}"
                f"{' (after the 10 extra eyes for the last trick)' if rules.last_trick_bonus else ''}.")
    if outcome.reason == "closing_failed":
        return (f"{names[loser]} closed the talon but did not reach 66 first, so {who(w, 'win')} {gp} "
                "(2, or 3 when they had no trick at the moment of closing).")
    if outcome.reason == "false_declaration":
        return (f"{names[loser]} declared 66 with fewer than 66 eyes, a false declaration: {who(w, 'win')} {gp}, "
                "the points the declarer would have won had it been right"
                f"{' (fixed at 2 under these rules)' if rules.false_declaration_points == 2 else ''}.")
    if outcome.reason == "renonce":
        return f"{names[loser]} broke a rule (renonce): {who(w, 'win')} {gp}."
    return f"{who(w, 'win', start=True)} {gp}."


def outcome_json(outcome, closed_by: int, rules: Rules, seat: int | None) -> dict:
    if seat is None:
        names = ("Player 0", "Player 1")
    else:
        names = ("You", "The opponent") if seat == 0 else ("The opponent", "You")
    d = outcome.to_dict()
    d["reason_text"] = reason_text(outcome.reason)
    d["reason_de"] = reason_text(outcome.reason, "de")
    d["explanation"] = explain_outcome(outcome, closed_by, rules, names)
    if seat is not None:
        d["you_won"] = outcome.winner == seat
        d["headline"] = (f"You win {outcome.game_points} game point{'s' if outcome.game_points != 1 else ''}"
                         if outcome.winner == seat else
                         f"The opponent wins {outcome.game_points} game point{'s' if outcome.game_points != 1 else ''}")
    return d


def rules_json(rules: Rules) -> dict:
    return {"deck": rules.deck, "show_eyes": rules.show_eyes, "declare": rules.declare,
            "allow_closing": rules.allow_closing, "bummerl_target": rules.bummerl_target,
            "hand_size": rules.hand_size}


# ------------------------------------------------------------------ games
class GameSession:
    """One Bummerl against one agent, played by the browser in seat ``seat``."""

    def __init__(self, game_id: str, opponent_spec: str, variant: str, seed: int | None, seat: int,
                 seed_given: bool):
        self.game_id, self.spec, self.variant, self.seat = game_id, opponent_spec, variant, seat
        self.rules = Rules.preset(variant)
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.seed_given = seed_given
        self.opponent = build_agent(opponent_spec)
        check_opponent(self.opponent, opponent_spec, self.rules)
        # the deal stream: game 1 is GameState.from_seed(rules, seed); later games continue the stream
        self.deal_rng = random.Random(self.seed)
        self.state = GameState.from_seed(self.rules, rng=self.deal_rng)
        self.bummerl = Bummerl(self.rules, self.state.dealer)
        self.game_number = 1
        self.lock = threading.Lock()
        self._reset_opponent()

    def _reset_opponent(self) -> None:
        base = derive_seed(self.seed, OPPONENT_STREAM)
        self.opponent.reset(base if self.game_number == 1 else derive_seed(base, self.game_number))

    def opponent_moves(self) -> list:
        """Let the opponent move until the player is to move or the game is over; the views after each."""
        steps = []
        while not self.state.is_terminal and self.state.current_player != self.seat:
            p = self.state.current_player
            try:
                action = self.opponent.act(self.state.information_set(p))
                self.state.apply(action)
            except Exception as e:  # an agent that cannot play these rules (vu:* outside vu-course), or a bug
                raise WebError(400, "opponent_failed", f"the opponent {self.spec!r} failed: "
                                                       f"{type(e).__name__}: {str(e)[:300]}") from None
            self._score_if_over()
            steps.append(self.view())
        return steps

    def _score_if_over(self) -> None:
        if self.state.is_terminal and len(self.bummerl.games) < self.game_number:
            self.bummerl.record(self.state.outcome)

    def play(self, action: int) -> list:
        if self.state.is_terminal:
            raise WebError(409, "game_over", "the game is over: start the next game of the Bummerl or a new one")
        if self.state.current_player != self.seat:  # not reached: the opponent moves within the request
            raise WebError(409, "not_your_turn", "it is the opponent's turn")
        before = (self.state.clone(), list(self.bummerl.scores), list(self.bummerl.games))
        try:
            self.state.apply(action)
        except IllegalActionError as e:
            raise WebError(400, "illegal_action", str(e)) from None
        try:
            self._score_if_over()
            steps = [self.view()]
            return steps + self.opponent_moves()
        except WebError:  # the opponent failed: the game is left as it was before the move
            self.state, self.bummerl.scores, self.bummerl.games = before
            raise

    def next_game(self) -> list:
        if not self.state.is_terminal:
            raise WebError(409, "game_in_progress", "the current game is not over yet")
        if self.bummerl.is_over:
            raise WebError(409, "bummerl_over", "the Bummerl is over: start a new game")
        self.state = self.bummerl.new_game(self.deal_rng)
        self.game_number += 1
        self._reset_opponent()
        return [self.view()] + self.opponent_moves()

    def view(self) -> dict:
        """The player's view: built from the information set only (RULES §8); ``last`` is the last move."""
        info = self.state.information_set(self.seat)
        last = action_json(info.history[-1][1], info.history[-1][0]) if info.history else None
        me, opp = self.seat, 1 - self.seat
        b = self.bummerl
        out = {
            "game_id": self.game_id, "opponent": self.spec, "variant": self.variant, "rules": rules_json(self.rules),
            "seat": me, "game_number": self.game_number, "dealer": info.dealer,
            "current_player": info.current_player, "your_turn": info.current_player == me,
            "trump_suit": {"name": SUIT_NAMES_EN[info.trump_suit], "symbol": SUIT_SYMBOLS[info.trump_suit],
                           "red": info.trump_suit in (2, 3)},
            "trump_card": card_json(info.trump_card) if info.trump_card != NO_CARD else None,
            "talon_size": info.talon_size, "closed_by": info.closed_by,
            "hand": cards_json(info.hand), "opponent_hand_size": info.opponent_hand_size,
            "opponent_known": cards_json(info.opponent_known),
            "trick": {"leader": info.leader,
                      "lead": card_json(info.lead_card) if info.lead_card != NO_CARD else None,
                      "pending_marriage": (SUIT_NAMES_EN[info.pending_marriage]
                                           if info.pending_marriage >= 0 else None)},
            "last_trick": trick_json(info.tricks[-1]) if info.tricks else None,
            "tricks_won": list(info.tricks_won),
            "eyes": list(info.eyes) if info.eyes is not None else None,
            "held_marriage_eyes": list(info.held_marriage_eyes) if info.held_marriage_eyes is not None else None,
            "marriages": [{"player": p, "suit": SUIT_NAMES_EN[s], "symbol": SUIT_SYMBOLS[s]}
                          for p, s in info.marriages],
            "exchange": ({"player": info.exchange[0], "taken": card_json(info.exchange[1]),
                          "given": card_json(info.exchange[2])} if info.exchange else None),
            "legal": [action_json(a) for a in info.legal_actions],
            "history": [action_json(a, p) for p, a in info.history],
            "last": last,
            "outcome": (outcome_json(info.outcome, info.closed_by, self.rules, me)
                        if info.outcome is not None else None),
            "bummerl": {"scores": list(b.scores), "you": b.scores[me], "opponent": b.scores[opp],
                        "target": self.rules.bummerl_target, "over": b.is_over,
                        "you_won": (b.winner == me) if b.is_over else None, "value": b.value,
                        "games": len(b.games)},
        }
        if self.seed_given:
            out["seed"] = str(self.seed)  # a string: JavaScript would round a number above 2**53
        return out


def resolve_spec(spec: Any) -> str:
    """An agent spec from the request: a ``make_agent`` spec, or a checkpoint path (``ppo:PATH``)."""
    if not isinstance(spec, str) or not spec:
        raise WebError(400, "bad_opponent", f"opponent must be a non-empty agent spec string such as "
                                            f"'random' or 'pimc:samples=40'; allowed agents: {', '.join(AGENT_NAMES)}")
    name = spec.partition(":")[0]
    if name not in AGENT_NAMES and (spec.endswith(".pt") or os.path.sep in spec) and os.path.isfile(spec):
        return "ppo:" + spec
    return spec


def build_agent(spec: str):
    try:
        return make_agent(spec)
    except (ValueError, ImportError, OSError) as e:
        raise WebError(400, "bad_opponent", f"cannot use opponent {spec!r}: {e}") from None


def check_opponent(agent, spec: str, rules: Rules) -> None:
    """A 400 ``bad_opponent`` for an agent that cannot play ``rules`` (a ``vu:*`` bot outside its
    preset) or whose ``samples`` exceed :data:`MAX_WEB_SAMPLES`."""
    reason = agent.cannot_play(rules)
    if reason:
        raise WebError(400, "bad_opponent", f"opponent {spec!r}: {reason}; choose another variant or opponent")
    samples = getattr(agent, "samples", None)
    if type(samples) is int and samples > MAX_WEB_SAMPLES:
        raise WebError(400, "bad_opponent", f"opponent {spec!r}: samples={samples} is more than the web app "
                                            f"allows ({MAX_WEB_SAMPLES}): a move would take too long")


# ------------------------------------------------------------------ replay
def state_frame(state: GameState, index: int, action: int | None, player: int | None) -> dict:
    """Everything about a replayed state (both hands and the talon: a record is public)."""
    talon = state.talon[state.talon_pos:]
    return {
        "index": index,
        "action": action_json(action, player) if action is not None else None,
        "hands": [cards_json(state.hands[0]), cards_json(state.hands[1])],
        "talon": [card_json(c) for c in talon], "talon_size": len(talon),
        "trump_suit": SUIT_NAMES_EN[state.trump_suit], "trump_symbol": SUIT_SYMBOLS[state.trump_suit],
        "trump_card": card_json(state.trump_card) if state.trump_card != NO_CARD else None,
        "current_player": state.current_player, "leader": state.leader, "dealer": state.dealer,
        "lead": card_json(state.lead_card) if state.lead_card != NO_CARD else None,
        "last_trick": trick_json(state.tricks[-1]) if state.tricks else None,
        "eyes": list(state.eyes), "held_marriage_eyes": list(state.held_marriage_eyes),
        "tricks_won": list(state.tricks_won), "closed_by": state.closed_by,
        "marriages": [{"player": p, "suit": SUIT_NAMES_EN[s]} for p, s in state.marriages],
        "legal": [action_json(a) for a in state.legal_actions()] if not state.is_terminal else [],
        "outcome": outcome_json(state.outcome, state.closed_by, state.rules, None) if state.outcome else None,
    }


def replay_one(text: str | bytes) -> dict:
    """One record's JSON text -> ``{"result": CLI line, "line": text, "frames": [...], "variant"}``.

    The result is exactly what ``python -m schnapsen_env.replay`` prints for it; an
    ``invalid_record`` has no frames, an ``illegal_action`` has the frames up to that action."""
    result = replay_json(text)
    out: dict[str, Any] = {"result": result, "line": json.dumps(result), "frames": []}
    if result.get("error") == "invalid_record":
        return out
    record = json.loads(text)  # replay_json read it, so this is a valid record
    try:
        state, actions = parse_record(record)
    except InvalidRecordError:  # pragma: no cover - replay_json already accepted it
        return out
    out["variant"] = record.get("variant", "schnapsen")
    out["options"] = record.get("options", {})
    frames = [state_frame(state, 0, None, None)]
    for i, a in enumerate(actions):
        p = state.current_player
        try:
            state.apply(a)
        except IllegalActionError:
            out["failed_action"] = action_json(a, p if p >= 0 else None)
            break
        frames.append(state_frame(state, i + 1, a, p))
    out["frames"] = frames
    return out


def replay_data(data: bytes, name: str) -> tuple[dict, int]:
    """A ``.json`` (one record) or ``.jsonl`` (one per line) file's bytes -> the response and status."""
    kind = "jsonl" if name.lower().endswith(".jsonl") else "json"
    if kind == "json":
        records = [replay_one(data)]
    else:
        lines = [raw for raw in data.split(b"\n") if raw.strip(b" \t\r")]
        if len(lines) > MAX_RECORDS:
            raise WebError(413, "too_many_records", f"the .jsonl file holds {len(lines)} records; the viewer shows "
                                                    f"at most {MAX_RECORDS}: split the file", limit=MAX_RECORDS)
        records = [replay_one(raw) for raw in lines]
        if not records:
            raise WebError(400, "invalid_record", "the .jsonl file holds no record (only blank lines)")
    frames = sum(len(r["frames"]) for r in records)
    if frames > MAX_FRAMES:
        raise WebError(413, "too_many_frames", f"the file replays to {frames} positions; the viewer shows at most "
                                               f"{MAX_FRAMES} in all: split the file", limit=MAX_FRAMES)
    body = {"name": name, "kind": kind, "records": records}
    if all(r["result"].get("error") == "invalid_record" for r in records):
        first = records[0]["result"]
        return {"error": "invalid_record", "message": first["message"], "line": records[0]["line"], **body}, 400
    return body, 200


# ------------------------------------------------------------------ arena
def _bad_arena_file(path: Path, why: str) -> WebError:
    return WebError(422, "bad_arena_file", f"{path.name} in the arena folder is not readable: {why}", file=path.name)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_csv(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except UnicodeDecodeError:
        raise _bad_arena_file(path, "not UTF-8 text") from None
    except (csv.Error, OSError) as e:
        raise _bad_arena_file(path, str(e)[:200]) from None
    return {"header": rows[0] if rows else [], "rows": rows[1:]}


def read_results(path: Path) -> Any:
    """results.json, refusing NaN and Infinity (not JSON: the browser could not parse the answer)."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise _bad_arena_file(path, "not UTF-8 text") from None
    except (ValueError, RecursionError, OSError) as e:
        raise _bad_arena_file(path, f"not JSON ({str(e)[:200]})") from None


def arena_json(folder: Path) -> dict:
    return {"folder": str(folder), "results": read_results(folder / "results.json"),
            "table": read_csv(folder / "results.csv"), "ratings": read_csv(folder / "ratings.csv"),
            "has_plot": (folder / "ratings.png").is_file()}


def check_arena_dir(path: str) -> Path:
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--arena {path!r} is not a folder (give the --out folder of python -m agents.arena)")
    if not any((folder / n).is_file() for n in ("results.json", "results.csv", "ratings.csv", "ratings.png")):
        raise ValueError(f"--arena {path!r} holds none of results.json, results.csv, ratings.csv, ratings.png")
    return folder


def check_replay_file(path: str) -> Path:
    p = Path(path)
    if not p.name.lower().endswith((".json", ".jsonl")):
        raise ValueError(f"--replay {path!r}: the file must end in .json (one record) or .jsonl (one per line)")
    if not p.is_file():
        raise ValueError(f"--replay {path!r} is not a regular file")
    return p


# ------------------------------------------------------------------ the app
def _body(allowed: tuple[str, ...] = ()) -> dict:
    """The JSON object of the request (an empty body: ``{}``); 400 ``bad_json`` for a body that is
    not JSON (a form, a multipart upload, garbage) and 400 ``bad_request`` for a key not in ``allowed``."""
    mimetype = request.mimetype or ""
    if mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if request.content_length or request.get_data(cache=True, parse_form_data=False):
            raise WebError(400, "bad_json", f"the request body must be JSON (Content-Type: application/json), "
                                            f"not {mimetype}")
        return {}
    data = request.get_data(cache=True, parse_form_data=False)
    if not data:
        return {}
    try:
        body = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise WebError(400, "bad_json", "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise WebError(400, "bad_json", "the request body must be a JSON object")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise WebError(400, "bad_request", f"unknown key {str(unknown[0])[:60]!r}: allowed "
                                           f"{', '.join(allowed) if allowed else 'none (send no body or {})'}")
    return body


def create_app(opponent: str = "random", variant: str = "schnapsen", replay: str | None = None,
               arena: str | None = None) -> Flask:
    """The app. ``opponent``/``variant`` are the defaults of a new game (checked here: ``ValueError``),
    ``replay`` a record file and ``arena`` an arena ``--out`` folder to show (checked too)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: allowed presets are {', '.join(VARIANTS)}")
    try:
        opponent = resolve_spec(opponent)
        check_opponent(build_agent(opponent), opponent, Rules.preset(variant))
    except WebError as e:
        raise ValueError(e.message) from None
    replay_path = check_replay_file(replay) if replay else None
    arena_dir = check_arena_dir(arena) if arena else None

    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    games: OrderedDict[str, GameSession] = OrderedDict()
    games_lock = threading.Lock()
    app.extensions["schnapsen_web_games"] = games  # game id -> GameSession (tests look inside)

    @app.errorhandler(WebError)
    def _web_error(e: WebError):
        return jsonify({"error": e.code, "message": e.message, **e.extra}), e.status

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        code = (e.name or "error").lower().replace(" ", "_")
        return jsonify({"error": code, "message": e.description or e.name}), e.code

    def page(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/")
    def index():
        return page("play.html")

    @app.get("/replay")
    def replay_page():
        return page("replay.html")

    @app.get("/arena")
    def arena_page():
        return page("arena.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/config")
    def config():
        return jsonify({"variants": list(VARIANTS), "agents": list(AGENT_NAMES), "opponent": opponent,
                        "variant": variant, "replay_file": replay_path.name if replay_path else None,
                        "arena": arena_dir is not None})

    def session(game_id: str) -> GameSession:
        with games_lock:
            s = games.get(game_id)
            if s is not None:
                games.move_to_end(game_id)  # used now: the least recently used game is dropped first
        if s is None:
            raise WebError(404, "unknown_game", f"no game with id {game_id[:40]!r} (games live in the server's memory: "
                                                "they end when it stops, and the least recently used is dropped "
                                                f"when more than {MAX_GAMES} are open)")
        return s

    @app.post("/api/games")
    def new_game():
        body = _body(("opponent", "variant", "seed", "seat"))
        spec = resolve_spec(body.get("opponent", opponent))
        var = body.get("variant", variant)
        if not isinstance(var, str) or var not in VARIANTS:
            raise WebError(400, "bad_variant", f"unknown variant {str(var)[:60]!r}: allowed presets are "
                                               f"{', '.join(VARIANTS)}")
        seed = body.get("seed")
        if seed == "":
            seed = None
        if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) < 40:
            seed = int(seed)
        try:
            if isinstance(seed, bool):
                raise ValueError("seed must be a whole number >= 0, got a boolean")
            seed = validate_seed(seed)
            if seed is not None and seed > MAX_SEED:
                raise ValueError(f"seed must be a whole number 0..{MAX_SEED} (2**63 - 1)")
        except ValueError as e:
            raise WebError(400, "bad_seed", str(e)) from None
        seat = body.get("seat", 0)
        if type(seat) is not int or seat not in (0, 1):
            raise WebError(400, "bad_seat", "seat must be 0 or 1")
        game_id = secrets.token_urlsafe(12)
        s = GameSession(game_id, spec, var, seed, seat, seed_given=seed is not None)
        with s.lock:
            steps = [s.view()] + s.opponent_moves()
        with games_lock:
            games[game_id] = s
            while len(games) > MAX_GAMES:
                games.popitem(last=False)
        return jsonify({"game_id": game_id, "steps": steps, "view": steps[-1]}), 201

    @app.get("/api/games/<game_id>")
    def get_game(game_id: str):
        s = session(game_id)
        with s.lock:
            return jsonify(s.view())

    @app.post("/api/games/<game_id>/action")
    def act(game_id: str):
        s = session(game_id)
        body = _body(("action",))
        if "action" not in body:
            raise WebError(400, "bad_request", 'give the action as {"action": ID} (0..30) or its RULES §9 text')
        a = body["action"]
        if isinstance(a, str):
            try:
                a = parse_action(a, s.rules.deck)
            except ValueError as e:
                raise WebError(400, "bad_action", str(e)) from None
        if type(a) is not int or not 0 <= a < NUM_ACTIONS:
            raise WebError(400, "bad_action", f"an action is an id 0..{NUM_ACTIONS - 1} or its text "
                                              "('play TH', 'marriage H', 'exchange', 'close', 'declare')")
        with s.lock:
            steps = s.play(a)
            return jsonify({"game_id": game_id, "steps": steps, "view": steps[-1]})

    @app.post("/api/games/<game_id>/next")
    def next_game(game_id: str):
        s = session(game_id)
        _body()
        with s.lock:
            steps = s.next_game()
            return jsonify({"game_id": game_id, "steps": steps, "view": steps[-1]})

    @app.post("/api/replay")
    def replay_upload():
        if request.mimetype == "multipart/form-data":
            if "file" not in request.files:
                raise WebError(400, "bad_request", "upload the record file under the form field 'file'")
            if set(request.files) != {"file"} or request.form:
                extra = sorted((set(request.files) | set(request.form)) - {"file"})[0]
                raise WebError(400, "bad_request", f"unknown form field {extra[:60]!r}: upload only 'file'")
            f = request.files["file"]
            data, name = f.read(), f.filename or "upload.json"
        else:
            body = _body(("text", "name"))
            text, name = body.get("text"), body.get("name", "record.json")
            if not isinstance(text, str) or not isinstance(name, str):
                raise WebError(400, "bad_request", 'send a file (form field "file") or JSON {"text": RECORD, '
                                                   '"name": "x.json" or "x.jsonl"}')
            data = text.encode("utf-8", "surrogatepass")
        body, status = replay_data(data, name)
        return jsonify(body), status

    @app.get("/api/replay/file")
    def replay_file():
        if replay_path is None:
            raise WebError(404, "no_replay_file", "the server was started without --replay FILE")
        try:
            data = replay_path.read_bytes()
        except OSError as e:
            raise WebError(404, "no_replay_file", f"cannot read {replay_path}: {e.strerror}") from None
        body, status = replay_data(data, replay_path.name)
        return jsonify(body), status

    @app.get("/api/arena")
    def arena_results():
        if arena_dir is None:
            raise WebError(404, "no_arena", "the server was started without --arena DIR (the --out folder of "
                                            "python -m agents.arena)")
        return jsonify(arena_json(arena_dir))

    @app.get("/api/arena/ratings.png")
    def arena_plot():
        if arena_dir is None or not (arena_dir / "ratings.png").is_file():
            raise WebError(404, "no_plot", "no ratings.png in the arena folder")
        return send_file(io.BytesIO((arena_dir / "ratings.png").read_bytes()), mimetype="image/png")

    return app
