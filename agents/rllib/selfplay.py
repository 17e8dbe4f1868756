"""Self-play PPO with Ray RLlib: the config of ``examples/rllib_selfplay.py`` and the RLlib setup.

A config file is YAML with these sections (every key optional; a missing key keeps its
default; see ``configs/rllib_selfplay.yaml``)::

    seeding: {seed: 0}
    game:    {variant: schnapsen, rules: {}, episode: game, reward: game_points}
    model:   {hidden: [256, 256]}
    ppo:     {lr: 3.0e-4, train_batch_size: 4000, minibatch_size: 256, num_epochs: 6, ...}
    ray:     {num_cpus: 2, num_env_runners: 1, num_envs_per_env_runner: 4, ...}
    eval:    {games: 200, opponents: [random, heuristic], duplicate: true}
    run:     {iterations: 20, dir: null, checkpoint: true}

:func:`load_config` reads it (the YAML reader and type checks of :mod:`agents.ppo.config`, the
config of ``train.py``: duplicate keys, non-UTF-8 text and oversized files refused), applies
``key=value`` overrides with dotted keys (``ppo.lr=1e-4``, ``game.rules.allow_closing=false``)
and validates everything before Ray starts; a problem raises
:class:`~agents.ppo.config.ConfigError` naming the key and what is allowed.

:func:`ppo_config` builds the RLlib ``PPOConfig``: the environment registered by
:mod:`schnapsen_env.rllib` (``env_config`` from ``game``), one module ``main`` (RLlib's
action-masking PPO module, an MLP of ``model.hidden``) that plays both seats and is trained on
both (self-play with parameter sharing), ``ray.*`` as ``env_runners``/``learners`` resources,
and ``seeding.seed`` as RLlib's seed. Nothing else: no custom connector, callback or wrapper.
The same config runs on a local Ray (``ray.num_cpus``) and on a cluster (``--address``; then
``ray.num_cpus`` is ignored and the cluster's resources hold ``num_env_runners`` runners of
``num_cpus_per_env_runner`` CPUs each).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from schnapsen_env import seeding as seeding_streams

from ..ppo.config import (
    MAX_AGENT_SPECS,
    MAX_EVAL_GAMES,
    MAX_LR,
    MAX_PATH_CHARS,
    MAX_SEED,
    ConfigError,
    GameConfig,
    build_config,
    _check_agent_spec,
    _hidden_ok,
    _run_dir_ok,
    parse_value,
    read_yaml,
    show,
)

#: limits of the numbers below (an error names the limit it hit)
MAX_ITERATIONS = 10**6
MAX_BATCH = 1 << 20
MAX_EPOCHS = 1000
MAX_ENV_RUNNERS = 4096
MAX_ENVS_PER_RUNNER = 1024
MAX_CPUS = 4096
MAX_COEF = 1.0e6
#: the module id of the policy that plays both seats
MODULE_ID = "main"


# ----------------------------------------------------------------------- sections
@dataclass
class SeedingConfig:
    """The one seeding block: every random source of a run derives from ``seed``."""

    seed: int = 0
    """Master seed (0..2**63-1): RLlib's ``debugging(seed=...)`` (each env runner's deals and action
    sampling, the initial weights) and the evaluation's deals (stream ``"seed/eval"``). RLlib runs
    with several env runners are reproducible only as far as RLlib makes them."""


@dataclass
class ModelConfig:
    """RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``): separate policy and value MLPs."""

    hidden: list = field(default_factory=lambda: [256, 256])
    """Widths of the hidden layers (ReLU) of the policy MLP and of the value MLP (``fcnet_hiddens``)."""


@dataclass
class PPOSection:
    """RLlib PPO hyperparameters (``PPOConfig.training``)."""

    lr: float = 3.0e-4
    """Adam learning rate (> 0, <= 1)."""
    train_batch_size: int = 4000
    """Env steps (both seats' decisions) sampled per iteration (``train_batch_size_per_learner``)."""
    minibatch_size: int = 256
    """Samples per gradient step (<= ``train_batch_size``)."""
    num_epochs: int = 6
    """Passes over the batch per iteration."""
    gamma: float = 1.0
    """Discount per decision (0 < gamma <= 1; games are short)."""
    gae_lambda: float = 0.95
    """GAE lambda (0..1; RLlib's ``lambda_``)."""
    clip_param: float = 0.2
    """PPO ratio clip (> 0)."""
    vf_loss_coeff: float = 0.5
    """Weight of the value loss (>= 0)."""
    entropy_coeff: float = 0.01
    """Weight of the entropy bonus (>= 0)."""
    grad_clip: float | None = 0.5
    """Gradient norm clip (null: none; else > 0)."""


@dataclass
class RayConfig:
    """Ray resources: local ``ray.init(num_cpus)`` or a cluster (``--address``)."""

    num_cpus: int | None = 2
    """CPUs of the local Ray started without ``--address`` (null: all of this machine's); ignored on a cluster."""
    num_env_runners: int = 1
    """Remote env runners (actors) that sample games in parallel (0: sample in the driver)."""
    num_envs_per_env_runner: int = 4
    """Games each env runner steps in lockstep (its module runs batched over them)."""
    num_cpus_per_env_runner: float = 1
    """CPUs Ray reserves for each env runner."""
    num_learners: int = 0
    """Remote learner actors (0: the update runs in the driver)."""
    num_cpus_per_learner: float = 1
    """CPUs Ray reserves for each remote learner (with ``num_learners >= 1``)."""


@dataclass
class EvalConfig:
    """After training: the saved policy (``rllib:checkpoint=...``) against arena agents (``agents.arena.play_pair``)."""

    games: int = 200
    """Games per opponent (0: skip; even with ``duplicate``)."""
    opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Agent specs to play against (``agents.make_agent``)."""
    duplicate: bool = True
    """Duplicate deals: every deal is played twice with seats swapped."""


@dataclass
class RunConfig:
    """Length and output of a run."""

    iterations: int = 20
    """RLlib training iterations (``algo.train()`` calls); ``--iterations N`` overrides it."""
    dir: str | None = None
    """Run directory (null: ``runs/<config name>-seed<seed>-<time>``); the checkpoint goes to ``DIR/checkpoint``."""
    checkpoint: bool = True
    """Save the algorithm at the end (needed by ``eval``; load it with ``rllib:checkpoint=DIR/checkpoint``)."""


@dataclass
class RLlibSelfPlayConfig:
    """A whole RLlib self-play run; see the section classes for every key."""

    name: str = "rllib_selfplay"
    """Short name of the config (letters, digits, ``_.-``; part of the run directory's name)."""
    seeding: SeedingConfig = field(default_factory=SeedingConfig)
    game: GameConfig = field(default_factory=GameConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    ppo: PPOSection = field(default_factory=PPOSection)
    ray: RayConfig = field(default_factory=RayConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def rules(self):
        """The game's :class:`~schnapsen_env.rules.Rules`."""
        from schnapsen_env.rules import Rules

        return Rules.preset(self.game.variant, **self.game.rules)

    def env_config(self) -> dict:
        """The ``env_config`` of the RLlib environment (``schnapsen_v0.env`` keyword arguments)."""
        return {"variant": self.game.variant, "episode": self.game.episode, "reward": self.game.reward,
                **self.game.rules}

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


_SECTIONS = typing.get_type_hints(RLlibSelfPlayConfig)


# ------------------------------------------------------------------- validation
def _whole(lo: int, hi: int, limit: str) -> tuple:
    return (lambda v: lo <= v <= hi, f"a whole number >= {lo} and <= {hi} (limit {limit})")


def _number(lo: float, hi: float, limit: str, lo_open: bool = False, nullable: bool = False) -> tuple:
    def check(v):
        return (nullable and v is None) or ((lo < v if lo_open else lo <= v) and v <= hi)

    return (check, ("null or " if nullable else "") + f"a number {'>' if lo_open else '>='} {lo:g} and <= {hi:g} "
                                                      f"(limit {limit})")


_CONSTRAINTS: dict[str, tuple] = {
    "name": (lambda v: 0 < len(v) <= 100 and all(c.isascii() and (c.isalnum() or c in "_.-") for c in v),
             "letters, digits, '_', '.', '-' (1..100 of them)"),
    "seeding.seed": (lambda v: 0 <= v <= MAX_SEED, "a whole number in 0..2**63-1 (limit MAX_SEED)"),
    "game.variant": (lambda v: v in _variants(), "a RULES §7 preset"),
    "game.episode": (lambda v: v in ("game", "bummerl"), "'game' or 'bummerl'"),
    "game.reward": (lambda v: v in ("game_points", "win_loss"), "'game_points' or 'win_loss'"),
    "model.hidden": (_hidden_ok, "a list of 1..16 whole numbers >= 1 and <= 4096 with at most 2**24 weights"),
    "ppo.lr": _number(0, MAX_LR, "MAX_LR", lo_open=True),
    "ppo.train_batch_size": _whole(1, MAX_BATCH, "MAX_BATCH"),
    "ppo.minibatch_size": _whole(1, MAX_BATCH, "MAX_BATCH"),
    "ppo.num_epochs": _whole(1, MAX_EPOCHS, "MAX_EPOCHS"),
    "ppo.gamma": (lambda v: 0 < v <= 1, "a number in (0, 1]"),
    "ppo.gae_lambda": (lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "ppo.clip_param": _number(0, MAX_COEF, "MAX_COEF", lo_open=True),
    "ppo.vf_loss_coeff": _number(0, MAX_COEF, "MAX_COEF"),
    "ppo.entropy_coeff": _number(0, MAX_COEF, "MAX_COEF"),
    "ppo.grad_clip": _number(0, MAX_COEF, "MAX_COEF", lo_open=True, nullable=True),
    "ray.num_cpus": (lambda v: v is None or 1 <= v <= MAX_CPUS, f"null or a whole number >= 1 and <= {MAX_CPUS} "
                                                                "(limit MAX_CPUS)"),
    "ray.num_env_runners": _whole(0, MAX_ENV_RUNNERS, "MAX_ENV_RUNNERS"),
    "ray.num_envs_per_env_runner": _whole(1, MAX_ENVS_PER_RUNNER, "MAX_ENVS_PER_RUNNER"),
    "ray.num_cpus_per_env_runner": _number(0, MAX_CPUS, "MAX_CPUS"),
    "ray.num_learners": _whole(0, MAX_ENV_RUNNERS, "MAX_ENV_RUNNERS"),
    "ray.num_cpus_per_learner": _number(0, MAX_CPUS, "MAX_CPUS"),
    "eval.games": _whole(0, MAX_EVAL_GAMES, "MAX_EVAL_GAMES"),
    "eval.opponents": (lambda v: len(v) <= MAX_AGENT_SPECS, f"at most {MAX_AGENT_SPECS} agent specs"),
    "run.iterations": _whole(1, MAX_ITERATIONS, "MAX_ITERATIONS"),
    "run.dir": (_run_dir_ok, f"null or a non-empty path of at most {MAX_PATH_CHARS} characters without NUL"),
}


def _variants() -> tuple:
    from schnapsen_env.rules import VARIANTS

    return VARIANTS


def _flat(cfg: RLlibSelfPlayConfig) -> dict:
    out = {"name": cfg.name}
    for section in _SECTIONS:
        if section != "name":
            out.update({f"{section}.{k}": v for k, v in dataclasses.asdict(getattr(cfg, section)).items()})
    return out


def _check_constraints(cfg: RLlibSelfPlayConfig) -> None:
    flat = _flat(cfg)
    for key, (check, allowed) in _CONSTRAINTS.items():
        if not check(flat[key]):
            raise ConfigError(f"{key}: bad value {show(flat[key])}: allowed {allowed}")
    if any(type(k) is not str for k in cfg.game.rules):
        raise ConfigError("game.rules: option names must be strings")
    clash = sorted(set(cfg.game.rules) & {"variant", "episode", "reward", "illegal_action", "render_mode"})
    if clash:
        raise ConfigError(f"game.rules: {clash[0]!r} is not a rule option (set game.{clash[0]} instead)")
    try:
        from schnapsen_env.schnapsen_v0 import raw_env

        raw_env(**cfg.env_config())  # the environment's own check of every option
    except (ValueError, TypeError) as e:
        raise ConfigError(f"game: {' '.join(str(e).split())}") from None
    if cfg.ppo.minibatch_size > cfg.ppo.train_batch_size:
        raise ConfigError(f"ppo.minibatch_size: {cfg.ppo.minibatch_size} is larger than ppo.train_batch_size "
                          f"{cfg.ppo.train_batch_size}")
    for i, spec in enumerate(cfg.eval.opponents):
        _check_agent_spec(f"eval.opponents[{i}]", spec)
    if cfg.eval.duplicate and cfg.eval.games % 2:
        raise ConfigError(f"eval.games: {cfg.eval.games} must be even with eval.duplicate (deals are played twice)")
    if cfg.eval.games and not cfg.run.checkpoint:
        raise ConfigError("eval.games: the evaluation loads the saved checkpoint: set run.checkpoint: true "
                          "or eval.games: 0")


def config_from_dict(data: Mapping) -> RLlibSelfPlayConfig:
    """A validated :class:`RLlibSelfPlayConfig` from a nested dict; raises ``ConfigError``."""
    return build_config(data, RLlibSelfPlayConfig, _check_constraints)


def apply_overrides(data: Mapping, overrides: list) -> dict:
    """``data`` with ``key=value`` overrides (``section.key=YAML value``, ``game.rules.OPTION=value``); a new dict."""
    import copy

    data = copy.deepcopy(dict(data))
    for item in overrides:
        key, eq, text = str(item).partition("=")
        if not eq or not key or not text.strip():
            raise ConfigError(f"bad override {show(item)}: allowed key=value with a dotted key, e.g. ppo.lr=1e-4")
        parts = key.split(".")
        value = parse_value(text)
        if parts[0] not in _SECTIONS:
            raise ConfigError(f"unknown key {show(key)}: allowed top-level keys are {', '.join(_SECTIONS)}")
        if parts == ["name"]:
            data["name"] = value
            continue
        tp = _SECTIONS[parts[0]]
        names = [f.name for f in dataclasses.fields(tp)] if dataclasses.is_dataclass(tp) else []
        if len(parts) < 2 or parts[1] not in names:
            raise ConfigError(f"unknown key {show(key)}: allowed keys in {parts[0]} are {', '.join(names)}")
        section = data.get(parts[0]) or {}
        if not isinstance(section, Mapping):
            raise ConfigError(f"{parts[0]}: expected a mapping of keys to values, got {show(section)}")
        section = data[parts[0]] = dict(section)
        if len(parts) == 2:
            section[parts[1]] = value
        elif parts[:2] == ["game", "rules"] and len(parts) == 3:
            rules = section.get("rules") or {}
            if not isinstance(rules, Mapping):
                raise ConfigError(f"game.rules: expected a mapping, got {show(rules)}")
            section["rules"] = {**rules, parts[2]: value}
        else:
            raise ConfigError(f"unknown key {show(key)}: {parts[0]}.{parts[1]} has no sub-keys")
    return data


def load_config(path: str | Path | None = None, overrides: list | None = None) -> RLlibSelfPlayConfig:
    """Read ``path`` (YAML; None: the defaults), apply ``overrides``, validate; raises ``ConfigError``."""
    data = read_yaml(path) if path is not None else {}
    if path is not None and "name" not in data:
        data["name"] = Path(path).stem
    return config_from_dict(apply_overrides(data, list(overrides or [])))


# ------------------------------------------------------------------- RLlib setup
def init_ray(cfg: RLlibSelfPlayConfig, address: str | None = None):
    """``ray.init``: the cluster at ``address``, else a local Ray with ``cfg.ray.num_cpus`` CPUs."""
    import logging

    import ray

    if ray.is_initialized():
        return ray
    quiet = {"include_dashboard": False, "logging_level": logging.WARNING}
    if address:
        ray.init(address=address, **quiet)
    else:
        ray.init(num_cpus=cfg.ray.num_cpus, **quiet)
    return ray


def _main_module(agent_id, episode=None, **kwargs) -> str:
    """Both seats play (and train) the one module: self-play with parameter sharing."""
    return MODULE_ID


def ppo_config(cfg: RLlibSelfPlayConfig):
    """The RLlib ``PPOConfig`` of ``cfg`` (see the module docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from schnapsen_env import rllib as adapter

    p, r = cfg.ppo, cfg.ray
    adapter.register()  # Ray's registry lives in the cluster: register again after a ray.shutdown()/ray.init()
    config = (
        PPOConfig()
        .environment(adapter.ENV_NAME, env_config=cfg.env_config())
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_main_module, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={MODULE_ID: adapter.action_mask_module_spec(cfg.model.hidden)}))
        .env_runners(num_env_runners=r.num_env_runners, num_envs_per_env_runner=r.num_envs_per_env_runner,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner)
        .learners(num_learners=r.num_learners, num_cpus_per_learner=r.num_cpus_per_learner)
        .training(lr=p.lr, train_batch_size_per_learner=p.train_batch_size, minibatch_size=p.minibatch_size,
                  num_epochs=p.num_epochs, gamma=p.gamma, lambda_=p.gae_lambda, clip_param=p.clip_param,
                  vf_loss_coeff=p.vf_loss_coeff, entropy_coeff=p.entropy_coeff, grad_clip=p.grad_clip)
        .debugging(seed=cfg.seeding.seed)
    )
    return config


def iteration_line(result: dict) -> str:
    """One line of an ``algo.train()`` result: env steps, steps/s, player_0's mean return, losses."""
    er = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE_ID, {})
    steps = er.get("num_env_steps_sampled", 0)
    secs = result.get("time_this_iter_s") or float("nan")
    ret = er.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))

    def num(key):
        v = learner.get(key)
        return f"{v:.3f}" if isinstance(v, (int, float)) and math.isfinite(v) else "-"

    return (f"iter {result.get('training_iteration', '?')}: {steps} env steps in {secs:.1f} s "
            f"({steps / secs:.0f}/s), {er.get('num_episodes', 0)} games, player_0 return {ret:+.2f}, "
            f"policy loss {num('policy_loss')}, vf loss {num('vf_loss')}, entropy {num('entropy')}")


def train(cfg: RLlibSelfPlayConfig, run_dir: Path | None, address: str | None = None, log=print) -> dict:
    """Start Ray, train ``cfg.run.iterations`` iterations, save ``run_dir/checkpoint`` (with the rules in
    ``schnapsen_env.json`` beside RLlib's files) and evaluate it. Returns ``{"checkpoint", "results",
    "eval"}``. Ray stays up (the caller shuts it down)."""
    from agents.rllib import METADATA_FILE

    init_ray(cfg, address)
    algo = ppo_config(cfg).build_algo()
    results = []
    try:
        for _ in range(cfg.run.iterations):
            result = algo.train()
            log(iteration_line(result))
            results.append(result)
        checkpoint = None
        if cfg.run.checkpoint:
            checkpoint = Path(run_dir, "checkpoint").resolve()
            algo.save_to_path(str(checkpoint))
            (checkpoint / METADATA_FILE).write_text(json.dumps({
                "rules": cfg.rules().to_dict(), "variant": cfg.game.variant, "episode": cfg.game.episode,
                "module": MODULE_ID, "config": cfg.to_dict()}, indent=2), encoding="utf-8")
            log(f"checkpoint: {checkpoint}")
    finally:
        algo.stop()
    evaluation = evaluate(cfg, checkpoint, log) if checkpoint and cfg.eval.games else {}
    return {"checkpoint": checkpoint, "results": results, "eval": evaluation}


def evaluate(cfg: RLlibSelfPlayConfig, checkpoint: Path, log=print) -> dict:
    """The saved policy (greedy) against each ``cfg.eval.opponents`` in the arena, locally."""
    from agents.arena import play_pair

    spec = f"rllib:checkpoint={checkpoint}"
    out = {}
    for opponent in cfg.eval.opponents:
        t = time.perf_counter()
        r = play_pair(spec, opponent, games=cfg.eval.games, seed=seeding_streams.derive_seed(cfg.seeding.seed,
                                                                                              "eval"),
                      rules=cfg.rules(), duplicate=cfg.eval.duplicate)
        lo, hi = r.win_rate_ci
        log(f"vs {opponent}: win rate {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}], net game points per game "
            f"{r.net_game_points:+.2f} ({r.games} games, {time.perf_counter() - t:.1f} s)")
        out[opponent] = r.to_dict()
    return out


__all__ = ["MODULE_ID", "RLlibSelfPlayConfig", "apply_overrides", "config_from_dict", "evaluate", "init_ray",
           "iteration_line", "load_config", "ppo_config", "train"]
