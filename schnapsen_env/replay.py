"""Game records in and out, and the replay CLI (RULES.md §9).

``python -m schnapsen_env.replay [--engine scalar|vector] PATH`` replays a
``.json`` file holding one record or a ``.jsonl`` file holding one record per
line and prints one JSON line per record: a finished game, an unfinished one,
``illegal_action`` (with the 0-based index of the action) or ``invalid_record``.
``--engine vector`` replays through the batched PyTorch engine
(:class:`schnapsen_env.vector.engine.VectorGames`; needs the ``[train]`` extra's
torch): the records of up to 4096 lines at a time, one batch per rules set,
printing the same lines as the default ``--engine scalar``. Exit status 0 when
every record replayed without error, 1 otherwise, and 1 quietly when the
reader of standard output goes away (a broken pipe, ``| head``), 2 when the
path cannot be read (missing, not a regular file: a directory, FIFO or device
is refused without being opened for reading; no permission; a name too long)
or is neither ``.json`` nor ``.jsonl``, or standard output is closed or
cannot be written (disk full); 130 on Ctrl-C. Each error is one line on
standard error (with standard error closed or unwritable the status alone tells).

Whatever bytes the file holds, the replay prints RULES §9 lines (or exits 2),
never a traceback. A ``.jsonl`` file is split at ``\\n`` only (a ``\\r``,
form feed or Unicode line separator inside a line is part of it; a ``\\r\\n``
ending leaves a ``\\r``, which is JSON whitespace), each line is read and
replayed on its own and its result printed at once, so a bad line costs only
its own ``invalid_record`` line. A blank line (empty, or only spaces, tabs and
``\\r``) is skipped. A line (or a ``.json`` file) that is not UTF-8, not JSON,
JSON with ``NaN``/``Infinity``, a repeated key in an object, an integer of more
than 4300 digits or nesting deeper than 64 levels is ``invalid_record``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

from .actions import action_to_str, parse_action
from .cards import brief_repr, card_to_str, deck_cards, parse_card
from .cli_io import file_kind, say, silence
from .engine import GameState, IllegalActionError
from .rules import PRESETS, Rules


#: the keys of a game record (RULES §9); any other key makes the record invalid
RECORD_KEYS = ("variant", "options", "dealer", "deck", "actions")
#: deepest nesting of arrays and objects a record's JSON text may have (a valid record needs 2)
MAX_DEPTH = 64
#: most digits an integer literal in a record's JSON text may have (Python's default int/str limit)
MAX_INT_DIGITS = 4300
#: JSON whitespace other than the newline that ends a JSON Lines line: such a line is blank
_BLANK = b" \t\r"
#: characters that matter for the nesting depth: brackets, and the quotes and backslashes of strings
_DEPTH_CHARS = re.compile(r'[\[\]{}"\\]')


class InvalidRecordError(ValueError):
    """A game record that cannot be read (RULES §9 ``invalid_record``)."""


def parse_record(record: Any) -> tuple[GameState, list[int]]:
    """Check a whole record and return the dealt state and the action ids.

    ``variant`` defaults to ``"schnapsen"``, ``options`` to ``{}`` and
    ``actions`` to ``[]``; ``deck`` and ``dealer`` are required.
    Raises :class:`InvalidRecordError` naming what is wrong: not an object,
    an unknown or missing key, unknown variant or option, bad option value, wrong deck size, unknown or
    duplicate card, dealer not 0/1, unreadable action text.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError(f"a record must be a JSON object, got {_json_type(record)}")
    unknown = [k for k in record if not (type(k) is str and k in RECORD_KEYS)]
    if unknown:
        raise InvalidRecordError(f"unknown key {brief_repr(unknown[0])}: "
                                 f"a record has the keys {', '.join(RECORD_KEYS)}")
    for key in ("deck", "dealer"):
        if key not in record:
            raise InvalidRecordError(f"missing key {key!r}: a record needs 'deck' and 'dealer' "
                                     "('variant', 'options' and 'actions' default to schnapsen, {} and [])")
    variant = record.get("variant", "schnapsen")
    if type(variant) is not str or variant not in PRESETS:
        raise InvalidRecordError(f"unknown variant {brief_repr(variant)}: allowed presets are {', '.join(PRESETS)}")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise InvalidRecordError(f"options must be a JSON object of option names and values, "
                                 f"got {_json_type(options)}")
    try:
        rules = Rules.from_record(variant, options)
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
    cards = []
    for text in deck:
        try:
            cards.append(parse_card(text, rules.deck))
        except ValueError as e:
            raise InvalidRecordError(f"deck: {e}") from None
    if len(set(cards)) != len(cards):
        dup = next(c for c in cards if cards.count(c) > 1)
        raise InvalidRecordError(f"deck: duplicate card {card_to_str(dup)}")
    actions_text = record.get("actions", [])
    if not isinstance(actions_text, list):
        raise InvalidRecordError(f"actions must be a list of action strings, got {_json_type(actions_text)}")
    actions = []
    for i, text in enumerate(actions_text):
        try:
            actions.append(parse_action(text, rules.deck))
        except ValueError as e:
            raise InvalidRecordError(f"action {i}: {e}") from None
    return GameState(rules, cards, dealer), actions


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
             int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


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


class _NotARecordText(ValueError):
    """JSON text that a record cannot be (raised by the json hooks below)."""


def _reject_constant(name: str) -> Any:
    raise _NotARecordText(f"{name} is not a JSON value")


def _checked_int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_INT_DIGITS:
        raise _NotARecordText(f"an integer of {len(text) - text.startswith('-')} digits "
                              f"(at most {MAX_INT_DIGITS} are read)")
    return int(text)


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _NotARecordText(f"key {brief_repr(dup)} given twice in one object")
    return obj


def _too_deep(text: str) -> bool:
    """Whether arrays/objects in ``text`` nest deeper than MAX_DEPTH (brackets inside strings
    do not count). Linear in the number of brackets, quotes and backslashes."""
    depth = 0
    in_string = False
    escaped_at = -1
    for m in _DEPTH_CHARS.finditer(text):
        i = m.start()
        c = text[i]
        if in_string:
            if i == escaped_at:
                continue
            if c == "\\":
                escaped_at = i + 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
    return False


def replay_json(text: str | bytes) -> dict:
    """Read one record from its JSON text (``str``, or UTF-8 ``bytes``) and replay it.

    Returns the RULES §9 result line as a dict; for any text whatsoever it returns a
    line (``invalid_record`` for text that is not UTF-8, not JSON, or JSON beyond the
    limits in the module docstring) and never raises. Raises ``ValueError`` only when
    ``text`` is neither ``str`` nor ``bytes``.
    """
    record, error = _read_json(text)
    return error if error is not None else replay_record(record)


def _read_json(text: str | bytes) -> tuple[Any, dict | None]:
    """``(record, None)`` for JSON text a record can be read from, ``(None, invalid_record line)`` else
    (:func:`replay_json` without the replay)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, {"error": "invalid_record",
                          "message": f"not UTF-8: byte 0x{e.object[e.start]:02x} at position {e.start} ({e.reason})"}
    elif not isinstance(text, str):
        raise ValueError(f"replay_json needs the JSON text as str or bytes, got {type(text).__name__}")
    if _too_deep(text):
        return None, {"error": "invalid_record", "message": f"not a record: JSON nested deeper than {MAX_DEPTH} levels"}
    try:
        record = json.loads(text, parse_constant=_reject_constant, parse_int=_checked_int,
                            object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as e:
        return None, {"error": "invalid_record", "message": f"not JSON: {e}"}
    except _NotARecordText as e:
        return None, {"error": "invalid_record", "message": f"not a record: {e}"}
    except ValueError as e:  # int() refusing a long literal under a lower sys.set_int_max_str_digits
        return None, {"error": "invalid_record", "message": f"not JSON: {brief_repr(str(e), 200)}"}
    except RecursionError:  # not reached below MAX_DEPTH; kept so that no input gives a traceback
        return None, {"error": "invalid_record", "message": f"not a record: JSON nested deeper than {MAX_DEPTH} levels"}
    return record, None


def replay_lines(lines: BinaryIO) -> Iterator[dict]:
    """Replay a JSON Lines stream of bytes (an iterable of ``b"...\\n"`` lines, such as a file
    opened in binary mode, which splits at ``\\n`` only): one result per non-blank line,
    yielded as soon as that line is replayed."""
    for raw in lines:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if not line.strip(_BLANK):
            continue
        yield replay_json(line)


#: non-blank lines of a ``.jsonl`` file read and replayed as one batch by ``--engine vector``
VECTOR_CHUNK = 4096
#: the replay engines of the CLI (``--engine``)
ENGINES = ("scalar", "vector")
_TORCH_HINT = ('--engine vector needs PyTorch: install the [train] extra (pip install "schnapsen-env[train]", '
               'or pip install -e ".[train]" from a clone)')


def replay_records_vector(records: Sequence[Any], device=None) -> list[dict]:
    """Replay many records (parsed JSON values) through the batched engine
    (:class:`schnapsen_env.vector.engine.VectorGames`, one batch per rules set, on ``device``;
    None: the CPU) and return their RULES §9 lines, the same as ``[replay_record(r) for r in
    records]``. The records are checked by :func:`parse_record`; the actions are applied with
    tensors, all games of a rules set one action index at a time. Needs torch (``ImportError``
    without it)."""
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
        for i, line in zip([g[0] for g in group], _replay_batch(VectorGames(rules, len(group), device), group)):
            results[i] = line
    return results  # type: ignore[return-value]


def _replay_batch(games: Any, group: list) -> list[dict]:
    """Deal ``group`` (``(index, deck, dealer, actions)`` per record) into ``games`` (a VectorGames of
    as many games) and apply the actions; the RULES §9 line of each."""
    import torch

    from .actions import MAX_GAME_LENGTH
    from .engine import REASONS

    n = len(group)
    dev = games.device
    games.reset([list(g[1]) for g in group], [g[2] for g in group])
    # an action past the longest game is past the game's end: the first such is where a record stops
    width = max(1, min(MAX_GAME_LENGTH + 1, max(len(g[3]) for g in group)))
    actions = torch.zeros((n, width), dtype=torch.int64)
    for k, g in enumerate(group):
        if g[3]:
            acts = g[3][:width]
            actions[k, : len(acts)] = torch.tensor(acts, dtype=torch.int64)
    actions = actions.to(dev)
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
                # the reason in the scalar engine's words (the batched engine's own error does the same)
                why = "the game is over" if bool(over[k]) else games.game_state(k)._why_illegal(action)
                lines[k] = {"error": "illegal_action", "index": t, "message": str(IllegalActionError(action, why))}
            active = active & ~illegal
        games.step(a, games=active)
        t += 1
        active = active & (lengths > t)
    cols = [x.tolist() for x in (games.current_player, games.winner, games.game_points, games.reason, games.eyes,
                                 games.tricks_won)]
    for k, (to_move, winner, points, reason, eyes, tricks) in enumerate(zip(*cols)):
        if lines[k] is not None:
            continue
        if winner >= 0:
            lines[k] = {"finished": True, "winner": winner, "game_points": points, "eyes": eyes, "tricks": tricks,
                        "reason": REASONS[reason]}
        else:
            lines[k] = {"finished": False, "to_move": to_move, "eyes": eyes, "tricks": tricks}
    return lines  # type: ignore[return-value]


def replay_lines_vector(lines: BinaryIO, chunk: int = VECTOR_CHUNK, device=None) -> Iterator[dict]:
    """:func:`replay_lines` through the batched engine: the same results, in the same order, the
    non-blank lines read ``chunk`` at a time and each chunk replayed as one batch per rules set
    (:func:`replay_records_vector`). Should reading fail midway (``OSError``), the lines already
    read are replayed and yielded before the error is raised."""
    it = iter(lines)
    done = False
    while not done:
        pending: list[tuple[Any, dict | None]] = []
        try:
            done = True
            for raw in it:
                line = raw[:-1] if raw.endswith(b"\n") else raw
                if not line.strip(_BLANK):
                    continue
                pending.append(_read_json(line))
                if len(pending) >= chunk:
                    done = False
                    break
        except OSError:
            yield from _replay_pending(pending, device)
            raise
        yield from _replay_pending(pending, device)


def _replay_pending(pending: list[tuple[Any, dict | None]], device) -> Iterator[dict]:
    replayed = iter(replay_records_vector([r for r, error in pending if error is None], device))
    for _, error in pending:
        yield error if error is not None else next(replayed)


def to_record(state: GameState, variant: str = "schnapsen", deck=None) -> dict:
    """A RULES §9 record of ``state``'s game so far. ``deck`` is the deal order (card ids);
    without it the state's own deal (``state.deck``) is used. Raises ``ValueError`` when
    ``state`` is not a GameState, ``variant`` is not a preset name, or ``deck`` is missing
    (a determinization has no deal) or is not the deck ``state`` was dealt from."""
    if not isinstance(state, GameState):
        raise ValueError(f"to_record needs a GameState, got {type(state).__name__}")
    base = Rules.preset(variant).to_dict()
    if deck is None:
        deck = getattr(state, "deck", None)
        if deck is None:
            raise ValueError("to_record needs the deck order the game was dealt from (this state has none: "
                             "a determinization)")
    if isinstance(deck, (str, bytes)) or not hasattr(deck, "__len__") or not hasattr(deck, "__iter__"):
        raise ValueError(f"deck must be a sequence of card ids, got {type(deck).__name__}")
    deck = list(deck)
    if not all(type(c) is int for c in deck) or sorted(deck) != deck_cards(state.rules.deck):
        raise ValueError(f"deck must be an order of the {state.rules.deck} card ids of the game's variant, "
                         f"got {brief_repr(deck)}")
    own = getattr(state, "deck", None)
    if own is not None and tuple(deck) != tuple(own):
        raise ValueError("deck is not the deck this game was dealt from")
    dealt = GameState(state.rules, deck, state.dealer)
    if dealt.talon != state.talon or dealt.trump_suit != state.trump_suit:
        raise ValueError("deck is not the deck this game was dealt from (its talon or trump differ)")
    options = {k: v for k, v in state.rules.to_dict().items() if base[k] != v}
    return {
        "variant": variant,
        "options": options,
        "dealer": state.dealer,
        "deck": [card_to_str(c) for c in deck],
        "actions": [action_to_str(a) for _, a in state.history],
    }


USAGE = ("usage: python -m schnapsen_env.replay [--engine scalar|vector] PATH  "
         "(.json: one record; .jsonl: one per line)")


def _fail(message: str) -> int:
    say(f"replay: {message}")
    return 2




class _OutputError(Exception):
    """Standard output cannot be written; ``error`` is why (an OSError such as a broken pipe or a
    full disk, a ValueError for a closed stream, a UnicodeEncodeError), None when it is closed."""

    def __init__(self, error: BaseException | None):
        super().__init__(str(error))
        self.error = error


def _print(text: str) -> None:
    """Write ``text`` and a newline on standard output at once; :class:`_OutputError` when it cannot."""
    out = sys.stdout
    if out is None:  # closed (>&-): print() would drop the text without a word
        raise _OutputError(None)
    try:
        out.write(text + "\n")
        out.flush()
    except (OSError, ValueError) as e:
        raise _OutputError(e) from None


def _output_failed(error: BaseException | None) -> int:
    """The exit status after writing standard output failed: 1 and nothing said for a broken pipe
    (the reader stopped reading), else one line on standard error and 2."""
    if sys.stdout is not None:
        try:  # what is still buffered (before a character the encoding cannot take) goes out now
            sys.stdout.flush()
        except (OSError, ValueError):  # or nowhere: no "Exception ignored" at interpreter exit
            silence(sys.stdout)
    if isinstance(error, BrokenPipeError):
        return 1
    if error is None:
        return _fail("standard output is closed")
    if isinstance(error, UnicodeEncodeError):
        reason = (f"its encoding {error.encoding} cannot write {error.object[error.start:error.end]!r} "
                  "(use a UTF-8 terminal, or PYTHONIOENCODING=utf-8)")
    elif isinstance(error, ValueError) and "closed file" in str(error):
        reason = "it is closed"
    else:
        reason = _os_reason(error)
    return _fail(f"cannot write standard output: {reason}")


def _os_reason(e: BaseException) -> str:
    """Why a path cannot be read, on one short line (an OSError's text without the path again)."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _open_regular_file(path: str) -> BinaryIO:
    """Open ``path`` for reading in binary mode, refusing anything but a regular file
    (``ValueError`` naming what it is) without blocking on a FIFO; ``OSError`` when it cannot."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(_what_file(st.st_mode))
    # O_NONBLOCK: should the path become a FIFO between the stat and the open, opening it does not block
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(_what_file(mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise




def _what_file(mode: int) -> str:
    kind = file_kind(mode)
    return kind if kind == "not a regular file" else f"{kind}, not a regular file"


def main(argv: list[str] | None = None) -> int:
    """The replay CLI: ``argv`` is ``[PATH]``, optionally with ``--engine scalar|vector`` (default
    ``sys.argv[1:]``); returns the exit status (an unknown engine, or ``vector`` without torch: one
    line on standard error and 2).

    Prints one JSON line per record on standard output as it is replayed; a path that
    cannot be read, or standard output closed or not writable, gives one line on standard
    error and 2; a broken pipe on standard output gives 1 quietly. Raises ``ValueError``
    only for an ``argv`` that is not a list of strings."""
    argv = sys.argv[1:] if argv is None else argv
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise ValueError(f"argv must be a list of strings, got {brief_repr(argv)}")
    try:
        return _main(argv)
    except _OutputError as e:
        return _output_failed(e.error)
    except KeyboardInterrupt:  # Ctrl-C before a file was read (importing torch for the vector engine)
        say("replay: interrupted")
        return 130


def _split_engine(argv: list[str]) -> tuple[str | None, list[str], list[str]]:
    """``(engine, other arguments, every engine given)`` from ``--engine NAME`` / ``--engine=NAME``
    (default scalar; None when ``--engine`` has no name); ``--`` ends the options."""
    given: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i + 1:])
            break
        if a == "--engine":
            given.append(argv[i + 1] if i + 1 < len(argv) else None)
            i += 2
            continue
        if a.startswith("--engine="):
            given.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    return (given[-1] if given else "scalar"), rest, given


def _main(argv: list[str]) -> int:
    engine, argv, given = _split_engine(list(argv))
    if len(given) > 1:
        return _fail(f"--engine given twice ({', '.join(brief_repr(e, 60) for e in given[:2])}): give it once")
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        _print(USAGE + "\n" + __doc__.strip().split("\n\n", 1)[1])
        return 0
    if len(argv) != 1 or engine is None:
        say(USAGE)
        return 2
    if engine not in ENGINES:
        return _fail(f"unknown engine {brief_repr(engine, 200)}: allowed {', '.join(ENGINES)}")
    if engine == "vector":
        try:
            import torch
        except ImportError:
            return _fail(_TORCH_HINT)
        torch.set_num_threads(1)  # batches of a few thousand games: more threads only contend for the cores
    if sys.stdout is None:  # before the file is read: there is nowhere to put the results
        return _fail("standard output is closed")
    path = argv[0]
    shown = brief_repr(path, 200)
    is_jsonl = path.endswith(".jsonl")
    if not (is_jsonl or path.endswith(".json")):
        return _fail(f"{shown}: not a .json or .jsonl file")
    try:
        f = _open_regular_file(path)
    except (OSError, ValueError) as e:  # ValueError: not a regular file, or a NUL in the path
        return _fail(f"cannot read {shown}: {_os_reason(e)}")
    any_error = False
    try:
        with f:
            if engine == "vector":
                results = replay_lines_vector(f) if is_jsonl else _replay_pending([_read_json(f.read())], None)
            else:
                results = replay_lines(f) if is_jsonl else iter([replay_json(f.read())])
            for r in results:
                any_error |= "error" in r
                _print(json.dumps(r))  # (an _OutputError is not an OSError: it is no read error)
    except OSError as e:  # reading the file
        return _fail(f"cannot read {shown}: {_os_reason(e)}")
    except KeyboardInterrupt:
        say("replay: interrupted")
        return 130
    return 1 if any_error else 0




if __name__ == "__main__":
    sys.exit(main())
