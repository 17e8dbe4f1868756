"""Training configuration: typed dataclasses, validated on load (PyYAML).

A config file is YAML with the sections below (every key optional; a missing key
keeps its default)::

    seeding:   {seed: 0, torch_threads: 1, deterministic: true}
    game:      {variant: schnapsen, rules: {}, episode: game, reward: game_points}
    model:     {hidden: [256, 256]}
    ppo:       {lr: 1.0e-3, num_games: 512, rollout_steps: 32, ...}
    opponents: {current: 0.2, snapshots: 0.2, agents: {heuristic: 0.5, random: 0.1}, ...}
    eval:      {every: 50, games: 400, final_games: 2000, opponents: [random, heuristic]}
    run:       {total_updates: 700, checkpoint_every: 25, dir: null, ...}

:func:`load_config` reads a file, applies ``key=value`` overrides with dotted
keys (``ppo.lr=1e-4``) and validates everything before training starts. Any
problem raises :class:`ConfigError` whose message names the key and what is
allowed (``train.py`` prints it and exits with code 2).
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

from schnapsen_env.rules import VARIANTS, Rules


class ConfigError(ValueError):
    """A config file, key or value that is not allowed; the message says which and what is."""


# ----------------------------------------------------------------------- sections
@dataclass
class SeedingConfig:
    """The one seeding block: every random source of a run derives from ``seed``."""

    seed: int = 0
    """Master seed: deals, seats, opponent choice, action sampling, minibatches, weights."""
    torch_threads: int = 1
    """``torch.set_num_threads``: CPU threads for the network (1 or 2 on a 2-core machine)."""
    deterministic: bool = True
    """``torch.use_deterministic_algorithms(True)``: same seed and config give the same losses."""


@dataclass
class GameConfig:
    """Which game is played and what the learner is rewarded for."""

    variant: str = "schnapsen"
    """RULES §7 preset (``schnapsen.rules.VARIANTS``)."""
    rules: dict = field(default_factory=dict)
    """RULES §7 option overrides on top of the preset, e.g. ``{allow_closing: false}``."""
    episode: str = "game"
    """``game``: one game is an episode; ``bummerl``: a whole Bummerl (RULES §6) is one episode."""
    reward: str = "game_points"
    """At the end of an episode, from the learner's view: ``game_points`` (+-1..3 game points per game,
    +-1 or 2 per Bummerl) or ``win_loss`` (+-1)."""


@dataclass
class ModelConfig:
    """The actor-critic MLP (``agents.neural.ActorCritic``)."""

    hidden: list = field(default_factory=lambda: [256, 256])
    """Widths of the shared hidden layers (ReLU), e.g. ``[256, 256]``."""


@dataclass
class PPOConfig:
    """PPO with masked logits and GAE (CleanRL-style)."""

    lr: float = 1.0e-3
    """Adam learning rate (> 0)."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``run.total_updates``."""
    num_games: int = 512
    """Games stepped in lockstep; the policy runs on one batch of this many observations."""
    rollout_steps: int = 32
    """Learner decisions per game slot per update: a batch holds ``num_games * rollout_steps``."""
    minibatch_size: int = 1024
    """Samples per gradient step; must divide ``num_games * rollout_steps``."""
    update_epochs: int = 4
    """Passes over the batch per update."""
    gamma: float = 1.0
    """Discount per learner decision (0 < gamma <= 1; games are short, 1 is fine)."""
    gae_lambda: float = 0.8
    """GAE lambda (0 <= lambda <= 1)."""
    clip_coef: float = 0.2
    """PPO ratio clip (> 0)."""
    clip_vloss: bool = True
    """Clip the value loss around the old values as well."""
    vf_coef: float = 0.5
    """Weight of the value loss (>= 0)."""
    ent_coef: float = 0.02
    """Weight of the entropy bonus (>= 0); the entropy counts legal actions only."""
    max_grad_norm: float = 0.5
    """Gradient norm clip (> 0)."""
    norm_adv: bool = True
    """Normalize advantages per minibatch."""
    target_kl: float | None = None
    """Stop the epochs of an update early when the approximate KL exceeds this (null: never)."""


@dataclass
class OpponentConfig:
    """The opponent pool, fictitious-self-play style: each new episode draws its opponent.

    The weights are relative (need not sum to 1): ``current`` plays the learner's own
    current policy, ``snapshots`` a frozen past policy (uniformly among those kept),
    ``agents`` baseline agents by spec (``agents.make_agent``)."""

    current: float = 0.2
    """Weight of the current policy (>= 0)."""
    snapshots: float = 0.2
    """Weight of the frozen snapshots (>= 0); until the first snapshot these games use the current policy."""
    agents: dict = field(default_factory=lambda: {"heuristic": 0.5, "random": 0.1})
    """Agent spec -> weight (>= 0), e.g. ``{heuristic: 0.5, random: 0.1}``."""
    snapshot_every: int = 10
    """Take a frozen snapshot of the policy every this many updates (>= 1)."""
    max_snapshots: int = 10
    """Snapshots kept; the oldest is overwritten (>= 1)."""
    sample: bool = True
    """Network opponents sample from their policy (true) or act greedily (false)."""


@dataclass
class EvalConfig:
    """Evaluation through ``agents.arena.play_pair`` (duplicate deals, greedy policy)."""

    every: int = 50
    """Evaluate every this many updates (>= 1); also after the last update."""
    games: int = 400
    """Games per opponent at the periodic evaluations (>= 2, even with duplicate deals)."""
    final_games: int = 2000
    """Games per opponent at the final evaluation, printed as a table (0: skip)."""
    opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Agent specs to evaluate against."""
    duplicate: bool = True
    """Duplicate deals: every deal is played twice with seats swapped."""


@dataclass
class RunConfig:
    """Length, checkpoints and logging of a run."""

    total_updates: int = 700
    """PPO updates to run (>= 1); each collects ``ppo.num_games * ppo.rollout_steps`` learner decisions."""
    checkpoint_every: int = 25
    """Write ``checkpoint.pt`` every this many updates (>= 1) and after the last."""
    dir: str | None = None
    """Run directory; null: ``runs/<config name>-seed<seed>-<time>``."""
    tensorboard: bool = True
    """Write TensorBoard event files into the run directory."""
    progress: bool = True
    """Show a tqdm progress bar (steps/s, latest evaluation)."""


@dataclass
class TrainConfig:
    """A whole training run; see the section classes for every key."""

    name: str = "default"
    """Short name of the config (used in run directory names)."""
    seeding: SeedingConfig = field(default_factory=SeedingConfig)
    game: GameConfig = field(default_factory=GameConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)

    # ---- derived
    @property
    def batch_size(self) -> int:
        """Learner decisions per update."""
        return self.ppo.num_games * self.ppo.rollout_steps

    def rules(self) -> Rules:
        """The game's :class:`~schnapsen_env.rules.Rules`."""
        return Rules.preset(self.game.variant, **self.game.rules)

    def to_dict(self) -> dict:
        """Plain nested dict (YAML/JSON/checkpoint safe)."""
        return dataclasses.asdict(self)


# ------------------------------------------------------------------- constraints
#: dotted key -> (check, text of what is allowed); checked after the types
_POSITIVE = (lambda v: v > 0, "a number > 0")
_NONNEG = (lambda v: v >= 0, "a number >= 0")
_AT_LEAST_1 = (lambda v: v >= 1, "a whole number >= 1")
_CONSTRAINTS: dict[str, tuple] = {
    "name": (lambda v: re.fullmatch(r"[A-Za-z0-9_.-]+", v) is not None, "letters, digits, '_', '.', '-'"),
    "seeding.seed": (lambda v: 0 <= v < 2**63, "a whole number in 0..2**63-1"),
    "seeding.torch_threads": _AT_LEAST_1,
    "game.variant": (lambda v: v in VARIANTS, "one of " + ", ".join(VARIANTS)),
    "game.episode": (lambda v: v in ("game", "bummerl"), "'game' or 'bummerl'"),
    "game.reward": (lambda v: v in ("game_points", "win_loss"), "'game_points' or 'win_loss'"),
    "model.hidden": (lambda v: len(v) >= 1 and all(type(h) is int and h >= 1 for h in v),
                     "a non-empty list of whole numbers >= 1"),
    "ppo.lr": _POSITIVE,
    "ppo.num_games": _AT_LEAST_1,
    "ppo.rollout_steps": _AT_LEAST_1,
    "ppo.minibatch_size": _AT_LEAST_1,
    "ppo.update_epochs": _AT_LEAST_1,
    "ppo.gamma": (lambda v: 0 < v <= 1, "a number in (0, 1]"),
    "ppo.gae_lambda": (lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "ppo.clip_coef": _POSITIVE,
    "ppo.vf_coef": _NONNEG,
    "ppo.ent_coef": _NONNEG,
    "ppo.max_grad_norm": _POSITIVE,
    "ppo.target_kl": (lambda v: v is None or v > 0, "null or a number > 0"),
    "opponents.current": _NONNEG,
    "opponents.snapshots": _NONNEG,
    "opponents.snapshot_every": _AT_LEAST_1,
    "opponents.max_snapshots": _AT_LEAST_1,
    "eval.every": _AT_LEAST_1,
    "eval.games": (lambda v: v >= 2, "a whole number >= 2"),
    "eval.final_games": _NONNEG,
    "run.total_updates": _AT_LEAST_1,
    "run.checkpoint_every": _AT_LEAST_1,
    "run.dir": (lambda v: v is None or v.strip() != "", "null (a new directory under runs/) or a non-empty path"),
}

_SECTIONS = typing.get_type_hints(TrainConfig)


# -------------------------------------------------------------------- YAML reader
class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads ``1e-4`` as a float (YAML 1.1 wants ``1.0e-4``)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                 |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                 |\.[0-9_]+(?:[eE][-+][0-9]+)?
                 |[-+]?\.(?:inf|Inf|INF)
                 |\.(?:nan|NaN|NAN))$""", re.VERBOSE),
    list("-+0123456789."),
)


def parse_value(text: str) -> Any:
    """A command-line value read as YAML (``1e-4`` -> float, ``[64, 64]`` -> list, ``true`` -> bool)."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise ConfigError(f"unreadable value {text!r}: {e}") from None


# ------------------------------------------------------------------- validation
def _type_name(tp: Any) -> str:
    if tp is float:
        return "a number"
    if tp is int:
        return "a whole number"
    if tp is bool:
        return "true or false"
    if tp is str:
        return "a string"
    if tp is list:
        return "a list"
    if tp is dict:
        return "a mapping"
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return "null or " + " or ".join(_type_name(a) for a in args)
    return getattr(tp, "__name__", str(tp))


def _check_type(key: str, value: Any, tp: Any) -> Any:
    """The value converted to ``tp`` (int -> float only), or ConfigError naming the key."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if value is None:
            raise ConfigError(f"{key}: expected {_type_name(tp)}, got null")
        if len(inner) != 1:
            return value
        try:
            return _check_type(key, value, inner[0])
        except ConfigError:
            raise ConfigError(f"{key}: expected {_type_name(tp)}, got {type(value).__name__} {value!r}") from None
    ok = {
        float: lambda v: type(v) in (int, float) and math.isfinite(v),
        int: lambda v: type(v) is int,
        bool: lambda v: type(v) is bool,
        str: lambda v: type(v) is str,
        list: lambda v: type(v) is list,
        dict: lambda v: isinstance(v, Mapping),
    }[tp]
    if not ok(value):
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {type(value).__name__} {value!r}")
    if tp is float:
        return float(value)
    if tp is dict:
        return dict(value)
    return value


def _build_section(cls: type, prefix: str, data: Mapping) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{prefix}: expected a mapping of keys to values, got {type(data).__name__} {data!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs = {}
    for key, value in data.items():
        if key not in names:
            raise ConfigError(f"unknown key {(prefix + str(key))!r}: allowed keys in "
                              f"{prefix.rstrip('.') or 'the top level'} are {', '.join(names)}")
        kwargs[key] = _check_type(prefix + key, value, hints[key])
    return cls(**kwargs)


def _check_constraints(cfg: TrainConfig) -> None:
    flat = _flatten(cfg.to_dict())
    for key, (check, allowed) in _CONSTRAINTS.items():
        if not check(flat[key]):
            raise ConfigError(f"{key}: bad value {flat[key]!r}: allowed {allowed}")
    try:
        cfg.rules()
    except ValueError as e:
        raise ConfigError(f"game.rules: {e}") from None
    if cfg.batch_size % cfg.ppo.minibatch_size:
        raise ConfigError(f"ppo.minibatch_size: {cfg.ppo.minibatch_size} must divide the batch "
                          f"ppo.num_games * ppo.rollout_steps = {cfg.batch_size}")
    if cfg.ppo.minibatch_size > cfg.batch_size:
        raise ConfigError(f"ppo.minibatch_size: {cfg.ppo.minibatch_size} is larger than the batch {cfg.batch_size}")
    weights = [cfg.opponents.current, cfg.opponents.snapshots]
    for spec, w in cfg.opponents.agents.items():
        _check_agent_spec("opponents.agents", spec)
        if type(w) not in (int, float) or not math.isfinite(w) or w < 0:
            raise ConfigError(f"opponents.agents.{spec}: bad weight {w!r}: allowed a number >= 0")
        weights.append(float(w))
    if sum(weights) <= 0:
        raise ConfigError("opponents: all weights are 0: allowed weights >= 0 with a positive sum")
    for i, spec in enumerate(cfg.eval.opponents):
        _check_agent_spec(f"eval.opponents[{i}]", spec)
    if cfg.eval.duplicate and cfg.eval.games % 2:
        raise ConfigError(f"eval.games: {cfg.eval.games} must be even with eval.duplicate (deals are played twice)")
    if cfg.eval.duplicate and cfg.eval.final_games % 2:
        raise ConfigError(f"eval.final_games: {cfg.eval.final_games} must be even with eval.duplicate")


def _check_agent_spec(key: str, spec: Any) -> None:
    """An agent spec that ``agents.make_agent`` accepts (built once, so a bad key or path shows now)."""
    from agents import make_agent

    if type(spec) is not str:
        raise ConfigError(f"{key}: expected an agent spec string, got {type(spec).__name__} {spec!r}")
    try:
        make_agent(spec, seed=0)
    except (ValueError, ImportError, OSError) as e:
        raise ConfigError(f"{key}: unknown agent spec {spec!r}: {e}") from None


def _flatten(d: Mapping, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if not prefix and isinstance(v, Mapping) and dataclasses.is_dataclass(_SECTIONS.get(k)):
            out.update(_flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def config_from_dict(data: Mapping) -> TrainConfig:
    """A validated :class:`TrainConfig` from a nested dict; raises :class:`ConfigError`."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"a config must be a mapping of sections, got {type(data).__name__}")
    kwargs = {}
    for key, value in data.items():
        if key not in _SECTIONS:
            raise ConfigError(f"unknown key {key!r}: allowed top-level keys are {', '.join(_SECTIONS)}")
        tp = _SECTIONS[key]
        if dataclasses.is_dataclass(tp):
            kwargs[key] = _build_section(tp, key + ".", value if value is not None else {})
        else:
            kwargs[key] = _check_type(key, value, str)
    cfg = TrainConfig(**kwargs)
    _check_constraints(cfg)
    return cfg


def apply_overrides(data: dict, overrides: list) -> dict:
    """``data`` with ``key=value`` overrides applied (dotted keys, YAML values); a new dict.

    Raises :class:`ConfigError` for an item without ``=``, an empty value (write ``null``), a key
    given twice, or a key that is not a config key.
    ``game.rules.X=v`` and ``opponents.agents.SPEC=w`` set entries of those mappings.
    """
    import copy

    data = copy.deepcopy(dict(data))
    seen: dict[str, str] = {}
    for item in overrides:
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"bad override {item!r}: allowed key=value with a dotted key, e.g. ppo.lr=1e-4")
        if key in seen:
            raise ConfigError(f"{key}: given twice in the overrides ({seen[key]!r} and {item!r}): give each key once")
        seen[key] = item
        if not text.strip():
            raise ConfigError(f"{key}: empty value in override {item!r}: give a value, or {key}=null for null "
                              "where null is allowed")
        parts = key.split(".")
        value = parse_value(text)
        head = parts[0]
        if head not in _SECTIONS:
            raise ConfigError(f"unknown key {key!r}: allowed top-level keys are {', '.join(_SECTIONS)}")
        tp = _SECTIONS[head]
        if not dataclasses.is_dataclass(tp):
            if len(parts) != 1:
                raise ConfigError(f"unknown key {key!r}: {head!r} has no sub-keys")
            data[head] = value
            continue
        if len(parts) == 1:
            raise ConfigError(f"bad override {item!r}: {head!r} is a section; give a dotted key like {head}.KEY=VALUE")
        names = [f.name for f in dataclasses.fields(tp)]
        if parts[1] not in names:
            raise ConfigError(f"unknown key {key!r}: allowed keys in {head} are {', '.join(names)}")
        section = data.setdefault(head, {}) or {}
        data[head] = section
        if len(parts) == 2:
            section[parts[1]] = value
        elif len(parts) >= 3 and parts[1] in ("rules", "agents") and \
                typing.get_type_hints(tp)[parts[1]] is dict:
            sub = section.setdefault(parts[1], {})
            if not isinstance(sub, dict):
                raise ConfigError(f"{head}.{parts[1]}: expected a mapping")
            sub[".".join(parts[2:])] = value
        else:
            raise ConfigError(f"unknown key {key!r}: {head}.{parts[1]} has no sub-keys")
    return data


def read_yaml(path: str | Path) -> dict:
    """The raw mapping of a YAML config file; ConfigError if it is missing, empty (no settings:
    nothing, only comments, or ``null``) or not a mapping."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ConfigError(f"cannot read config file {str(p)!r}: {e.strerror}") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {str(p)!r} is not valid YAML: {e}") from None
    if data is None:
        raise ConfigError(f"config file {str(p)!r} holds no settings (it is empty or only comments/null): "
                          "give a YAML mapping of sections, e.g. a copy of configs/default.yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(p)!r} must hold a mapping of sections, got {type(data).__name__}")
    return data


def load_config(path: str | Path | None = None, overrides: list | None = None,
                base: Mapping | None = None) -> TrainConfig:
    """Read ``path`` (or start from ``base``, a config dict), apply overrides, validate.

    Raises :class:`ConfigError` naming the bad key and what is allowed.
    """
    data = dict(base) if base is not None else (read_yaml(path) if path is not None else {})
    if path is not None and base is None and "name" not in data:
        data["name"] = Path(path).stem
    data = apply_overrides(data, list(overrides or []))
    return config_from_dict(data)
