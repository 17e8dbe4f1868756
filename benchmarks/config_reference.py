"""The config reference of docs/training.md: one table row per config key, written from the pydantic models.

Each key of :class:`agents.training.config.TrainConfig` (``train.py``'s YAML) and of
:class:`agents.training.exit.ExitConfig` (``configs/exit.yaml``) gets its dotted name, type, default (the value when
the key is missing), allowed values and meaning (the field's docstring). The tables replace the blocks between
``<!-- config-reference:start -->``/``<!-- config-reference:end -->`` and
``<!-- exit-config-reference:start -->``/``<!-- exit-config-reference:end -->`` of docs/training.md;
``tests/train/test_config_reference.py`` fails when they are out of date.

    python benchmarks/config_reference.py            # rewrite the blocks
    python benchmarks/config_reference.py --check    # exit status 1 if a block is out of date"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, get_args, get_origin

import yaml
from _common import ROOT, parser, publish
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from agents.training.config import TrainConfig, read_yaml
from agents.training.exit import ExitConfig

#: the page that holds the reference
PAGE = ROOT / "docs" / "training.md"
#: the config whose values are compared with the defaults, below the training table
DEFAULT_YAML = ROOT / "configs" / "default.yaml"
#: the table's columns
HEAD = ("key", "type", "default", "allowed", "meaning")
#: a constraint's attribute on a field's metadata -> how the allowed column writes it
BOUNDS = {"ge": ">= {}", "gt": "> {}", "le": "<= {}", "lt": "< {}"}
#: reStructuredText in the docstrings: a role (``:func:`x```) or a double-backquoted literal
RST_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
RST_LITERAL = re.compile(r"``([^`]+)``")
#: what a validator checks beyond a key's type and bounds (``TrainConfig._cross_checks``, ``RunConfig``'s and
#: ``LabelsStep``'s validators), per model; a note that names no key of its model is an error
VALIDATED = {
    "TrainConfig": {
        "game.rules": "options of RULES §7 the preset allows",
        "ppo.minibatch_size": "divides `ppo.num_games * ppo.rollout_steps`",
        "ppo.kl_init_coef": "0 unless `model.init` is given",
        "opponents.agents": "agent specs that build and play `game.variant`; the weights' sum > 0",
        "eval.games": "even with `eval.duplicate`",
        "eval.final_games": "even with `eval.duplicate`",
        "eval.opponents": "agent specs that build and play `game.variant`",
        "run.device": "`cpu` or a CUDA device this machine has (`cuda`, `cuda:0`, ...)",
    },
    "ExitConfig": {
        "labels.agents": "agent specs that build",
        "labels.teacher": "an agent spec whose agent has `distribution`",
    },
}


class KeyRow(NamedTuple):
    """One config key as the reference shows it."""

    key: str  #: dotted name, e.g. ``seeding.update_threads``
    type: str
    default: str
    allowed: str
    meaning: str


class Block(NamedTuple):
    """One generated block of the page: its marker name and its text."""

    name: str
    text: str


def optional_parts(annotation: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(annotation, False)``."""
    args = get_args(annotation)
    if type(None) in args and get_origin(annotation) is not Literal:
        return next(arg for arg in args if arg is not type(None)), True
    return annotation, False


def unwrap(annotation: Any) -> tuple[Any, list]:
    """The bare type of ``Annotated[X, ...]`` and its constraints (``PositiveInt``: ``int``,
    ``[Gt(0)]``)."""
    if get_origin(annotation) is Annotated:
        bare, *constraints = get_args(annotation)
        return bare, constraints
    return annotation, []


def type_name(annotation: Any) -> str:
    """How the reference names a type: ``int``, ``list of int``, ``mapping of str to float``,
    ``str``."""
    bare, _ = unwrap(optional_parts(annotation)[0])
    origin = get_origin(bare)
    if origin is Literal:
        return type(get_args(bare)[0]).__name__
    if origin is list:
        return f"list of {type_name(get_args(bare)[0])}"
    if origin is dict:
        value = get_args(bare)[1]
        return "mapping" if value is Any else f"mapping of str to {type_name(value)}"
    if bare is Any:
        return "any"
    return bare.__name__


def bounds(constraints: list, text: bool = False) -> list[str]:
    """The numeric bounds, length limits (of a string if ``text``) and patterns of ``constraints`` (pydantic's
    field metadata)."""
    parts = []
    for constraint in constraints:
        for attribute, form in BOUNDS.items():
            value = getattr(constraint, attribute, None)
            if value is not None:
                parts.append(form.format(value))
        min_length = getattr(constraint, "min_length", None)
        if min_length is not None:
            unit = "character" if text else "entry"
            plural = "s" * (min_length > 1)
            parts.append(f"at least {min_length} {unit}{plural}")
        pattern = getattr(constraint, "pattern", None)
        if pattern is not None:
            parts.append(f"matches `{pattern}`")
    return parts


def allowed(field: FieldInfo, note: str | None) -> str:
    """The allowed column: listed values, bounds (an item's or a mapping value's marked as such), a validator's
    ``note``, ``null``."""
    bare, nullable = optional_parts(field.annotation)
    bare, constraints = unwrap(bare)
    parts = bounds(constraints=[*constraints, *field.metadata], text=bare is str)
    origin = get_origin(bare)
    if origin is Literal:
        parts.insert(0, ", ".join(f"`{value}`" for value in get_args(bare)))
    elif bare is bool:
        parts.insert(0, "`true`, `false`")
    elif origin in (list, dict):
        item = get_args(bare)[-1]
        parts += [f"each {part}" for part in bounds(constraints=unwrap(item)[1])]
    if note is not None:
        parts.append(note)
    if nullable:
        parts.append("`null`")
    return "; ".join(parts) or "any"


def yaml_text(value: Any) -> str:
    """``value`` as it is written in a config file (YAML flow style)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip()


def markdown(docstring: str | None) -> str:
    """A field docstring on one line, its reStructuredText literals and roles as Markdown code,
    ``|`` escaped."""
    text = " ".join((docstring or "").split())
    text = RST_ROLE.sub(r"`\1`", text)
    text = RST_LITERAL.sub(r"`\1`", text)
    return text.replace("|", "\\|")


def is_section(annotation: Any) -> bool:
    """Whether a field is a nested section (a model of its own) rather than a key."""
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def key_rows(
    model: type[BaseModel],
    notes: dict[str, str] | None = None,
    prefix: str = "",
) -> list[KeyRow]:
    """A row per key of ``model``, its sections' keys under ``section.key``, in the order of the source;
    ``notes``: dotted key -> what its validator allows (default: ``VALIDATED`` of the model)."""
    if notes is None:
        notes = VALIDATED.get(model.__name__, {})
    rows = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        if is_section(field.annotation):
            rows += key_rows(model=field.annotation, notes=notes, prefix=f"{key}.")
            continue
        default = field.get_default(call_default_factory=True)
        row = KeyRow(
            key=key,
            type=type_name(field.annotation),
            default=yaml_text(default),
            allowed=allowed(field=field, note=notes.get(key)),
            meaning=markdown(field.description),
        )
        rows.append(row)
    if not prefix:
        unknown = set(notes) - {row.key for row in rows}
        if unknown:
            raise KeyError(f"VALIDATED names keys {model.__name__} lacks: {sorted(unknown)}")
    return rows


def table(rows: list[KeyRow]) -> str:
    """``rows`` as a Markdown table, keys and defaults as code."""
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for row in rows:
        cells = [f"`{row.key}`", row.type, f"`{row.default}`", row.allowed, row.meaning]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def flatten(data: dict, prefix: str = "") -> dict[str, Any]:
    """A nested config dict as ``{dotted key: value}``, the keys of :func:`key_rows` (``game.rules``
    whole)."""
    flat = {}
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and key != "game.rules" and key != "opponents.agents":
            flat.update(flatten(data=value, prefix=f"{key}."))
        else:
            flat[key] = value
    return flat


def default_yaml_line() -> str:
    """Which keys ``configs/default.yaml`` sets to other values than the defaults, and to what."""
    defaults = flatten(TrainConfig().to_dict())
    given = flatten(read_yaml(DEFAULT_YAML))
    differing = {key: value for key, value in given.items() if defaults.get(key) != value}
    changed = [f"`{key}: {yaml_text(value)}`" for key, value in differing.items()]
    return f"`configs/default.yaml` sets other values for {', '.join(changed)}."


def blocks() -> list[Block]:
    """The page's generated blocks: the training keys (and ``default.yaml``'s changes), the
    expert-iteration keys."""
    training = table(key_rows(TrainConfig)) + "\n\n" + default_yaml_line()
    expert_iteration = table(key_rows(ExitConfig))
    return [
        Block(name="config-reference", text=training),
        Block(name="exit-config-reference", text=expert_iteration),
    ]


def block_on_page(name: str, page: Path = PAGE) -> str | None:
    """The text between block ``name``'s markers on ``page``; None if the page lacks them."""
    content = page.read_text(encoding="utf-8")
    between_markers = f"^<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->$"
    found = re.search(between_markers, content, flags=re.DOTALL | re.MULTILINE)
    return None if found is None else found.group(1)


def stale_blocks(page: Path = PAGE) -> list[str]:
    """The names of the blocks whose text on ``page`` differs from a fresh one (or that are
    missing)."""
    stale = [block for block in blocks() if block_on_page(name=block.name, page=page) != block.text]
    return [block.name for block in stale]


def main() -> int:
    """Rewrite the blocks, or with ``--check`` say which are out of date (exit status 1)."""
    ap = parser(__doc__)
    check_help = "change nothing; exit status 1 if a block is out of date"
    ap.add_argument("--check", action="store_true", help=check_help)
    args = ap.parse_args()
    if args.check:
        stale = stale_blocks()
        for name in stale:
            remedy = "run python benchmarks/config_reference.py"
            print(f"{PAGE}: the {name} block is out of date: {remedy}", file=sys.stderr)
        return 1 if stale else 0
    for block in blocks():
        publish(block=block.name, text=block.text, write=True, page=PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
