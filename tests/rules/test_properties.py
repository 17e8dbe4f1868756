"""Property tests over seeds, presets, option combinations and random legal play
(RULES.md §2–§5, §8).

The central check compares the engine on every state of random games with
:class:`tests.helpers.RefGame`, a slow and literal second reading of RULES
§3–§5: the same legal actions, the same eyes, tricks and outcome.
"""

from __future__ import annotations

import random

from helpers import RefGame, act, pick_action, random_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from schnapsen_env.actions import NUM_ACTIONS, action_to_str
from schnapsen_env.cards import CARD_EYES, NUM_CARDS, deck_cards
from schnapsen_env.engine import REASONS, GameState, IllegalActionError
from schnapsen_env.rules import VARIANTS, Rules

EXAMPLES = 300  # whole file ~5 s here; well under 60 s on a loaded 2-core machine

seeds = st.integers(min_value=0, max_value=2**32 - 1)
presets = st.sampled_from(VARIANTS)

#: every rule option that changes play (show_eyes / bummerl options do not)
option_sets = st.fixed_dictionaries(
    {
        "deck": st.sampled_from([20, 24]),
        "sharp": st.booleans(),
        "declare": st.sampled_from(["auto", "manual"]),
        "false_declaration_points": st.sampled_from(["as_if_correct", 2]),
        "closing_counts_later_eyes": st.booleans(),
        "allow_closing": st.booleans(),
        "marriage_leads_king": st.booleans(),
        "marriage_credit": st.sampled_from(["first_trick", "next_trick"]),
        "show_eyes": st.booleans(),
    }
)


def _eyes_in_tricks(state: GameState) -> list[int]:
    out = [0, 0]
    for t in state.tricks:
        out[t.winner] += CARD_EYES[t.lead] + CARD_EYES[t.follow]
    return out


def _play_random(rules: Rules, seed: int, check=None) -> GameState:
    rng = random.Random(seed)
    state = GameState.from_seed(rules, rng=rng)
    steps = 0
    while not state.is_terminal:
        legal = state.legal_actions()
        assert legal, "legal_actions() is empty before the end"
        if check:
            check(state)
        state.apply(pick_action(legal, rng, state))
        steps += 1
        assert steps <= 200
    if check:
        check(state)
    return state


# ------------------------------------------------- engine vs reference


@settings(max_examples=EXAMPLES * 4, deadline=None)
@given(options=option_sets, seed=seeds, dealer=st.sampled_from([0, 1]))
def test_engine_agrees_with_slow_literal_reading_of_rules(options, seed, dealer):
    """RULES §3–§5: legal actions, eyes, tricks and the outcome on every state."""
    rules = Rules.from_dict(options)
    rng = random.Random(seed)
    deck = random_deck(rules.deck, rng)
    state = GameState(rules, deck, dealer)
    ref = RefGame(rules, deck, dealer)
    while True:
        legal_ref = ref.legal()
        legal_eng = {action_to_str(a) for a in state.legal_actions()}
        assert legal_eng == legal_ref, (state, [action_to_str(a) for _, a in state.history])
        assert list(state.eyes) == ref.eyes
        assert list(state.tricks_won) == ref.tricks
        assert state.current_player == ref.current_player
        assert state.talon_size == len(ref.talon)
        if ref.outcome is not None:
            o = state.outcome
            assert o is not None
            assert (o.winner, o.game_points, o.reason, tuple(o.eyes), tuple(o.tricks_won)) == ref.outcome
            break
        assert state.outcome is None
        text = action_to_str(pick_action(state.legal_actions(), rng, state))
        state.apply(act(state, text))
        ref.apply(text)


# ------------------------------------------------------------ invariants


def _check_cards_conserved(state: GameState) -> None:
    state.validate()
    full = set(deck_cards(state.rules.deck))
    parts = [{c for c in range(NUM_CARDS) if state.hands[p] >> c & 1} for p in (0, 1)]
    parts.append({c for t in state.tricks for c in (t.lead, t.follow)})
    if state.lead_card >= 0:
        parts.append({state.lead_card})
    parts.append(set(state.talon[state.talon_pos :]))
    if state.trump_card >= 0:
        parts.append({state.trump_card})
    total = sum(len(p) for p in parts)
    union = set().union(*parts)
    assert total == len(union) == len(full), "a card is duplicated or missing"
    assert union == full
    # legal_mask and legal_actions agree
    mask = state.legal_mask()
    assert [a for a in range(NUM_ACTIONS) if mask >> a & 1] == state.legal_actions()
    if not state.is_terminal:
        assert state.legal_actions()


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds)
def test_cards_conserved_and_never_duplicated(variant, seed):
    """RULES §2: hands + tricks + talon + face-up card = the deck, at every state."""
    _play_random(Rules.preset(variant), seed, _check_cards_conserved)


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds)
def test_outcome_is_well_formed(variant, seed):
    """RULES §5: game points in {1, 2, 3}; a known reason; eyes >= card eyes of the tricks."""
    state = _play_random(Rules.preset(variant), seed)
    o = state.outcome
    assert o.game_points in (1, 2, 3)
    assert o.winner in (0, 1)
    assert o.reason in REASONS and o.reason != "renonce"
    assert list(o.tricks_won) == list(state.tricks_won)
    card_eyes = _eyes_in_tricks(state)
    for p in (0, 1):
        assert o.eyes[p] >= card_eyes[p]
    assert state.current_player == -1
    assert state.legal_actions() == []
    for a in range(NUM_ACTIONS):
        try:
            state.apply(a)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"action {a} accepted after the end")


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=seeds, deck=st.sampled_from([20, 24]), dealer=st.sampled_from([0, 1]))
def test_all_tricks_played_card_eyes_total_120_or_130(seed, deck, dealer):
    """RULES §1, §5.2: with every trick played the tricks hold 120 eyes; the
    credited eyes, less marriages, add up to 120 (+10 Sechsundsechzig last
    trick when the talon was never closed).

    Uses declare="manual" and never declares, so games run to the last trick."""
    rules = Rules(deck=deck, declare="manual")
    rng = random.Random(seed)
    state = GameState.from_seed(rules, rng=rng, dealer=dealer)
    from schnapsen_env.actions import DECLARE

    while not state.is_terminal:
        state.apply(rng.choice([a for a in state.legal_actions() if a != DECLARE]))
    # after a closing the talon (and the face-up card) stay out of play
    left = list(state.talon[state.talon_pos :]) + ([state.trump_card] if state.trump_card >= 0 else [])
    assert state.closed_by >= 0 or not left
    assert sum(_eyes_in_tricks(state)) == 120 - sum(CARD_EYES[c] for c in left)
    assert len(state.tricks) == (rules.deck - len(left)) // 2
    bonus = 10 if (deck == 24 and state.closed_by < 0) else 0
    # marriage_credit="first_trick": a marriage is credited iff its announcer
    # won a trick at some point of the game (before or after announcing)
    marriages = [0, 0]
    for p, suit in state.marriages:
        if state.tricks_won[p] > 0:
            marriages[p] += 40 if suit == state.trump_suit else 20
    cards_total = sum(_eyes_in_tricks(state))
    assert sum(state.eyes) == cards_total + bonus + sum(marriages)
    if state.closed_by < 0:
        assert sum(state.eyes) - sum(marriages) == (130 if deck == 24 else 120)


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds)
def test_same_seed_same_game(variant, seed):
    rules = Rules.preset(variant)
    a = _play_random(rules, seed)
    b = _play_random(rules, seed)
    assert a.history == b.history
    assert a.outcome == b.outcome
    assert GameState.from_seed(rules, seed).talon == GameState.from_seed(rules, seed).talon


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds)
def test_clone_is_independent(variant, seed):
    rules = Rules.preset(variant)
    rng = random.Random(seed)
    state = GameState.from_seed(rules, rng=rng)
    while not state.is_terminal:
        c = state.clone()
        a = pick_action(state.legal_actions(), rng, state)
        c.apply(a)
        state.apply(a)
        assert c.history == state.history and c.eyes == state.eyes and c.hands == state.hands
        # branching the clone leaves the original alone
        if not c.is_terminal:
            before = (state.hands[:], state.eyes[:], list(state.history))
            c.apply(c.legal_actions()[0])
            assert (state.hands, state.eyes, state.history) == before


# ---------------------------------------------------- information sets


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds, viewer=st.sampled_from([0, 1]), shuffle_seed=seeds)
def test_information_set_ignores_cards_the_player_cannot_see(variant, seed, viewer, shuffle_seed):
    """RULES §8: two deals that differ only in the opponent's hand and the
    face-down talon give the viewer the same information set, until a card
    unseen by the viewer is revealed to them (it reaches their hand, or the
    opponent plays a card that is not in the other deal's hand)."""
    rules = Rules.preset(variant)
    rng = random.Random(seed)
    deck_a = random_deck(rules.deck, rng)
    dealer = rng.randrange(2)
    hs = rules.hand_size
    if rules.deck == 20:
        fore_idx = [0, 1, 2, 7, 8]
        deal_idx = [3, 4, 5, 9, 10]
        talon_idx = list(range(11, 20))
    else:
        fore_idx = [0, 1, 2, 6, 7, 8]
        deal_idx = [3, 4, 5, 9, 10, 11]
        talon_idx = list(range(13, 24))
    assert len(fore_idx) == hs
    opp = 1 - viewer
    opp_idx = fore_idx if opp == 1 - dealer else deal_idx
    hidden = opp_idx + talon_idx
    cards = [deck_a[i] for i in hidden]
    random.Random(shuffle_seed).shuffle(cards)
    deck_b = list(deck_a)
    for i, c in zip(hidden, cards):
        deck_b[i] = c
    a = GameState(rules, deck_a, dealer)
    b = GameState(rules, deck_b, dealer)
    compared = 0
    while not a.is_terminal:
        if a.hands[viewer] != b.hands[viewer]:
            break  # a hidden card reached the viewer's hand
        ia, ib = a.information_set(viewer), b.information_set(viewer)
        assert ia == ib
        compared += 1
        act_ = pick_action(a.legal_actions(), rng, a)
        if not b.is_legal(act_):
            break  # the opponent played a card that differs between the deals
        a.apply(act_)
        b.apply(act_)
        if a.outcome is not None or b.outcome is not None:
            # both finished the same way only if what decided it was visible;
            # the viewer's information set must still agree when hands agree
            if a.hands[viewer] == b.hands[viewer] and a.outcome == b.outcome:
                assert a.information_set(viewer) == b.information_set(viewer)
            break
    assert compared >= 1


@settings(max_examples=EXAMPLES, deadline=None)
@given(variant=presets, seed=seeds)
def test_information_set_hides_the_opponent_hand_and_talon(variant, seed):
    """RULES §8: the viewer's `unseen` cards are exactly the opponent's unknown
    cards and the face-down talon; the viewer's legal actions are the state's."""
    rules = Rules.preset(variant)
    rng = random.Random(seed)
    state = GameState.from_seed(rules, rng=rng)
    while not state.is_terminal:
        for v in (0, 1):
            info = state.information_set(v)
            o = 1 - v
            talon = 0
            for c in state.talon[state.talon_pos :]:
                talon |= 1 << c
            assert info.unseen | info.opponent_known == state.hands[o] | talon
            assert info.unseen & info.opponent_known == 0
            assert info.opponent_known & ~state.hands[o] == 0
            assert info.hand == state.hands[v]
            assert info.talon_size == state.talon_size
            assert info.legal_actions == (tuple(state.legal_actions()) if state.current_player == v else ())
            if not rules.show_eyes:
                assert info.eyes is None
        state.apply(pick_action(state.legal_actions(), rng, state))
