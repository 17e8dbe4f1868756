"""Use a trained policy on environment observations, and any agent as a PettingZoo policy.

Agents (:mod:`agents.base`) act on an engine ``InformationSet``. The environments hand out
observations instead: PettingZoo a dict ``{"observation": float32 (214,), "action_mask":
int8 (31,)}``, the Gymnasium view a float32 ``(214,)`` array with the mask in
``env.action_masks()`` (bool) or ``info["action_mask"]`` (int8). This module bridges the two.

A trained policy in three lines::

    from agents.policy import load_policy
    policy = load_policy("ppo")                     # or "ppo:runs/x/policy.pt", or a checkpoint path
    action = policy.act(obs["observation"], obs["action_mask"])   # or policy.act(obs) with the dict

:func:`load_policy` returns a :class:`Policy`:

* ``act(observation, action_mask=None) -> int``: one action. ``observation`` is the
  PettingZoo dict (then no ``action_mask``) or a ``(214,)`` array with its ``(31,)`` mask.
  Greedy (the most probable legal action, ties to the lowest id) unless ``sample=True``: then
  drawn from the masked policy with the policy's own generator (``numpy``, seeded by ``seed``).
* ``act_batch(observations (N, 214), action_masks (N, 31)) -> int64 (N,)``: the same, batched
  (row ``i`` is what ``act`` would return for it; samples draw one number per row in order).
* ``action_probabilities(observation, action_mask=None) -> float32 (31,)``: the masked
  policy (0 for every illegal action).
* ``policy(obs_dict, agent_name)``: callable like :func:`env_policy`'s callables (the PettingZoo
  loop below); ``policy(observation, action_mask)`` works too.
* ``rules``: the rules it was trained on (``Rules``; ``None`` when the checkpoint does not
  record them), ``device``: the ``torch.device`` it runs on, ``name``, ``sample``, ``seed``,
  ``reset(seed=None)`` (re-seeds the sampling generator).

Inputs are checked; a ``ValueError`` names what is wrong: not an array of numbers, a wrong shape
(``(214,)`` / ``(31,)``, batches ``(N, 214)`` / ``(N, 31)``), NaN or infinity, an observation
entry outside its range (0/1 entries that are not 0 or 1, numbers outside ``[0, high]`` of
``schnapsen_env.observation.OBSERVATION_TABLE``), a mask entry that is not 0 or 1, and an
all-zero mask (no legal action: only the player to move can act). The mask decides: the
policy never returns an action whose mask entry is 0.

**Variants.** One network plays every variant (the rule options are part of the observation),
but it plays well only in the variant it was trained on. The first time a policy acts on an
observation whose ``rule_*`` entries differ from its training rules (or is told other rules
with ``load_policy(..., rules=...)``, ``policy.check_rules(rules)`` or :func:`env_policy`), it
warns once with :class:`agents.base.RulesMismatchWarning` (a ``UserWarning``) naming the
options that differ, e.g. ``policy 'ppo' was trained on schnapsen rules and is playing with
sharp=True, declare='manual', show_eyes=False, marriage_leads_king=True (the schnapsen-sharp
preset); expect weak play``. Once per policy object, and a message already shown in this
process is not repeated (:class:`agents.base.RulesCheck`). A :class:`Policy` built with
``rules=None`` (unknown) never warns. ``bummerl_target`` is not in the observation: only
``rules=`` can tell it. The episode kind is checked the same way: a policy trained on Bummerl
episodes that acts on single-game observations (the ``bummerl`` entry 0), or the reverse,
warns once (``RulesMismatchWarning``, ``... was trained on Bummerl episodes (episode='bummerl')
and is playing single games ...``). Which rule option lives in which observation field is the encoder's
table, :data:`schnapsen_env.observation.RULE_FIELDS` (re-exported here).

**Observation spec.** A checkpoint records the spec of its training observations
(``observation_spec``, :attr:`schnapsen_env.observation.Observer.spec`); :func:`load_policy`
refuses one whose layout differs from this env's (``ValueError`` naming the difference, e.g.
``field 'unseen' at offset 52 in the checkpoint, 48 here``) or that predates specs.

Any agent as a PettingZoo policy: :func:`env_policy` ``(agent_or_spec, env)`` returns a callable
``policy(observation_dict, agent_name) -> action`` for a ``schnapsen_v0`` AEC env. Non-neural
agents need the information set, which the observation does not fully hold (which cards fell
together in a trick, hidden eyes); the callable reads it through the env's public engine API,
``env.unwrapped.game.information_set(env.unwrapped.agent_name_mapping[agent_name])``::

    from schnapsen_env import schnapsen_v0
    from agents.policy import env_policy, load_policy

    env = schnapsen_v0.env()
    policies = {"player_0": load_policy("ppo"), "player_1": env_policy("heuristic", env)}
    env.reset(seed=0)
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else policies[name](obs, name))
    print(env.unwrapped.last_outcome)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cards import brief_repr
from schnapsen_env.engine import validate_seed
from schnapsen_env.observation import (
    NUM_BINARY,
    OBS_HIGH,
    OBS_SIZE,
    OBS_SLICES,
    RULE_COLUMNS,
    RULE_FIELDS,
    observer_for,
    rules_from_observation,
)
from schnapsen_env.rules import Rules

from . import AGENT_NAMES, make_agent, parse_spec
from .base import RulesCheck
from .neural import (
    DEFAULT_CHECKPOINT,
    ActorCritic,
    checkpoint_bummerl,
    checkpoint_rules,
    load_model,
    masked_log_probs,
    warn_episode_mismatch,
)

#: the spec name of neural policies (``ppo``, ``ppo:PATH``, ``ppo:PATH,sample=true,seed=3``)
SPEC_NAME = "ppo"
#: keys a ``ppo:`` spec may set for :func:`load_policy`
SPEC_KEYS = ("path", "sample", "seed")
# RULE_FIELDS (observation field -> (rule option, value when the entry is 1, value when 0)) and
# rules_from_observation are the encoder's own (schnapsen_env.observation), re-exported here
_RULE_COLUMNS = np.array(RULE_COLUMNS, dtype=np.intp)
#: the observation entry that is 1 in Bummerl episodes
_BUMMERL_COLUMN = OBS_SLICES["bummerl"].start
#: tolerance for the numeric entries' upper bounds (float32 rounding of scaled counts)
_HIGH_TOLERANCE = 1e-5
_HIGH = OBS_HIGH.astype(np.float64) + _HIGH_TOLERANCE
#: "name[k]" (or "name" for one-entry fields) of every observation index, for messages
_ENTRY_NAMES = tuple(name if sl.stop - sl.start == 1 else f"{name}[{i - sl.start}]"
                     for name, sl in OBS_SLICES.items() for i in range(sl.start, sl.stop))
_NUMBER_KINDS = "biuf"  # bool, signed and unsigned ints, floats


def rule_entries(rules: Rules) -> np.ndarray:
    """The ``rule_*`` entries of an observation under ``rules`` (float32, in :data:`RULE_FIELDS` order;
    :meth:`schnapsen_env.observation.Observer.rule_entries`)."""
    return observer_for(rules).rule_entries()


def _as_rules(rules: Any, what: str = "rules") -> Rules:
    """A ``Rules`` from a ``Rules``, a preset name or an option dict; ``ValueError`` otherwise."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)
    raise ValueError(f"{what} must be a Rules object, a preset name or an option dict, got {brief_repr(rules)}")


# ------------------------------------------------------------------------ input checks
def _array(value: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception as e:  # noqa: BLE001 - ragged lists, tensors on another device, odd objects
        raise ValueError(f"{what} cannot be read as an array: {type(e).__name__}: {e}") from None
    if arr.dtype.kind not in _NUMBER_KINDS:
        raise ValueError(f"{what} must be an array of numbers, got dtype {arr.dtype} ({brief_repr(value)})")
    return arr


def _shape_text(batch: bool, size: int) -> str:
    return f"(N, {size})" if batch else f"({size},)"


def _observations(value: Any, batch: bool, what: str) -> np.ndarray:
    """float32 ``(N, OBS_SIZE)`` from one observation (``batch=False``) or a batch; checked."""
    arr = _array(value, what)
    ndim = 2 if batch else 1
    if arr.ndim != ndim or arr.shape[-1] != OBS_SIZE:
        raise ValueError(f"{what} must have shape {_shape_text(batch, OBS_SIZE)} (the env's observation), "
                         f"got shape {arr.shape}")
    arr = arr.reshape(-1, OBS_SIZE)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"{_where(what, batch, r)} entry {c} ({_ENTRY_NAMES[c]}) is {arr[r, c]}: "
                             "an observation has no NaN or infinity")
    a64 = arr.astype(np.float64, copy=False)
    binary = a64[:, :NUM_BINARY]
    bad = (binary != 0) & (binary != 1)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"{_where(what, batch, r)} entry {c} ({_ENTRY_NAMES[c]}) is {arr[r, c]}, but it must be "
                         f"0 or 1: not an observation of schnapsen_env (layout: schnapsen_env.observation)")
    bad = (a64 < 0) | (a64 > _HIGH)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"{_where(what, batch, r)} entry {c} ({_ENTRY_NAMES[c]}) is {arr[r, c]}, outside "
                         f"[0, {float(OBS_HIGH[c]):.4g}]: not an observation of schnapsen_env "
                         "(layout: schnapsen_env.observation)")
    return np.ascontiguousarray(arr, dtype=np.float32)


def _masks(value: Any, batch: bool, rows: int, what: str) -> np.ndarray:
    """bool ``(rows, NUM_ACTIONS)`` from one mask or a batch; checked (0/1 only, a legal action per row)."""
    arr = _array(value, what)
    ndim = 2 if batch else 1
    if arr.ndim != ndim or arr.shape[-1] != NUM_ACTIONS:
        raise ValueError(f"{what} must have shape {_shape_text(batch, NUM_ACTIONS)} (one entry per action, "
                         f"1 = legal), got shape {arr.shape}")
    arr = arr.reshape(-1, NUM_ACTIONS)
    if arr.shape[0] != rows:
        raise ValueError(f"{what} has {arr.shape[0]} rows but the observations have {rows}")
    if arr.dtype.kind != "b":
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"{_where(what, batch, r)} entry {c} is {arr[r, c]}, but a mask holds only 0 and 1")
    mask = arr.astype(bool)
    empty = ~mask.any(axis=1)
    if empty.any():
        r = int(np.flatnonzero(empty)[0])
        raise ValueError(f"{_where(what, batch, r)} is all zeros: no legal action (only the player to move "
                         "can act; in PettingZoo, step(None) for a finished agent)")
    return mask


def _where(what: str, batch: bool, row) -> str:
    return f"{what}[{int(row)}]" if batch else what


def _split(observation: Any, action_mask: Any, batch: bool) -> tuple[Any, Any, str, str]:
    """``(observation, mask, names...)`` from a PettingZoo dict or an observation and its mask."""
    o_name, m_name = ("observations", "action_masks") if batch else ("observation", "action_mask")
    if isinstance(observation, Mapping):
        if action_mask is not None:
            raise ValueError(f"give the {m_name} either inside the {o_name} dict or as {m_name}, not both")
        missing = [k for k in ("observation", "action_mask") if k not in observation]
        if missing:
            raise ValueError(f"an observation dict needs the keys 'observation' and 'action_mask' (PettingZoo's "
                             f"observation); missing {', '.join(map(repr, missing))}")
        return (observation["observation"], observation["action_mask"],
                f"{o_name}['observation']", f"{o_name}['action_mask']")
    if action_mask is None:
        raise ValueError(f"{m_name} is required with a bare {o_name} array (the policy plays only legal actions; "
                         "Gymnasium: env.action_masks() or info['action_mask'])")
    return observation, action_mask, o_name, m_name


# ------------------------------------------------------------------------------ Policy
class Policy:
    """A trained actor-critic network that acts on environment observations (module docstring).

    ``model``: an :class:`~agents.neural.ActorCritic`; ``rules``: the rules it was trained on
    (``Rules``, preset name or option dict; ``None``: unknown, never warns); ``name``: shown in
    the variant warning; ``device``: a torch device or its name; ``sample``: draw from the
    policy instead of acting greedily, with a ``numpy`` generator seeded by ``seed``;
    ``play_rules``: the rules it will play under, checked at once (:meth:`check_rules`);
    ``bummerl``: whether it was trained on Bummerl episodes (``None``: unknown, never warns; an
    observation of the other episode kind gives the variant warning once). Usually built by
    :func:`load_policy`.
    """

    def __init__(self, model: ActorCritic, rules: Rules | str | Mapping | None = None, *, name: str = "policy",
                 device: str | torch.device = "cpu", sample: bool = False, seed: int | None = None,
                 play_rules: Rules | str | Mapping | None = None, bummerl: bool | None = None):
        if not isinstance(model, ActorCritic):
            raise ValueError(f"model must be an agents.neural.ActorCritic, got {type(model).__name__}")
        if model.obs_size != OBS_SIZE or model.num_actions != NUM_ACTIONS:
            raise ValueError(f"model maps {model.obs_size} inputs to {model.num_actions} actions; the env has "
                             f"{OBS_SIZE} and {NUM_ACTIONS}")
        if type(sample) is not bool:
            raise ValueError(f"sample must be True or False, got {brief_repr(sample)}")
        if not isinstance(name, str):
            raise ValueError(f"name must be a string, got {brief_repr(name)}")
        if bummerl is not None and type(bummerl) is not bool:
            raise ValueError(f"bummerl must be True, False or None, got {brief_repr(bummerl)}")
        self.name = name
        self.bummerl = bummerl
        self._episode_checked = bummerl is None  # True once the episode kind was found to differ (or is unknown)
        self.sample = sample
        self.seed = validate_seed(seed)
        self.device = _device(device)
        try:
            self.model = model.to(self.device).eval()
        except Exception as e:  # noqa: BLE001 - torch raises RuntimeError/AssertionError for a missing backend
            raise ValueError(f"device {str(self.device)!r} cannot be used: {type(e).__name__}: {e}") from None
        rules = None if rules is None else _as_rules(rules, "trained rules")
        self._check = RulesCheck(rules)
        self._expected = rule_entries(rules) if rules is not None else None
        self._play_rules: Rules | None = None
        self._rng = np.random.default_rng(self.seed)
        if play_rules is not None:
            self.check_rules(play_rules, stacklevel=2)

    @property
    def rules(self) -> Rules | None:
        """The rules the policy was trained on, or ``None`` when its checkpoint does not record them."""
        return self._check.trained

    @property
    def rules_warned(self) -> bool:
        """Whether this policy has met rules other than its training rules (and warned, unless
        the same message was shown already in this process)."""
        return self._check.warned

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling generator (``seed=None``: the seed given at construction)."""
        seed = validate_seed(seed)
        self._rng = np.random.default_rng(self.seed if seed is None else seed)

    def check_rules(self, rules: Rules | str | Mapping, stacklevel: int = 1) -> bool:
        """Tell the policy the rules it plays under (a ``Rules``, a preset name or an option dict):
        True when they are its training rules (or these are unknown), else False and the
        variant warning the first time (once per policy). Observations are checked as well."""
        rules = _as_rules(rules)
        self._play_rules = rules
        return self._check.check(rules, self.name, stacklevel=stacklevel + 1)

    def check_episode(self, bummerl: bool, stacklevel: int = 1) -> bool:
        """Tell the policy whether it plays Bummerl episodes: True when that is what it was trained
        on (or this is unknown), else False and the variant warning the first time."""
        if type(bummerl) is not bool:
            raise ValueError(f"bummerl must be True or False, got {brief_repr(bummerl)}")
        if self.bummerl is None or bummerl == self.bummerl:
            return True
        if not self._episode_checked:
            self._episode_checked = True
            warn_episode_mismatch(self.name, self.bummerl, stacklevel=stacklevel + 1)
        return False

    # ------------------------------------------------------------------ acting
    def act(self, observation: Any, action_mask: Any = None) -> int:
        """One legal action (module docstring). ``ValueError`` for a bad observation or mask."""
        obs, mask = self._inputs(observation, action_mask, batch=False)
        return int(self._choose(obs, mask)[0])

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """int64 ``(N,)``: a legal action per row of ``observations (N, 214)`` and ``action_masks (N, 31)``
        (or a dict of both, batched). ``ValueError`` names the first bad row."""
        obs, mask = self._inputs(observations, action_masks, batch=True)
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        return self._choose(obs, mask)

    def action_probabilities(self, observation: Any, action_mask: Any = None) -> np.ndarray:
        """float32 ``(31,)``: the masked policy's probabilities (exactly 0 for illegal actions)."""
        obs, mask = self._inputs(observation, action_mask, batch=False)
        return self._probs(obs, mask)[0]

    def __call__(self, observation: Any, agent_or_mask: Any = None) -> int:
        """``policy(obs_dict, agent_name)`` (the PettingZoo loop; the name is not needed) or
        ``policy(observation, action_mask)``."""
        if isinstance(observation, Mapping) and (agent_or_mask is None or isinstance(agent_or_mask, str)):
            agent_or_mask = None
        obs, mask = self._inputs(observation, agent_or_mask, batch=False)
        return int(self._choose(obs, mask)[0])

    def __repr__(self) -> str:
        return (f"Policy(name={self.name!r}, rules={self.rules!r}, device={str(self.device)!r}, "
                f"sample={self.sample}, seed={self.seed!r})")

    # ------------------------------------------------------------------ internals
    def _inputs(self, observation: Any, action_mask: Any, batch: bool) -> tuple[np.ndarray, np.ndarray]:
        o, m, o_name, m_name = _split(observation, action_mask, batch)
        obs = _observations(o, batch, o_name)
        mask = _masks(m, batch, obs.shape[0], m_name)
        if self._expected is not None and not self._check.warned and obs.shape[0]:
            differ = (obs[:, _RULE_COLUMNS] != self._expected).any(axis=1)
            if differ.any():
                row = obs[int(np.flatnonzero(differ)[0])]
                self._check.check(rules_from_observation(row, self._play_rules or self.rules), self.name,
                                  stacklevel=3)
        if not self._episode_checked and obs.shape[0] and (obs[:, _BUMMERL_COLUMN] != self.bummerl).any():
            self._episode_checked = True
            warn_episode_mismatch(self.name, self.bummerl, stacklevel=3)
        return obs, mask

    def _probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            logits, _ = self.model(torch.from_numpy(obs).to(self.device))
            logp = masked_log_probs(logits, torch.from_numpy(mask).to(self.device))
            return logp.exp().cpu().numpy()

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        probs = self._probs(obs, mask)
        if not self.sample:
            actions = probs.argmax(axis=1)  # ties: the lowest id (as PPOAgent)
        else:
            cdf = np.cumsum(probs.astype(np.float64), axis=1)
            target = (1.0 - self._rng.random(len(probs))) * cdf[:, -1]  # in (0, total]: never a 0-probability action
            actions = (cdf < target[:, None]).sum(axis=1)
        actions = actions.astype(np.int64)
        rows = np.arange(len(actions))
        bad = ~mask[rows, actions]
        if bad.any():  # cannot happen (illegal actions have probability 0); keep the promise anyway
            actions[bad] = np.where(mask[bad], probs[bad], -1.0).argmax(axis=1)
        return actions


def _device(device: Any) -> torch.device:
    """``device`` checked as the batched engine checks it (:func:`schnapsen_env.vector.engine.as_device`: a
    name torch knows, a device this machine has, not ``meta``); ``ValueError`` naming it otherwise."""
    from schnapsen_env.vector.engine import as_device

    if device is None:
        raise ValueError("device must be a torch.device or its name ('cpu', 'cuda', 'cuda:0', ...), got None")
    return as_device(device)


def _resolve(spec_or_path: Any, sample: Any, seed: Any) -> tuple[str, str, Any, Any]:
    """``(checkpoint path, name, sample, seed)`` from a ``ppo`` spec or a checkpoint path."""
    if isinstance(spec_or_path, os.PathLike):
        path = os.fspath(spec_or_path)
        return path, str(path), sample, seed
    if not isinstance(spec_or_path, str):
        raise ValueError(f"load_policy takes a spec ('ppo', 'ppo:PATH') or a checkpoint path, "
                         f"got {brief_repr(spec_or_path)}")
    if spec_or_path == SPEC_NAME or spec_or_path.startswith(SPEC_NAME + ":"):
        _, kwargs = parse_spec(spec_or_path)
        for key in kwargs:
            if key not in SPEC_KEYS:
                raise ValueError(f"unknown key {key!r} in policy spec {spec_or_path!r}: allowed keys are "
                                 f"{', '.join(SPEC_KEYS)}")
        path = kwargs.get("path", str(DEFAULT_CHECKPOINT))
        return path, spec_or_path, kwargs.get("sample", sample), kwargs.get("seed", seed)
    head = spec_or_path.partition(":")[0]
    if head in AGENT_NAMES and not os.path.lexists(spec_or_path):
        raise ValueError(f"{spec_or_path!r} is an agent spec, not a trained policy: load_policy loads 'ppo' "
                         f"policies and checkpoint files; use env_policy({spec_or_path!r}, env) or "
                         "agents.make_agent for other agents")
    return spec_or_path, spec_or_path, sample, seed


def load_policy(spec_or_path: str | os.PathLike = SPEC_NAME, device: str | torch.device = "cpu",
                sample: bool = False, seed: int | None = None,
                rules: Rules | str | Mapping | None = None) -> Policy:
    """A :class:`Policy` from a spec or a checkpoint file.

    ``spec_or_path``: ``"ppo"`` (the shipped checkpoint), ``"ppo:PATH"`` or
    ``"ppo:PATH,sample=true,seed=3"`` (items in the spec win over the arguments), or the path of
    a ``policy.pt`` / ``checkpoint.pt`` written by ``train.py`` (a ``str`` or ``os.PathLike``;
    write ``./ppo`` for a file named ``ppo``). ``device``: where the network runs (``"cpu"``,
    ``"cuda"``, a ``torch.device``). ``sample``/``seed``: see :class:`Policy`. ``rules``: the
    rules you will play under (``Rules``, preset name or option dict), checked at once against
    the checkpoint's (the variant warning); observations are checked either way.

    Raises ``ValueError`` for a bad spec, a missing or unfit checkpoint (also
    ``CheckpointNotFoundError``, a ``FileNotFoundError``; a checkpoint whose observation spec
    differs from this env's or that has none), a bad device, sample or seed.
    """
    path, name, sample, seed = _resolve(spec_or_path, sample, seed)
    model, ckpt = load_model(path)
    trained = checkpoint_rules(ckpt, path)
    return Policy(model, trained, name=name, device=device, sample=sample, seed=seed, play_rules=rules,
                  bummerl=checkpoint_bummerl(ckpt))


# -------------------------------------------------------------------------- env_policy
class AgentEnvPolicy:
    """``policy(observation_dict, agent_name) -> action`` for an :class:`~agents.base.Agent` in a
    ``schnapsen_v0`` AEC env: the agent acts on
    ``env.unwrapped.game.information_set(env.unwrapped.agent_name_mapping[agent_name])``; the
    observation is accepted for the PettingZoo loop's signature and not read."""

    def __init__(self, agent: Any, env: Any):
        self.agent = agent
        self.env = env
        self._raw = _raw_env(env)

    def __call__(self, observation: Any = None, agent_name: Any = None) -> int:
        raw = self._raw
        mapping = raw.agent_name_mapping
        if agent_name is None:
            agent_name = raw.agent_selection
        if not isinstance(agent_name, str) or agent_name not in mapping:
            raise ValueError(f"agent_name must be one of {', '.join(map(repr, mapping))}, got {brief_repr(agent_name)}")
        info = raw.game.information_set(mapping[agent_name])
        return int(self.agent.act(info))

    def __repr__(self) -> str:
        return f"AgentEnvPolicy(agent={self.agent!r})"


def _raw_env(env: Any) -> Any:
    raw = getattr(env, "unwrapped", env)
    if not isinstance(getattr(raw, "agent_name_mapping", None), Mapping) or not hasattr(type(raw), "game"):
        raise ValueError(f"env must be a schnapsen_v0 PettingZoo env (schnapsen_v0.env() or raw_env; it needs "
                         f"unwrapped.agent_name_mapping and unwrapped.game), got {type(env).__name__}")
    return raw


def env_policy(agent_or_spec: Any, env: Any, seed: int | None = None) -> Policy | AgentEnvPolicy:
    """A callable ``policy(observation_dict, agent_name) -> action`` for a ``schnapsen_v0`` AEC env.

    ``agent_or_spec``: an agent spec (``"heuristic"``, ``"pimc:samples=40"``, ``"random"``, ...;
    :func:`agents.make_agent`, seeded by ``seed`` unless the spec has ``seed=``), an
    :class:`~agents.base.Agent` (or any object with ``act(info)``), or a :class:`Policy`.
    Agents act on the information set read from the env (:class:`AgentEnvPolicy`). Neural
    policies act on the observation alone: a ``ppo`` spec is loaded with :func:`load_policy`
    and returned (a :class:`Policy` is callable the same way), after checking the env's rules
    against its training rules and episode kind (the variant warning). One callable serves both seats.
    Raises ``ValueError`` for a bad spec or an env that is not a ``schnapsen_v0`` env.
    """
    raw = _raw_env(env)
    if isinstance(agent_or_spec, str) and (agent_or_spec == SPEC_NAME or agent_or_spec.startswith(SPEC_NAME + ":")):
        agent_or_spec = load_policy(agent_or_spec, seed=seed)
    if isinstance(agent_or_spec, Policy):
        rules = getattr(raw, "rules", None)
        if isinstance(rules, Rules):
            agent_or_spec.check_rules(rules, stacklevel=2)
        bummerl = getattr(getattr(raw, "observer", None), "bummerl", None)
        if type(bummerl) is bool:
            agent_or_spec.check_episode(bummerl, stacklevel=2)
        return agent_or_spec
    if isinstance(agent_or_spec, str):
        return AgentEnvPolicy(make_agent(agent_or_spec, seed=seed), env)
    if callable(getattr(agent_or_spec, "act", None)):
        return AgentEnvPolicy(agent_or_spec, env)
    raise ValueError(f"env_policy takes an agent spec, an Agent or a Policy, got {brief_repr(agent_or_spec)}")


__all__ = ["AgentEnvPolicy", "Policy", "RULE_FIELDS", "env_policy", "load_policy", "rule_entries",
           "rules_from_observation"]
