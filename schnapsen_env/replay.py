"""Game records in and out, and the replay CLI (RULES.md §9).

``python -m schnapsen_env.replay [--engine scalar|vector] PATH`` replays a ``.json`` file (one
record) or a ``.jsonl`` file (one record per line, blank lines skipped) and prints one JSON line per
record: a finished game, an unfinished one, ``illegal_action`` (with the action's 0-based index) or
``invalid_record`` (also for text that is not UTF-8 or JSON, ``NaN`` or a repeated key). ``--engine
vector`` replays :data:`VECTOR_CHUNK` lines at a time on the batched engine (needs torch). Exit
status 0 when every record replayed without error, 1 otherwise, 2 for an unreadable path.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from .actions import action_to_str, parse_action
from .cards import brief_repr, card_to_str, parse_card
from .cli_io import plain_text
from .engine import GameState, IllegalActionError
from .rules import Rules


#: the keys of a game record (RULES §9); any other key makes the record invalid
RECORD_KEYS = ("variant", "options", "dealer", "deck", "actions")
#: JSON whitespace other than the newline that ends a JSON Lines line: such a line is blank
_BLANK = b" \t\r"


class InvalidRecordError(ValueError):
    """A game record that cannot be read (RULES §9 ``invalid_record``)."""


def parse_record(record: Any) -> tuple[GameState, list[int]]:
    """The dealt state and the action ids of a record (``variant`` default ``"schnapsen"``,
    ``options`` ``{}``, ``actions`` ``[]``; ``deck`` and ``dealer`` required).
    :class:`InvalidRecordError` naming what is wrong."""
    if not isinstance(record, dict):
        raise InvalidRecordError(f"a record must be a JSON object, got {_json_type(record)}")
    unknown = [key for key in record if key not in RECORD_KEYS]
    if unknown:
        keys = ", ".join(RECORD_KEYS)
        raise InvalidRecordError(f"unknown key {brief_repr(unknown[0])}: a record has the keys {keys}")
    missing = [key for key in ("deck", "dealer") if key not in record]
    if missing:
        defaults = "('variant', 'options' and 'actions' default to schnapsen, {} and [])"
        raise InvalidRecordError(f"missing key {missing[0]!r}: a record needs 'deck' and 'dealer' {defaults}")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise InvalidRecordError(f"options must be a JSON object of option names and values, got {_json_type(options)}")
    try:
        rules = Rules.from_record(record.get("variant", "schnapsen"), options)
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None
    dealer = record["dealer"]
    if type(dealer) is not int or dealer not in (0, 1):
        raise InvalidRecordError(f"dealer must be 0 or 1, got {brief_repr(dealer)}")
    deck = record["deck"]
    if not isinstance(deck, list):
        raise InvalidRecordError(f"deck must be a list of card strings, got {_json_type(deck)}")
    if len(deck) != rules.deck:
        raise InvalidRecordError(f"deck must hold {rules.deck} cards for this variant, got {len(deck)}")
    actions_text = record.get("actions", [])
    if not isinstance(actions_text, list):
        raise InvalidRecordError(f"actions must be a list of action strings, got {_json_type(actions_text)}")
    where = "deck"
    try:
        cards = [parse_card(text, rules.deck) for text in deck]
        actions = []
        for i, text in enumerate(actions_text):
            where = f"action {i}"
            actions.append(parse_action(text, rules.deck))
    except ValueError as e:
        raise InvalidRecordError(f"{where}: {e}") from None
    duplicate = next((c for c in cards if cards.count(c) > 1), None)
    if duplicate is not None:
        raise InvalidRecordError(f"deck: duplicate card {card_to_str(duplicate)}")
    return GameState(rules, cards, dealer), actions


def _json_type(value: Any) -> str:
    names = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }
    return names.get(
        type(value),
        "a number" if type(value) in (int, float) else type(value).__name__,
    )


def replay_record(record: Any) -> dict:
    """Replay one record (a parsed JSON value); return its RULES §9 result line as a dict.

    Never raises for a bad record: it gives the ``invalid_record`` line."""
    try:
        state, actions = parse_record(record)
    except InvalidRecordError as e:
        return {"error": "invalid_record", "message": str(e)}
    for i, a in enumerate(actions):
        try:
            state.apply(a)
        except IllegalActionError as e:
            return {"error": "illegal_action", "index": i, "message": str(e)}
    return state.status()


def _reject_constant(name: str) -> Any:
    raise InvalidRecordError(f"{name} is not a JSON value")


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise InvalidRecordError(f"key {brief_repr(dup)} given twice in one object")
    return obj


def replay_json(text: str | bytes) -> dict:
    """The RULES §9 result line (a dict) of one record's JSON text (``str`` or UTF-8 ``bytes``);
    ``invalid_record`` for bad text; never raises."""
    record, error = _read_json(text)
    return error if error is not None else replay_record(record)


def _read_json(text: str | bytes) -> tuple[Any, dict | None]:
    """``(record, None)``, or ``(None, the invalid_record line)`` for text no record can be read
    from."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        record = json.loads(
            text,
            parse_constant=_reject_constant,
            object_pairs_hook=_no_repeated_keys,
        )
    except UnicodeDecodeError as e:
        message = f"not UTF-8: byte 0x{e.object[e.start]:02x} at position {e.start} ({e.reason})"
    except InvalidRecordError as e:  # from the json hooks above: JSON text that a record cannot be
        message = f"not a record: {e}"
    except (ValueError, RecursionError) as e:  # not JSON, too deep, an int of more than 4300 digits
        message = f"not JSON: {str(e)[:200]}"
    else:
        return record, None
    return None, {"error": "invalid_record", "message": message}


def _lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    """The non-blank lines of a JSON Lines stream, without their newline."""
    for raw in lines:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if line.strip(_BLANK):
            yield line


def replay_lines(lines: Iterable[bytes]) -> Iterator[dict]:
    """Replay a JSON Lines stream of bytes (an iterable of ``b"...\\n"`` lines, such as a file
    opened in binary mode, which splits at ``\\n`` only): one result per non-blank line,
    yielded as soon as that line is replayed."""
    yield from map(replay_json, _lines(lines))


#: non-blank lines of a ``.jsonl`` file read and replayed as one batch by ``--engine vector``
VECTOR_CHUNK = 4096
#: the replay engines of the CLI (``--engine``)
ENGINES = ("scalar", "vector")


def replay_records_vector(records: Sequence[Any], device=None) -> list[dict]:
    """``[replay_record(r) for r in records]`` through the batched engine (one batch per rules set,
    on ``device``; None: CPU), records checked by :func:`parse_record`. ``ImportError`` without
    torch."""
    from .vector.engine import VectorGames  # torch: only for this engine

    results: list[dict | None] = [None] * len(records)
    groups: dict[Rules, list] = {}
    for i, record in enumerate(records):
        try:
            state, actions = parse_record(record)
        except InvalidRecordError as e:
            results[i] = {"error": "invalid_record", "message": str(e)}
            continue
        groups.setdefault(state.rules, []).append((i, state.deck, state.dealer, actions))
    for rules, group in groups.items():
        for i, line in zip(
            [g[0] for g in group],
            _replay_batch(VectorGames(rules, len(group), device), group),
        ):
            results[i] = line
    return results  # type: ignore[return-value]


def _replay_batch(games: Any, group: list) -> list[dict]:
    """Deal ``group`` (``(index, deck, dealer, actions)`` per record) into ``games`` (a VectorGames
    of as many games) and apply the actions; the RULES §9 line of each."""
    import torch

    from .actions import MAX_GAME_LENGTH
    from .engine import REASONS

    n, dev = len(group), games.device
    games.reset([list(g[1]) for g in group], [g[2] for g in group])
    # an action past the longest game is past the game's end: the first such is where a record stops
    width = max(1, min(MAX_GAME_LENGTH + 1, max(len(g[3]) for g in group)))
    actions = torch.tensor(
        [(g[3] + [0] * width)[:width] for g in group],
        dtype=torch.int64,
        device=dev,
    )
    lengths = torch.tensor([len(g[3]) for g in group], dtype=torch.int64, device=dev)
    lines: list[dict | None] = [None] * n
    active = lengths > 0
    t = 0
    while t < width and bool(active.any()):
        a = actions[:, t]
        over = games.current_player < 0
        illegal = active & (over | (((games.legal_mask_bits() >> a) & 1) == 0))
        if bool(illegal.any()):
            for k in illegal.nonzero().squeeze(1).tolist():
                action = int(a[k])
                # the reason in the scalar engine's words (the batched engine's own error does the
                # same)
                why = "the game is over" if bool(over[k]) else games.game_state(k)._why_illegal(action)
                lines[k] = {
                    "error": "illegal_action",
                    "index": t,
                    "message": str(IllegalActionError(action, why)),
                }
            active = active & ~illegal
        games.step(a, games=active)
        t += 1
        active = active & (lengths > t)
    cols = (
        games.current_player,
        games.winner,
        games.game_points,
        games.reason,
        games.eyes,
        games.tricks_won,
    )
    for k, (to_move, winner, points, reason, eyes, tricks) in enumerate(zip(*(x.tolist() for x in cols))):
        if lines[k] is None:  # GameState.status(): its keys in its order
            head = {"winner": winner, "game_points": points} if winner >= 0 else {"to_move": to_move}
            lines[k] = {"finished": winner >= 0, **head, "eyes": eyes, "tricks": tricks}
            if winner >= 0:
                lines[k]["reason"] = REASONS[reason]
    return lines  # type: ignore[return-value]


def replay_lines_vector(
    lines: Iterable[bytes],
    chunk: int = VECTOR_CHUNK,
    device=None,
) -> Iterator[dict]:
    """:func:`replay_lines` through the batched engine: the same results, in the same order, the
    non-blank lines read ``chunk`` at a time and each chunk replayed as one batch per rules set."""
    read = map(_read_json, _lines(lines))
    while True:
        pending = list(islice(read, max(1, chunk)))
        if not pending:
            return
        yield from _replay_pending(pending, device)


def _replay_pending(pending: list[tuple[Any, dict | None]], device) -> Iterator[dict]:
    replayed = iter(replay_records_vector([r for r, error in pending if error is None], device))
    for _, error in pending:
        yield error if error is not None else next(replayed)


def to_record(state: GameState, variant: str = "schnapsen") -> dict:
    """The RULES §9 record of ``state``'s game so far (dealt from ``state.deck``, not a
    determinization); ``options`` holds the options that differ from the ``variant`` preset."""
    base = Rules.preset(variant).to_dict()
    return {
        "variant": variant,
        "options": {k: v for k, v in state.rules.to_dict().items() if base[k] != v},
        "dealer": state.dealer,
        "deck": [card_to_str(c) for c in state.deck],
        "actions": [action_to_str(a) for _, a in state.history],
    }


def main(argv: list[str] | None = None) -> int:
    """The replay CLI (module docstring); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m schnapsen_env.replay",
        usage="python -m schnapsen_env.replay [--engine scalar|vector] PATH",
        description=plain_text(__doc__.split("\n\n")[1]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--engine",
        default="scalar",
        help="replay engine: scalar (default) or vector",
    )
    parser.add_argument("path", help=".json: one record; .jsonl: one record per line")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2), said on standard error by argparse
        return e.code

    def fail(message: str) -> int:  # a usage problem: said on standard error, exit status 2
        print(f"replay: {message}", file=sys.stderr)
        return 2

    if args.engine not in ENGINES:
        return fail(f"unknown engine {args.engine!r}: allowed {', '.join(ENGINES)}")
    path = args.path
    if not path.endswith((".json", ".jsonl")):
        return fail(f"{path!r}: not a .json or .jsonl file")
    try:
        f = open(path, "rb")
    except OSError as e:
        return fail(f"cannot read {path!r}: {e.strerror}")
    if args.engine == "vector":
        try:
            import torch
        except ImportError:
            return fail("--engine vector needs PyTorch: install the [train] extra (pip install -e '.[train]')")
        torch.set_num_threads(1)  # batches of a few thousand games: more threads only contend
    any_error = False
    jsonl = path.endswith(".jsonl")
    with f:
        if args.engine == "vector":
            results = replay_lines_vector(f) if jsonl else _replay_pending([_read_json(f.read())], None)
        else:
            results = replay_lines(f) if jsonl else iter([replay_json(f.read())])
        try:
            for r in results:
                any_error |= "error" in r
                print(json.dumps(r), flush=True)
        except BrokenPipeError:  # the reader went away (| head)
            sys.stderr.close()
            return 1
    return 1 if any_error else 0


if __name__ == "__main__":
    sys.exit(main())
