"""The engine's public API around the rules: seeds, construction errors, clone, views."""

import random

import pytest

from schnapsen_env import GameState, IllegalActionError, Rules
from schnapsen_env.engine import InvalidStateError
from schnapsen_env.match import Bummerl, BummerlOverError, Match


@pytest.mark.parametrize("seed", [-1, 1.5])
def test_from_seed_rejects_seeds_that_are_not_non_negative_ints(seed):
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        GameState.from_seed(Rules(), seed)


def test_different_seeds_give_different_deals():
    deals = {tuple(GameState.from_seed(Rules(), s).talon) for s in range(20)}
    assert len(deals) == 20


def test_from_information_set_rebuilds_the_true_state():
    rng = random.Random(9)
    for seed in range(30):
        g = GameState.from_seed(Rules.preset("schnapsen"), seed)
        for _ in range(rng.randrange(12)):
            if g.is_terminal:
                break
            g.apply(rng.choice(g.legal_actions()))
        if g.is_terminal:
            continue
        p = g.current_player
        info = g.information_set(p)
        talon = list(g.talon[g.talon_pos :])
        rebuilt = GameState.from_information_set(info, g.hands[1 - p], talon)
        rebuilt.validate()
        assert rebuilt.legal_actions() == g.legal_actions()
        assert rebuilt.information_set(p) == info
        assert rebuilt.information_set(1 - p) == g.information_set(1 - p)


def mid_game_state(seed: int, plies: int) -> GameState:
    """A Schnapsen game after ``plies`` random legal actions (fewer if it ends first)."""
    rng = random.Random(seed)
    g = GameState.from_seed(Rules(), seed)
    for _ in range(plies):
        if g.is_terminal:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def unset_slots(state: GameState) -> list[str]:
    """The names in ``GameState.__slots__`` that ``state`` has no value for."""
    return [slot for slot in GameState.__slots__ if not hasattr(state, slot)]


def test_deal_sets_every_slot():
    assert unset_slots(GameState.from_seed(Rules(), 3)) == []
    assert unset_slots(GameState(Rules(), list(GameState.from_seed(Rules(), 3).deck), 0)) == []


def test_clone_copies_every_slot_and_shares_no_list():
    g = mid_game_state(seed=5, plies=9)
    g.legal_mask()  # fills the cache, so _mask is copied as a value
    twin = g.clone()
    assert unset_slots(twin) == []
    for slot in GameState.__slots__:
        assert getattr(twin, slot) == getattr(g, slot), slot
        if isinstance(getattr(g, slot), list):
            assert getattr(twin, slot) is not getattr(g, slot), slot


def test_from_information_set_sets_every_slot():
    g = mid_game_state(seed=6, plies=7)
    p = g.current_player
    rebuilt = GameState.from_information_set(g.information_set(p), g.hands[1 - p], list(g.talon[g.talon_pos :]))
    assert unset_slots(rebuilt) == []
    assert rebuilt.deck is None


def test_from_information_set_rejects_cards_that_do_not_fit():
    g = GameState.from_seed(Rules(), 4)
    info = g.information_set(g.current_player)
    with pytest.raises(ValueError, match="opponent_hand"):
        GameState.from_information_set(info, g.hands[g.current_player], list(g.talon))


def test_validate_names_a_duplicated_card():
    g = GameState.from_seed(Rules(), 2)
    g.hands[0] |= g.hands[1] & -g.hands[1]  # give player 0 a copy of one of player 1's cards
    with pytest.raises(InvalidStateError, match="two places"):
        g.validate()


def test_bad_dealer_and_bad_deck_raise_value_error():
    with pytest.raises(ValueError, match="dealer must be 0 or 1"):
        GameState(Rules(), list(range(20)), 2)
    with pytest.raises(ValueError, match="permutation"):
        GameState(Rules(), list(range(19)), 0)
    nines = [c for c in range(24) if c % 6 != 4][:20]  # nines instead of jacks
    with pytest.raises(ValueError, match="permutation"):
        GameState(Rules(), nines, 0)


def test_action_after_renonce_is_illegal():
    g = GameState.from_seed(Rules(), 6)
    g.renonce(g.current_player)
    assert g.outcome.reason == "renonce" and g.outcome.game_points == 3
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply(0)


@pytest.mark.parametrize(("action", "shown"), [(True, "True"), (6.0, "6.0"), ("6", "'6'"), ([6], "[6]")])
def test_apply_refuses_what_is_not_an_integer_naming_it(action, shown):
    g = GameState.from_seed(Rules(), 0)
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    assert str(info.value) == f"illegal action {shown}: not an action id (allowed ints 0..30)"
    assert g.history == [] and g.legal_actions() == GameState.from_seed(Rules(), 0).legal_actions()


def test_bummerl_refuses_games_after_it_is_decided():
    b = Bummerl(Rules(bummerl_target=1), first_dealer=0)
    g = b.new_game(random.Random(1))
    g.renonce(0)
    b.record(g.outcome)
    assert b.is_over and b.winner == 1 and b.value == 2  # loser 0 points: Schneider-Bummerl
    with pytest.raises(BummerlOverError):
        b.new_game(random.Random(2))


def test_match_rejects_bad_bummerl_count():
    with pytest.raises(ValueError, match="bummerls_to_win"):
        Match(Rules(), 0, bummerls_to_win=0)


@pytest.mark.parametrize("variant", ["schnapsen", "sechsundsechzig", "vu-course"])
def test_recount_eyes_from_history_matches_the_shown_eyes(variant):
    from schnapsen_env.engine import recount_eyes

    rng = random.Random(17)
    checked = 0
    for seed in range(40):
        g = GameState.from_seed(Rules.preset(variant), seed)
        while not g.is_terminal:
            info = g.information_set(g.current_player)
            assert recount_eyes(info) == (list(info.eyes), list(info.held_marriage_eyes))
            checked += 1
            g.apply(rng.choice(g.legal_actions()))
    assert checked > 400
