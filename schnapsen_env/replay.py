"""Game records in and out, and the replay CLI (RULES.md §9).

``python -m schnapsen_env.replay PATH`` replays a ``.json`` file holding one
record or a ``.jsonl`` file holding one record per line and prints one JSON
line per record: a finished game, an unfinished one, ``illegal_action`` (with
the 0-based index of the action) or ``invalid_record``. Exit status 0 when
every record replayed without error, 1 otherwise, 2 when the path cannot be
read or is neither ``.json`` nor ``.jsonl``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .actions import action_to_str, parse_action
from .cards import card_to_str, parse_card
from .engine import GameState, IllegalActionError
from .rules import Rules


#: the keys of a game record (RULES §9); any other key makes the record invalid
RECORD_KEYS = ("variant", "options", "dealer", "deck", "actions")


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
        raise InvalidRecordError("a record must be a JSON object")
    unknown = sorted(set(record) - set(RECORD_KEYS))
    if unknown:
        raise InvalidRecordError(f"unknown key {unknown[0]!r}: a record has the keys {', '.join(RECORD_KEYS)}")
    for key in ("deck", "dealer"):
        if key not in record:
            raise InvalidRecordError(f"missing key {key!r}: a record needs 'deck' and 'dealer' "
                                     "('variant', 'options' and 'actions' default to schnapsen, {} and [])")
    try:
        rules = Rules.from_record(record.get("variant", "schnapsen"), record.get("options", {}))
    except (ValueError, TypeError) as e:
        raise InvalidRecordError(str(e)) from None
    dealer = record.get("dealer")
    if type(dealer) is not int or dealer not in (0, 1):
        raise InvalidRecordError(f"dealer must be 0 or 1, got {dealer!r}")
    deck = record.get("deck")
    if not isinstance(deck, list):
        raise InvalidRecordError("deck must be a list of card strings")
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
        raise InvalidRecordError("actions must be a list of action strings")
    actions = []
    for i, text in enumerate(actions_text):
        try:
            actions.append(parse_action(text, rules.deck))
        except ValueError as e:
            raise InvalidRecordError(f"action {i}: {e}") from None
    return GameState(rules, cards, dealer), actions


def replay_record(record: Any) -> dict:
    """Replay one record; return its RULES §9 result line as a dict."""
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


def to_record(state: GameState, variant: str = "schnapsen", deck=None) -> dict:
    """A RULES §9 record of ``state``'s game so far. ``deck`` is the deal
    order (card ids); without it the record cannot be replayed exactly, so it
    is required."""
    if deck is None:
        raise ValueError("to_record needs the deck order the game was dealt from")
    base = Rules.preset(variant).to_dict()
    options = {k: v for k, v in state.rules.to_dict().items() if base[k] != v}
    return {
        "variant": variant,
        "options": options,
        "dealer": state.dealer,
        "deck": [card_to_str(c) for c in deck],
        "actions": [action_to_str(a) for _, a in state.history],
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    usage = "usage: python -m schnapsen_env.replay PATH  (.json: one record; .jsonl: one per line)"
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        print(usage)
        print(__doc__.strip().split("\n\n", 1)[1])
        return 0
    if len(argv) != 1:
        print(usage, file=sys.stderr)
        return 2
    path = argv[0]
    if not (path.endswith(".json") or path.endswith(".jsonl")):
        print(f"replay: {path}: not a .json or .jsonl file", file=sys.stderr)
        return 2
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"replay: cannot read {path}: {e}", file=sys.stderr)
        return 2
    results = []
    if path.endswith(".jsonl"):
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                results.append({"error": "invalid_record", "message": f"not JSON: {e}"})
                continue
            results.append(replay_record(rec))
    else:
        try:
            rec = json.loads(text)
        except json.JSONDecodeError as e:
            results.append({"error": "invalid_record", "message": f"not JSON: {e}"})
        else:
            results.append(replay_record(rec))
    for r in results:
        print(json.dumps(r))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
