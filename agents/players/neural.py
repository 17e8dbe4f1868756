"""The neural policy: an actor-critic MLP, its checkpoints, and the one :class:`Policy` core.

The network maps an observation (float32 ``(OBS_SIZE,)``, :mod:`schnapsen_env.observation`) to 31
action logits and a value (the acting player's expected reward). Illegal actions get the logit
:data:`MASKED_LOGIT`: probability exactly 0. :class:`Policy` wraps a trained network;
:class:`PPOAgent`, :class:`agents.players.batched.BatchedPolicy` and :mod:`agents.policy` adapt it.
Checkpoints (written by ``train.py``, read with ``torch.load(weights_only=True)``) are dicts with
``model``, ``model_config``, ``observation_spec`` and ``rules``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from schnapsen_env.cli_io import one_line
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.engine import InformationSet
from schnapsen_env.observation import (
    OBS_SIZE,
    OBS_SLICES,
    RULE_COLUMNS,
    Observer,
    encode,
    observer_for,
)
from schnapsen_env.observation import rules_from_observation
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

from .base import Agent, RulesCheck, check_current_player, checked_arguments, warn_once
from .shipped import SHIPPED

#: the checkpoint of the ``ppo`` spec (:data:`agents.SHIPPED` holds every shipped policy)
DEFAULT_CHECKPOINT = SHIPPED["ppo"]
#: logit given to illegal actions: exp(MASKED_LOGIT - any legal logit) == 0 in float32
MASKED_LOGIT = torch.finfo(torch.float32).min
#: orthogonal-init gains (CleanRL): hidden layers, policy head (near-uniform start), value head
HIDDEN_GAIN = float(np.sqrt(2))
POLICY_GAIN = 0.01
VALUE_GAIN = 1.0
#: the checkpoint format this version reads (``format`` in the files train.py writes)
CHECKPOINT_FORMAT = 1
#: longest reason (characters) quoted from an exception in a checkpoint error
REASON_CHARS = 160
#: key of the observation spec in a checkpoint
SPEC_KEY = "observation_spec"
#: how to get a checkpoint that fits this env's observations
RETRAIN = "retrain with the current encoder (python train.py --config configs/default.yaml)"
NOT_A_CHECKPOINT = "not a schnapsen-env policy or training checkpoint"
#: the stream of a policy's seed that seeds its sampling generator
SAMPLE_STREAM = "policy"
_BUMMERL_COLUMN = OBS_SLICES["bummerl"].start


class ActorCritic(nn.Module):
    """Shared MLP trunk (ReLU) with a policy head and a value head: ``forward(obs)`` maps float32
    ``(B, obs_size)`` to ``(logits (B, num_actions), value (B,))``. ``init=False``: layers on the
    meta device, to fill with ``load_state_dict(state, assign=True)``."""

    def __init__(
        self,
        obs_size: int,
        hidden: Sequence[int] = (256, 256),
        num_actions: int = NUM_ACTIONS,
        *,
        init: bool = True,
    ):
        super().__init__()
        self.obs_size = obs_size
        self.hidden = [int(h) for h in hidden]
        self.num_actions = num_actions

        def linear(n_in: int, n_out: int, gain: float) -> nn.Linear:
            if not init:
                return nn.Linear(n_in, n_out, device="meta")
            layer = nn.Linear(n_in, n_out)
            nn.init.orthogonal_(layer.weight, gain)
            nn.init.zeros_(layer.bias)
            return layer

        layers: list[nn.Module] = []
        width = obs_size
        for h in self.hidden:
            layers += [linear(width, h, HIDDEN_GAIN), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = linear(width, num_actions, POLICY_GAIN)
        self.value_head = linear(width, 1, VALUE_GAIN)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.trunk(obs)
        return self.policy_head(z), self.value_head(z).squeeze(-1)

    def model_config(self) -> dict:
        """What :func:`build_model` needs to rebuild this network (stored in checkpoints)."""
        return {
            "obs_size": self.obs_size,
            "hidden": list(self.hidden),
            "num_actions": self.num_actions,
        }


def build_model(model_config: dict, init: bool = True) -> ActorCritic:
    """An :class:`ActorCritic` from a checkpoint's ``model_config`` dict (``init``: see the
    class)."""
    mc = model_config
    return ActorCritic(
        int(mc["obs_size"]),
        list(mc["hidden"]),
        int(mc.get("num_actions", NUM_ACTIONS)),
        init=init,
    )


def forward_in(
    model: nn.Module,
    obs: torch.Tensor,
    precision: str = "float32",
) -> tuple[torch.Tensor, torch.Tensor]:
    """``model(obs)`` with its matrix products in ``precision``
    (:data:`agents.training.config.PRECISIONS`): ``"bfloat16"`` runs under ``torch.autocast`` on
    ``obs``'s device. Returns float32 ``(logits (B, num_actions), value (B,))`` either way;
    gradients flow."""
    if precision == "float32":
        return model(obs)
    with torch.autocast(obs.device.type, dtype=torch.bfloat16):
        logits, value = model(obs)
    return logits.float(), value.float()


# ----------------------------------------------------------------------- masking
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal entries (``mask`` False; bool, same shape) set to
    :data:`MASKED_LOGIT`."""
    return logits.masked_fill(~mask, MASKED_LOGIT)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over legal actions, shape of ``logits``; illegal entries' probabilities
    (``exp``) are exactly 0. Every row needs a legal action."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of each row's distribution over its legal actions only, shape ``(B,)``."""
    p = log_probs.exp()
    return -(p * log_probs).masked_fill(~mask, 0.0).sum(-1)


def sample_actions(
    logits: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """One legal action per row drawn from the masked policy: ``(actions int64 (B,), log_probs
    float32 (B,))``. One uniform number per row from ``generator``, in row order, inverted
    through the row's cumulative probabilities (an illegal action is never drawn)."""
    logp = masked_log_probs(logits, mask)
    cdf = logp.exp().cumsum(-1)
    u = torch.rand(cdf.shape[:-1] + (1,), generator=generator, dtype=cdf.dtype, device=cdf.device)
    # target in (0, total]: the first action reaching it has probability > 0 (zero ones leave the
    # sum flat)
    actions = (cdf < (1.0 - u) * cdf[..., -1:]).sum(-1)
    return actions, logp.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


# -------------------------------------------------------------------- checkpoints
class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """No checkpoint file at the given path (also a ``ValueError``, as other bad agent specs)."""


def short_reason(e: BaseException) -> str:
    """An exception's message on one short line (torch's load errors run to many lines)."""
    text = one_line(e)
    # never pass on torch's advice to drop weights_only
    if "weights only load failed" in text.lower():
        text = "unreadable as a weights-only torch file"
    if len(text) > REASON_CHARS:
        text = text[: REASON_CHARS - 3] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def load_model(path: str | Path) -> tuple[ActorCritic, dict]:
    """``(network in eval mode, checkpoint dict)`` from a checkpoint
    (``torch.load(weights_only=True)``). :class:`CheckpointNotFoundError` for a missing file,
    ``ValueError`` naming the path for a file that is no policy checkpoint of this format and
    observation layout."""
    where = f"cannot load checkpoint {str(path)!r}"
    try:
        f = open(path, "rb")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as e:
        raise CheckpointNotFoundError(
            f"no checkpoint file at {str(path)!r} ({e.strerror}; give a policy.pt or checkpoint.pt written by train.py)"
        ) from None
    with f, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a damaged file makes torch warn before it fails
        try:
            ckpt = torch.load(f, map_location="cpu", weights_only=True)
        except Exception as e:  # noqa: BLE001 - torch raises many kinds (pickle, zip, EOF, OS errors)
            raise ValueError(f"{where}: {NOT_A_CHECKPOINT} ({short_reason(e)})") from None
    if not isinstance(ckpt, dict) or "model" not in ckpt or "model_config" not in ckpt:
        raise ValueError(f"{str(path)!r} is not a policy checkpoint: it needs the keys 'model' and 'model_config'")
    if ckpt.get("format", CHECKPOINT_FORMAT) != CHECKPOINT_FORMAT:
        raise ValueError(f"{where}: format {ckpt['format']!r}, this version reads format {CHECKPOINT_FORMAT}")
    mc = ckpt["model_config"]
    if isinstance(mc, dict) and mc.get("obs_size") not in (None, OBS_SIZE):
        raise ValueError(f"{where}: it expects observations of size {mc['obs_size']}, not {OBS_SIZE}: {RETRAIN}")
    if SPEC_KEY not in ckpt:
        raise ValueError(f"{where}: it predates observation specs (no {SPEC_KEY!r}): {RETRAIN}")
    try:
        Observer.from_spec(ckpt[SPEC_KEY], name="the checkpoint")
    except ValueError as e:
        raise ValueError(f"{where}: {one_line(e)}: {RETRAIN}") from None
    try:
        model = build_model(mc, init=False)
        model.load_state_dict(ckpt["model"], assign=True)
    except Exception as e:  # noqa: BLE001 - a bad model_config or weights that do not fit it
        raise ValueError(
            f"{where}: {NOT_A_CHECKPOINT} (its 'model' weights do not fit its 'model_config': {short_reason(e)})"
        ) from None
    return model.float().eval(), ckpt


def checkpoint_rules(ckpt: dict, path: str | Path | None = None) -> Rules | None:
    """The rules a checkpoint was trained on (its ``rules``, else its observation spec's), or
    ``None`` when it records neither. ``ValueError`` naming ``path`` for rules that are not RULES §7
    options."""
    spec = ckpt.get(SPEC_KEY)
    rules = ckpt.get("rules") or (spec.get("rules") if isinstance(spec, dict) else None)
    if rules is None:
        return None
    try:
        return Rules.from_dict(rules)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"cannot load checkpoint {str(path)!r}: its 'rules' are not the options of RULES §7: {short_reason(e)}"
        ) from None


def checkpoint_bummerl(ckpt: dict) -> bool | None:
    """Whether a checkpoint's network was trained on Bummerl episodes, or ``None`` when it does not
    say."""
    spec = ckpt.get(SPEC_KEY)
    return spec.get("bummerl") if isinstance(spec, dict) else None


def seeded_generator(device: torch.device, seed: int | None, stream: str) -> torch.Generator:
    """A ``torch.Generator`` on ``device`` seeded from stream ``stream`` of ``seed`` (None: fresh
    entropy)."""
    g = torch.Generator(device=device)
    if seed is None:
        g.seed()
    else:
        g.manual_seed(derive_seed(seed, stream))
    return g


def as_rules(rules: Rules | str | Mapping) -> Rules:
    """A ``Rules`` from a ``Rules``, a RULES §7 preset name or an option dict."""
    if isinstance(rules, str):
        return Rules.preset(rules)
    return Rules.from_dict(rules) if isinstance(rules, Mapping) else rules


class Policy:
    """A trained network acting on observations, the core of every neural player (usually from
    :meth:`load`).

    ``rules``/``bummerl``: its training (None: unknown); ``sample``: draw from the masked policy
    (seeded by ``seed``) instead of the most probable legal action (ties: lowest id);
    ``play_rules``: the rules it will play. Observations off its training warn once
    (:class:`~agents.players.base.RulesMismatchWarning`)."""

    def __init__(
        self,
        model: ActorCritic,
        rules: Rules | str | Mapping | None = None,
        *,
        name: str = "policy",
        device: str | torch.device = "cpu",
        sample: bool = False,
        seed: int | None = None,
        play_rules: Rules | str | Mapping | None = None,
        bummerl: bool | None = None,
    ):
        self.name = name
        self.sample = sample
        self.seed = seed
        self.bummerl = bummerl
        self._episode_warned = False
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self._check = RulesCheck(None if rules is None else as_rules(rules))
        self._expected = None if rules is None else observer_for(self.rules).rule_entries()
        self._play_rules: Rules | None = None
        self.reset()
        if play_rules is not None:
            self.check_rules(play_rules, stacklevel=2)

    @classmethod
    def load(cls, path: str | Path, **kwargs) -> Policy:
        """A policy from a checkpoint file (:func:`load_model`), with its training rules and episode
        kind; ``kwargs`` as for the constructor."""
        model, ckpt = load_model(path)
        return cls(model, checkpoint_rules(ckpt, path), bummerl=checkpoint_bummerl(ckpt), **kwargs)

    @property
    def rules(self) -> Rules | None:
        """The rules the policy was trained on, or ``None`` when unknown."""
        return self._check.trained

    @property
    def rules_warned(self) -> bool:
        """Whether this policy has met rules other than its training rules."""
        return self._check.warned

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling generator (``seed=None``: the seed given at construction; both None:
        fresh entropy)."""
        self.generator = seeded_generator(
            self.device,
            self.seed if seed is None else seed,
            SAMPLE_STREAM,
        )

    def check_rules(self, rules: Rules | str | Mapping, stacklevel: int = 1) -> bool:
        """Tell the policy the rules it plays under: True when they are its training rules (or these
        are unknown), else False and the variant warning the first time."""
        self._play_rules = as_rules(rules)
        return self._check.check(self._play_rules, self.name, stacklevel=stacklevel + 1)

    def check_episode(self, bummerl: bool, stacklevel: int = 1) -> bool:
        """Tell the policy whether it plays Bummerl episodes: True when that is what it was trained
        on (or unknown), else False and the variant warning the first time."""
        if self.bummerl is None or bummerl == self.bummerl:
            return True
        if not self._episode_warned:
            self._episode_warned = True
            trained, playing = ("Bummerl episodes", "single games")[:: 1 if self.bummerl else -1]
            episode = "bummerl" if self.bummerl else "game"
            message = f"policy {self.name!r} was trained on {trained} (episode={episode!r}) and is playing {playing} "
            warn_once(
                message + "(the observation's 'bummerl' entry differs); expect weak play",
                stacklevel + 1,
            )
        return False

    # ------------------------------------------------------------------ the core, on tensors
    def probabilities(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """float32 ``(B, 31)``: the masked policy for observations ``(B, 214)`` and bool masks ``(B,
        31)``."""
        with torch.inference_mode():
            logits, _ = self.model(obs)
            return masked_log_probs(logits, mask).exp()

    def choose(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """int64 ``(B,)``: a legal action per row, greedy or (``sample``) drawn with ``generator``
        (default: the policy's own)."""
        if not self.sample:
            # ties: the lowest id
            return torch.where(mask, self.probabilities(obs, mask), -1.0).argmax(dim=1)
        with torch.inference_mode():
            return sample_actions(self.model(obs)[0], mask, generator or self.generator)[0]

    # ------------------------------------------------------------------ observations (arrays)
    def act(self, observation, action_mask=None) -> int:
        """One legal action for one observation (module docstring)."""
        return int(self.act_batch(*self._inputs(observation, action_mask))[0])

    def act_batch(self, observations, action_masks=None) -> np.ndarray:
        """int64 ``(N,)``: a legal action per row of ``observations (N, 214)`` and ``action_masks
        (N, 31)``."""
        obs, mask = self._tensors(*self._inputs(observations, action_masks))
        return self.choose(obs, mask).cpu().numpy()

    def action_probabilities(self, observation, action_mask=None) -> np.ndarray:
        """float32 ``(31,)``: the masked policy's probabilities (exactly 0 for illegal actions)."""
        return self.probabilities(*self._tensors(*self._inputs(observation, action_mask)))[0].cpu().numpy()

    def __call__(self, observation, agent_or_mask=None) -> int:
        """``policy(obs_dict, agent_name)`` (the PettingZoo loop) or ``policy(observation,
        action_mask)``."""
        return self.act(observation, None if isinstance(observation, Mapping) else agent_or_mask)

    def __repr__(self) -> str:
        fields = f"name={self.name!r}, rules={self.rules!r}, device={str(self.device)!r}, sample={self.sample}"
        return f"Policy({fields}, seed={self.seed!r})"

    @staticmethod
    def _inputs(observation, action_mask) -> tuple:
        if isinstance(observation, Mapping):
            return observation["observation"], observation["action_mask"]
        return observation, action_mask

    def _tensors(self, observation, action_mask) -> tuple[torch.Tensor, torch.Tensor]:
        obs = np.asarray(observation, dtype=np.float32).reshape(-1, OBS_SIZE)
        mask = np.asarray(action_mask).astype(bool).reshape(-1, NUM_ACTIONS)
        if self._expected is not None and not self._check.warned:
            differ = (obs[:, list(RULE_COLUMNS)] != self._expected).any(axis=1)
            if differ.any():
                row = obs[int(np.flatnonzero(differ)[0])]
                self._check.check(
                    rules_from_observation(row, self._play_rules or self.rules),
                    self.name,
                    stacklevel=3,
                )
        if self.bummerl is not None and not self._episode_warned and (obs[:, _BUMMERL_COLUMN] != self.bummerl).any():
            self.check_episode(not self.bummerl, stacklevel=3)
        return torch.from_numpy(obs).to(self.device), torch.from_numpy(mask).to(self.device)


# -------------------------------------------------------------------------- agent
class PPOAgent(Agent):
    """A trained :class:`Policy` as an :class:`~agents.players.base.Agent` on information sets (single
    games).

    ``path``: a ``train.py`` checkpoint (default: the agent name's in :data:`agents.SHIPPED`);
    ``sample``/``seed`` as :class:`Policy`. Errors as :func:`load_model`. The spec option
    ``endgame=solver`` or ``endgame=expert`` wraps the agent in :class:`agents.players.endgame.EndgameAgent`
    (:func:`agents.make_agent`)."""

    name = "ppo"
    #: who plays the endgame: this agent's network (``make_agent`` wraps it for another
    #: ``endgame=``)
    endgame = "network"

    @checked_arguments
    def __init__(self, path: str | None = None, seed: int | None = None, sample: bool = False):
        self.path = str(path) if path is not None else str(SHIPPED[type(self).name])
        self._setup(Policy.load(self.path, name=self.name, sample=sample, seed=seed), seed)

    @classmethod
    def from_model(
        cls,
        model: ActorCritic,
        seed: int | None = None,
        sample: bool = False,
        rules: Rules | None = None,
    ) -> PPOAgent:
        """An agent acting with an in-memory network (training's evaluation); ``rules``: its
        training rules (``None``: unknown, never warns)."""
        agent = cls.__new__(cls)
        agent.path = None
        agent._setup(Policy(model, rules, name=cls.name, sample=sample, seed=seed), seed)
        return agent

    def _setup(self, policy: Policy, seed: int | None) -> None:
        super().__init__(seed)
        self.policy_core = policy
        self._obs = np.zeros(OBS_SIZE, dtype=np.float32)

    @property
    def model(self) -> ActorCritic:
        return self.policy_core.model

    @property
    def sample(self) -> bool:
        return self.policy_core.sample

    @property
    def trained_rules(self) -> Rules | None:
        """The rules the policy was trained on (from the checkpoint), or ``None`` if unknown."""
        return self.policy_core.rules

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.policy_core.reset(seed)

    def check_rules(self, rules: Rules) -> bool:
        """True when ``rules`` are the training rules (or these are unknown); else False and the
        variant warning (once per agent)."""
        self.policy_core.name = self.name  # make_agent names the agent by its spec
        return self.policy_core.check_rules(rules, stacklevel=2)

    def _tensors(self, info: InformationSet) -> tuple[torch.Tensor, torch.Tensor]:
        legal = check_current_player(info)
        core = self.policy_core
        core.name = self.name  # make_agent names the agent by its spec
        core._check.check(info.rules, self.name, stacklevel=3)
        core.check_episode(False, stacklevel=3)
        encode(info, out=self._obs)
        mask = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
        mask[0, list(legal)] = True
        return torch.from_numpy(self._obs).unsqueeze(0).to(core.device), mask.to(core.device)

    def policy(self, info: InformationSet) -> np.ndarray:
        """Probabilities float64 ``(NUM_ACTIONS,)`` of the masked policy (0 for illegal actions)."""
        return self.policy_core.probabilities(*self._tensors(info))[0].double().cpu().numpy()

    def act(self, info: InformationSet) -> int:
        return int(self.policy_core.choose(*self._tensors(info))[0])


class StrongPPOAgent(PPOAgent):
    """:class:`PPOAgent` with the policy of configs/strong.yaml (spec ``ppo-strong``); arguments as
    there."""

    name = "ppo-strong"
