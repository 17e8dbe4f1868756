"""Exact perfect-information ("double-dummy") solver for Schnapsen and Sechsundsechzig.

:func:`solve` gives the value of a fully known :class:`~schnapsen_env.engine.GameState` in game
points (-3..+3, RULES §5) for ``state.current_player`` and the actions that reach it. Three
implementations with the same answers: :func:`solve_reference` (plain minimax, the ground truth for
tests), :func:`solve_python` (alpha-beta with a transposition table, the fallback) and the compiled
core ``agents.players._solver_core`` (C, built by ``pip install -e .``; it reads the engine's constants from
:func:`core_constants`), used when built.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from types import ModuleType

from schnapsen_env import actions as _actions
from schnapsen_env import cards as _cards
from schnapsen_env import engine as _engine
from schnapsen_env import rules as _rules
from schnapsen_env import rulebook as _rulebook
from schnapsen_env.actions import CLOSE
from schnapsen_env.engine import GameState

#: the largest number of game points one game can be worth (RULES §5)
MAX_GAME_POINTS = 3
#: default ``closers``: both players may close the talon (where the rules allow it, RULES §4)
BOTH_PLAYERS = (0, 1)


def core_constants() -> dict:
    """The game constants the compiled core takes from schnapsen_env, by name; the layout numbers
    must equal the core's compile-time ones, else ``configure`` raises ``RuntimeError``."""
    names = {
        _cards: "CARD_EYES NUM_CARDS NUM_SUITS RANKS_PER_SUIT KING QUEEN",
        _actions: "MARRIAGE_BASE EXCHANGE CLOSE DECLARE NUM_ACTIONS",
        _engine: "NO_CARD NOBODY",
        _rules: "EYES_TO_WIN MARRIAGE_EYES TRUMP_MARRIAGE_EYES SCHNEIDER_EYES",
        # game points (RULES §5): compile-time in the core (its value window), checked equal
        _rulebook: "NO_TRICK_GAME_POINTS SCHNEIDER_GAME_POINTS PLAIN_GAME_POINTS LAST_TRICK_GAME_POINTS "
        "CLOSING_FAILED_POINTS CLOSING_FAILED_NO_TRICK_POINTS FIXED_FALSE_DECLARATION_POINTS",
    }
    return {name: getattr(module, name) for module, text in names.items() for name in text.split()}


try:  # the compiled core; optional (pure-Python fallback below)
    from agents.players import _solver_core as _ext
except ImportError:  # pragma: no cover - exercised by tests through monkeypatching
    _ext = None
if _ext is not None:
    # the core takes the game constants from schnapsen_env; a core compiled for other layout
    # numbers raises RuntimeError here (rebuild it: pip install -e .)
    _ext.configure(core_constants())
_core = _ext

_warned = False


def core_available() -> bool:
    """Whether the compiled core ``agents.players._solver_core`` is built and importable."""
    return _core is not None


def compiled_core() -> ModuleType | None:
    """The compiled core ``agents.players._solver_core`` (its ``search_tree``, ``sample_worlds``, ...), or None
    where it is not built: what the search and PIMC call directly."""
    return _core


def _warn_fallback() -> None:
    global _warned
    if not _warned:
        _warned = True
        msg = "agents.players._solver_core (the compiled solver) is not built; "
        msg += "using the pure-Python solver, "
        msg += "which is much slower. Build it with `pip install -e .` (needs a C compiler)."
        warnings.warn(msg, RuntimeWarning, stacklevel=3)


@dataclass(frozen=True)
class SolveResult:
    """Result of :func:`solve`: ``value`` game points (-3..+3, never 0) the player to move wins (>
    0) or loses with best play; ``best_actions`` the ascending action ids achieving it."""

    value: int
    best_actions: tuple


# --------------------------------------------------------------------- checks
def _check_state(state: GameState) -> None:
    """The pure-Python searches' boundary: :class:`~schnapsen_env.engine.InvalidStateError` (a ``ValueError``)
    for an impossible state (:meth:`GameState.validate`, the rule set the compiled core applies too),
    ``ValueError`` for a finished game."""
    state.validate()
    if state.is_terminal:
        raise ValueError("the state is terminal (the game is over): there is nothing to solve")


def _terminal_value(state: GameState, player: int) -> int:
    out = state.outcome
    return out.game_points if out.winner == player else -out.game_points


# ------------------------------------------------------------ reference minimax
def action_values_reference(state: GameState) -> dict:
    """``{action: game points for the player to move}`` by plain minimax (exponential: small
    endgames, tests). ``ValueError`` for a terminal state."""
    _check_state(state)
    return {a: _ref_child(state, a) for a in state.legal_actions()}


def _ref_child(state: GameState, action: int) -> int:
    p = state.current_player
    child = state.clone()
    child.apply(action)
    if child.is_terminal:
        return _terminal_value(child, p)
    v = max(_ref_child(child, a) for a in child.legal_actions())
    return v if child.current_player == p else -v


def solve_reference(state: GameState) -> SolveResult:
    """:func:`solve` by plain minimax over engine states (the readable reference)."""
    vals = action_values_reference(state)
    v = max(vals.values())
    return SolveResult(v, tuple(a for a in sorted(vals) if vals[a] == v))


# ------------------------------------------------------------ pure-Python alpha-beta
def _state_key(s: GameState) -> tuple:
    """Everything that decides the rest of the game (the talon is fixed within one search)."""
    return (
        s.hands[0],
        s.hands[1],
        s.talon_pos,
        s.trump_card,
        s.leader,
        s.current_player,
        s.lead_card,
        s.pending_marriage,
        s.eyes[0],
        s.eyes[1],
        s.held_marriage_eyes[0],
        s.held_marriage_eyes[1],
        s.tricks_won[0] > 0,
        s.tricks_won[1] > 0,
        s.closed_by,
        s.closed_opponent_eyes,
        s.closed_opponent_had_trick,
    )


def closer_bits(closers) -> int:
    """``closers`` (players 0/1 allowed to close the talon) as bits: bit p set = player p may
    close."""
    return sum(1 << p for p in set(closers))


def _search_actions(state: GameState, bits: int) -> list:
    """Legal actions, without CLOSE for a player not allowed to close in this search."""
    acts = state.legal_actions()
    if bits != 3 and not bits >> state.current_player & 1 and CLOSE in acts:
        acts.remove(CLOSE)
    return acts


class _PySearch:
    """Fail-soft negamax alpha-beta with a transposition table over engine states."""

    def __init__(self, bits: int = 3):
        self.table: dict = {}  # key -> (lower bound, upper bound)
        self.bits = bits  # bit p: player p may close

    def child(self, state: GameState, action: int, alpha: int, beta: int) -> int:
        p = state.current_player
        c = state.clone()
        c.apply(action)
        if c.outcome is not None:
            return _terminal_value(c, p)
        if c.current_player == p:
            return self.search(c, alpha, beta)
        return -self.search(c, -beta, -alpha)

    def search(self, state: GameState, alpha: int, beta: int) -> int:
        key = _state_key(state)
        lo, hi = self.table.get(key, (-MAX_GAME_POINTS, MAX_GAME_POINTS))
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        alpha, beta = max(alpha, lo), min(beta, hi)
        a0 = alpha
        best = -MAX_GAME_POINTS - 1
        for a in _search_actions(state, self.bits):
            v = self.child(state, a, alpha, beta)
            if v > best:
                best = v
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
        if best <= a0:
            hi = min(hi, best)
        elif best >= beta:
            lo = max(lo, best)
        else:
            lo = hi = best
        self.table[key] = (lo, hi)
        return best


def action_values_python(state: GameState, closers=BOTH_PLAYERS) -> dict:
    """:func:`action_values` by the pure-Python alpha-beta (no compiled core)."""
    _check_state(state)
    bits = closer_bits(closers)
    srch = _PySearch(bits)
    return {a: srch.child(state, a, -MAX_GAME_POINTS, MAX_GAME_POINTS) for a in _search_actions(state, bits)}


def solve_python(state: GameState, closers=BOTH_PLAYERS) -> SolveResult:
    """:func:`solve` by the pure-Python alpha-beta (no compiled core)."""
    _check_state(state)
    bits = closer_bits(closers)
    srch = _PySearch(bits)
    v = srch.search(state, -MAX_GAME_POINTS, MAX_GAME_POINTS)
    return SolveResult(
        v,
        tuple(a for a in _search_actions(state, bits) if srch.child(state, a, v - 1, v) >= v),
    )


# ------------------------------------------------------------ compiled core
def solve_core(state: GameState, closers=BOTH_PLAYERS) -> SolveResult:
    """:func:`solve` by the compiled core (built: :func:`core_available`), which validates ``state`` as
    :func:`_check_state` does."""
    v, best = _core.solve(state.rules, state, closer_bits(closers))
    return SolveResult(v, tuple(best))


def action_values_core(state: GameState, closers=BOTH_PLAYERS, win_only: bool = False) -> dict:
    """:func:`action_values` by the compiled core (built: :func:`core_available`), which validates ``state`` as
    :func:`_check_state` does."""
    return dict(sorted(_core.action_values(state.rules, state, closer_bits(closers), win_only)))


# ------------------------------------------------------------ public API
def solve(state: GameState, closers=BOTH_PLAYERS) -> SolveResult:
    """The exact :class:`SolveResult` of a fully known, non-terminal position (RULES §3–§5, §7).

    ``closers``: the players who may close in the search (``(me,)``: an opponent who never closes).
    ``state`` is not modified. ``ValueError`` for a terminal state. The compiled core when built,
    else the pure-Python alpha-beta (warns once)."""
    if _core is not None:
        return solve_core(state, closers)
    _warn_fallback()
    return solve_python(state, closers)


def action_values(state: GameState, closers=BOTH_PLAYERS, win_only: bool = False) -> dict:
    """``{action id: game points}`` (-3..+3, never 0) of each legal action for
    ``state.current_player``, with best play afterwards; ``closers`` and errors as in :func:`solve`.
    Used by PIMC. ``win_only``: only whether each action wins, +1 or -1 (the compiled core then runs
    one null-window test per action instead of up to three)."""
    if _core is not None:
        return action_values_core(state, closers, win_only)
    _warn_fallback()
    values = action_values_python(state, closers)
    return {a: 1 if v > 0 else -1 for a, v in values.items()} if win_only else values


class DealTable:
    """:func:`action_values` of several states of ONE deal with one transposition table, not a fresh
    one per call: all decision states of a game cost little more than its first (about 1.4 times;
    the core sizes the table part once per deal, to stay in the CPU's cache).

    The table's key leaves out what is fixed within a deal (talon order, trump suit, rules,
    closers), so a state of another deal, or any other solver call in between (another agent's
    search), starts a new table: the values are always exact, only the saving is lost. Without the
    compiled core, the pure-Python search (one table per call)."""

    def __init__(self, closers=BOTH_PLAYERS):
        self.closers, self.bits = tuple(closers), closer_bits(closers)
        self._deal = None  # (rules, talon, trump suit) of the table's deal
        self._generation = 0  # the core's table generation (0: none yet)

    def action_values(self, state: GameState) -> dict:
        """``{action id: game points}`` as :func:`action_values` (ascending ids); ``ValueError`` for
        a terminal state, :class:`~schnapsen_env.engine.InvalidStateError` for an impossible one."""
        if _core is None:
            _warn_fallback()
            return action_values_python(state, self.closers)
        deal = (state.rules, state.talon, state.trump_suit)
        if deal != self._deal:
            self._deal, self._generation = deal, 0
        self._generation, pairs = _core.deal_action_values(
            state.rules,
            state,
            self.bits,
            self._generation,
        )
        return dict(sorted(pairs))


def is_perfect_information(info) -> bool:
    """True when an information set (:class:`~schnapsen_env.engine.InformationSet`) is the whole
    state: the talon is exhausted (the face-up trump card drawn, RULES §3) and was not closed, so
    the opponent holds exactly the cards this player has not seen (RULES §8) and nothing is
    hidden."""
    return info.closed_by < 0 and info.trump_card < 0


def perfect_information_action(info) -> int | None:
    """The exact best action of the player to move when :func:`is_perfect_information` (the
    :func:`action_values` maximum, ties to the lower action id), else None. Shared by the agents
    that play the exhausted-talon endgame exactly (``expert``, ``ppo:endgame=solver``)."""
    if not is_perfect_information(info):
        return None
    values = action_values(GameState.from_information_set(info, info.unseen | info.opponent_known, ()))
    return max(info.legal_actions, key=lambda a: (values[a], -a))


def principal_line(state: GameState, max_actions: int | None = None) -> list:
    """The actions of :func:`solve`'s first best action at every node to the end (``state``
    unchanged)."""
    s = state.clone()
    line = []
    while not s.is_terminal and (max_actions is None or len(line) < max_actions):
        a = solve(s).best_actions[0]
        s.apply(a)
        line.append(a)
    return line
