"""Fuzz the replay reader (RULES §9): whatever bytes a .json or .jsonl file holds, main()
prints RULES §9 lines (or exits 2) and never lets an exception escape.

For a .jsonl file: one output line per non-blank line (split at b"\\n" only; a blank line holds
only spaces, tabs and \\r), each the same line that the replay gives for that line alone.
"""

import contextlib
import io
import json
import pathlib
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schnapsen_env.replay import main

DECK = "AS KS QD TS JD QC KH AD JC TD KC AC TC QS JS AH TH QH JH KD".split()
ACTIONS = ["play AD", "play TD", "play AS", "close", "exchange", "declare", "marriage H", "play XH", "close\n"]
ACTIONS += ["play  TD", "jump"]

#: pieces that stress a reader: brackets, quotes, escapes, huge numbers, non-UTF-8 bytes, NaN, line separators
FRAGMENTS = [
    b"[",
    b"]",
    b"{",
    b"}",
    b'"',
    b"\\",
    b'\\"',
    b",",
    b":",
    b" ",
    b"\t",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x85",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"\x00",
    b"NaN",
    b"Infinity",
    b"-",
    b"1" * 4301,
    b"9" * 5000,
    b"1e999",
    b"null",
    b"true",
    b'"dealer"',
    b'"deck"',
    b'"actions"',
    b'"options"',
    b'"variant"',
    b"0",
    b"1",
    b'"TH"',
    b'"close"',
]


def _record(dealer, variant, actions, extra_key):
    rec = {"variant": variant, "options": {}, "dealer": dealer, "deck": DECK, "actions": actions}
    if extra_key:
        rec["seed"] = 1
    return json.dumps(rec).encode()


records = st.builds(
    _record,
    st.sampled_from([0, 1, 2, True]),
    st.sampled_from(["schnapsen", "vu-course", "x"]),
    st.lists(st.sampled_from(ACTIONS), max_size=6),
    st.booleans(),
)


@st.composite
def whitespace_mutated(draw):
    """A valid record with JSON whitespace (\\r included) put after its commas and colons."""
    text = draw(records)
    ws = draw(st.sampled_from([b"\r", b" \r ", b"\t", b"\r\t"]))
    return text.replace(b", ", b"," + ws).replace(b": ", b":" + ws)


@st.composite
def byte_mutated(draw):
    text = bytearray(draw(records))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        text[i:i] = draw(st.sampled_from(FRAGMENTS))
    return bytes(text)


deep = st.builds(lambda d, b: (b"[" if b else b'{"a":') * d, st.integers(50, 3000), st.booleans())
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
lines = st.one_of(
    records,
    whitespace_mutated(),
    byte_mutated(),
    deep,
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.lists(st.sampled_from(FRAGMENTS), max_size=8).map(b"".join),
    st.binary(max_size=40).filter(lambda b: b"\n" not in b),
    st.sampled_from([b"", b" ", b"\r", b" \t\r"]),
)

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_main(path: pathlib.Path) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path)])  # any exception escaping fails the test
    return code, out.getvalue().splitlines(), err.getvalue()


def is_blank(line: bytes) -> bool:
    return line.strip(b" \t\r") == b""


@FUZZ
@given(st.lists(lines, max_size=6), st.sampled_from([b"\n", b"\r\n"]), st.booleans())
def test_jsonl_any_bytes_one_line_per_non_blank_line_each_as_if_alone(body, ending, final_newline):
    data = ending.join(body) + (ending if final_newline else b"")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "games.jsonl"
        path.write_bytes(data)
        code, out, err = run_main(path)
        assert err == "" and code in (0, 1)
        parts = data.split(b"\n")
        expected = []
        for part in parts:
            if is_blank(part):
                continue
            alone = pathlib.Path(tmp) / "one.json"
            alone.write_bytes(part)
            one_code, one_out, one_err = run_main(alone)
            assert one_err == "" and len(one_out) == 1 and one_code in (0, 1)
            expected.append(one_out[0])
        assert out == expected
        results = [json.loads(x) for x in out]
        assert all(
            set(r)
            in (
                {"error", "message"},
                {"error", "index", "message"},
                {"finished", "to_move", "eyes", "tricks"},
                {"finished", "winner", "game_points", "eyes", "tricks", "reason"},
            )
            for r in results
        )
        assert code == (1 if any("error" in r for r in results) else 0)


@FUZZ
@given(st.one_of(lines, st.binary(max_size=200), st.lists(lines, max_size=3).map(b"\n".join)))
def test_json_file_of_any_bytes_gives_exactly_one_line(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "game.json"
        path.write_bytes(data)
        code, out, err = run_main(path)
        assert err == "" and len(out) == 1
        result = json.loads(out[0])
        assert code == (1 if "error" in result else 0)
