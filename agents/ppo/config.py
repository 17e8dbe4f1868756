"""Training configuration: typed dataclasses, validated on load (PyYAML).

A config file is YAML with the sections below (every key optional; a missing key
keeps its default)::

    seeding:   {seed: 0, torch_threads: 1, deterministic: true}
    game:      {variant: schnapsen, rules: {}, episode: game, reward: game_points}
    model:     {hidden: [256, 256]}
    ppo:       {lr: 1.0e-3, num_games: 512, rollout_steps: 32, ...}
    opponents: {current: 0.2, snapshots: 0.2, agents: {heuristic: 0.5, random: 0.1}, ...}
    eval:      {every: 50, games: 400, final_games: 2000, opponents: [random, heuristic]}
    run:       {total_updates: 700, time_budget_min: null, checkpoint_every: 25, dir: null, ...}

:func:`load_config` reads a file, applies ``key=value`` overrides with dotted
keys (``ppo.lr=1e-4``) and validates everything before training starts. Any
problem raises :class:`ConfigError` whose message names the key and what is
allowed (``train.py`` prints it and exits with code 2).

Every number has an upper limit as well as a lower one (the ``MAX_*`` constants below;
an error names the limit it hit), so a config that validates also fits in memory. A
config file must be UTF-8 text of at most :data:`MAX_CONFIG_BYTES`; YAML duplicate keys,
nesting deeper than :data:`MAX_DEPTH`, more than :data:`MAX_VALUES` values (aliases
counted as often as they are used) and anchors that refer to themselves are refused.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import reprlib
import stat
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

from schnapsen_env.cli_io import file_kind
from schnapsen_env.learner import batched_bummerl_problem
from schnapsen_env.rules import VARIANTS, Rules


class ConfigError(ValueError):
    """A config file, key or value that is not allowed; the message says which and what is."""


#: arithmetic of the network's forward passes in training (``run.precision``): ``float32`` as is, or
#: ``bfloat16`` under ``torch.autocast`` (mixed precision: the weights, the optimizer state, the losses
#: and the log-probabilities stay float32; :func:`agents.neural.forward_in`)
PRECISIONS = ("float32", "bfloat16")

# -------------------------------------------------------------------------- limits
#: largest config file read (bytes)
MAX_CONFIG_BYTES = 1 << 20
#: deepest nesting of lists and mappings in a config file, value or checkpoint config
MAX_DEPTH = 32
#: most values (list items, mapping keys and values; an alias counts each time it is used) in one YAML text
MAX_VALUES = 10_000
#: longest ``name`` (it becomes part of the run directory's name)
MAX_NAME_CHARS = 100
#: longest ``run.dir`` (Linux PATH_MAX)
MAX_PATH_CHARS = 4096
#: ``seeding.seed`` is below 2**63
MAX_SEED = 2**63 - 1
#: ``seeding.torch_threads``
MAX_TORCH_THREADS = 256
#: ``model.hidden``: widest layer, most layers, most network weights (float32: 4 bytes each; Adam
#: and every snapshot keep as many again)
MAX_HIDDEN_WIDTH = 4096
MAX_HIDDEN_LAYERS = 16
MAX_PARAMETERS = 1 << 24
#: ``ppo.num_games``, ``ppo.rollout_steps`` and their product, the batch (the rollout buffers hold
#: about 1 KB per learner decision)
MAX_NUM_GAMES = 1 << 16
MAX_ROLLOUT_STEPS = 1 << 12
MAX_BATCH = 1 << 20
#: ``ppo.update_epochs``
MAX_UPDATE_EPOCHS = 1000
#: ``ppo.lr``
MAX_LR = 1.0
#: ``ppo.clip_coef``, ``ppo.vf_coef``, ``ppo.ent_coef``, ``ppo.max_grad_norm``, ``ppo.target_kl``
MAX_COEF = 1.0e6
#: each opponent weight (``opponents.current``, ``.snapshots``, ``.agents`` values)
MAX_WEIGHT = 1.0e6
#: entries of ``opponents.agents`` and of ``eval.opponents``
MAX_AGENT_SPECS = 64
#: ``opponents.max_snapshots`` (each is a copy of the network)
MAX_SNAPSHOTS = 64
#: ``opponents.snapshot_every``, ``eval.every``, ``run.checkpoint_every``
MAX_EVERY = 10**9
#: ``eval.games``, ``eval.final_games`` (games per opponent)
MAX_EVAL_GAMES = 10**6
#: ``run.total_updates``
MAX_TOTAL_UPDATES = 10**9
#: ``run.time_budget_min`` (minutes; a year is 525,960)
MAX_TIME_BUDGET_MIN = 10**7


# ----------------------------------------------------------------------- sections
@dataclass
class SeedingConfig:
    """The one seeding block: every random source of a run derives from ``seed``."""

    seed: int = 0
    """Master seed: deals, seats, opponent choice, action sampling, minibatches, weights (0..2**63-1)."""
    torch_threads: int = 1
    """``torch.set_num_threads``: CPU threads for the network (1 or 2 on a 2-core machine; at most
    :data:`MAX_TORCH_THREADS`)."""
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
    """Widths of the shared hidden layers (ReLU), e.g. ``[256, 256]``: at most :data:`MAX_HIDDEN_LAYERS`
    layers of at most :data:`MAX_HIDDEN_WIDTH` units, at most :data:`MAX_PARAMETERS` weights in all."""
    init: str | None = None
    """Start a new run from these weights instead of random ones (fine-tuning, or a long recipe carried
    on across runs): ``"ppo"`` (the shipped policy, ``agents/checkpoints/ppo_default.pt``) or the path of a
    ``policy.pt``/``checkpoint.pt`` that train.py wrote, with this ``hidden`` and this env's observation
    spec (checked before anything runs). Only the network's weights are taken: Adam starts fresh, the
    snapshot pool empty, the counters at 0. A relative path is read from the current directory (as
    ``run.dir``). null: random weights (orthogonal init from the seed). A resumed run continues from its
    checkpoint's weights and keeps the ``init`` it started with."""


@dataclass
class PPOConfig:
    """PPO with masked logits and GAE (CleanRL-style)."""

    lr: float = 1.0e-3
    """Adam learning rate (> 0, <= :data:`MAX_LR`)."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``run.total_updates``."""
    num_games: int = 512
    """Games stepped in lockstep; the policy runs on one batch of this many observations
    (1..:data:`MAX_NUM_GAMES`)."""
    rollout_steps: int = 32
    """Learner decisions per game slot per update (1..:data:`MAX_ROLLOUT_STEPS`): a batch holds
    ``num_games * rollout_steps`` (at most :data:`MAX_BATCH`)."""
    minibatch_size: int = 1024
    """Samples per gradient step; must divide ``num_games * rollout_steps``."""
    update_epochs: int = 4
    """Passes over the batch per update (1..:data:`MAX_UPDATE_EPOCHS`)."""
    gamma: float = 1.0
    """Discount per learner decision (0 < gamma <= 1; games are short, 1 is fine)."""
    gae_lambda: float = 0.8
    """GAE lambda (0 <= lambda <= 1)."""
    clip_coef: float = 0.2
    """PPO ratio clip (> 0, <= :data:`MAX_COEF`)."""
    clip_vloss: bool = True
    """Clip the value loss around the old values as well."""
    vf_coef: float = 0.5
    """Weight of the value loss (0..:data:`MAX_COEF`)."""
    ent_coef: float = 0.02
    """Weight of the entropy bonus (0..:data:`MAX_COEF`); the entropy counts legal actions only."""
    max_grad_norm: float = 0.5
    """Gradient norm clip (> 0, <= :data:`MAX_COEF`)."""
    norm_adv: bool = True
    """Normalize advantages per minibatch."""
    target_kl: float | None = None
    """Stop the epochs of an update early when the approximate KL exceeds this (null: never;
    else > 0, <= :data:`MAX_COEF`)."""


@dataclass
class OpponentConfig:
    """The opponent pool, fictitious-self-play style: each new episode draws its opponent.

    The weights are relative (need not sum to 1): ``current`` plays the learner's own
    current policy, ``snapshots`` a frozen past policy (uniformly among those kept),
    ``agents`` baseline agents by spec (``agents.make_agent``)."""

    current: float = 0.2
    """Weight of the current policy (0..:data:`MAX_WEIGHT`)."""
    snapshots: float = 0.2
    """Weight of the frozen snapshots (0..:data:`MAX_WEIGHT`); until the first snapshot these games use
    the current policy."""
    agents: dict = field(default_factory=lambda: {"heuristic": 0.5, "random": 0.1})
    """Agent spec -> weight (0..:data:`MAX_WEIGHT`), e.g. ``{heuristic: 0.5, random: 0.1}``; at most
    :data:`MAX_AGENT_SPECS` specs."""
    snapshot_every: int = 10
    """Take a frozen snapshot of the policy every this many updates (1..:data:`MAX_EVERY`)."""
    max_snapshots: int = 10
    """Snapshots kept; the oldest is overwritten (1..:data:`MAX_SNAPSHOTS`)."""
    sample: bool = True
    """Network opponents sample from their policy (true) or act greedily (false)."""


@dataclass
class EvalConfig:
    """Evaluation through ``agents.arena.play_pair`` (duplicate deals, greedy policy)."""

    every: int = 50
    """Evaluate every this many updates (1..:data:`MAX_EVERY`); also after the last update."""
    games: int = 400
    """Games per opponent at the periodic evaluations (2..:data:`MAX_EVAL_GAMES`, even with duplicate deals)."""
    final_games: int = 2000
    """Games per opponent at the final evaluation, printed as a table (0: skip; at most :data:`MAX_EVAL_GAMES`)."""
    opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Agent specs to evaluate against (at most :data:`MAX_AGENT_SPECS`)."""
    duplicate: bool = True
    """Duplicate deals: every deal is played twice with seats swapped."""


@dataclass
class RunConfig:
    """Length, checkpoints and logging of a run."""

    total_updates: int = 700
    """PPO updates to run (1..:data:`MAX_TOTAL_UPDATES`); each collects ``ppo.num_games * ppo.rollout_steps``
    learner decisions."""
    time_budget_min: float | None = None
    """Wall-time budget of one invocation of ``train.py`` in minutes (null: none; else > 0, <=
    :data:`MAX_TIME_BUDGET_MIN`), counted from its start and covering everything up to the final table:
    before each update the run checks that the update, the final checkpoint and the final evaluation
    (``eval.final_games``, estimated from the measured time per game of the periodic evaluations, with
    a margin) still fit, else it stops, saves, evaluates and says how many updates fitted. At least one
    update runs. A ``--resume`` has a budget of its own, counted from the resume. The learning rate
    still decays over ``run.total_updates``."""
    checkpoint_every: int = 25
    """Write ``checkpoint.pt`` every this many updates (1..:data:`MAX_EVERY`) and after the last."""
    dir: str | None = None
    """Run directory (at most :data:`MAX_PATH_CHARS` characters); null: ``runs/<config name>-seed<seed>-<time>``."""
    tensorboard: bool = True
    """Write TensorBoard event files into the run directory."""
    progress: bool = True
    """Show a tqdm progress bar (steps/s, latest evaluation)."""
    device: str = "cpu"
    """Torch device of the rollouts (the batched engine, :mod:`schnapsen_env.vector`) and of the network:
    ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ... (a device torch knows and this machine has)."""
    compile: bool = False
    """Run the batched engine's mask, transition and observation through ``torch.compile`` (fused kernels:
    faster rollouts on large ``ppo.num_games``; the first update pays 20 to 60 s of compilation and needs
    a C++ compiler). Same games and results as without."""
    precision: str = "float32"
    """Arithmetic of the network's forward passes in the rollouts (learner and network opponents) and
    in the PPO update: ``"float32"``, or ``"bfloat16"`` (mixed precision under ``torch.autocast``;
    weights, optimizer state, losses and checkpoints stay float32). bfloat16 is about 2.5x faster
    where the hardware has it (CPUs with AVX-512 BF16 or AMX, recent GPUs) and slower where it does
    not; it changes the numbers of the run (the same seed still gives the same run)."""


@dataclass
class TrainConfig:
    """A whole training run; see the section classes for every key."""

    name: str = "default"
    """Short name of the config (used in run directory names; at most :data:`MAX_NAME_CHARS` characters)."""
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
def _whole(lo: int, hi: int, limit: str) -> tuple:
    return (lambda v: lo <= v <= hi, f"a whole number >= {lo} and <= {hi} (limit {limit})")


def _number(lo: float, hi: float, limit: str, lo_open: bool = False, nullable: bool = False) -> tuple:
    def check(v):
        return (nullable and v is None) or ((lo < v if lo_open else lo <= v) and v <= hi)

    text = f"a number {'>' if lo_open else '>='} {lo:g} and <= {hi:g} (limit {limit})"
    return (check, ("null or " if nullable else "") + text)


def _hidden_ok(v: list) -> bool:
    if not 1 <= len(v) <= MAX_HIDDEN_LAYERS or not all(type(h) is int and 1 <= h <= MAX_HIDDEN_WIDTH for h in v):
        return False
    return network_parameters(v) <= MAX_PARAMETERS


def network_parameters(hidden: list, obs_size: int | None = None, num_actions: int | None = None) -> int:
    """Weights of the actor-critic MLP with these hidden widths (what :data:`MAX_PARAMETERS` limits)."""
    if obs_size is None:
        from schnapsen_env.observation import OBS_SIZE as obs_size
    if num_actions is None:
        from schnapsen_env.actions import NUM_ACTIONS as num_actions
    total, width = 0, obs_size
    for h in hidden:
        total += (width + 1) * h
        width = h
    return total + (width + 1) * (num_actions + 1)


def _run_dir_ok(v: str | None) -> bool:
    return v is None or (v.strip() != "" and "\0" not in v and len(v) <= MAX_PATH_CHARS and _encodable(v))


def _encodable(path: str) -> bool:
    """Whether the file system can take ``path`` (not: lone surrogates from a YAML escape like "\\ud800")."""
    try:
        os.fsencode(path)
    except UnicodeError:
        return False
    return True


#: dotted key -> (check, text of what is allowed); checked after the types
_CONSTRAINTS: dict[str, tuple] = {
    "name": (lambda v: len(v) <= MAX_NAME_CHARS and re.fullmatch(r"[A-Za-z0-9_.-]+", v) is not None,
             f"letters, digits, '_', '.', '-' (at most {MAX_NAME_CHARS} of them: limit MAX_NAME_CHARS)"),
    "seeding.seed": (lambda v: 0 <= v <= MAX_SEED, "a whole number in 0..2**63-1 (limit MAX_SEED)"),
    "seeding.torch_threads": _whole(1, MAX_TORCH_THREADS, "MAX_TORCH_THREADS"),
    "game.variant": (lambda v: v in VARIANTS, "one of " + ", ".join(VARIANTS)),
    "game.episode": (lambda v: v in ("game", "bummerl"), "'game' or 'bummerl'"),
    "game.reward": (lambda v: v in ("game_points", "win_loss"), "'game_points' or 'win_loss'"),
    "model.hidden": (_hidden_ok, f"a list of 1..{MAX_HIDDEN_LAYERS} whole numbers >= 1 and <= {MAX_HIDDEN_WIDTH} "
                                 f"(limits MAX_HIDDEN_LAYERS, MAX_HIDDEN_WIDTH) with at most {MAX_PARAMETERS} "
                                 "network weights in all (limit MAX_PARAMETERS)"),
    "model.init": (lambda v: v is None or (v.strip() != "" and "\0" not in v and len(v) <= MAX_PATH_CHARS
                                           and _encodable(v)),
                   f"null, 'ppo' (the shipped policy) or the path of a policy.pt/checkpoint.pt written by train.py "
                   f"(non-empty, without NUL characters, at most {MAX_PATH_CHARS} characters: limit MAX_PATH_CHARS)"),
    "ppo.lr": _number(0, MAX_LR, "MAX_LR", lo_open=True),
    "ppo.num_games": _whole(1, MAX_NUM_GAMES, "MAX_NUM_GAMES"),
    "ppo.rollout_steps": _whole(1, MAX_ROLLOUT_STEPS, "MAX_ROLLOUT_STEPS"),
    "ppo.minibatch_size": _whole(1, MAX_BATCH, "MAX_BATCH"),
    "ppo.update_epochs": _whole(1, MAX_UPDATE_EPOCHS, "MAX_UPDATE_EPOCHS"),
    "ppo.gamma": (lambda v: 0 < v <= 1, "a number in (0, 1]"),
    "ppo.gae_lambda": (lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "ppo.clip_coef": _number(0, MAX_COEF, "MAX_COEF", lo_open=True),
    "ppo.vf_coef": _number(0, MAX_COEF, "MAX_COEF"),
    "ppo.ent_coef": _number(0, MAX_COEF, "MAX_COEF"),
    "ppo.max_grad_norm": _number(0, MAX_COEF, "MAX_COEF", lo_open=True),
    "ppo.target_kl": _number(0, MAX_COEF, "MAX_COEF", lo_open=True, nullable=True),
    "opponents.current": _number(0, MAX_WEIGHT, "MAX_WEIGHT"),
    "opponents.snapshots": _number(0, MAX_WEIGHT, "MAX_WEIGHT"),
    "opponents.agents": (lambda v: len(v) <= MAX_AGENT_SPECS,
                         f"at most {MAX_AGENT_SPECS} agent specs (limit MAX_AGENT_SPECS)"),
    "opponents.snapshot_every": _whole(1, MAX_EVERY, "MAX_EVERY"),
    "opponents.max_snapshots": _whole(1, MAX_SNAPSHOTS, "MAX_SNAPSHOTS"),
    "eval.every": _whole(1, MAX_EVERY, "MAX_EVERY"),
    "eval.games": _whole(2, MAX_EVAL_GAMES, "MAX_EVAL_GAMES"),
    "eval.final_games": _whole(0, MAX_EVAL_GAMES, "MAX_EVAL_GAMES"),
    "eval.opponents": (lambda v: len(v) <= MAX_AGENT_SPECS,
                       f"at most {MAX_AGENT_SPECS} agent specs (limit MAX_AGENT_SPECS)"),
    "run.total_updates": _whole(1, MAX_TOTAL_UPDATES, "MAX_TOTAL_UPDATES"),
    "run.time_budget_min": _number(0, MAX_TIME_BUDGET_MIN, "MAX_TIME_BUDGET_MIN", lo_open=True, nullable=True),
    "run.checkpoint_every": _whole(1, MAX_EVERY, "MAX_EVERY"),
    "run.device": (lambda v: _device_ok(v), "'cpu' or a torch device this machine has ('cuda', 'cuda:0', ...)"),
    "run.precision": (lambda v: v in PRECISIONS, " or ".join(repr(p) for p in PRECISIONS)),
    "run.dir": (_run_dir_ok, f"null (a new directory under runs/) or a non-empty path the file system can encode, "
                             f"without NUL characters, of at most {MAX_PATH_CHARS} characters (limit MAX_PATH_CHARS)"),
}

_SECTIONS = typing.get_type_hints(TrainConfig)


def _device_ok(value: str) -> bool:
    """``value`` names a torch device this machine has (``"cpu"`` always; no torch: only ``"cpu"``)."""
    if value == "cpu":
        return True
    try:
        import torch

        dev = torch.device(value)
        if dev.type == "cuda":
            return torch.cuda.is_available() and (dev.index or 0) < torch.cuda.device_count()
        return dev.type == "cpu"
    except (ImportError, RuntimeError):
        return False


# ------------------------------------------------------------------ messages
class _ShortRepr(reprlib.Repr):
    """``repr`` cut to a line: long strings, lists and mappings shortened, huge whole numbers
    (which ``repr`` refuses beyond ``sys.get_int_max_str_digits()``) described by their size."""

    def __init__(self):
        super().__init__()
        self.maxstring = self.maxother = 120
        self.maxlong = 60
        self.maxlevel = 3

    def repr_int(self, x, level):
        if x.bit_length() > 256:
            return f"<a whole number of about {int(x.bit_length() * math.log10(2)) + 1} digits>"
        return super().repr_int(x, level)


_short_repr = _ShortRepr()


def show(value: Any) -> str:
    """``value`` for an error message: ``repr`` on one short line (never raises)."""
    try:
        text = _short_repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails; still say what type it is
        text = f"<{type(value).__name__}>"
    return " ".join(text.split())


# -------------------------------------------------------------------- YAML reader
class _Loader(yaml.SafeLoader):
    """SafeLoader that reads ``1e-4`` as a float (YAML 1.1 wants ``1.0e-4``) and refuses what a
    config never needs: duplicate keys (YAML would keep the last silently), nesting deeper than
    :data:`MAX_DEPTH` and whole numbers too long for Python to convert."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels "
                                                  "(limit MAX_DEPTH)", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # '<<: *base' merges; its keys may be overridden
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: the base class says so
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found duplicate key {show(key)} (give each key once)", key_node.start_mark)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node):
        """A whole number as YAML 1.2 writes it: decimal digits (``010`` is ten), ``0o`` octal or
        ``0x`` hexadecimal; anything else tagged ``!!int`` is an error (YAML 1.1 also read ``010`` as
        eight, ``1:00`` as sixty and ``1_6`` as sixteen)."""
        value = self.construct_scalar(node)
        m = _INT_FORMS.fullmatch(value)
        if m is None:
            raise yaml.constructor.ConstructorError(
                None, None, f"{show(value)} is not a whole number (YAML 1.2: decimal digits, 0o octal or 0x "
                "hexadecimal)", node.start_mark)
        decimal, octal, hexadecimal = m.groups()
        try:
            if decimal is not None:
                return int(decimal, 10)
            return int(octal, 8) if octal is not None else int(hexadecimal, 16)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f"number too long ({len(node.value)} characters; at most "
                f"{sys.get_int_max_str_digits()} digits)", node.start_mark) from None


# Plain scalars resolved as YAML 1.2's core schema does, not as YAML 1.1 (PyYAML's SafeLoader):
# - booleans: only true/false (YAML 1.1 also turned yes/no/on/off into booleans, so an agent spec or
#   name such as "no" or "off" became False); a bool field given "yes" gets the config's own error
#   naming the allowed values;
# - whole numbers: decimal, 0o octal, 0x hexadecimal (YAML 1.1: 010 was eight, 0b11 three, 1:00 sixty
#   and 1_6 sixteen; now 010 is ten and the others stay strings, which the field's check refuses);
# - floats: 1e-4 is a float (YAML 1.1 wanted 1.0e-4), no underscores or base-60 forms; .inf and .nan.
_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_INT_FORMS = re.compile(r"([-+]?[0-9]+)|0o([0-7]+)|0x([0-9a-fA-F]+)")
_Loader.add_constructor(_INT, _Loader.construct_yaml_int)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL, _INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_Loader.add_implicit_resolver(_INT, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(  # after the int resolver: "10" is an int
    _FLOAT,
    re.compile(r"""^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
                 |[-+]?\.(?:inf|Inf|INF)
                 |\.(?:nan|NaN|NAN))$""", re.VERBOSE),
    list("-+0123456789."),
)


def _yaml_problem(e: Exception) -> str:
    """A YAML (or value) error on one line: what is wrong and where (line, column)."""
    if isinstance(e, yaml.MarkedYAMLError):
        what = "; ".join(x for x in (e.context, e.problem) if x) or type(e).__name__
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return " ".join(f"{what}{where}".split())
    if isinstance(e, (yaml.YAMLError, ValueError, RecursionError)):
        return " ".join(str(e).split()) or type(e).__name__
    return f"a value the YAML reader cannot build ({type(e).__name__}: {show(str(e))[1:-1]})"


def _load_yaml(text: str) -> Any:
    """``text`` read with :class:`_Loader` and checked by :func:`check_structure`; raises
    ``ValueError`` (with a one-line message) for anything unreadable."""
    try:
        data = yaml.load(text, Loader=_Loader)
    except Exception as e:  # noqa: BLE001 - besides YAMLError the safe constructors raise ValueError (a date
        # like 2024-02-30), KeyError (!!bool x), IndexError (!!int ''), TypeError ... for odd input
        raise ValueError(_yaml_problem(e)) from None
    check_structure(data)
    return data


def check_structure(data: Any, where: str = "") -> None:
    """``ValueError`` if ``data`` (lists and mappings) refers to itself, is nested deeper than
    :data:`MAX_DEPTH` or holds more than :data:`MAX_VALUES` values (shared parts counted each time)."""
    count = 0
    on_path: set[int] = set()
    prefix = f"{where}: " if where else ""

    def walk(v: Any, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_VALUES:
            raise ValueError(f"{prefix}more than {MAX_VALUES} values (limit MAX_VALUES; YAML aliases count each "
                             "time they are used)")
        if isinstance(v, Mapping):
            children = [x for kv in v.items() for x in kv]
        elif isinstance(v, (list, tuple, set, frozenset)):
            children = list(v)
        else:
            return
        if id(v) in on_path:
            raise ValueError(f"{prefix}a list or mapping contains itself (a YAML anchor used inside itself, "
                             "like &a [*a])")
        if depth >= MAX_DEPTH:
            raise ValueError(f"{prefix}nested deeper than {MAX_DEPTH} levels (limit MAX_DEPTH)")
        on_path.add(id(v))
        for c in children:
            walk(c, depth + 1)
        on_path.discard(id(v))

    walk(data, 0)


def parse_value(text: str) -> Any:
    """A command-line value read as YAML (``1e-4`` -> float, ``[64, 64]`` -> list, ``true`` -> bool)."""
    try:
        return _load_yaml(text)
    except ValueError as e:
        raise ConfigError(f"unreadable value {show(text)}: {e}") from None


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
            raise ConfigError(f"{key}: expected {_type_name(tp)}, got {type(value).__name__} {show(value)}") from None
    ok = {
        float: lambda v: type(v) is int or (type(v) is float and math.isfinite(v)),
        int: lambda v: type(v) is int,
        bool: lambda v: type(v) is bool,
        str: lambda v: type(v) is str,
        list: lambda v: type(v) is list,
        dict: lambda v: isinstance(v, Mapping),
    }[tp]
    if not ok(value):
        allowed = f": allowed {_CONSTRAINTS[key][1]}" if tp is str and key in _CONSTRAINTS else ""
        got = "null" if value is None else f"{type(value).__name__} {show(value)}"
        raise ConfigError(f"{key}: expected {_type_name(tp)}, got {got}{allowed}")
    if tp is float:
        return float(value)
    if tp is dict:
        return dict(value)
    return value


def _build_section(cls: type, prefix: str, data: Mapping) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{prefix.rstrip('.')}: expected a mapping of keys to values, got {type(data).__name__} "
                          f"{show(data)}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs = {}
    for key, value in data.items():
        if key not in names:
            raise ConfigError(f"unknown key {show(prefix + str(key))}: allowed keys in "
                              f"{prefix.rstrip('.') or 'the top level'} are {', '.join(names)}")
        kwargs[key] = _check_type(prefix + key, value, hints[key])
    return cls(**kwargs)


def _check_constraints(cfg: TrainConfig) -> None:
    flat = _flatten(cfg.to_dict())
    for key, (check, allowed) in _CONSTRAINTS.items():
        if not check(flat[key]):
            raise ConfigError(f"{key}: bad value {show(flat[key])}: allowed {allowed}")
    bad_names = [k for k in cfg.game.rules if type(k) is not str]
    if bad_names:
        raise ConfigError(f"game.rules: option names must be strings, got {show(bad_names[0])}")
    try:
        rules = cfg.rules()
    except (ValueError, TypeError) as e:
        raise ConfigError(f"game.rules: {' '.join(str(e).split())}") from None
    problem = batched_bummerl_problem(rules) if cfg.game.episode == "bummerl" else None
    if problem:
        raise ConfigError(f"game.rules: {problem}")
    if cfg.batch_size > MAX_BATCH:
        raise ConfigError(f"ppo.num_games * ppo.rollout_steps: the batch {cfg.batch_size} is larger than "
                          f"{MAX_BATCH} learner decisions (limit MAX_BATCH)")
    if cfg.batch_size % cfg.ppo.minibatch_size:
        raise ConfigError(f"ppo.minibatch_size: {cfg.ppo.minibatch_size} must divide the batch "
                          f"ppo.num_games * ppo.rollout_steps = {cfg.batch_size}")
    if cfg.ppo.minibatch_size > cfg.batch_size:
        raise ConfigError(f"ppo.minibatch_size: {cfg.ppo.minibatch_size} is larger than the batch {cfg.batch_size}")
    weights = [cfg.opponents.current, cfg.opponents.snapshots]
    for spec, w in cfg.opponents.agents.items():
        _check_agent_spec("opponents.agents", spec, cfg.rules())
        if type(w) not in (int, float) or not 0 <= w <= MAX_WEIGHT or not math.isfinite(w):
            raise ConfigError(f"opponents.agents.{spec}: bad weight {show(w)}: allowed a number >= 0 and "
                              f"<= {MAX_WEIGHT:g} (limit MAX_WEIGHT)")
        weights.append(float(w))
    if sum(weights) <= 0:
        raise ConfigError("opponents: all weights are 0: allowed weights >= 0 with a positive sum")
    for i, spec in enumerate(cfg.eval.opponents):
        _check_agent_spec(f"eval.opponents[{i}]", spec, cfg.rules())
        if spec in cfg.eval.opponents[:i]:  # the results are keyed by spec: a second one would vanish
            raise ConfigError(f"eval.opponents[{i}]: {show(spec)} is listed twice: give each opponent once")
    if cfg.eval.duplicate and cfg.eval.games % 2:
        raise ConfigError(f"eval.games: {cfg.eval.games} must be even with eval.duplicate (deals are played twice)")
    if cfg.eval.duplicate and cfg.eval.final_games % 2:
        raise ConfigError(f"eval.final_games: {cfg.eval.final_games} must be even with eval.duplicate")


def _check_agent_spec(key: str, spec: Any, rules=None) -> None:
    """An agent spec that ``agents.make_agent`` accepts (built once, so a bad key or path shows now) and,
    given ``rules``, that can play them (``Agent.cannot_play``)."""
    from agents import make_agent

    if type(spec) is not str:
        raise ConfigError(f"{key}: expected an agent spec string, got {type(spec).__name__} {show(spec)}")
    try:
        agent = make_agent(spec, seed=0)
    except (ValueError, ImportError, OSError) as e:
        raise ConfigError(f"{key}: unknown agent spec {show(spec)}: {' '.join(str(e).split())}") from None
    reason = agent.cannot_play(rules) if rules is not None else None
    if reason:
        raise ConfigError(f"{key}: agent {show(spec)} cannot play game.variant/game.rules: {reason}")


def _flatten(d: Mapping, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if not prefix and isinstance(v, Mapping) and dataclasses.is_dataclass(_SECTIONS.get(k)):
            out.update(_flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def _check_data(data: Any, where: str) -> None:
    """ConfigError unless ``data`` is a mapping of sections with a sane shape (:func:`check_structure`)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping of sections, got {type(data).__name__} {show(data)}")
    try:
        check_structure(data)
    except ValueError as e:
        raise ConfigError(f"{where}: {e}") from None


def build_config(data: Mapping, cls: type, check) -> Any:
    """A config of dataclass ``cls`` (sections are dataclasses, other top-level keys strings) from a nested
    dict, checked by ``check(cfg)``; raises :class:`ConfigError` naming the key. Shared by train.py's
    :class:`TrainConfig` and the RLlib example's config."""
    _check_data(data, "a config")
    sections = typing.get_type_hints(cls)
    kwargs = {}
    for key, value in data.items():
        if key not in sections:
            raise ConfigError(f"unknown key {show(key)}: allowed top-level keys are {', '.join(sections)}")
        tp = sections[key]
        if dataclasses.is_dataclass(tp):
            kwargs[key] = _build_section(tp, key + ".", value if value is not None else {})
        else:
            kwargs[key] = _check_type(key, value, str)
    cfg = cls(**kwargs)
    check(cfg)
    return cfg


def config_from_dict(data: Mapping) -> TrainConfig:
    """A validated :class:`TrainConfig` from a nested dict; raises :class:`ConfigError`."""
    return build_config(data, TrainConfig, _check_constraints)


def apply_overrides(data: Mapping, overrides: list) -> dict:
    """``data`` with ``key=value`` overrides applied (dotted keys, YAML values); a new dict.

    Raises :class:`ConfigError` for an item without ``=``, an empty value (write ``null``), a key
    given twice, a key that is not a config key, or a section of ``data`` that is not a mapping.
    ``game.rules.X=v`` and ``opponents.agents.SPEC=w`` set entries of those mappings.
    """
    import copy

    _check_data(data, "a config")
    data = copy.deepcopy(dict(data))
    seen: dict[str, str] = {}
    for item in overrides:
        if type(item) is not str:
            raise ConfigError(f"bad override {show(item)}: allowed key=value strings")
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"bad override {show(item)}: allowed key=value with a dotted key, e.g. ppo.lr=1e-4")
        if key in seen:
            raise ConfigError(f"{show(key)[1:-1]}: given twice in the overrides ({show(seen[key])} and "
                              f"{show(item)}): give each key once")
        seen[key] = item
        if not text.strip():
            raise ConfigError(f"{show(key)[1:-1]}: empty value in override {show(item)}: give a value, or "
                              f"{show(key)[1:-1]}=null for null where null is allowed")
        parts = key.split(".")
        head = parts[0]
        if head not in _SECTIONS:
            raise ConfigError(f"unknown key {show(key)}: allowed top-level keys are {', '.join(_SECTIONS)}")
        if text.splitlines() != [text]:  # a line break of any kind: YAML would fold or drop it (another value)
            raise ConfigError(f"{show(key)[1:-1]}: a line break in the value of override {show(item)}: "
                              "an override value is one line")
        try:
            value = parse_value(text)
        except ConfigError as e:
            raise ConfigError(f"{show(key)[1:-1]}: {e}") from None
        tp = _SECTIONS[head]
        if not dataclasses.is_dataclass(tp):
            if len(parts) != 1:
                raise ConfigError(f"unknown key {show(key)}: {head!r} has no sub-keys")
            data[head] = value
            continue
        if len(parts) == 1:
            raise ConfigError(f"bad override {show(item)}: {head!r} is a section; give a dotted key like "
                              f"{head}.KEY=VALUE")
        names = [f.name for f in dataclasses.fields(tp)]
        if parts[1] not in names:
            raise ConfigError(f"unknown key {show(key)}: allowed keys in {head} are {', '.join(names)}")
        section = data.get(head)
        if section is None:
            section = {}
        if not isinstance(section, Mapping):
            raise ConfigError(f"{head}: expected a mapping of keys to values, got {type(section).__name__} "
                              f"{show(section)} (so {show(key)} cannot be set)")
        section = data[head] = dict(section)
        if len(parts) == 2:
            section[parts[1]] = value
        elif len(parts) >= 3 and parts[1] in ("rules", "agents") and \
                typing.get_type_hints(tp)[parts[1]] is dict:
            sub = section.get(parts[1])
            if sub is None:
                sub = {}
            if not isinstance(sub, Mapping):
                raise ConfigError(f"{head}.{parts[1]}: expected a mapping, got {type(sub).__name__} {show(sub)} "
                                  f"(so {show(key)} cannot be set)")
            sub = section[parts[1]] = dict(sub)
            sub[".".join(parts[2:])] = value
        else:
            raise ConfigError(f"unknown key {show(key)}: {head}.{parts[1]} has no sub-keys")
    return data


def path_text_problem(path: str) -> str:
    """Why ``os.stat`` refused ``path`` with a ``ValueError``: a NUL character or unencodable text."""
    if "\0" in path:
        return "the path contains a NUL character"
    return "the path has characters the file system cannot encode"




def read_yaml(path: str | Path) -> dict:
    """The raw mapping of a YAML config file; ConfigError if it is missing, not a regular file,
    larger than :data:`MAX_CONFIG_BYTES`, not UTF-8, not valid YAML (duplicate keys included),
    empty (no settings: nothing, only comments, or ``null``) or not a mapping."""
    if not isinstance(path, (str, os.PathLike)):
        raise ConfigError(f"config file: expected a path, got {type(path).__name__} {show(path)}")
    shown = show(str(path))
    try:
        st = os.stat(path)
    except OSError as e:
        raise ConfigError(f"cannot read config file {shown}: {e.strerror or type(e).__name__}") from None
    except ValueError:  # an embedded NUL character, or text the file system cannot encode
        raise ConfigError(f"cannot read config file {shown}: {path_text_problem(str(path))}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"cannot read config file {shown}: it is {file_kind(st.st_mode)}, not a YAML file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {shown} is {st.st_size} bytes: at most {MAX_CONFIG_BYTES} "
                          "(limit MAX_CONFIG_BYTES)")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"cannot read config file {shown}: {e.strerror or type(e).__name__}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {shown} is larger than {MAX_CONFIG_BYTES} bytes (limit MAX_CONFIG_BYTES)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ConfigError(f"config file {shown} is not UTF-8 text: byte {raw[e.start]:#04x} at line {line} "
                          f"(offset {e.start}); save it as UTF-8") from None
    try:
        data = _load_yaml(text)
    except ValueError as e:
        raise ConfigError(f"config file {shown} is not valid YAML: {e}") from None
    if data is None:
        raise ConfigError(f"config file {shown} holds no settings (it is empty or only comments/null): "
                          "give a YAML mapping of sections, e.g. a copy of configs/default.yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"config file {shown} must hold a mapping of sections, got {type(data).__name__}")
    return data


def load_config(path: str | Path | None = None, overrides: list | None = None,
                base: Mapping | None = None) -> TrainConfig:
    """Read ``path`` (or start from ``base``, a config dict), apply overrides, validate.

    Raises :class:`ConfigError` naming the bad key and what is allowed.
    """
    if base is not None:
        _check_data(base, "the config")
        data = dict(base)
    else:
        data = read_yaml(path) if path is not None else {}
    if path is not None and base is None and "name" not in data:
        data["name"] = Path(path).stem
    if overrides is not None and not isinstance(overrides, (list, tuple)):
        raise ConfigError(f"overrides: expected a list of key=value strings, got {type(overrides).__name__}")
    data = apply_overrides(data, list(overrides or []))
    return config_from_dict(data)
