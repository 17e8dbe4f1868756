"""Self-play PPO with Ray RLlib: the config of ``examples/rllib_selfplay.py`` and the RLlib setup.

:func:`load_config` reads a YAML config (sections ``seeding``, ``game``, ``model``, ``ppo``,
``ray``, ``eval``, ``run``; see ``configs/rllib_selfplay.yaml``) with the loader of
:mod:`agents.training.config`, merges dotted ``key=value`` overrides and validates it before Ray starts
(:class:`~agents.training.config.ConfigError`). :func:`ppo_config` builds the RLlib ``PPOConfig``: one
action-masking module ``main`` playing and trained on both seats, ``ray.*`` as resources.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field, NonNegativeFloat, PositiveInt, model_validator

from schnapsen_env.cli_io import one_line
from schnapsen_env import seeding as seeding_streams

from .config import (
    NAME_PATTERN,
    GameConfig,
    Section,
    TrainConfig,
    apply_overrides,
    check_agent_spec,
    read_yaml,
    validate,
)

#: the module id of the policy that plays both seats
MODULE_ID = "main"


class SeedingConfig(Section):
    """The one seeding block: every random source of a run derives from ``seed``."""

    seed: int = Field(0, ge=0)
    """Master seed: RLlib's ``debugging(seed=...)`` (each env runner's deals and action sampling,
    the initial weights) and the evaluation's deals (stream ``"seed/eval"``)."""


class ModelConfig(Section):
    """RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``): separate policy and value
    MLPs."""

    hidden: list[PositiveInt] = Field([256, 256], min_length=1)
    """Widths of the hidden layers (ReLU) of the policy MLP and of the value MLP
    (``fcnet_hiddens``)."""


class PPOSection(Section):
    """RLlib PPO hyperparameters (``PPOConfig.training``)."""

    lr: float = Field(3.0e-4, gt=0)
    """Adam learning rate."""
    train_batch_size: PositiveInt = 4000
    """Env steps (both seats' decisions) sampled per iteration
    (``train_batch_size_per_learner``)."""
    minibatch_size: PositiveInt = 256
    """Samples per gradient step (<= ``train_batch_size``)."""
    num_epochs: PositiveInt = 6
    """Passes over the batch per iteration."""
    gamma: float = Field(1.0, gt=0, le=1)
    """Discount per decision (games are short)."""
    gae_lambda: float = Field(0.95, ge=0, le=1)
    """GAE lambda (RLlib's ``lambda_``)."""
    clip_param: float = Field(0.2, gt=0)
    """PPO ratio clip."""
    vf_loss_coeff: NonNegativeFloat = 0.5
    """Weight of the value loss."""
    entropy_coeff: NonNegativeFloat = 0.01
    """Weight of the entropy bonus."""
    grad_clip: float | None = Field(0.5, gt=0)
    """Gradient norm clip (null: none)."""


class RayConfig(Section):
    """Ray resources: local ``ray.init(num_cpus)`` or a cluster (``--address``)."""

    num_cpus: PositiveInt | None = 2
    """CPUs of the local Ray started without ``--address`` (null: all of this machine's); ignored on
    a cluster."""
    num_env_runners: int = Field(1, ge=0)
    """Remote env runners (actors) that sample games in parallel (0: sample in the driver)."""
    num_envs_per_env_runner: PositiveInt = 4
    """Games each env runner steps in lockstep (its module runs batched over them)."""
    num_cpus_per_env_runner: NonNegativeFloat = 1
    """CPUs Ray reserves for each env runner."""
    num_learners: int = Field(0, ge=0)
    """Remote learner actors (0: the update runs in the driver)."""
    num_cpus_per_learner: NonNegativeFloat = 1
    """CPUs Ray reserves for each remote learner (with ``num_learners >= 1``)."""


class EvalConfig(Section):
    """After training: the saved policy (``rllib:checkpoint=...``) against arena agents
    (``agents.evaluation.arena.play_pair``)."""

    games: int = Field(200, ge=0)
    """Games per opponent (0: skip; even with ``duplicate``)."""
    opponents: list[str] = ["random", "heuristic"]
    """Agent specs to play against (``agents.make_agent``)."""
    duplicate: bool = True
    """Duplicate deals: every deal is played twice with seats swapped."""


class RunConfig(Section):
    """Length and output of a run."""

    iterations: PositiveInt = 20
    """RLlib training iterations (``algo.train()`` calls); ``--iterations N`` overrides it."""
    dir: str | None = Field(None, min_length=1)
    """Run directory (null: ``runs/<config name>-seed<seed>-<time>``); the checkpoint goes to
    ``DIR/checkpoint``."""
    checkpoint: bool = True
    """Save the algorithm at the end (needed by ``eval``; load it with
    ``rllib:checkpoint=DIR/checkpoint``)."""


class RLlibSelfPlayConfig(Section):
    """A whole RLlib self-play run; see the section classes for every key."""

    name: str = Field("rllib_selfplay", pattern=NAME_PATTERN)
    """Short name of the config (letters, digits, ``_.-``; part of the run directory's name)."""
    seeding: SeedingConfig = Field(default_factory=SeedingConfig)
    game: GameConfig = Field(default_factory=GameConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    ppo: PPOSection = Field(default_factory=PPOSection)
    ray: RayConfig = Field(default_factory=RayConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    run: RunConfig = Field(default_factory=RunConfig)

    rules = TrainConfig.rules  #: the game's :class:`~schnapsen_env.rules.Rules`
    to_dict = TrainConfig.to_dict  #: plain nested dict: :meth:`model_dump`

    def env_config(self) -> dict:
        """The ``env_config`` of the RLlib environment (``schnapsen_v0.env`` keyword arguments)."""
        g = self.game
        return {"variant": g.variant, "episode": g.episode, "reward": g.reward, **g.rules}

    @model_validator(mode="after")
    def _cross_checks(self) -> RLlibSelfPlayConfig:
        from schnapsen_env.schnapsen_v0 import raw_env

        try:
            raw_env(**self.env_config())  # the environment's own check of every option
        except (ValueError, TypeError) as e:
            raise ValueError(f"game: {one_line(e)}") from None
        ppo = self.ppo
        if ppo.minibatch_size > ppo.train_batch_size:
            message = f"{ppo.minibatch_size} is larger than ppo.train_batch_size {ppo.train_batch_size}"
            raise ValueError(f"ppo.minibatch_size: {message}")
        for spec in self.eval.opponents:
            check_agent_spec("eval.opponents", spec, self.rules())
        if self.eval.duplicate and self.eval.games % 2:
            raise ValueError(f"eval.games: {self.eval.games} must be even with eval.duplicate")
        if self.eval.games and not self.run.checkpoint:
            fix = "set run.checkpoint: true or eval.games: 0"
            raise ValueError(f"eval.games: the evaluation loads the saved checkpoint: {fix}")
        return self


def config_from_dict(data: Mapping) -> RLlibSelfPlayConfig:
    """A validated :class:`RLlibSelfPlayConfig` from a nested dict; raises ``ConfigError``."""
    return validate(RLlibSelfPlayConfig, data)


def load_config(
    path: str | Path | None = None,
    overrides: list | None = None,
) -> RLlibSelfPlayConfig:
    """Read ``path`` (YAML; None: the defaults), apply ``overrides``, validate; raises
    ``ConfigError``."""
    # name: the file's by default
    data = {"name": Path(path).stem, **read_yaml(path)} if path is not None else {}
    return config_from_dict(apply_overrides(data, list(overrides or []), RLlibSelfPlayConfig))


# ------------------------------------------------------------------- RLlib setup
def init_ray(cfg: RLlibSelfPlayConfig, address: str | None = None):
    """``ray.init``: the cluster at ``address``, else a local Ray with ``cfg.ray.num_cpus`` CPUs."""
    from agents.evaluation.arena import init_ray

    return init_ray(address, **({} if address else {"num_cpus": cfg.ray.num_cpus}))


def _main_module(agent_id, episode=None, **kwargs) -> str:
    """Both seats play (and train) the one module: self-play with parameter sharing."""
    return MODULE_ID


def ppo_config(cfg: RLlibSelfPlayConfig):
    """The RLlib ``PPOConfig`` of ``cfg`` (see the module docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from schnapsen_env import rllib as adapter

    runners = cfg.ray.model_dump(include={"num_env_runners", "num_envs_per_env_runner", "num_cpus_per_env_runner"})
    spec = MultiRLModuleSpec(rl_module_specs={MODULE_ID: adapter.action_mask_module_spec(cfg.model.hidden)})
    training = cfg.ppo.model_dump()  # PPOConfig.training's names but two
    training["train_batch_size_per_learner"] = training.pop("train_batch_size")
    training["lambda_"] = training.pop("gae_lambda")
    # Ray's registry lives in the cluster: register again after a ray.shutdown()/ray.init()
    adapter.register()
    return (
        PPOConfig()
        .environment(adapter.ENV_NAME, env_config=cfg.env_config())
        .multi_agent(
            policies={MODULE_ID},
            policy_mapping_fn=_main_module,
            policies_to_train=[MODULE_ID],
        )
        .rl_module(rl_module_spec=spec)
        .env_runners(**runners)
        .learners(
            num_learners=cfg.ray.num_learners,
            num_cpus_per_learner=cfg.ray.num_cpus_per_learner,
        )
        .training(**training)
        .debugging(seed=cfg.seeding.seed)
    )


def iteration_line(result: dict) -> str:
    """One line of an ``algo.train()`` result: env steps, steps/s, player_0's mean return,
    losses."""
    er = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE_ID, {})
    steps = er.get("num_env_steps_sampled", 0)
    secs = result.get("time_this_iter_s") or float("nan")
    ret = er.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))

    def num(key):
        v = learner.get(key)
        return f"{v:.3f}" if isinstance(v, (int, float)) and math.isfinite(v) else "-"

    return (
        f"iter {result.get('training_iteration', '?')}: {steps} env steps in {secs:.1f} s "
        f"({steps / secs:.0f}/s), {er.get('num_episodes', 0)} games, player_0 return {ret:+.2f}, "
        f"policy loss {num('policy_loss')}, vf loss {num('vf_loss')}, entropy {num('entropy')}"
    )


def train(
    cfg: RLlibSelfPlayConfig,
    run_dir: Path | None,
    address: str | None = None,
    log=print,
) -> dict:
    """Start Ray, train ``cfg.run.iterations`` iterations, save ``run_dir/checkpoint`` (with the
    rules in ``schnapsen_env.json`` beside RLlib's files) and evaluate it. Returns ``{"checkpoint",
    "results", "eval"}``. Ray stays up (the caller shuts it down)."""
    from agents.players.rllib import METADATA_FILE

    init_ray(cfg, address)
    algo = ppo_config(cfg).build_algo()
    results, checkpoint = [], None
    try:
        for _ in range(cfg.run.iterations):
            results.append(algo.train())
            log(iteration_line(results[-1]))
        if cfg.run.checkpoint:
            checkpoint = Path(run_dir, "checkpoint").resolve()
            algo.save_to_path(str(checkpoint))
            meta = {
                "rules": cfg.rules().to_dict(),
                "variant": cfg.game.variant,
                "episode": cfg.game.episode,
                "module": MODULE_ID,
                "config": cfg.to_dict(),
            }
            (checkpoint / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
            log(f"checkpoint: {checkpoint}")
    finally:
        algo.stop()
    evaluation = evaluate(cfg, checkpoint, log) if checkpoint and cfg.eval.games else {}
    return {"checkpoint": checkpoint, "results": results, "eval": evaluation}


def evaluate(cfg: RLlibSelfPlayConfig, checkpoint: Path, log=print) -> dict:
    """The saved policy (greedy) against each ``cfg.eval.opponents`` in the arena, locally."""
    from agents.evaluation.arena import play_pair

    spec = f"rllib:checkpoint={checkpoint}"
    seed = seeding_streams.derive_seed(cfg.seeding.seed, "eval")
    out = {}
    for opponent in cfg.eval.opponents:
        t = time.perf_counter()
        r = play_pair(
            spec,
            opponent,
            cfg.eval.games,
            seed,
            rules=cfg.rules(),
            duplicate=cfg.eval.duplicate,
        )
        lo, hi = r.win_rate_ci
        log(
            f"vs {opponent}: win rate {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}], net game points per game "
            f"{r.net_game_points:+.2f} ({r.games} games, {time.perf_counter() - t:.1f} s)"
        )
        out[opponent] = r.to_dict()
    return out


__all__ = [
    "MODULE_ID",
    "RLlibSelfPlayConfig",
    "apply_overrides",
    "config_from_dict",
    "evaluate",
    "init_ray",
]
__all__ += ["iteration_line", "load_config", "ppo_config", "train"]
