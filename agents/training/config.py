"""Training configuration of ``train.py``: one pydantic model per YAML section (``configs/default.yaml``).

Missing keys keep their defaults, unknown keys are errors. :func:`load_config` reads a file (YAML; a
key given twice is an error), merges dotted ``key=value`` overrides (each value parsed by its
field's type) and validates: a problem raises :class:`ConfigError`, one line naming the key, the
value and what is allowed."""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic import NonNegativeFloat, PositiveInt
from yaml.constructor import ConstructorError

from schnapsen_env.cli_io import one_line
from schnapsen_env.cards import brief_repr as show
from schnapsen_env.learner import EPISODES, REWARDS
from schnapsen_env.rules import VARIANTS, Rules

#: arithmetic of the network's matrix products (``run.precision``; :func:`agents.players.neural.forward_in`)
Precision = Literal["float32", "bfloat16"]
PRECISIONS = get_args(Precision)
#: what a config's ``name`` may be: letters, digits and ``_.-`` (it is part of the run directory's name)
NAME_PATTERN = r"^[A-Za-z0-9_.-]+$"


class ConfigError(ValueError):
    """A config file, key or value that is not allowed; the message is one line saying which and
    what is."""


class Section(BaseModel):
    """A config section: unknown keys refused, each field's docstring is its documentation."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SeedingConfig(Section):
    """The one seeding block: every random source of a run derives from ``seed``."""

    seed: int = Field(0, ge=0)
    """Master seed: deals, seats, opponent choice, action sampling, minibatches, weights."""
    torch_threads: int = Field(1, ge=1)
    """``torch.set_num_threads`` of the rollout and the evaluations: the batched engine's many small
    operations run fastest on one thread. Part of the seeding: torch's CPU kernels may split their
    sums by thread count, so another count can give other rounding (weights differ by about 1e-7
    after a few updates, then diverge)."""
    update_threads: int | None = Field(1, ge=1)
    """``torch.set_num_threads`` of the PPO update (minibatch matrix products, which do use more
    cores); ``null``: the cores this process may use (``os.sched_getaffinity``). Part of the seeding
    like ``torch_threads``. More threads than free cores is slow: another busy process makes 2
    threads several times slower than 1."""
    deterministic: bool = True
    """``torch.use_deterministic_algorithms(True)``: same seed and config give the same weights."""


class GameConfig(Section):
    """Which game is played and what the learner is rewarded for."""

    variant: Literal[VARIANTS] = "schnapsen"
    """RULES §7 preset (``schnapsen_env.rules.VARIANTS``)."""
    rules: dict[str, Any] = {}
    """RULES §7 option overrides on top of the preset, e.g. ``{allow_closing: false}``."""
    episode: Literal[EPISODES] = "game"
    """``game``: one game is an episode; ``bummerl``: a whole Bummerl (RULES §6) is one episode."""
    reward: Literal[REWARDS] = "game_points"
    """At an episode's end: ``game_points`` (+-1..3 per game, +-1 or 2 per Bummerl) or ``win_loss``
    (+-1)."""


class ModelConfig(Section):
    """The actor-critic MLP (``agents.players.neural.ActorCritic``)."""

    hidden: list[PositiveInt] = Field([256, 256], min_length=1)
    """Widths of the shared hidden layers (ReLU), e.g. ``[256, 256]``."""
    init: str | None = Field(None, min_length=1)
    """Start from these weights (only the weights: Adam, snapshots and counters start fresh): a
    shipped policy (``"ppo"``, ``"ppo-strong"``) or a ``policy.pt``/``checkpoint.pt`` (train.py)
    with this ``hidden``; null: random."""


class PPOConfig(Section):
    """PPO with masked logits and GAE (CleanRL-style)."""

    lr: float = Field(1.0e-3, gt=0)
    """Adam learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``run.total_updates``."""
    num_games: int = Field(512, ge=1)
    """Games stepped in lockstep; the policy runs on one batch of this many observations."""
    rollout_steps: int = Field(32, ge=1)
    """Learner decisions per game slot per update: a batch holds ``num_games * rollout_steps``."""
    minibatch_size: int = Field(1024, ge=1)
    """Samples per gradient step; must divide ``num_games * rollout_steps``."""
    update_epochs: int = Field(4, ge=1)
    """Passes over the batch per update."""
    gamma: float = Field(1.0, gt=0, le=1)
    """Discount per learner decision (games are short: 1 is fine)."""
    gae_lambda: float = Field(0.8, ge=0, le=1)
    """GAE lambda."""
    clip_coef: float = Field(0.2, gt=0)
    """PPO ratio clip."""
    clip_vloss: bool = True
    """Clip the value loss around the old values as well."""
    vf_coef: float = Field(0.5, ge=0)
    """Weight of the value loss."""
    ent_coef: float = Field(0.02, ge=0)
    """Weight of the entropy bonus; the entropy counts legal actions only."""
    max_grad_norm: float = Field(0.5, gt=0)
    """Gradient norm clip."""
    norm_adv: bool = True
    """Normalize advantages per minibatch."""
    target_kl: float | None = Field(None, gt=0)
    """Stop the epochs of an update early when the approximate KL exceeds this (null: never)."""
    kl_init_coef: float = Field(0.0, ge=0)
    """Weight of KL(``model.init``'s policy || the policy) over each minibatch's legal actions,
    decayed linearly to 0 over ``run.total_updates``: fine-tuning's pull toward a cloned teacher
    (expert iteration, ``configs/exit.yaml``); needs ``model.init``; 0: off."""


class OpponentConfig(Section):
    """The opponent pool (fictitious self-play): each new episode draws its opponent by these
    relative weights."""

    current: float = Field(0.2, ge=0)
    """Weight of the current policy."""
    snapshots: float = Field(0.2, ge=0)
    """Weight of a frozen past policy (uniformly among those kept; the current one until the
    first)."""
    agents: dict[str, NonNegativeFloat] = {"heuristic": 0.5, "random": 0.1}
    """Baseline agent spec (``agents.make_agent``) -> weight, e.g. ``{heuristic: 0.5, random:
    0.1}``."""
    snapshot_every: int = Field(10, ge=1)
    """Take a frozen snapshot of the policy every this many updates."""
    max_snapshots: int = Field(10, ge=1)
    """Snapshots kept; the oldest is overwritten."""
    sample: bool = True
    """Network opponents sample from their policy (true) or act greedily (false)."""


class EvalConfig(Section):
    """Evaluation through ``agents.evaluation.arena.play_pair`` (duplicate deals, greedy policy)."""

    every: int = Field(50, ge=1)
    """Evaluate every this many updates; also after the last update."""
    games: int = Field(400, ge=2)
    """Games per opponent at the periodic evaluations (even with ``duplicate``)."""
    final_games: int = Field(2000, ge=0)
    """Games per opponent at the final evaluation, printed as a table (0: skip; even with
    ``duplicate``)."""
    opponents: list[str] = ["random", "heuristic"]
    """Agent specs to evaluate against."""
    duplicate: bool = True
    """Duplicate deals: every deal is played twice with seats swapped."""


class RunConfig(Section):
    """Length, checkpoints and logging of a run."""

    total_updates: int = Field(700, ge=1)
    """PPO updates to run; each collects ``ppo.num_games * ppo.rollout_steps`` learner decisions."""
    time_budget_min: float | None = Field(None, gt=0)
    """Wall-time budget of one invocation of ``train.py`` in minutes (null: none): it stops before
    an update when that update, the final checkpoint and evaluation would no longer fit (at least
    one update runs)."""
    checkpoint_every: int = Field(25, ge=1)
    """Write ``checkpoint.pt`` every this many updates and after the last."""
    dir: str | None = Field(None, min_length=1)
    """Run directory; null: ``runs/<config name>-seed<seed>-<time>``."""
    tensorboard: bool = True
    """Write TensorBoard event files into the run directory."""
    progress: bool = True
    """Show a tqdm progress bar (steps/s, latest evaluation)."""
    device: str = "cpu"
    """Torch device of the rollouts and the network: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ..."""
    compile: bool = False
    """Run the batched engine through ``torch.compile``: the same numbers, faster rollouts in large
    batches after a compile (docs/benchmarks.md: ``benchmarks/vector_speed.py --compile``); without
    a working C++ compiler it runs uncompiled."""
    precision: Precision = "float32"
    """Forward passes in ``"float32"`` or ``"bfloat16"`` (``torch.autocast``; weights stay
    float32)."""

    @field_validator("device")
    @classmethod
    def _device_exists(cls, device: str) -> str:
        if device != "cpu":
            import torch

            n = torch.cuda.device_count()
            if device not in ["cuda"] * (n > 0) + [f"cuda:{i}" for i in range(n)]:
                raise ValueError(f"allowed 'cpu' or a CUDA device this machine has ('cuda:0', ...), got {device!r}")
        return device


class TrainConfig(Section):
    """A whole training run; see the section classes for every key."""

    name: str = Field("default", pattern=NAME_PATTERN)
    """Short name of the config (letters, digits, ``_.-``; part of the run directory's name)."""
    seeding: SeedingConfig = Field(default_factory=SeedingConfig)
    game: GameConfig = Field(default_factory=GameConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    opponents: OpponentConfig = Field(default_factory=OpponentConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    run: RunConfig = Field(default_factory=RunConfig)

    @property
    def batch_size(self) -> int:
        """Learner decisions per update."""
        return self.ppo.num_games * self.ppo.rollout_steps

    def rules(self) -> Rules:
        """The game's :class:`~schnapsen_env.rules.Rules`."""
        return Rules.preset(self.game.variant, **self.game.rules)

    def to_dict(self) -> dict:
        """Plain nested dict (YAML/JSON/checkpoint safe): :meth:`model_dump`."""
        return self.model_dump()

    @model_validator(mode="after")
    def _cross_checks(self) -> "TrainConfig":
        try:
            rules = self.rules()
        except (ValueError, TypeError) as e:
            raise ValueError(f"game.rules: {one_line(e)}") from None
        if self.batch_size % self.ppo.minibatch_size:
            raise ValueError(f"ppo.minibatch_size: {self.ppo.minibatch_size} must divide the batch {self.batch_size}")
        if self.ppo.kl_init_coef and self.model.init is None:
            raise ValueError("ppo.kl_init_coef: pulls toward model.init's policy: give model.init or set it to 0")
        o = self.opponents
        if o.current + o.snapshots + sum(o.agents.values()) <= 0:
            raise ValueError("opponents: all weights are 0: allowed weights >= 0 with a positive sum")
        for key, specs in (("opponents.agents", o.agents), ("eval.opponents", self.eval.opponents)):
            for spec in specs:
                check_agent_spec(key, spec, rules)
        for key in ("games", "final_games"):
            if self.eval.duplicate and getattr(self.eval, key) % 2:
                raise ValueError(f"eval.{key}: {getattr(self.eval, key)} must be even with eval.duplicate")
        return self


def check_agent_spec(key: str, spec: str, rules: Rules) -> None:
    """``ValueError`` naming ``key`` unless ``agents.make_agent`` builds ``spec`` and it can play
    ``rules``."""
    from agents.registry import make_agent

    try:
        reason = make_agent(spec, seed=0).cannot_play(rules)
    except (ValueError, ImportError, OSError) as e:
        raise ValueError(f"{key}: unknown agent spec {spec!r}: {one_line(e)}") from None
    if reason:
        raise ValueError(f"{key}: agent {spec!r} cannot play game.variant/game.rules: {reason}")


def validate(cls: type[BaseModel], data: Any) -> Any:
    """``cls`` validated from ``data``; :class:`ConfigError` with the first problem on one line."""
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "value_error":  # a validator's own message, which names its key
            raise ConfigError(f"{key + ': ' if key else ''}{err['ctx']['error']}") from None
        if err["type"] == "extra_forbidden":
            parent = cls
            for part in err["loc"][:-1]:
                parent = parent.model_fields[part].annotation
            raise ConfigError(f"unknown key {key!r}: allowed {', '.join(parent.model_fields)}") from None
        raise ConfigError(f"{key or 'config'}: {err['msg']}, got {show(err['input'])}") from None


def config_from_dict(data: Mapping) -> TrainConfig:
    """A validated :class:`TrainConfig` from a nested dict; raises :class:`ConfigError`."""
    return validate(TrainConfig, data)


def apply_overrides(data: Mapping, overrides: list, model: type[BaseModel]) -> dict:
    """``data`` (not changed) with overrides merged in: ``key=value`` strings with a dotted key of
    ``model``, the value parsed by that field's type: the text itself for a number, bool, string or
    path (pydantic validates it: ``seeding.seed=010`` is 10, ``run.dir=exp #2`` that name; ``null``:
    None where the field allows it), YAML flow for a list, a mapping or a value of no declared type
    (``model.hidden=[64, 64]``, ``game.rules.allow_closing=false``); or ``(key, value)`` pairs, the
    value taken as it is."""
    data = dict(data)
    for item in overrides:
        if isinstance(item, tuple):
            key, value = item
        else:
            key, eq, text = item.partition("=")
            if not eq or not key:
                raise ConfigError(f"bad override {item!r}: allowed key=value with a dotted key, e.g. ppo.lr=1e-4")
            value = _parse(key, text, _field_type(model, key))
        *parents, leaf = key.split(".")
        node = data
        for i, part in enumerate(parents):
            child = node.get(part)
            if child is not None and not isinstance(child, Mapping):
                raise ConfigError(f"{'.'.join(parents[: i + 1])}: {show(child)} is not a mapping: cannot set {key}")
            node[part] = node = dict(child or {})
        node[leaf] = value
    return data


def _field_type(model: type[BaseModel], key: str) -> Any:
    """The declared type of dotted ``key`` in ``model`` (a mapping's entries: its value type); Any
    if unknown."""
    tp: Any = model
    for part in key.split("."):
        tp = _required(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel) and part in tp.model_fields:
            tp = tp.model_fields[part].annotation
        elif get_origin(tp) is dict:
            tp = get_args(tp)[1]
        else:
            return Any
    return tp


def _required(tp: Any) -> Any:
    """``X`` of ``X | None``, else ``tp``."""
    args = get_args(tp)
    return next(a for a in args if a is not type(None)) if type(None) in args else tp


def _parse(key: str, text: str, tp: Any) -> Any:
    """An override's value text for a field of type ``tp`` (:func:`apply_overrides`)."""
    if text == "null" and type(None) in get_args(tp):
        return None
    scalar = _required(tp)
    scalar = get_args(scalar)[0] if get_origin(scalar) is Annotated else scalar
    if scalar in (int, float, bool, str) or get_origin(scalar) is Literal:
        return text
    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError as e:
        raise ConfigError(f"{key}: unreadable value {text!r}: {_yaml_problem(e)}") from None


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping (naming it and its
    line)."""

    def construct_mapping(self, node, deep=False):
        seen = []
        for key_node, _ in node.value:
            if key_node.tag != "tag:yaml.org,2002:merge":
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    raise ConstructorError(
                        problem=f"duplicate key {key!r}",
                        problem_mark=key_node.start_mark,
                    )
                seen.append(key)
        return super().construct_mapping(node, deep)


def _yaml_problem(e: Exception) -> str:
    mark = getattr(e, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    return " ".join(f"{getattr(e, 'problem', None) or e}{where}".split())


def read_yaml(path: str | Path) -> dict:
    """The mapping in a YAML config file; :class:`ConfigError` when it cannot be read, is not a
    mapping or gives a key twice."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=StrictLoader)
    except OSError as e:
        raise ConfigError(f"cannot read config file {str(path)!r}: {e.strerror or e}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {_yaml_problem(e)}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of sections, got {show(data)}")
    return data


def load_config(
    path: str | Path | None = None, overrides: list | None = None, base: Mapping | None = None
) -> TrainConfig:
    """Read ``path`` (or start from ``base``, a config dict such as a checkpoint's ``config``;
    neither: the defaults), merge ``overrides`` (:func:`apply_overrides`), validate. The name
    defaults to the file's stem. Raises :class:`ConfigError`."""
    if base is None and path is not None:
        base = {"name": Path(path).stem, **read_yaml(path)}
    return config_from_dict(apply_overrides(base or {}, list(overrides or []), TrainConfig))
