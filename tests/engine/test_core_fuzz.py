"""Property-based fuzz of the compiled core's boundary (agents/players/csrc, issue 52): on random reachable states of every
preset, every entry point agrees with the engine (legal masks, the outcome of each step, the fields after it) and
values are game points (-3..3, never 0); on the same states with ONE field of GameState edited (a value in range,
out of range, of the wrong type; a card added, the trump card put into the mover's hand, a marriage announced
without its king or queen, ...) every entry point returns or raises ValueError or TypeError: never another
exception, never a crash. The sanitizer job of .ci/run runs this file under AddressSanitizer and UBSan.
Then one regression test per impossible state of the issue."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.players import solver
from agents.players.pimc import PIMCAgent
from agents.players.search import SearchAgent
from schnapsen_env import VARIANTS, GameState, Rules
from schnapsen_env.actions import CLOSE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import KING, QUEEN, RANKS_PER_SUIT, suit_of
from schnapsen_env.engine import InvalidStateError

pytestmark = pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")

#: GameState's fields the core reads (agents/players/csrc/parse.c, parse_state), each compared after a step
STATE_FIELDS = (
    "hands",
    "talon",
    "talon_pos",
    "trump_card",
    "trump_suit",
    "leader",
    "current_player",
    "lead_card",
    "pending_marriage",
    "eyes",
    "held_marriage_eyes",
    "tricks_won",
    "closed_by",
    "closed_opponent_eyes",
    "closed_opponent_had_trick",
)
#: the longest face-down talon at which the states are solved (deeper ones solve slowly)
SOLVE_TALON = 3
#: the most actions played from the deal (every game ends before)
MOST_ACTIONS = 40
#: the card ids
CARDS = 24
#: the game points a value may take
GAME_POINTS = {-3, -2, -1, 1, 2, 3}
#: the errors a core call may raise on an edited state
BOUNDARY_ERRORS = (ValueError, TypeError)

#: the examples per property (fixed by derandomize: the same states every run, so it cannot flake)
EXAMPLES = 800
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

core = solver._core


@st.composite
def reachable_states(draw) -> GameState:
    """A state of a preset drawn from VARIANTS after a drawn number of random legal actions (maybe finished)."""
    state = GameState.from_seed(Rules.preset(draw(st.sampled_from(VARIANTS))), draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(0, MOST_ACTIONS))):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        state.apply(legal[draw(st.integers(0, len(legal) - 1))])
    return state


def solves_fast(state: GameState) -> bool:
    """Whether the solver's entry points finish in milliseconds here: a short talon or a closed one (or fields
    the core refuses before it searches)."""
    try:
        return len(state.talon) - state.talon_pos <= SOLVE_TALON or state.closed_by in (0, 1)
    except TypeError:
        return True


def closer_mask(state: GameState, closers: int) -> int:
    """The engine's legal mask of ``state`` with closing only for the players of bitmask ``closers``."""
    mask = state.legal_mask()
    if state.current_player in (0, 1) and not closers >> state.current_player & 1:
        mask &= ~(1 << CLOSE)
    return mask


def engine_outcome(state: GameState):
    return None if state.outcome is None else (state.outcome.winner, state.outcome.game_points)


# ------------------------------------------------------------------ reachable states
@FUZZ
@given(state=reachable_states(), closers=st.integers(0, 3))
def test_core_agrees_with_engine_on_reachable_states(state, closers):
    rules = state.rules
    assert core.legal_mask(rules, state, closers) == closer_mask(state, closers)
    if state.is_terminal:
        for call in (core.value, core.solve, core.action_values):
            with pytest.raises(ValueError, match="terminal"):
                call(rules, state, closers)
        with pytest.raises(ValueError, match="over"):
            core.step(rules, state, 0)
        return
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        assert core.step(rules, state, action) == engine_outcome(child)
        fields = core.step_fields(rules, state, action)
        assert {name: fields[name] for name in STATE_FIELDS} == {name: getattr(child, name) for name in STATE_FIELDS}
        assert fields["outcome"] == engine_outcome(child)
    illegal = [a for a in range(EXCHANGE + 3) if not state.legal_mask() >> a & 1]
    if illegal:
        with pytest.raises(ValueError, match="not legal"):
            core.step(rules, state, illegal[0])
    if not solves_fast(state):
        return
    value = core.value(rules, state, closers)
    assert value in GAME_POINTS
    best_value, best = core.solve(rules, state, closers)
    values = dict(core.action_values(rules, state, closers))
    assert best_value == value == max(values.values())
    assert set(values) == {a for a in range(EXCHANGE + 3) if closer_mask(state, closers) >> a & 1}
    assert set(values.values()) <= GAME_POINTS
    assert best == sorted(a for a, v in values.items() if v == value)
    signs = dict(core.action_values(rules, state, closers, True))
    assert signs == {a: 1 if v > 0 else -1 for a, v in values.items()}
    _, pairs = core.deal_action_values(rules, state, closers, 0)
    assert dict(pairs) == values
    # through the agents (both players may close)
    both = dict(core.action_values(rules, state, 3))
    assert solver.solve(state).value == max(both.values())
    assert solver.DealTable().action_values(state) == both
    info = state.information_set(state.current_player)
    assert SearchAgent(iterations=20, seed=0).act(info) in state.legal_actions()
    assert PIMCAgent(samples=4, seed=0).act(info) in state.legal_actions()


# ------------------------------------------------------------------ one field edited
WRONG_TYPES = st.sampled_from([None, 1.0, "1", b"\x01", [], (1,), object()])
HUGE = st.sampled_from([-(2**70), -(2**31), -2, 2**24, 2**31, 2**63, 2**70])


def edited_int(low: int, high: int):
    """A value for an int field the core reads in low..high: in range, just out of it, huge, a bool, of another
    type."""
    return st.one_of(st.integers(low, high), st.sampled_from([low - 1, high + 1]), HUGE, st.booleans(), WRONG_TYPES)


#: per int field, the range of its values that parse.c accepts
INT_FIELDS = {
    "talon_pos": (0, 12),
    "trump_card": (-1, CARDS - 1),
    "trump_suit": (0, 3),
    "leader": (0, 1),
    "current_player": (-1, 1),
    "lead_card": (-1, CARDS - 1),
    "pending_marriage": (-1, 3),
    "closed_by": (-1, 1),
    "closed_opponent_eyes": (0, 255),
    "closed_opponent_had_trick": (0, 1),
}
#: per field of two ints, the range of each
PAIR_FIELDS = {"hands": (0, 2**CARDS - 1), "eyes": (0, 255), "held_marriage_eyes": (0, 127), "tricks_won": (0, 12)}


@st.composite
def edits(draw, state: GameState):
    """``(field, value)``: one field of GameState the core reads, and a new value for it."""
    mover = state.current_player if state.current_player in (0, 1) else 0
    field = draw(st.sampled_from(STATE_FIELDS + ("trump card into the mover's hand", "marriage without its cards")))
    if field == "trump card into the mover's hand":
        card = state.trump_card if state.trump_card >= 0 else draw(st.integers(0, CARDS - 1))
        hands = list(state.hands)
        hands[mover] |= 1 << card
        return "hands", hands
    if field == "marriage without its cards":
        lacking = [
            suit
            for suit in range(4)
            if not state.hands[mover] >> (suit * RANKS_PER_SUIT + KING) & 1
            or not state.hands[mover] >> (suit * RANKS_PER_SUIT + QUEEN) & 1
        ]
        return "pending_marriage", draw(st.sampled_from(lacking or [0]))
    if field in INT_FIELDS:
        return field, draw(edited_int(*INT_FIELDS[field]))
    if field == "talon":
        talon = list(state.talon)
        kind = draw(st.sampled_from(["card", "drop", "add", "ints", "wrong"]))
        if kind == "card" and talon:
            talon[draw(st.integers(0, len(talon) - 1))] = draw(edited_int(0, CARDS - 1))
        elif kind == "drop" and talon:
            talon.pop(draw(st.integers(0, len(talon) - 1)))
        elif kind == "add":
            talon.append(draw(st.integers(0, CARDS - 1)))
        elif kind == "ints":
            talon = draw(st.lists(st.integers(-1, CARDS), max_size=14))
        else:
            return field, draw(WRONG_TYPES)
        return field, tuple(talon)
    low, high = PAIR_FIELDS[field]
    pair = list(getattr(state, field))
    kind = draw(st.sampled_from(["one", "card", "swap", "length", "wrong"]))
    if kind == "one":
        pair[draw(st.integers(0, 1))] = draw(edited_int(low, high))
    elif kind == "card" and field == "hands":  # a card added to or taken from a hand
        pair[draw(st.integers(0, 1))] ^= 1 << draw(st.integers(0, CARDS - 1))
    elif kind == "swap":
        pair.reverse()
    elif kind == "length":
        pair = pair + [0] if draw(st.booleans()) else pair[:1]
    else:
        return field, draw(WRONG_TYPES)
    return field, pair


def core_calls(state: GameState):
    """``(name, call)`` of every entry point on ``state`` (the solver's only where they finish fast)."""
    rules = state.rules
    calls = [("legal_mask", lambda: core.legal_mask(rules, state, 3))]
    calls += [(f"step {a}", lambda a=a: core.step(rules, state, a)) for a in range(EXCHANGE + 3)]
    calls += [(f"step_fields {a}", lambda a=a: core.step_fields(rules, state, a)) for a in range(EXCHANGE + 3)]
    if solves_fast(state):
        calls += [
            ("value", lambda: core.value(rules, state, 3)),
            ("solve", lambda: core.solve(rules, state, 1)),
            ("action_values", lambda: core.action_values(rules, state, 2, True)),
            ("deal_action_values", lambda: core.deal_action_values(rules, state, 3, 0)),
            ("solver.solve", lambda: solver.solve(state)),
            ("DealTable", lambda: solver.DealTable().action_values(state)),
        ]
    return calls


@FUZZ
@given(data=st.data(), state=reachable_states())
def test_core_returns_or_refuses_a_state_with_one_field_edited(data, state):
    field, value = data.draw(edits(state), label="edit")
    setattr(state, field, value)
    state._mask = None  # the engine's cached mask belongs to the state before the edit
    valid = True
    try:
        state.validate()
    except Exception:  # an edit the engine itself cannot read (a wrong type): the core must refuse it
        valid = False
    for name, call in core_calls(state):
        try:
            result = call()
        except BOUNDARY_ERRORS:
            continue
        if name == "value":
            assert valid and result in GAME_POINTS, (name, result)
        elif name in ("solve", "solver.solve"):
            assert valid and (result[0] if name == "solve" else result.value) in GAME_POINTS, (name, result)
        elif name in ("action_values", "DealTable"):
            values = result if name == "DealTable" else dict(result)
            assert valid and set(values.values()) <= GAME_POINTS, (name, result)


# ------------------------------------------------------------------ the impossible states of issue 52
def short_talon_state(seed: int = 3) -> GameState:
    """A state of a schnapsen deal with the talon open, a trump card face up and the mover on lead."""
    state = GameState.from_seed(Rules.preset("schnapsen"), seed)
    while state.talon_size > SOLVE_TALON + 1 or state.lead_card >= 0:
        legal = state.legal_actions()
        state.apply(max(a for a in legal if a < MARRIAGE_BASE))
    assert not state.is_terminal and state.trump_card >= 0
    return state


def trump_card_face_up_and_in_the_movers_hand() -> GameState:
    """The state that sent the solver into endless recursion: EXCHANGE gave back the same state."""
    state = short_talon_state()
    state.hands[state.current_player] |= 1 << state.trump_card
    state._mask = None
    return state


IMPOSSIBLE_CALLS = {
    "solver.solve": lambda s: solver.solve(s),
    "solver.action_values": lambda s: solver.action_values(s),
    "DealTable.action_values": lambda s: solver.DealTable().action_values(s),
    "SearchAgent.act": lambda s: SearchAgent(iterations=20, seed=0).act(s.information_set(s.current_player)),
    "PIMCAgent.act": lambda s: PIMCAgent(samples=4, seed=0).act(s.information_set(s.current_player)),
}


@pytest.mark.parametrize("call", IMPOSSIBLE_CALLS, ids=list(IMPOSSIBLE_CALLS))
def test_trump_card_face_up_and_in_the_movers_hand_is_a_value_error(call):
    state = trump_card_face_up_and_in_the_movers_hand()
    with pytest.raises(InvalidStateError, match=r"^a card is in two places \(hands, tricks, talon\)$"):
        IMPOSSIBLE_CALLS[call](state)


def mover_without_a_legal_action() -> GameState:
    """A marriage announced in a suit whose king and queen the mover lacks: nothing may be led."""
    state = short_talon_state()
    hand = state.hands[state.current_player]
    state.pending_marriage = next(
        suit
        for suit in range(4)
        if not hand >> (suit * RANKS_PER_SUIT + KING) & 1 and not hand >> (suit * RANKS_PER_SUIT + QUEEN) & 1
    )
    state._mask = None
    assert state.legal_mask() == 0
    return state


@pytest.mark.parametrize("entry", ["value", "solve", "action_values", "legal_mask"])
def test_mover_without_a_legal_action_is_a_value_error_not_value_minus_4(entry):
    state = mover_without_a_legal_action()
    with pytest.raises(InvalidStateError, match="^the player to move has no legal action in an unfinished game$"):
        getattr(core, entry)(state.rules, state, 3)
    with pytest.raises(InvalidStateError, match="no legal action"):
        solver.solve(state)


def test_search_with_a_time_budget_on_an_impossible_state_returns_a_value_error():
    state = trump_card_face_up_and_in_the_movers_hand()
    info = state.information_set(state.current_player)
    assert len(info.legal_actions) > 1 and info.talon_size > 0  # the search runs, no shortcut decides
    with pytest.raises(InvalidStateError, match="two places"):
        SearchAgent(ms=500, seed=0).act(info)


def test_trump_card_of_another_suit_is_a_value_error():
    state = short_talon_state()
    hand = state.hands[1 - state.current_player]
    swap = next(c for c in range(CARDS) if hand >> c & 1 and suit_of(c) != state.trump_suit)
    state.hands[1 - state.current_player] = hand & ~(1 << swap) | 1 << state.trump_card
    state.trump_card = swap  # every card still in one place
    with pytest.raises(InvalidStateError, match="not of the trump suit"):
        core.value(state.rules, state, 3)


def after_the_lead() -> GameState:
    state = short_talon_state()
    state.apply(min(a for a in state.legal_actions() if a < MARRIAGE_BASE))
    return state


def finished_game() -> GameState:
    state = short_talon_state()
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    return state


#: the impossible states the fuzz found (each passed GameState.validate() and valued 4 or -4 in the core: a player
#: to move without a legal action further down the tree), the edit, and what validate() now names
FUZZ_FOUND = {
    "marriage pending after the lead": (after_the_lead, "pending_marriage", 0, "a marriage pending after the lead"),
    "follower to move before the lead": (short_talon_state, "current_player", None, "neither the leader"),
    "player to move in a finished game": (finished_game, "current_player", 0, "a player to move in a finished game"),
    "hands of different sizes": (short_talon_state, "hands", None, "different numbers of cards"),
}


@pytest.mark.parametrize("case", FUZZ_FOUND, ids=list(FUZZ_FOUND))
def test_state_the_fuzz_found_is_a_value_error_not_value_4(case):
    make, field, value, problem = FUZZ_FOUND[case]
    state = make()
    if field == "current_player" and value is None:
        value = 1 - state.current_player
    if field == "hands":  # a card of the follower's hand moved to the leader's: every card still in one place
        card = state.hands[1 - state.leader] & -state.hands[1 - state.leader]
        value = [state.hands[0] ^ card, state.hands[1] ^ card]
    setattr(state, field, value)
    state._mask = None
    for entry in ("value", "solve", "action_values", "legal_mask"):
        with pytest.raises(InvalidStateError, match=problem):
            getattr(core, entry)(state.rules, state, 3)
