"""The Flask application of ``python -m agents.web``: play, replay and arena results in the browser.

The server keeps every game (a :class:`~schnapsen_env.engine.GameState` inside a
:class:`~schnapsen_env.match.Bummerl`) in memory under a random game id. What it sends
about a game in progress is built from ``state.information_set(seat)`` alone
(RULES §8): the browser never receives a hidden card, the deck, or a seed the user did
not give. Every bad request gets a JSON error ``{"error": CODE, "message": TEXT}`` with a
4xx status and changes nothing.

Every request must name this server in its ``Host`` (127.0.0.1, localhost, [::1] or ``--host``,
any port: 400 ``bad_host``, against DNS rebinding); every ``POST`` must come from this server's
own pages (an ``Origin`` or ``Referer`` of another site: 403 ``foreign_origin``) and carry a JSON
object (``Content-Type: application/json``, else 415 ``not_json``).

JSON API (all under ``/api``):

- ``GET /config``: variants, agent names, the checkpoints of ``--checkpoints``, the defaults.
- ``POST /games`` ``{"opponent"?, "variant"?, "seed"? (0..2**63-1, number or digits), "seat"?}``: a new Bummerl, its
  first game dealt (the deal of ``GameState.from_seed(rules, seed)``, the opponent reseeded from the seed's
  opponent stream as in ``python -m agents.play``). Returns ``{"game_id", "steps", "view"}``
  (a view holds ``"seed"`` as a string when the user gave one). An opponent is an agent spec whose
  checkpoint, if any, is a path inside ``--checkpoints DIR``, or the command line's own opponent.
- ``GET /games/<id>``: the player's view.
- ``POST /games/<id>/action`` ``{"action": id or RULES §9 text}``: the player's move, then the
  opponent's until the player is to move or the game is over. ``steps`` holds the view after each
  move (the browser shows the opponent's moves one by one), ``view`` the last.
- ``POST /games/<id>/next``: the next game of the Bummerl once a game is over.
- ``POST /replay`` ``{"text", "name"?}``: a RULES §9 record (``name`` ending ``.json``: its result line and
  frames with both hands) or up to :data:`MAX_RECORDS` records (``.jsonl``: the result lines only; the viewer
  sends a record's line as a ``.json`` for its frames), checked by :mod:`schnapsen_env.replay`.
- ``GET /replay/file``: the text of the ``--replay`` file of the command line.
- ``GET /arena``, ``GET /arena/ratings.png``: the ``--arena`` folder of ``python -m agents.arena --out``.
"""

from __future__ import annotations

import csv
import io
import json
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, jsonify, request, send_file, send_from_directory
from werkzeug.exceptions import HTTPException

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS, action_to_str, parse_action
from schnapsen_env.cards import SUIT_NAMES_EN, SUIT_SYMBOLS, card_to_str, iter_cards, rank_of, suit_of
from schnapsen_env.engine import NO_CARD, GameState, IllegalActionError
from schnapsen_env.match import Bummerl
from schnapsen_env.render import action_text, card_text, reason_text
from schnapsen_env.replay import parse_record, replay_json
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed

from .. import AGENT_NAMES, make_agent, parse_spec

STATIC = Path(__file__).resolve().parent / "static"
#: games kept in memory at most (the least recently used is dropped first)
MAX_GAMES = 1000
#: largest request body (the text of a .jsonl file of many records)
MAX_BODY = 16 * 1024 * 1024
#: most records of a .jsonl text (more: 413, counted before any is replayed); the answer holds their
#: result lines only (about 250 bytes each), one record's frames are asked for when it is shown
MAX_RECORDS = 10_000
#: largest seed accepted (2**63 - 1); views send the seed back as a string (JavaScript numbers round above 2**53)
MAX_SEED = 2**63 - 1
#: most ``samples`` (worlds or rollouts per move) of an opponent the web app accepts: more blocks a request
MAX_WEB_SAMPLES = 200
#: the hosts every server answers to (any port), besides its ``--host``
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: per agent name, the spec key naming a file or folder: over HTTP it must lie inside ``--checkpoints``
PATH_KEYS = {"ppo": "path", "rllib": "checkpoint"}


class WebError(Exception):
    """A bad request: answered as ``{"error": code, "message": message}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


# ------------------------------------------------------------------ cards and actions as JSON
def card_json(card: int) -> dict:
    s = suit_of(card)
    return {
        "id": card,
        "code": card_to_str(card),
        "name": card_text(card, "en", symbols=False),
        "de": card_text(card, "de", symbols=False),
        "symbol": SUIT_SYMBOLS[s],
        "rank": rank_of(card),
        "red": s in (2, 3),
    }


def cards_json(mask: int) -> list:
    return [card_json(c) for c in iter_cards(mask)]


def action_kind(action: int) -> str:
    if action < MARRIAGE_BASE:
        return "play"
    if action < EXCHANGE:
        return "marriage"
    return {EXCHANGE: "exchange", CLOSE: "close", DECLARE: "declare"}[action]


def action_json(action: int, player: int | None = None) -> dict:
    label = action_text(action, "en", symbols=False)
    return {"id": action, "kind": action_kind(action), "text": action_to_str(action), "label": label, "player": player}


def trick_json(t) -> dict:
    return {"leader": t.leader, "lead": card_json(t.lead), "follow": card_json(t.follow), "winner": t.winner}


SCALE_TEXT = {
    3: "the loser won no trick",
    2: "the loser won a trick but has 32 eyes or fewer",
    1: "the loser has 33 eyes or more",
}


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
        return (
            f"Nobody reached 66; {who(w, 'take')} the last trick and with it {gp}"
            f"{' (after the 10 extra eyes for the last trick)' if rules.last_trick_bonus else ''}."
        )
    if outcome.reason == "closing_failed":
        return (
            f"{names[loser]} closed the talon but did not reach 66 first, so {who(w, 'win')} {gp} "
            "(2, or 3 when they had no trick at the moment of closing)."
        )
    if outcome.reason == "false_declaration":
        return (
            f"{names[loser]} declared 66 with fewer than 66 eyes, a false declaration: {who(w, 'win')} {gp}, "
            "the points the declarer would have won had it been right"
            f"{' (fixed at 2 under these rules)' if rules.false_declaration_points == 2 else ''}."
        )
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
    d["explanation"] = explain_outcome(outcome, closed_by, rules, names)
    if seat is not None:
        d["you_won"] = outcome.winner == seat
        points = f"{outcome.game_points} game point{'s' if outcome.game_points != 1 else ''}"
        d["headline"] = f"{'You win' if outcome.winner == seat else 'The opponent wins'} {points}"
    return d


# ------------------------------------------------------------------ games
class GameSession:
    """One Bummerl against one agent, played by the browser in seat ``seat``."""

    def __init__(self, game_id: str, opponent, spec: str, rules: Rules, variant: str, seed: int | None, seat: int):
        self.game_id, self.opponent, self.spec, self.rules, self.variant = game_id, opponent, spec, rules, variant
        self.seat, self.seed_given = seat, seed is not None
        self.seed = seed if seed is not None else secrets.randbits(63)
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
                raise WebError(
                    400, "opponent_failed", f"the opponent {self.spec!r} failed: {type(e).__name__}: {str(e)[:300]}"
                ) from None
            self._score_if_over()
            steps.append(self.view())
        return steps

    def _score_if_over(self) -> None:
        if self.state.is_terminal and len(self.bummerl.games) < self.game_number:
            self.bummerl.record(self.state.outcome)

    def play(self, action: int) -> list:
        if self.state.is_terminal:
            raise WebError(409, "game_over", "the game is over: start the next game of the Bummerl or a new one")
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
            "game_id": self.game_id,
            "opponent": self.spec,
            "variant": self.variant,
            "seat": me,
            "game_number": self.game_number,
            "dealer": info.dealer,
            "current_player": info.current_player,
            "your_turn": info.current_player == me,
            "trump_suit": {
                "name": SUIT_NAMES_EN[info.trump_suit],
                "symbol": SUIT_SYMBOLS[info.trump_suit],
                "red": info.trump_suit in (2, 3),
            },
            "trump_card": card_json(info.trump_card) if info.trump_card != NO_CARD else None,
            "talon_size": info.talon_size,
            "closed_by": info.closed_by,
            "hand": cards_json(info.hand),
            "opponent_hand_size": info.opponent_hand_size,
            "opponent_known": cards_json(info.opponent_known),
            "trick": {
                "leader": info.leader,
                "lead": card_json(info.lead_card) if info.lead_card != NO_CARD else None,
                "pending_marriage": (SUIT_NAMES_EN[info.pending_marriage] if info.pending_marriage >= 0 else None),
            },
            "last_trick": trick_json(info.tricks[-1]) if info.tricks else None,
            "tricks_won": list(info.tricks_won),
            "eyes": list(info.eyes) if info.eyes is not None else None,
            "held_marriage_eyes": list(info.held_marriage_eyes) if info.held_marriage_eyes is not None else None,
            "legal": [action_json(a) for a in info.legal_actions],
            "last": last,
            "outcome": (
                outcome_json(info.outcome, info.closed_by, self.rules, me) if info.outcome is not None else None
            ),
            "bummerl": {
                "scores": list(b.scores),
                "you": b.scores[me],
                "opponent": b.scores[opp],
                "target": self.rules.bummerl_target,
                "over": b.is_over,
                "you_won": (b.winner == me) if b.is_over else None,
                "value": b.value,
            },
        }
        if self.seed_given:
            out["seed"] = str(self.seed)  # a string: JavaScript would round a number above 2**53
        return out


# ------------------------------------------------------------------ request values (the HTTP boundary)
def http_opponent(spec: Any, default: str, checkpoints: Path | None) -> str:
    """The agent spec of a request's ``opponent``: ``None`` or the command line's opponent is ``default``;
    a spec with a checkpoint (``ppo:PATH``, ``rllib:checkpoint=PATH``) is allowed only for a PATH inside
    ``checkpoints`` (relative to it; returned as a spec with the absolute path). Raises ``ValueError``:
    one message for every refused path, whether it exists or not."""
    if spec is None or spec == default:
        return default
    if not isinstance(spec, str):
        raise ValueError(f"opponent must be an agent spec such as 'pimc:samples=40'; agents: {', '.join(AGENT_NAMES)}")
    name, kwargs = parse_spec(spec)
    key = PATH_KEYS.get(name)
    if key not in kwargs:
        return spec
    try:
        path = (checkpoints / str(kwargs[key])).resolve() if checkpoints else None
        inside = path is not None and path.is_relative_to(checkpoints) and path.exists()
    except (OSError, ValueError):  # a name too long, a NUL byte
        inside = False
    if not inside:
        raise ValueError(
            f"opponent {spec[:200]!r}: a checkpoint must be a path inside the server's "
            "--checkpoints folder, relative to it"
        )
    kwargs[key] = path
    return f"{name}:" + ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in kwargs.items())


def opponent_agent(spec: str, rules: Rules):
    """The agent of ``spec`` for a game under ``rules``. ``WebError`` 400 ``bad_opponent`` when it cannot
    be built, cannot play ``rules`` (a ``vu:*`` bot outside its preset) or has more than
    :data:`MAX_WEB_SAMPLES` ``samples``."""
    try:
        agent = make_agent(spec)
    except (ValueError, ImportError, OSError) as e:
        raise WebError(400, "bad_opponent", f"cannot use opponent {spec!r}: {e}") from None
    reason = agent.cannot_play(rules)
    samples = getattr(agent, "samples", None)
    if not reason and type(samples) is int and samples > MAX_WEB_SAMPLES:
        reason = f"samples={samples} is more than the web app allows ({MAX_WEB_SAMPLES}): a move would take too long"
    if reason:
        raise WebError(400, "bad_opponent", f"opponent {spec!r}: {reason}; choose another variant or opponent")
    return agent


def one_of(allowed: tuple, default: Any) -> Callable[[Any], Any]:
    """A request value that must be one of ``allowed`` (``None``: ``default``)."""

    def convert(value: Any) -> Any:
        if value is None:
            return default
        if value not in allowed:
            raise ValueError(f"{str(value)[:60]!r} is not allowed: choose one of {', '.join(map(str, allowed))}")
        return allowed[allowed.index(value)]

    return convert


def seed_value(value: Any) -> int | None:
    """A request's seed: ``None`` or ``""`` (none), or a whole number 0..:data:`MAX_SEED` as a number or digits."""
    if value in (None, ""):
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if type(value) is not int or not 0 <= value <= MAX_SEED:
        raise ValueError(f"seed must be a whole number 0..{MAX_SEED} (2**63 - 1), as a number or a string of digits")
    return value


def action_id(value: Any, deck: int) -> int:
    """A request's action: an id 0..NUM_ACTIONS-1 or its RULES §9 text."""
    action = parse_action(value, deck) if isinstance(value, str) else value
    if type(action) is not int or not 0 <= action < NUM_ACTIONS:
        raise ValueError(
            f"an action is an id 0..{NUM_ACTIONS - 1} or its text ('play TH', 'marriage H', "
            "'exchange', 'close', 'declare')"
        )
    return action


def text_value(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError('send {"text": the text of a .json or .jsonl file, "name": "x.json" or "x.jsonl"}')
    return value


def request_body(**fields: Callable[[Any], Any]) -> dict:
    """The request's JSON object (an empty body: ``{}``), each key converted by its ``fields`` function
    (given ``None`` for a missing key). 400 ``bad_json`` for a body that is not a JSON object,
    ``bad_request`` naming a key not in ``fields``, ``bad_KEY`` when a function raises ``ValueError``."""
    try:
        body = json.loads(request.get_data() or b"{}")
    except (ValueError, RecursionError):
        raise WebError(400, "bad_json", "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise WebError(400, "bad_json", "the request body must be a JSON object")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise WebError(400, "bad_request", f"unknown key {unknown[0][:60]!r}: allowed {', '.join(fields) or 'none'}")
    out = {}
    for key, convert in fields.items():
        try:
            out[key] = convert(body.get(key))
        except ValueError as e:
            raise WebError(400, f"bad_{key}", str(e)) from None
    return out


# ------------------------------------------------------------------ replay
def state_frame(state: GameState, action: int | None, player: int | None) -> dict:
    """Everything about a replayed state (both hands and the talon: a record is public)."""
    talon = state.talon[state.talon_pos :]
    return {
        "action": action_json(action, player) if action is not None else None,
        "hands": [cards_json(state.hands[0]), cards_json(state.hands[1])],
        "talon": [card_json(c) for c in talon],
        "talon_size": len(talon),
        "trump_suit": SUIT_NAMES_EN[state.trump_suit],
        "trump_symbol": SUIT_SYMBOLS[state.trump_suit],
        "trump_card": card_json(state.trump_card) if state.trump_card != NO_CARD else None,
        "current_player": state.current_player,
        "leader": state.leader,
        "dealer": state.dealer,
        "lead": card_json(state.lead_card) if state.lead_card != NO_CARD else None,
        "last_trick": trick_json(state.tricks[-1]) if state.tricks else None,
        "eyes": list(state.eyes),
        "held_marriage_eyes": list(state.held_marriage_eyes),
        "tricks_won": list(state.tricks_won),
        "closed_by": state.closed_by,
        "outcome": outcome_json(state.outcome, state.closed_by, state.rules, None) if state.outcome else None,
    }


def replay_one(text: str) -> dict:
    """One record's JSON text -> ``{"result": CLI line, "line": text, "frames": [...], "variant", "options"}``.

    The result is exactly what ``python -m schnapsen_env.replay`` prints for it; an
    ``invalid_record`` has no frames, an ``illegal_action`` has the frames up to that action."""
    result = replay_json(text)
    out: dict[str, Any] = {"result": result, "line": json.dumps(result), "frames": []}
    if result.get("error") == "invalid_record":
        return out
    record = json.loads(text)  # replay_json read it, so this is a valid record
    state, actions = parse_record(record)
    out["variant"] = record.get("variant", "schnapsen")
    out["options"] = record.get("options", {})
    frames = out["frames"] = [state_frame(state, None, None)]
    for a in actions:
        p = state.current_player
        try:
            state.apply(a)
        except IllegalActionError:
            out["failed_action"] = action_json(a, p if p >= 0 else None)
            break
        frames.append(state_frame(state, a, p))
    return out


def replay_data(text: str, name: str) -> tuple[dict, int]:
    """A ``.json`` file's text (one record: :func:`replay_one`) or a ``.jsonl`` file's (one record a
    line, blank lines skipped: the result lines only, at most :data:`MAX_RECORDS`) -> the answer and status."""
    kind = "jsonl" if name.lower().endswith(".jsonl") else "json"
    if kind == "json":
        records = [replay_one(text)]
    else:
        lines = [line for line in text.split("\n") if line.strip(" \t\r")]
        if not lines:
            raise WebError(400, "invalid_record", "the .jsonl file holds no record (only blank lines)")
        if len(lines) > MAX_RECORDS:
            raise WebError(
                413,
                "too_many_records",
                f"the .jsonl file holds {len(lines)} records; the viewer shows at most {MAX_RECORDS}: split the file",
                limit=MAX_RECORDS,
            )
        records = [{"result": r, "line": json.dumps(r)} for r in map(replay_json, lines)]
    body = {"name": name, "kind": kind, "records": records}
    if all(r["result"].get("error") == "invalid_record" for r in records):
        first = records[0]
        return {"error": "invalid_record", "message": first["result"]["message"], "line": first["line"], **body}, 400
    return body, 200


# ------------------------------------------------------------------ arena
def arena_file(folder: Path, name: str, parse: Callable[[str], Any]) -> Any:
    """``parse`` of a file of the arena folder (``None`` when there is none); 422 ``bad_arena_file``
    naming a file that is not UTF-8 or that ``parse`` refuses."""
    path = folder / name
    if not path.is_file():
        return None
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError, csv.Error) as e:  # UnicodeDecodeError is a ValueError
        raise WebError(
            422, "bad_arena_file", f"{name} in the arena folder is not readable: {str(e)[:200]}", file=name
        ) from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: the browser could not parse the answer


def csv_table(text: str) -> dict:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return {"header": rows[0] if rows else [], "rows": rows[1:]}


def arena_json(folder: Path) -> dict:
    return {
        "folder": str(folder),
        "results": arena_file(folder, "results.json", lambda t: json.loads(t, parse_constant=_no_constant)),
        "table": arena_file(folder, "results.csv", csv_table),
        "ratings": arena_file(folder, "ratings.csv", csv_table),
        "has_plot": (folder / "ratings.png").is_file(),
    }


def folder_arg(option: str, path: str, holds: tuple[str, ...] = ()) -> Path:
    """A folder of the command line (``ValueError`` unless it is one, holding one of ``holds`` if given)."""
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise ValueError(f"{option} {path!r} is not a folder")
    if holds and not any((folder / n).is_file() for n in holds):
        raise ValueError(
            f"{option} {path!r} holds none of {', '.join(holds)} (give the --out folder of python -m agents.arena)"
        )
    return folder


# ------------------------------------------------------------------ the app
def create_app(
    opponent: str = "random",
    variant: str = "schnapsen",
    replay: str | None = None,
    arena: str | None = None,
    checkpoints: str | None = None,
    host: str = "127.0.0.1",
) -> Flask:
    """The app. ``opponent``/``variant`` are the defaults of a new game (``opponent`` may be a checkpoint
    path), ``replay`` a record file and ``arena`` an arena ``--out`` folder to show, ``checkpoints`` the
    folder whose checkpoints a request may name, ``host`` the address served (its name is accepted in
    ``Host``). All checked here: ``ValueError`` naming the bad one."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: allowed presets are {', '.join(VARIANTS)}")
    if opponent.partition(":")[0] not in AGENT_NAMES and Path(opponent).is_file():
        opponent = f"ppo:{opponent}"  # the command line takes a checkpoint path as it is
    try:
        opponent_agent(opponent, Rules.preset(variant))
    except WebError as e:
        raise ValueError(e.message) from None
    replay_path = Path(replay).resolve() if replay else None
    if replay_path and not (replay_path.name.lower().endswith((".json", ".jsonl")) and replay_path.is_file()):
        raise ValueError(f"--replay {replay!r} must be a file ending in .json (one record) or .jsonl (one per line)")
    arena_dir = (
        folder_arg("--arena", arena, ("results.json", "results.csv", "ratings.csv", "ratings.png")) if arena else None
    )
    ckpt_dir = folder_arg("--checkpoints", checkpoints) if checkpoints else None
    ckpt_specs = (
        [f"ppo:{p.relative_to(ckpt_dir).as_posix()}" for p in sorted(ckpt_dir.rglob("*.pt"))] if ckpt_dir else []
    )
    hosts = {*LOCAL_HOSTS, f"[{host.lower()}]" if ":" in host else host.lower()}  # an IPv6 Host is in brackets

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

    @app.before_request
    def _boundary():
        """Host of this server on every request (DNS rebinding); on a POST, this server's own origin
        and a JSON body (a foreign page can send a text/plain or form body without the browser asking first)."""
        name, _, port = request.host.lower().rpartition(":")
        if (name if port.isdigit() else request.host.lower()) not in hosts:
            raise WebError(
                400,
                "bad_host",
                f"Host {request.host[:80]!r} is not this server's: open it as {', '.join(sorted(hosts))} (any port)",
            )
        if request.method != "POST":
            return
        own = f"{request.scheme}://{request.host}".lower()
        origin = request.headers.get("Origin") or (
            request.referrer and "{0.scheme}://{0.netloc}".format(urlsplit(request.referrer))
        )
        if origin and origin.lower() != own:
            raise WebError(
                403,
                "foreign_origin",
                f"a page of {origin[:80]!r} may not use this server: only its own pages ({own}) may",
            )
        if request.mimetype != "application/json":
            raise WebError(415, "not_json", "send the request body as JSON (Content-Type: application/json)")

    for url, name in (("/", "play.html"), ("/replay", "replay.html"), ("/arena", "arena.html")):
        app.add_url_rule(url, name, partial(send_from_directory, STATIC, name))
    app.add_url_rule("/static/<path:path>", "static", partial(send_from_directory, STATIC))

    @app.get("/api/config")
    def config():
        return jsonify(
            {
                "variants": list(VARIANTS),
                "agents": list(AGENT_NAMES),
                "checkpoints": ckpt_specs,
                "opponent": opponent,
                "variant": variant,
                "replay_file": replay_path.name if replay_path else None,
                "arena": arena_dir is not None,
            }
        )

    def session(game_id: str) -> GameSession:
        with games_lock:
            s = games.get(game_id)
            if s is not None:
                games.move_to_end(game_id)  # used now: the least recently used game is dropped first
        if s is None:
            raise WebError(
                404,
                "unknown_game",
                f"no game with id {game_id[:40]!r} (games live in the server's memory: "
                "they end when it stops, and the least recently used is dropped "
                f"when more than {MAX_GAMES} are open)",
            )
        return s

    @app.post("/api/games")
    def new_game():
        body = request_body(
            opponent=lambda spec: http_opponent(spec, opponent, ckpt_dir),
            variant=one_of(tuple(VARIANTS), variant),
            seed=seed_value,
            seat=one_of((0, 1), 0),
        )
        rules = Rules.preset(body["variant"])
        agent = opponent_agent(body["opponent"], rules)
        game_id = secrets.token_urlsafe(12)
        s = GameSession(game_id, agent, body["opponent"], rules, body["variant"], body["seed"], body["seat"])
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
        action = request_body(action=lambda a: action_id(a, s.rules.deck))["action"]
        with s.lock:
            steps = s.play(action)
            return jsonify({"game_id": game_id, "steps": steps, "view": steps[-1]})

    @app.post("/api/games/<game_id>/next")
    def next_game(game_id: str):
        s = session(game_id)
        request_body()
        with s.lock:
            steps = s.next_game()
            return jsonify({"game_id": game_id, "steps": steps, "view": steps[-1]})

    @app.post("/api/replay")
    def replay_upload():
        body = request_body(text=text_value, name=lambda n: "record.json" if n is None else text_value(n))
        answer, status = replay_data(body["text"], body["name"])
        return jsonify(answer), status

    @app.get("/api/replay/file")
    def replay_file():
        if replay_path is None:
            raise WebError(404, "no_replay_file", "the server was started without --replay FILE")
        return send_file(replay_path, mimetype="text/plain")

    @app.get("/api/arena")
    def arena_results():
        if arena_dir is None:
            raise WebError(
                404,
                "no_arena",
                "the server was started without --arena DIR (the --out folder of python -m agents.arena)",
            )
        return jsonify(arena_json(arena_dir))

    @app.get("/api/arena/ratings.png")
    def arena_plot():
        if arena_dir is None:
            raise WebError(404, "no_plot", "the server was started without --arena DIR")
        return send_from_directory(arena_dir, "ratings.png", mimetype="image/png")

    return app
