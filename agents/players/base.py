"""The one agent interface used everywhere (arena, Gymnasium opponent, play CLI, training).

An agent sees only the information set of its seat (RULES §8) and its own seeded generator:
``action = agent.act(state.information_set(player))``. :class:`RulesCheck` warns once
(:class:`RulesMismatchWarning`) when a trained policy plays under other rules."""

from __future__ import annotations

import abc
import random
import warnings
from typing import Any

from pydantic import ConfigDict, validate_call

from schnapsen_env.engine import IllegalActionError, InformationSet, validate_seed
from schnapsen_env.engine import action_id as engine_action_id
from schnapsen_env.rules import PRESETS, Rules

#: decorator of agent constructors: pydantic checks the arguments against their annotations
#: (strictly: a text or a float is no int); a bad one raises ``pydantic.ValidationError``, a
#: ``ValueError``
checked_arguments = validate_call(config=ConfigDict(strict=True))


class Agent(abc.ABC):
    """A player: ``act(info) -> action id`` from ``info.legal_actions``.

    ``seed`` seeds ``self.rng`` (a :class:`random.Random`), the source of every random choice, so
    equal seeds make equal choices. ``name`` is the agent's spec string."""

    #: spec string of this agent (subclasses set a default; ``make_agent`` sets the full spec)
    name: str = "agent"

    def __init__(self, seed: int | None = None):
        self.seed = validate_seed(seed)  # None or an int >= 0; ValueError otherwise
        self.rng = random.Random(self.seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator (``seed=None`` re-uses the seed given at construction) and forget
        any per-game memory. Called by the arena before each game. Raises ``ValueError`` for a seed
        that is not None or an int >= 0."""
        seed = validate_seed(seed)
        self.rng = random.Random(self.seed if seed is None else seed)

    @abc.abstractmethod
    def act(self, info: InformationSet) -> int:
        """The action id (0..30, :mod:`schnapsen_env.actions`) to play now, one of
        ``info.legal_actions`` (``info``: the mover's information set). ``ValueError`` if the agent
        is not to move."""

    def cannot_play(self, rules) -> str | None:
        """Why this agent cannot play under ``rules`` (a :class:`~schnapsen_env.rules.Rules`), or
        None when it can (the default). ``act`` raises ``ValueError`` with this reason; callers such
        as the web app ask before a game starts."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


#: what an agent's move may be, as the refusal of :func:`action_id` says it
ACTION_TYPES = "an int, a numpy integer, or a 0-d integer numpy array or torch tensor"


class NotAnAction(ValueError):
    """What an agent (or a policy function) returned is no action id (:func:`action_id`);
    ``value`` is it."""

    def __init__(self, value: Any):
        super().__init__(self.text(value))
        self.value = value

    @staticmethod
    def text(value: Any, where: str = "") -> str:
        """``"VALUE of type TYPE{where}, not an action id (...)"``: the refusal, ``where`` (e.g. ``" in game
        3 at move 5"``) after the type."""
        return f"{value!r} of type {_type_name(value)}{where}, not an action id ({ACTION_TYPES})"


def _type_name(value: Any) -> str:
    """``value``'s type in words: its class, and for an array or tensor its dtype and shape."""
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dtype is None or shape is None:
        return type(value).__name__
    return f"{type(value).__name__} (dtype {dtype}, shape {tuple(shape)})"


def action_id(value: Any) -> int:
    """The action id an agent's move ``value`` stands for (:func:`schnapsen_env.engine.action_id`, the one
    reading of an action: a Python ``int``, a numpy integer, a 0-d integer numpy array or torch tensor), as an
    ``int``; :class:`NotAnAction` (a ``ValueError``) for anything else. ``Agent.act`` results in the arena and
    policy functions (:class:`PolicyAgent`) are both read by it. Whether the id is legal is the caller's check."""
    try:
        return engine_action_id(value)
    except IllegalActionError:
        raise NotAnAction(value) from None


def action_from_probs(probs, legal, sample: bool, rng) -> int:
    """The action a policy plays from its probabilities ``probs`` (indexable by action id) over the
    ``legal`` action ids (ascending): the most probable (ties: the lowest id), or with ``sample``
    one drawn in proportion to ``probs`` with ``rng`` (a ``random.Random``). PPO and RLlib policies
    share it."""
    if not sample:
        return max(legal, key=lambda a: (probs[a], -a))
    u = rng.random() * sum(probs[a] for a in legal)
    acc = 0.0
    for a in legal:
        acc += probs[a]
        if u < acc:
            return a
    return legal[-1]


def check_current_player(info: InformationSet) -> tuple:
    """``info.legal_actions``; raises ``TypeError`` for anything but an :class:`InformationSet` (a
    ``GameState`` holds hidden cards: an agent sees ``state.information_set(player)``),
    ``ValueError`` when the viewer is not to move. Every agent's ``act`` starts here."""
    if not isinstance(info, InformationSet):
        raise TypeError(f"info must be an InformationSet (state.information_set(player)), got {type(info).__name__}")
    legal = info.legal_actions
    if not legal:
        raise ValueError(
            f"player {info.player} is not to move (current player {info.current_player}, "
            f"terminal={info.is_terminal}): an agent acts only on its own turn"
        )
    return legal


def rules_differences(trained: Rules, playing: Rules) -> dict[str, Any]:
    """``{option: value under playing}`` for every RULES §7 option where ``playing`` differs
    from ``trained``, in the order of :class:`~schnapsen_env.rules.Rules`' fields."""
    a, b = trained.to_dict(), playing.to_dict()
    return {k: b[k] for k in b if a[k] != b[k]}


def _options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in options.items())


def describe_rules(rules: Rules) -> str:
    """``rules`` in words: ``"schnapsen rules"`` when they are a RULES §7 preset, else the
    closest preset and the options that differ (``"schnapsen rules with deck=24"``)."""
    best = min(PRESETS, key=lambda name: len(rules_differences(Rules.preset(name), rules)))
    diffs = rules_differences(Rules.preset(best), rules)
    return f"{best} rules" + (f" with {_options_text(diffs)}" if diffs else "")


class RulesMismatchWarning(UserWarning):
    """A trained policy plays under rules other than those it was trained on (expect weak
    play). Silence it with ``warnings.filterwarnings("ignore", category=RulesMismatchWarning)``."""


#: variant warnings already shown in this process (see :class:`RulesCheck`)
_SHOWN_RULES_WARNINGS: set[str] = set()


def warn_once(message: str, stacklevel: int = 1) -> None:
    """Warn with :class:`RulesMismatchWarning` unless this process has shown ``message``
    (:meth:`RulesCheck.forget_shown`); ``stacklevel`` as for ``warnings.warn``, from the caller."""
    if message not in _SHOWN_RULES_WARNINGS:
        _SHOWN_RULES_WARNINGS.add(message)
        warnings.warn(message, RulesMismatchWarning, stacklevel=stacklevel + 1)


class RulesCheck:
    """Warns once (:class:`RulesMismatchWarning`) when a policy trained on ``trained`` rules plays
    under other rules; ``trained=None`` never warns. A message already shown in this process is not
    repeated by another object (the arena builds fresh agents per chunk; :meth:`forget_shown` clears
    this)."""

    def __init__(self, trained: Rules | None):
        self.trained, self.warned = trained, False
        self._same: Rules | None = trained
        self._other: Rules | None = None

    def check(self, rules: Rules, name: str, stacklevel: int = 2) -> bool:
        """True when ``rules`` are the trained rules (or these are unknown); else False, and the
        warning the first time. ``stacklevel`` as for ``warnings.warn``, counted from the caller of
        ``check``."""
        if rules is self._same or self.trained is None:
            return True
        if rules is self._other:
            return False
        if rules == self.trained:
            self._same = rules
            return True
        self._other = rules
        if not self.warned:
            self.warned = True
            warn_once(rules_mismatch_message(name, self.trained, rules), stacklevel + 1)
        return False

    @staticmethod
    def forget_shown() -> None:
        """Forget which variant warnings this process has shown (each object still warns at most
        once)."""
        _SHOWN_RULES_WARNINGS.clear()


def rules_mismatch_message(name: str, trained: Rules, playing: Rules) -> str:
    """The warning of :class:`RulesCheck`, e.g. ``policy 'ppo' was trained on schnapsen rules
    and is playing with sharp=True, declare='manual', show_eyes=False, marriage_leads_king=True
    (the schnapsen-sharp preset); expect weak play``."""
    preset = next((name for name in PRESETS if Rules.preset(name) == playing), None)
    note = f" (the {preset} preset)" if preset else ""
    return (
        f"policy {name!r} was trained on {describe_rules(trained)} and is playing with "
        f"{_options_text(rules_differences(trained, playing))}{note}; expect weak play"
    )


class PolicyAgent(Agent):
    """An :class:`Agent` that plays ``policy(observation, action_mask) -> action``, a function on
    the env's observation (float32 ``(OBS_SIZE,)``, :func:`schnapsen_env.observation.encode`) and
    action mask (int8 ``(NUM_ACTIONS,)``, 1 = legal): how an RL user's trained model plays in the
    arena and on the ladder. ``ValueError`` for a ``policy`` that cannot take these two arguments;
    :class:`NotAnAction` for a returned value that :func:`action_id` refuses."""

    name = "policy"

    def __init__(self, policy, seed: int | None = None):
        import inspect

        try:
            inspect.signature(policy).bind(None, None)
        except TypeError:
            raise ValueError(
                f"policy {getattr(policy, '__name__', policy)!r} takes {inspect.signature(policy)}: "
                "it must take (observation, action_mask)"
            ) from None
        except ValueError:  # a builtin without a signature: trust it
            pass
        super().__init__(seed)
        self.policy = policy

    def act(self, info: InformationSet) -> int:
        import numpy as np

        from schnapsen_env.actions import NUM_ACTIONS
        from schnapsen_env.observation import encode

        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(check_current_player(info))] = 1
        # NotAnAction as from Agent.act in the arena
        return action_id(self.policy(encode(info), mask))
