"""The Flask application of ``python -m agents.apps.web``: play, replay and arena results in the browser.

Every game lives in memory under a random game id; what the server sends about a game in progress is
built from ``state.information_set(seat)`` alone (RULES §8). Every request must name this server in
its ``Host``; every ``POST`` must come from this server's own pages and carry a JSON object. A bad
request gets a JSON error ``{"error": CODE, "message": TEXT}`` with a 4xx status and changes
nothing. The JSON API and its error codes: docs/web.md."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import secrets
import threading
from collections import OrderedDict
from functools import partial
from pathlib import Path
from typing import Annotated, Literal, NamedTuple
from urllib.parse import urlsplit

from flask import Flask, jsonify, request, send_file, send_from_directory
from pydantic import BaseModel, BeforeValidator, Field, ValidationError
from werkzeug.exceptions import HTTPException

from schnapsen_env.actions import action_to_str, parse_action
from schnapsen_env.cards import SUIT_NAMES_EN, SUIT_SYMBOLS, card_to_str, iter_cards
from schnapsen_env.engine import NO_CARD, GameState, IllegalActionError, Outcome
from schnapsen_env.match import Bummerl
from schnapsen_env.render import action_text, card_text, reason_text
from schnapsen_env.replay import parse_record, replay_json
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed

from ...registry import AGENT_NAMES, make_agent, parse_spec
from ...players.base import Agent

STATIC = Path(__file__).resolve().parent / "static"
#: games kept in memory at most (the least recently used is dropped first)
MAX_GAMES = 1000
#: largest request body (the text of a .jsonl file of many records)
MAX_BODY = 16 * 1024 * 1024
#: most records of a .jsonl text (more: 413, counted before any is replayed); the answer holds their
#: result lines only (about 250 bytes each), one record's frames are asked for when it is shown
MAX_RECORDS = 10_000
#: largest seed accepted (2**63 - 1); views send the seed back as a string (JavaScript numbers round
#: above 2**53)
MAX_SEED = 2**63 - 1
#: most ``samples`` (worlds or rollouts per move) of an opponent the web app accepts: more blocks a
#: request
MAX_WEB_SAMPLES = 200
#: the hosts every server answers to (any port), besides its ``--host``
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: per agent name, the spec key naming a file or folder: over HTTP only the checkpoints of
#: ``--checkpoints``
PATH_KEYS = {"ppo": "path", "rllib": "checkpoint", "sb3": "path"}
#: files of an arena ``--out`` folder the page shows (one of them must be there)
ARENA_FILES = ("results.json", "results.csv", "ratings.csv", "ratings.png")


class WebError(HTTPException):
    """A bad request: answered as ``{"error": error, "message": description}`` with status
    ``code``."""

    def __init__(self, code: int, error: str, message: str):
        super().__init__(message)
        self.code, self.error = code, error


# ------------------------------------------------------------------ request bodies (the HTTP boundary)
class Body(BaseModel, extra="forbid"):
    """A request body: a JSON object, unknown keys refused."""


class NewGame(Body):
    opponent: str | None = None  # None: the command line's opponent
    variant: Literal[tuple(VARIANTS)] | None = None  # None: the command line's variant
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    seat: Literal[0, 1] = 0


class Move(Body):
    # an id or its RULES §9 text ("play TH", "marriage H", "exchange", "close", "declare"); the
    # engine checks the id
    action: Annotated[int, BeforeValidator(lambda a: parse_action(a) if isinstance(a, str) else a)]


class Upload(Body):
    text: str  # the text of a .json (one record) or .jsonl (one a line) file
    name: str = "record.json"


def request_body(model: type[Body]) -> Body:
    """The request's JSON object (an empty body: ``{}``) as ``model``; 400 ``bad_json``,
    ``bad_request`` (an unknown key) or ``bad_KEY`` naming the first thing wrong."""
    try:
        return model.model_validate_json(request.get_data() or b"{}")
    except ValidationError as e:
        err = e.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else None
        code = "bad_json" if key is None else "bad_request" if err["type"] == "extra_forbidden" else f"bad_{key}"
        where = "the request body must be a JSON object" if key is None else repr(key[:60])
        allowed = ", ".join(model.model_fields) or "none"
        raise WebError(400, code, f"{where}: {err['msg']} (allowed keys: {allowed})") from None


# ------------------------------------------------------------------ cards, actions and tables as JSON
def card_json(card: int) -> dict | None:
    """``{"id", "code" (RULES §1: "TH"), "name" ("ten of hearts")}``; None for NO_CARD."""
    return None if card == NO_CARD else {"id": card, "code": card_to_str(card), "name": card_text(card, "en", False)}


def cards_json(mask: int) -> list:
    return [card_json(c) for c in iter_cards(mask)]


def action_json(action: int, player: int | None = None) -> dict:
    """``{"id", "text" (RULES §9, "play TH"), "label" ("play ten of hearts"), "player"}``."""
    return {
        "id": action,
        "text": action_to_str(action),
        "label": action_text(action, "en", False),
        "player": player,
    }


#: the declarer's game points by the loser's tricks and eyes (RULES §5)
SCALE_TEXT = {
    3: "the loser won no trick",
    2: "the loser won a trick but has 32 eyes or fewer",
    1: "the loser has 33 eyes or more",
}
#: the players in an explanation, by the seat of the view (None: a replay)
NAMES = {None: ("player 0", "player 1"), 0: ("you", "the opponent"), 1: ("the opponent", "you")}
#: why a game ended, per reason: ``w`` the winner, ``l`` the loser, ``gp`` the game points
WHY = {
    "declared_66": "{w} reached 66 eyes ({e}) and won {gp}",
    "last_trick": "nobody reached 66; {w} took the last trick and with it {gp}",
    "closing_failed": "{l} closed the talon but did not reach 66 first, so {w} won {gp}",
    "false_declaration": "{l} declared 66 with fewer than 66 eyes, a false declaration: {w} won {gp}",
    "renonce": "{l} broke a rule (renonce): {w} won {gp}",
}


def outcome_json(outcome: Outcome, closed_by: int, rules: Rules, names: tuple[str, str]) -> dict:
    """The RULES §9 result line, the reason in words and an ``explanation`` in English: why the game
    ended and why it is worth its game points (RULES §5). ``names``: the players, as in
    :data:`NAMES`."""
    w, pts = outcome.winner, outcome.game_points
    gp = f"{pts} game point{'s' if pts != 1 else ''}"
    text = WHY.get(outcome.reason, "{w} won {gp}").format(
        w=names[w],
        l=names[1 - w],
        e=outcome.eyes[w],
        gp=gp,
    )
    if outcome.reason == "declared_66":
        closed = closed_by >= 0 and not rules.closing_counts_later_eyes
        note = "the talon was closed, so the loser's eyes and tricks at the moment of closing count; " if closed else ""
        text += ": " + note + SCALE_TEXT.get(pts, "by the RULES §5 scale")
    elif outcome.reason == "last_trick" and rules.last_trick_bonus:
        text += " (after the 10 extra eyes for the last trick)"
    elif outcome.reason == "false_declaration" and rules.false_declaration_points == 2:
        text += " (fixed at 2 under these rules)"
    explanation = text[0].upper() + text[1:] + "."
    return {
        **outcome.to_dict(),
        "reason_text": reason_text(outcome.reason),
        "explanation": explanation,
    }


def table_json(x: GameState, seat: int | None) -> dict:
    """What a player's view and a replay frame share; ``x`` is a GameState or an InformationSet
    (eyes ``None`` when the rules hide them). ``seat``: the player of the view (None: a replay)."""
    t = x.tricks[-1] if x.tricks else None
    return {
        "dealer": x.dealer,
        "current_player": x.current_player,
        "leader": x.leader,
        "trump_suit": {"name": SUIT_NAMES_EN[x.trump_suit], "symbol": SUIT_SYMBOLS[x.trump_suit]},
        "trump_card": card_json(x.trump_card),
        "talon_size": x.talon_size,
        "closed_by": x.closed_by,
        "lead": card_json(x.lead_card),
        "pending_marriage": SUIT_NAMES_EN[x.pending_marriage] if x.pending_marriage >= 0 else None,
        "last_trick": t and {**t._asdict(), "lead": card_json(t.lead), "follow": card_json(t.follow)},
        "tricks_won": list(x.tricks_won),
        "eyes": None if x.eyes is None else list(x.eyes),
        "held_marriage_eyes": None if x.held_marriage_eyes is None else list(x.held_marriage_eyes),
        "outcome": outcome_json(x.outcome, x.closed_by, x.rules, NAMES[seat]) if x.outcome else None,
    }


# ------------------------------------------------------------------ games
class Snapshot(NamedTuple):
    """What a move that fails puts back: the game and the Bummerl's scores and finished games."""

    state: GameState
    scores: list
    games: list


class GameSession:
    """One Bummerl against one agent, played by the browser in seat ``seat``."""

    def __init__(self, opponent: Agent, spec: str, variant: str, seed: int | None, seat: int):
        self.opponent = opponent
        self.spec = spec
        self.variant = variant
        self.seat = seat
        self.rules = Rules.preset(variant)
        self.seed = seed if seed is not None else secrets.randbits(63)
        # a string: JavaScript rounds above 2**53
        self.shown = {} if seed is None else {"seed": str(seed)}
        # game 1: GameState.from_seed(rules, seed); the next continue it
        self.deal_rng = random.Random(self.seed)
        self.state = GameState.from_seed(self.rules, rng=self.deal_rng)
        self.bummerl = Bummerl(self.rules, self.state.dealer)
        self.lock = threading.Lock()
        self.reset_opponent()

    def reset_opponent(self) -> None:
        """Seed the opponent for the next game: game 1 with the seed's opponent stream, game n with
        a seed derived from it and n."""
        base = derive_seed(self.seed, OPPONENT_STREAM)
        game_number = len(self.bummerl.games) + 1
        if game_number == 1:
            self.opponent.reset(base)
        else:
            self.opponent.reset(derive_seed(base, game_number))

    def _apply(self, action: int) -> dict:
        """Apply ``action`` (scoring a finished game in the Bummerl); the view after it."""
        self.state.apply(action)
        if self.state.is_terminal:
            self.bummerl.record(self.state.outcome)
        return self.view()

    def snapshot(self) -> Snapshot:
        """A copy of the game and the Bummerl now."""
        return Snapshot(
            state=self.state.clone(),
            scores=list(self.bummerl.scores),
            games=list(self.bummerl.games),
        )

    def restore(self, before: Snapshot) -> None:
        """Put the game and the Bummerl back to ``before``."""
        self.state = before.state
        self.bummerl.scores = before.scores
        self.bummerl.games = before.games

    def opponent_moves(self, steps: list, before: Snapshot | None = None) -> list:
        """``steps`` and the views after each opponent move, until the player is to move or the game
        is over. An opponent that fails is 400 ``opponent_failed``, the game put back to ``before``
        when given."""
        while not self.state.is_terminal and self.state.current_player != self.seat:
            try:
                steps.append(self._apply(self.opponent.act(self.state.information_set(self.state.current_player))))
            except Exception as e:  # an agent's bug, or a checkpoint that does not fit these rules
                if before is not None:
                    self.restore(before)
                message = f"the opponent {self.spec!r} failed: {type(e).__name__}: {str(e)[:300]}"
                raise WebError(400, "opponent_failed", message) from None
        return steps

    def play(self, action: int) -> list:
        """The player's move and the opponent's answers; 400 ``illegal_action`` when it is not legal
        (game over too)."""
        before = self.snapshot()
        try:
            step = self._apply(action)
        except IllegalActionError as e:
            raise WebError(400, "illegal_action", str(e)) from None
        return self.opponent_moves([step], before)

    def next_game(self) -> list:
        """The next game of the Bummerl: 409 ``no_next_game`` while a game is on or once the Bummerl
        is over."""
        if self.bummerl.is_over or not self.state.is_terminal:
            over = "the Bummerl is over: start a new one"
            raise WebError(
                409,
                "no_next_game",
                over if self.bummerl.is_over else "the current game is not over yet",
            )
        before = self.snapshot()
        self.state = self.bummerl.new_game(self.deal_rng)
        self.reset_opponent()
        return self.opponent_moves([self.view()], before)

    def view(self) -> dict:
        """The player's view: built from the information set only (RULES §8); ``last`` is the last
        move."""
        info, b = self.state.information_set(self.seat), self.bummerl
        return {
            **table_json(info, self.seat),
            "opponent": self.spec,
            "variant": self.variant,
            "seat": self.seat,
            "game_number": len(b.games) + (not self.state.is_terminal),
            "hand": cards_json(info.hand),
            "opponent_hand_size": info.opponent_hand_size,
            "opponent_known": cards_json(info.opponent_known),
            "legal": [action_json(a) for a in info.legal_actions],
            "last": action_json(info.history[-1][1], info.history[-1][0]) if info.history else None,
            "bummerl": {
                "scores": b.scores,
                "target": self.rules.bummerl_target,
                "winner": b.winner,
                "value": b.value,
            },
            **self.shown,
        }


def opponent_agent(
    spec: str,
    rules: Rules,
    checkpoints: dict[str, str] | None = None,
) -> tuple[str, Agent]:
    """The spec and agent of ``spec`` for a game under ``rules``; over HTTP (``checkpoints``:
    ``ppo:NAME.pt`` specs of ``--checkpoints`` to their absolute paths) a spec names no other file.
    400 ``bad_opponent`` when the agent cannot be built or play ``rules`` (a ``vu:*`` bot), names
    another file or has over MAX_WEB_SAMPLES samples."""
    try:
        name, kwargs = parse_spec(spec)
        # importing code is the command line's
        if checkpoints is not None and name not in AGENT_NAMES:
            reason = "your own agent (MODULE:NAME, FILE.py:NAME) is named on the command line: --opponent SPEC"
        elif checkpoints is not None and PATH_KEYS.get(name) in kwargs and spec not in checkpoints:
            allowed = ", ".join(checkpoints) or "none: the server was started without --checkpoints DIR"
            reason = f"a checkpoint must be one of the server's --checkpoints folder: {allowed}"
        else:
            agent = make_agent(checkpoints.get(spec, spec) if checkpoints else spec)
            reason = agent.cannot_play(rules)
            if not reason and (getattr(agent, "samples", None) or 0) > MAX_WEB_SAMPLES:
                reason = f"samples={agent.samples} is more than the web app allows ({MAX_WEB_SAMPLES})"
    except (ValueError, ImportError) as e:
        reason = str(e)
    if reason:
        raise WebError(
            400,
            "bad_opponent",
            f"opponent {spec[:200]!r}: {reason}; choose another opponent or variant",
        )
    return agent.name, agent


# ------------------------------------------------------------------ replay
def frame_json(state: GameState, action: int | None = None, player: int | None = None) -> dict:
    """Everything about a replayed state (both hands and the talon: a record is public)."""
    return {
        **table_json(state, None),
        "action": None if action is None else action_json(action, player),
        "hands": [cards_json(state.hands[0]), cards_json(state.hands[1])],
        "talon": [card_json(c) for c in state.talon[state.talon_pos :]],
    }


def replay_one(text: str) -> dict:
    """One record's JSON text -> ``{"result", "line", "frames", "variant", "options"}``: ``result``
    is what ``python -m schnapsen_env.replay`` prints; frames up to an illegal action, none for an
    invalid record."""
    result = replay_json(text)
    out = {"result": result, "line": json.dumps(result), "frames": []}
    if result.get("error") == "invalid_record":
        return out
    record = json.loads(text)  # replay_json read it, so this is a valid record
    state, actions = parse_record(record)
    out.update(variant=record.get("variant", "schnapsen"), options=record.get("options", {}))
    out["frames"].append(frame_json(state))
    for a in actions:
        p = state.current_player
        try:
            state.apply(a)
        except IllegalActionError:
            out["failed_action"] = action_json(a, p if p >= 0 else None)
            break
        out["frames"].append(frame_json(state, a, p))
    return out


def replay_data(text: str, name: str) -> tuple[dict, int]:
    """A ``.json`` file's text (one record: :func:`replay_one`) or a ``.jsonl`` file's (one record a
    line, blank lines skipped: the result lines only, at most :data:`MAX_RECORDS`) -> the answer and
    status."""
    if not name.lower().endswith(".jsonl"):
        records = [replay_one(text)]
    else:
        # none: an invalid record
        lines = [line for line in text.split("\n") if line.strip(" \t\r")] or [""]
        if len(lines) > MAX_RECORDS:
            message = f"the .jsonl file holds {len(lines)} records; the viewer shows at most {MAX_RECORDS}: split it"
            raise WebError(413, "too_many_records", message)
        records = [{"result": r, "line": json.dumps(r)} for r in map(replay_json, lines)]
    # a 400 naming the first error
    if all(r["result"].get("error") == "invalid_record" for r in records):
        return {
            "error": "invalid_record",
            "message": records[0]["result"]["message"],
            "records": records,
        }, 400
    return {"records": records}, 200


# ------------------------------------------------------------------ arena
def csv_table(text: str) -> dict:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return {"header": rows[0] if rows else [], "rows": rows[1:]}


def arena_json(folder: Path) -> dict:
    """The files of an arena ``--out`` folder (``None`` for one not there); 422 ``bad_arena_file``
    naming a file that is not UTF-8 or does not parse. NaN and Infinity in results.json are sent as
    null."""
    out: dict = {"folder": str(folder), "has_plot": (folder / "ratings.png").is_file()}
    parse_json = partial(json.loads, parse_constant=lambda _: None)
    for key, name, parse in zip(
        ("results", "table", "ratings"),
        ARENA_FILES[:3],
        (parse_json, csv_table, csv_table),
    ):
        try:
            out[key] = parse((folder / name).read_text(encoding="utf-8")) if (folder / name).is_file() else None
        except (ValueError, csv.Error) as e:  # UnicodeDecodeError is a ValueError
            raise WebError(
                422,
                "bad_arena_file",
                f"{name} in the arena folder does not parse: {e}",
            ) from None
    return out


# ------------------------------------------------------------------ the app
class ServerOptions(NamedTuple):
    """:func:`create_app`'s options, checked (:func:`server_options`)."""

    opponent: str  #: a new game's default opponent spec (a checkpoint path as ``ppo:PATH``)
    variant: str  #: a new game's default variant
    replay_path: Path | None  #: the record file shown at /replay
    arena_dir: Path | None  #: the arena ``--out`` folder shown at /arena
    #: the ``ppo:NAME.pt`` specs a request may name -> their ``ppo:ABSOLUTE_PATH``
    checkpoints: dict[str, str]
    hosts: set[str]  #: the Host names (lower case, IPv6 in brackets) this server answers to


def server_options(
    opponent: str,
    variant: str,
    replay: str | None,
    arena: str | None,
    checkpoints: str | None,
    host: str,
) -> ServerOptions:
    """:func:`create_app`'s arguments checked; ``ValueError`` naming a bad one."""
    if opponent.partition(":")[0] not in AGENT_NAMES and Path(opponent).is_file():
        opponent = f"ppo:{opponent}"  # the command line takes a checkpoint path as it is
    try:
        # the command line's opponent may name any file
        opponent_agent(opponent, Rules.preset(variant))
    except WebError as e:
        raise ValueError(e.description) from None
    replay_path = Path(replay).resolve() if replay else None
    if replay_path and not replay_path.is_file():
        raise ValueError(f"--replay {replay!r} is not a file (a .json record or .jsonl records)")
    arena_dir = Path(arena).resolve() if arena else None
    if arena_dir and not any((arena_dir / n).is_file() for n in ARENA_FILES):
        producer = "python -m agents.evaluation.arena"
        msg = f"--arena {arena!r} is not the --out folder of {producer} (none of {ARENA_FILES})"
        raise ValueError(msg)
    checkpoint_specs = {}
    if checkpoints:
        folder = Path(checkpoints).resolve()
        if not folder.is_dir():
            raise ValueError(f"--checkpoints {checkpoints!r} is not a folder")
        for path in sorted(folder.rglob("*.pt")):
            checkpoint_specs[f"ppo:{path.relative_to(folder).as_posix()}"] = f"ppo:{path}"
    bracketed = f"[{host.lower()}]" if ":" in host else host.lower()  # an IPv6 Host is in brackets
    return ServerOptions(
        opponent=opponent,
        variant=variant,
        replay_path=replay_path,
        arena_dir=arena_dir,
        checkpoints=checkpoint_specs,
        hosts={*LOCAL_HOSTS, bracketed},
    )


def check_request(hosts: set[str]) -> None:
    """Host of this server on every request (DNS rebinding); on a POST, this server's own origin and
    a JSON body (a foreign page can send a text/plain or form body without the browser asking
    first)."""
    if re.sub(r":\d+$", "", request.host.lower()) not in hosts:  # any port
        message = f"Host {request.host[:80]!r} is not this server's: open it as {', '.join(sorted(hosts))}"
        raise WebError(400, "bad_host", message + " (any port)")
    if request.method != "POST":
        return
    own = f"{request.scheme}://{request.host}".lower()
    referrer = urlsplit(request.referrer or "")
    origin = request.headers.get("Origin") or (referrer.netloc and f"{referrer.scheme}://{referrer.netloc}")
    if origin and origin.lower() != own:
        message = f"a page of {origin[:80]!r} may not use this server: only its own pages ({own}) may"
        raise WebError(403, "foreign_origin", message)
    if request.mimetype != "application/json":
        raise WebError(
            415,
            "not_json",
            "send the request body as JSON (Content-Type: application/json)",
        )


def add_game_routes(app: Flask, options: ServerOptions) -> None:
    """The /api/games routes of ``app``: a new game, its view, a move, the next game of its Bummerl.
    The games live in ``app.extensions["schnapsen_web_games"]`` (game id -> :class:`GameSession`,
    tests look inside), at most :data:`MAX_GAMES`, the least recently used dropped first."""
    games: OrderedDict[str, GameSession] = OrderedDict()
    games_lock = threading.Lock()
    app.extensions["schnapsen_web_games"] = games

    def session(game_id: str) -> GameSession:
        with games_lock:
            if game_id in games:
                # used now: the least recently used game is dropped first
                games.move_to_end(game_id)
                return games[game_id]
        message = f"no game {game_id[:40]!r}: games live in the server's memory until it stops, at most {MAX_GAMES}"
        raise WebError(404, "unknown_game", message + " (the least recently used is dropped)")

    @app.post("/api/games")
    def new_game():
        body = request_body(NewGame)
        spec = body.opponent or options.opponent
        game_variant = body.variant or options.variant
        # the command line's: any file
        allowed = None if spec == options.opponent else options.checkpoints
        spec, agent = opponent_agent(spec, Rules.preset(game_variant), allowed)
        game = GameSession(agent, spec, game_variant, body.seed, body.seat)
        steps = game.opponent_moves([game.view()])
        game_id = secrets.token_urlsafe(12)
        with games_lock:
            games[game_id] = game
            while len(games) > MAX_GAMES:
                games.popitem(last=False)
        return {"game_id": game_id, "steps": steps}, 201

    @app.get("/api/games/<game_id>")
    def get_game(game_id: str):
        game = session(game_id)
        with game.lock:
            return game.view()

    @app.post("/api/games/<game_id>/action")
    def act(game_id: str):
        game = session(game_id)
        action = request_body(Move).action
        with game.lock:
            return {"steps": game.play(action)}

    @app.post("/api/games/<game_id>/next")
    def next_game(game_id: str):
        game = session(game_id)
        request_body(Body)
        with game.lock:
            return {"steps": game.next_game()}


def create_app(
    opponent: str = "random",
    variant: str = "schnapsen",
    replay: str | None = None,
    arena: str | None = None,
    checkpoints: str | None = None,
    host: str = "127.0.0.1",
) -> Flask:
    """The app. ``opponent``/``variant``: a new game's defaults (``opponent`` may be a checkpoint
    path); ``replay``: a record file, ``arena``: an arena ``--out`` folder to show; ``checkpoints``:
    the folder whose checkpoints a request may name; ``host``: the address served. ``ValueError``
    naming a bad one."""
    options = server_options(opponent, variant, replay, arena, checkpoints, host)
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY

    @app.errorhandler(HTTPException)
    def _error(e: HTTPException):
        # werkzeug's: not_found, ...
        code = getattr(e, "error", None) or e.name.lower().replace(" ", "_")
        return jsonify({"error": code, "message": e.description}), e.code

    app.before_request(partial(check_request, options.hosts))

    for url, page in (("/", "play.html"), ("/replay", "replay.html"), ("/arena", "arena.html")):
        app.add_url_rule(url, page, partial(send_from_directory, STATIC, page))
    app.add_url_rule("/static/<path:path>", "static", partial(send_from_directory, STATIC))

    @app.get("/api/config")
    def config():
        agents = list(AGENT_NAMES)
        if parse_spec(options.opponent)[0] not in AGENT_NAMES:
            agents.append(options.opponent)  # the command line's own agent or checkpoint
        return {
            "variants": list(VARIANTS),
            "agents": agents,
            "checkpoints": list(options.checkpoints),
            "opponent": options.opponent,
            "variant": options.variant,
            "replay_file": options.replay_path.name if options.replay_path else None,
            "arena": options.arena_dir is not None,
        }

    add_game_routes(app, options)

    @app.post("/api/replay")
    def replay_upload():
        return replay_data(**request_body(Upload).model_dump())

    if options.replay_path:  # without --replay or --arena these URLs are 404 not_found
        send_replay = partial(send_file, options.replay_path, mimetype="text/plain")
        app.add_url_rule("/api/replay/file", "replay_file", send_replay)
    if options.arena_dir:
        app.add_url_rule("/api/arena", "arena_json", partial(arena_json, options.arena_dir))
        send_ratings = partial(send_from_directory, options.arena_dir, "ratings.png")
        app.add_url_rule("/api/arena/ratings.png", "ratings", send_ratings)

    return app
