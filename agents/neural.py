"""The neural policy: an actor-critic MLP over the env's observation, and :class:`PPOAgent`.

The network maps an observation (``schnapsen_env.observation.encode``/``encode_state``,
float32 of shape ``(OBS_SIZE,)``) to 31 action logits (the action ids of
:mod:`schnapsen_env.actions`) and a value (expected reward of the episode from the
acting player's view: game points, or +-1 with ``reward: win_loss``).

Masking: illegal actions get the logit :data:`MASKED_LOGIT`, so their probability is
exactly 0, they are never sampled, get no gradient, and add nothing to the entropy
(:func:`masked_entropy` sums over legal actions only).

Checkpoints (written by ``train.py``) are plain dicts loadable with
``torch.load(path, weights_only=True)``; the keys used here are ``model`` (the
state dict), ``model_config`` (``obs_size``, ``hidden``, ``num_actions``),
``observation_spec`` (:attr:`schnapsen_env.observation.Observer.spec` of the training
observations: version, size, field table, rule options and context; a plain dict) and
``rules`` (``Rules.to_dict()`` of the rules the policy was trained on;
:func:`checkpoint_rules`). :func:`load_model` returns ``(network, checkpoint dict)``; it
refuses a checkpoint whose observation spec differs from this env's (a ``ValueError`` naming
the difference, e.g. ``field 'unseen' at offset 48 in the checkpoint, 52 here``) and one that
predates observation specs (it has none), with how to retrain. Other training rules are
not an error: they give the variant warning below. A checkpoint whose ``format`` is not
:data:`CHECKPOINT_FORMAT` is refused (a ``ValueError`` naming both).

Example::

    from agents.neural import PPOAgent
    agent = PPOAgent()                              # the shipped checkpoint, greedy
    agent = PPOAgent("runs/x/checkpoint.pt", seed=1, sample=True)
    action = agent.act(state.information_set(player))

A :class:`PPOAgent` playing under rules other than those its checkpoint records warns
once (:class:`agents.base.RulesMismatchWarning`, a ``UserWarning``; see
:class:`agents.base.RulesCheck`); an agent with unknown training rules
(``PPOAgent.from_model(model)``) never warns. A checkpoint trained on Bummerl episodes (its
observation spec's ``bummerl``) warns the same way once it acts: an agent encodes information
sets, which hold no Bummerl score, so it always plays single games. To act on
environment observations instead of information sets, use :func:`agents.policy.load_policy`.
"""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from schnapsen_env.cli_io import file_kind
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cards import brief_repr
from schnapsen_env.engine import InformationSet
from schnapsen_env.rules import Rules

from .base import Agent, RulesCheck, action_from_probs, check_to_move
from .ppo.config import PRECISIONS

#: the checkpoint shipped with the package (trained with configs/default.yaml)
DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "ppo_default.pt"
#: logit given to illegal actions: exp(MASKED_LOGIT - any legal logit) == 0 in float32
MASKED_LOGIT = torch.finfo(torch.float32).min
#: orthogonal-init gains (CleanRL): hidden layers, policy head (near-uniform start), value head
HIDDEN_GAIN = float(np.sqrt(2))
POLICY_GAIN = 0.01
VALUE_GAIN = 1.0


class ActorCritic(nn.Module):
    """Shared MLP trunk (ReLU) with a policy head (``num_actions`` logits) and a value head.

    ``forward(obs)``: obs float32 ``(B, obs_size)`` -> ``(logits (B, num_actions), value (B,))``.
    ``init=False`` builds the layers on the meta device without initializing them (no work, no
    draw from torch's global generator): fill them with ``load_state_dict(state, assign=True)``,
    as :func:`load_model` does.
    """

    def __init__(self, obs_size: int, hidden: Sequence[int] = (256, 256), num_actions: int = NUM_ACTIONS, *,
                 init: bool = True):
        super().__init__()
        if type(obs_size) is not int or obs_size < 1:
            raise ValueError(f"obs_size must be a whole number >= 1, got {obs_size!r}")
        if not isinstance(hidden, Sequence) or not hidden or any(type(h) is not int or h < 1 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of whole numbers >= 1, got {hidden!r}")
        self.obs_size = obs_size
        self.hidden = [int(h) for h in hidden]
        self.num_actions = num_actions

        def linear(n_in: int, n_out: int, gain: float) -> nn.Linear:
            return _init(nn.Linear(n_in, n_out), gain) if init else nn.Linear(n_in, n_out, device="meta")

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
        return {"obs_size": self.obs_size, "hidden": list(self.hidden), "num_actions": self.num_actions}


def forward_in(model: nn.Module, obs: torch.Tensor, precision: str = "float32") -> tuple[torch.Tensor, torch.Tensor]:
    """``model(obs)`` with its matrix products in ``precision`` (one of :data:`PRECISIONS`):
    ``"bfloat16"`` runs the forward under ``torch.autocast`` on ``obs``'s device (about 2.5x faster
    on CPUs with AVX-512 BF16 or AMX and on GPUs; slower where bfloat16 is emulated). Returns
    ``(logits float32 (B, num_actions), value float32 (B,))`` either way; gradients flow (the
    weights stay float32). ``ValueError`` for another precision."""
    if precision == "float32":
        return model(obs)
    if precision != "bfloat16":
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {brief_repr(precision)}")
    with torch.autocast(obs.device.type, dtype=torch.bfloat16):
        logits, value = model(obs)
    return logits.float(), value.float()


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def build_model(model_config: dict, init: bool = True) -> ActorCritic:
    """An :class:`ActorCritic` from a checkpoint's ``model_config`` dict (``init``: see the class)."""
    return ActorCritic(int(model_config["obs_size"]), list(model_config["hidden"]),
                       int(model_config.get("num_actions", NUM_ACTIONS)), init=init)


# ----------------------------------------------------------------------- masking
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal entries (``mask`` False; bool, same shape) set to :data:`MASKED_LOGIT`."""
    return logits.masked_fill(~mask, MASKED_LOGIT)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over legal actions, shape of ``logits``; illegal entries are hugely
    negative and their probabilities (``exp``) exactly 0. Every row needs a legal action."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of each row's distribution over its legal actions only, shape ``(B,)``."""
    p = log_probs.exp()
    return -(p * log_probs).masked_fill(~mask, 0.0).sum(-1)


def sample_actions(logits: torch.Tensor, mask: torch.Tensor,
                   generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one legal action per row from the masked policy.

    Returns ``(actions int64 (B,), log_probs float32 (B,))``; an illegal action has
    probability 0 and is never drawn. ``generator`` makes the draw reproducible: one uniform
    number per row, in row order (``torch.rand``), inverted through the row's cumulative
    probabilities (several times faster than ``torch.multinomial`` on large batches).
    """
    logp = masked_log_probs(logits, mask)
    cdf = logp.exp().cumsum(-1)
    u = torch.rand(cdf.shape[:-1] + (1,), generator=generator, dtype=cdf.dtype, device=cdf.device)
    # target in (0, total]: the first action whose cumulative probability reaches it has probability > 0
    # (a zero-probability action leaves the cumulative sum flat, so it is never the first to reach it)
    target = (1.0 - u) * cdf[..., -1:]
    actions = (cdf < target).sum(-1)
    return actions, logp.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def mask_from_bits(bits: np.ndarray, num_actions: int = NUM_ACTIONS) -> np.ndarray:
    """Bool ``(B, num_actions)`` action masks from int64 ``(B,)`` legal-action bitmasks
    (``GameState.legal_mask()``: bit i set = action i legal)."""
    return ((bits[:, None] >> np.arange(num_actions, dtype=np.int64)) & 1).astype(bool)


# -------------------------------------------------------------------- checkpoints
class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """No checkpoint file at the given path (a ``FileNotFoundError`` and a ``ValueError``, so
    callers that report bad agent specs as ``ValueError`` report this one too)."""


#: the checkpoint format this version reads (``format`` in the files train.py writes; train.py's ``FORMAT``)
CHECKPOINT_FORMAT = 1
#: longest reason (characters) quoted from an exception in a checkpoint error
REASON_CHARS = 160
#: what a file that cannot be read as a checkpoint is
_NOT_A_CHECKPOINT = "not a schnapsen-env policy or training checkpoint"


def _short_reason(e: BaseException) -> str:
    """An exception's message on one short line (torch's load errors run to many lines)."""
    text = " ".join(str(e).split())
    if "weights only load failed" in text.lower():  # never pass on torch's advice to drop weights_only
        text = "unreadable as a weights-only torch file"
    if len(text) > REASON_CHARS:
        text = text[:REASON_CHARS - 3] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__




def load_checkpoint(path: str | Path) -> dict:
    """The dict of a checkpoint file, loaded with ``weights_only=True``.

    Raises what :func:`read_checkpoint` raises, and ``ValueError`` for a file that is not a
    schnapsen-env policy checkpoint (no ``model`` and ``model_config``).
    """
    ckpt = read_checkpoint(path)
    if not isinstance(ckpt, dict) or "model" not in ckpt or "model_config" not in ckpt:
        raise ValueError(f"{_shown(Path(path))} is not a policy checkpoint: it needs the keys 'model' and "
                         "'model_config'")
    return ckpt


def read_checkpoint(path: str | Path):
    """What ``torch.load(path, map_location="cpu", weights_only=True)`` returns, any structure.

    The path must name a regular file (checked with ``os.stat`` before it is opened, so a
    FIFO or device never blocks or streams). Raises :class:`CheckpointNotFoundError` (a
    ``FileNotFoundError`` and a ``ValueError``) for a missing file or a directory, and
    ``ValueError`` for a path the system refuses (too long, permission denied, ...), a file
    that is not regular, or one torch cannot load (the message names the path and says why
    in one line).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"checkpoint path must be a string or path, got {type(path).__name__}")
    if os.fspath(path) == "":  # Path("") would be the current directory
        raise CheckpointNotFoundError("cannot read checkpoint '': empty path (give a policy.pt or checkpoint.pt "
                                      "written by train.py)")
    p = Path(path)
    shown = _shown(p)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError) as e:
        raise CheckpointNotFoundError(f"no checkpoint file at {shown} ({e.strerror or 'no such file'}; give a "
                                      "policy.pt or checkpoint.pt written by train.py)") from None
    except OSError as e:
        raise ValueError(f"cannot read checkpoint {shown}: {e.strerror or type(e).__name__}") from None
    except ValueError:  # an embedded NUL character, or text the file system cannot encode (lone surrogates)
        why = "contains a NUL character" if "\0" in str(p) else "has characters the file system cannot encode"
        raise ValueError(f"cannot read checkpoint {shown}: the path {why}") from None
    if stat.S_ISDIR(st.st_mode):
        raise CheckpointNotFoundError(f"no checkpoint file at {shown} (a directory, not a checkpoint file; give "
                                      "a policy.pt or checkpoint.pt written by train.py)")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"cannot read checkpoint {shown}: it is {file_kind(st.st_mode)}, not a regular file")
    try:
        f = open(p, "rb")
    except OSError as e:
        raise ValueError(f"cannot read checkpoint {shown}: {e.strerror or type(e).__name__}") from None
    head = b""
    try:
        with f, warnings.catch_warnings():  # a damaged file makes torch warn (pickle protocol) before it fails:
            warnings.simplefilter("ignore")  # the one-line error below says it all
            head = f.read(len(_LEGACY_MAGIC))
            f.seek(0)
            ckpt = torch.load(f, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds (pickle, zip, OS errors); name the file
        raise ValueError(f"cannot load checkpoint {shown}: {_NOT_A_CHECKPOINT} ({_load_failure(head, e)})") from None
    return ckpt


#: how torch files begin: a zip archive (torch.save's format) or the legacy pickle format's magic number
_ZIP_MAGIC = b"PK\x03\x04"
_LEGACY_MAGIC = b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8"


def _load_failure(head: bytes, e: BaseException) -> str:
    """Why torch could not load a file that begins with ``head``, in plain words."""
    if not head:
        return "the file is empty"
    if not (head.startswith(_ZIP_MAGIC) or head == _LEGACY_MAGIC):
        return "not a torch checkpoint file"
    if "weights only load failed" in str(e).lower():  # complete, but holds more than tensors and plain data
        return _short_reason(e)
    return "the file is cut short or damaged: not a complete torch checkpoint"


def _shown(p: Path) -> str:
    """A path for a message: its repr, shortened in the middle when very long."""
    text = repr(str(p))
    return text if len(text) <= 2 * REASON_CHARS else text[:REASON_CHARS - 2] + "..." + text[-REASON_CHARS + 2:]


def _model_config_problem(mc) -> str | None:
    """What is wrong with a checkpoint's ``model_config`` (checked before any weight is allocated)."""
    from agents.ppo.config import MAX_HIDDEN_LAYERS, MAX_HIDDEN_WIDTH, MAX_PARAMETERS, network_parameters
    from schnapsen_env.observation import OBS_SIZE

    if not isinstance(mc, dict):
        return f"it is {type(mc).__name__}, not a dict"
    if "obs_size" not in mc or "hidden" not in mc:
        return "it needs 'obs_size' and 'hidden'"
    obs, hidden, na = mc["obs_size"], mc["hidden"], mc.get("num_actions", NUM_ACTIONS)
    if type(obs) is not int or type(na) is not int or na != NUM_ACTIONS:
        return f"'obs_size' and 'num_actions' must be whole numbers, 'num_actions' {NUM_ACTIONS}"
    if obs != OBS_SIZE:
        return None  # load_model names the size mismatch
    if not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS or \
            not all(type(h) is int and 1 <= h <= MAX_HIDDEN_WIDTH for h in hidden):
        return (f"'hidden' must be a list of 1..{MAX_HIDDEN_LAYERS} whole numbers >= 1 and <= {MAX_HIDDEN_WIDTH} "
                "(limits MAX_HIDDEN_LAYERS, MAX_HIDDEN_WIDTH)")
    if network_parameters(list(hidden), obs, na) > MAX_PARAMETERS:
        return f"the network would have more than {MAX_PARAMETERS} weights (limit MAX_PARAMETERS)"
    return None


def load_model(path: str | Path) -> tuple[ActorCritic, dict]:
    """``(network in eval mode, checkpoint dict)`` from a checkpoint file; checks its
    ``observation_spec`` against this env's (:func:`observation_spec_problem`) and the network's
    observation size against ``OBS_SIZE`` (``ValueError`` naming the difference).
    Raises ``ValueError`` naming the path when the stored network cannot be rebuilt
    (a malformed ``model_config``, sizes beyond the limits of ``agents.ppo.config``, weights
    that do not fit, or weights that are NaN or infinite). The network is built without initial
    weights (nothing is drawn from torch's global generator) and takes the checkpoint's tensors
    (float32)."""
    from schnapsen_env.observation import OBS_SIZE

    ckpt = load_checkpoint(path)
    shown = _shown(Path(path))
    if "format" in ckpt and (type(ckpt["format"]) is not int or ckpt["format"] != CHECKPOINT_FORMAT):
        raise ValueError(f"cannot load checkpoint {shown}: format {brief_repr(ckpt['format'], 40)}, this version "
                         f"reads format {CHECKPOINT_FORMAT} (a file from another version of train.py, or edited)")
    problem = _model_config_problem(ckpt["model_config"])
    if problem:
        raise ValueError(f"cannot load checkpoint {shown}: {_NOT_A_CHECKPOINT} (bad 'model_config': {problem})")
    spec_problem = observation_spec_problem(ckpt)
    if spec_problem:
        raise ValueError(f"cannot load checkpoint {shown}: {spec_problem}")
    mc = ckpt["model_config"]
    if mc["obs_size"] != OBS_SIZE:
        raise ValueError(f"checkpoint {shown} expects observations of size {mc['obs_size']}, "
                         f"but the env's OBS_SIZE is {OBS_SIZE}: retrain with the current encoder")
    try:
        model = build_model(mc, init=False)  # the weights come from the checkpoint: no initialization
    except Exception as e:  # noqa: BLE001 - a malformed model_config: KeyError, TypeError, ValueError...
        raise ValueError(f"cannot load checkpoint {shown}: {_NOT_A_CHECKPOINT} (bad 'model_config': "
                         f"{_short_reason(e)})") from None
    odd = _odd_weight(ckpt["model"])
    if odd:
        raise ValueError(f"cannot load checkpoint {shown}: {_NOT_A_CHECKPOINT} (its 'model' weights: {odd})")
    nonfinite = _nonfinite_weight(ckpt["model"])
    if nonfinite:  # a diverged run: such a network answers NaN probabilities
        raise ValueError(f"cannot load checkpoint {shown}: it holds weights that are not finite numbers "
                         f"({nonfinite} has NaN or infinity): give a policy.pt/checkpoint.pt of a healthy run")
    try:
        model.load_state_dict(ckpt["model"], assign=True)
        model.float()  # assign keeps the stored dtype
    except Exception as e:  # noqa: BLE001 - missing/unexpected keys, shape mismatches, not a mapping
        raise ValueError(f"cannot load checkpoint {shown}: {_NOT_A_CHECKPOINT} (its 'model' weights do "
                         f"not fit its 'model_config': {_short_reason(e)})") from None
    model.eval()
    return model, ckpt


def _odd_weight(weights) -> str | None:
    """Why a checkpoint's ``model`` mapping cannot be weights of a network here (a tensor that is not a
    dense real floating-point tensor in memory: sparse, meta, complex, integer), or None."""
    if not isinstance(weights, dict):
        return None  # load_state_dict names it
    for name, t in weights.items():
        if not isinstance(t, torch.Tensor):
            continue  # load_state_dict names it
        if t.layout != torch.strided or t.is_meta or t.device.type != "cpu":
            return f"{brief_repr(name, 40)} is a {t.layout}/{t.device.type} tensor, not dense numbers in memory"
        if not t.is_floating_point():
            return f"{brief_repr(name, 40)} has dtype {t.dtype}, not a real floating-point type"
    return None


def _nonfinite_weight(weights) -> str | None:
    """The name of the first floating-point tensor of a checkpoint's ``model`` mapping that holds NaN or
    infinity, or None."""
    if not isinstance(weights, dict):
        return None
    for name, t in weights.items():
        if isinstance(t, torch.Tensor) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
            return brief_repr(name, 40)
    return None


#: key of the observation spec in a checkpoint (:attr:`schnapsen_env.observation.Observer.spec`)
SPEC_KEY = "observation_spec"
#: how to get a checkpoint that fits this env's observations
RETRAIN = "retrain with the current encoder (python train.py --config configs/default.yaml)"


def observation_spec_problem(ckpt: dict) -> str | None:
    """Why the observations a checkpoint's network was trained on are not this env's, in one line,
    or ``None`` when its ``observation_spec`` describes the same numbers (version, size, every
    field's offset, size, high, meaning and rule option; :func:`schnapsen_env.observation.spec_difference`).
    Other training rules are no problem here: they give the variant warning when the policy plays."""
    from schnapsen_env.observation import Observer

    if SPEC_KEY not in ckpt:
        return (f"it predates observation specs (no {SPEC_KEY!r}), so nothing says its network reads this "
                f"env's observations: {RETRAIN}")
    try:
        Observer.from_spec(ckpt[SPEC_KEY], name="the checkpoint")
    except ValueError as e:
        return f"{' '.join(str(e).split())}: {RETRAIN}"
    return None


#: older name of :func:`load_model`, kept for existing callers (``agents.policy.load_policy`` is
#: the user-facing loader: it returns a policy object that acts on env observations)
load_policy = load_model


def checkpoint_rules(ckpt: dict, path: str | Path | None = None) -> Rules | None:
    """The rules a checkpoint was trained on (its ``rules``: ``Rules.to_dict()``, else the
    ``rules`` of its observation spec), or ``None`` when it records neither. Raises
    ``ValueError`` naming ``path`` when ``rules`` is present but is not a valid rules dict, or
    differs from its observation spec's."""
    where = f"checkpoint {_shown(Path(path))}" if path is not None else "checkpoint"
    if not isinstance(ckpt, dict):
        return None
    spec = ckpt.get(SPEC_KEY)
    spec_rules = spec.get("rules") if isinstance(spec, dict) else None
    if ckpt.get("rules") is None and spec_rules is None:
        return None
    try:
        rules = Rules.from_dict(ckpt["rules"] if ckpt.get("rules") is not None else spec_rules)
    except (ValueError, TypeError) as e:
        raise ValueError(f"cannot load {where}: its 'rules' are not the options of RULES §7 "
                         f"(Rules.to_dict()): {_short_reason(e)}") from None
    if spec_rules is not None and ckpt.get("rules") is not None and spec_rules != ckpt["rules"]:
        raise ValueError(f"cannot load {where}: its 'rules' differ from the rules of its {SPEC_KEY!r} "
                         "(the file was edited or damaged)")
    return rules


def checkpoint_bummerl(ckpt: dict) -> bool | None:
    """Whether a checkpoint's network was trained on Bummerl episodes (the ``bummerl`` of its
    observation spec), or ``None`` when it does not say."""
    spec = ckpt.get(SPEC_KEY) if isinstance(ckpt, dict) else None
    bummerl = spec.get("bummerl") if isinstance(spec, dict) else None
    return bummerl if type(bummerl) is bool else None


def episode_mismatch_message(name: str, trained_bummerl: bool) -> str:
    """The variant warning for a policy playing the other episode kind than it was trained on."""
    trained, playing = ("Bummerl episodes", "single games") if trained_bummerl else ("single games", "Bummerl episodes")
    return (f"policy {name!r} was trained on {trained} (episode={'bummerl' if trained_bummerl else 'game'!r}) "
            f"and is playing {playing} (the observation's 'bummerl' entry differs); expect weak play")


def warn_episode_mismatch(name: str, trained_bummerl: bool, stacklevel: int = 2) -> None:
    """Warn (:class:`~agents.base.RulesMismatchWarning`) that a policy plays the other episode kind,
    unless this process has shown the same message already (as :class:`~agents.base.RulesCheck`)."""
    from .base import _SHOWN_RULES_WARNINGS, RulesMismatchWarning

    message = episode_mismatch_message(name, trained_bummerl)
    if message not in _SHOWN_RULES_WARNINGS:
        _SHOWN_RULES_WARNINGS.add(message)
        warnings.warn(message, RulesMismatchWarning, stacklevel=stacklevel + 1)


# -------------------------------------------------------------------------- agent
#: how a PPOAgent plays the endgame: by its network, exactly once the talon is exhausted, or as expert
ENDGAMES = ("network", "solver", "expert")


class PPOAgent(Agent):
    """A trained policy as an :class:`~agents.base.Agent`.

    ``path``: a checkpoint written by ``train.py`` (default: the shipped
    :data:`DEFAULT_CHECKPOINT`). Acts greedily (the most probable legal action) or,
    with ``sample=True``, draws from the masked policy with ``self.rng`` (seeded by
    ``seed``). ``endgame``: ``"network"`` (default: the network decides everywhere);
    ``"solver"``: once the talon is exhausted and nothing is hidden (RULES §3, §8) the exact
    solver's best action (:func:`agents.solver.perfect_information_action`, as ``expert`` plays
    it), the network elsewhere; ``"expert"``: all of ``expert``'s solved endgames
    (:meth:`agents.expert.ExpertAgent.endgame_action`: also after a closing and with at most
    ``ENDGAME_TALON`` face-down cards, over solved deals seeded by ``seed``). Spec: ``ppo``,
    ``ppo:RUN_DIR/checkpoint.pt``, ``ppo:PATH,sample=true,seed=3``, ``ppo:endgame=solver``.
    Raises :class:`CheckpointNotFoundError` (a ``FileNotFoundError`` and ``ValueError``) for a
    missing checkpoint, ``ValueError`` for an unfit one.

    ``trained_rules`` are the rules the checkpoint records (``None`` if it records none).
    The first time the agent acts in a game under other rules (``info.rules``) or is told
    them (:meth:`check_rules`), it warns (:class:`~agents.base.RulesMismatchWarning`, a
    ``UserWarning`` naming the options that differ; expect weak play); never again for this
    agent object, not when another object has shown the same message in this process, and
    never for ``trained_rules=None``.
    """

    name = "ppo"

    def __init__(self, path: str | None = None, seed: int | None = None, sample: bool = False,
                 endgame: str = "network"):
        super().__init__(seed)
        if type(sample) is not bool:
            raise ValueError(f"sample must be true or false, got {sample!r}")
        if not isinstance(endgame, str) or endgame not in ENDGAMES:
            raise ValueError(f"endgame must be one of {', '.join(ENDGAMES)}, got {endgame!r}")
        self.endgame = endgame
        self._endgame_player = None
        if endgame == "expert":
            from .expert import ExpertAgent

            self._endgame_player = ExpertAgent(seed)
        self.path = str(path) if path is not None else str(DEFAULT_CHECKPOINT)
        model, ckpt = load_model(self.path)
        self._setup(model, sample, checkpoint_rules(ckpt, self.path))
        # an agent encodes information sets, which hold no Bummerl score: it always plays single games
        self._episode_warn = checkpoint_bummerl(ckpt) is True

    @classmethod
    def from_model(cls, model: ActorCritic, seed: int | None = None, sample: bool = False,
                   rules: Rules | None = None) -> PPOAgent:
        """An agent acting with an in-memory network (used by training's evaluation);
        ``rules``: the rules it was trained on (``None``: unknown, never warns)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.path = None
        agent.endgame = "network"
        agent._endgame_player = None
        agent._setup(model, sample, rules)
        return agent

    def _setup(self, model: ActorCritic, sample: bool, rules: Rules | None) -> None:
        from schnapsen_env.observation import OBS_SIZE, encode

        self.model = model
        self.sample = sample
        self._episode_warn = False  # set by __init__ for a checkpoint trained on Bummerl episodes
        self._rules_check = RulesCheck(rules)
        self._encode = encode
        self._obs = np.zeros((1, OBS_SIZE), dtype=np.float32)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._endgame_player is not None:  # the solved deals of endgame=expert follow the game seed
            self._endgame_player.reset(seed)

    @property
    def trained_rules(self) -> Rules | None:
        """The rules the policy was trained on (from the checkpoint), or ``None`` if unknown."""
        return self._rules_check.trained

    def check_rules(self, rules: Rules) -> bool:
        """True when ``rules`` are the rules the policy was trained on (or these are unknown);
        else False and the variant warning (once per agent)."""
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
        return self._rules_check.check(rules, self.name)

    def policy(self, info: InformationSet) -> np.ndarray:
        """Probabilities float64 ``(NUM_ACTIONS,)`` of the masked policy (0 for illegal actions)."""
        legal = check_to_move(info)
        self._rules_check.check(info.rules, self.name, stacklevel=3)
        if self._episode_warn:
            self._episode_warn = False
            warn_episode_mismatch(self.name, True, stacklevel=3)
        self._encode(info, out=self._obs[0])
        mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
        mask[0, list(legal)] = True
        with torch.inference_mode():
            logits, _ = self.model(torch.from_numpy(self._obs))
            logp = masked_log_probs(logits, torch.from_numpy(mask))
        return logp.exp()[0].double().numpy()

    def act(self, info: InformationSet) -> int:
        if self.endgame == "solver":
            from .solver import perfect_information_action

            check_to_move(info)
            exact = perfect_information_action(info)
            if exact is not None:
                return exact
        elif self._endgame_player is not None:
            solved = self._endgame_player.endgame_action(info)
            if solved is not None:
                return solved
        return action_from_probs(self.policy(info), info.legal_actions, self.sample, self.rng)
