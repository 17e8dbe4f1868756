"""The RULES §3–§5 clauses of schnapsen_env.rulebook, one test per clause with values
worked out by hand, and the property that the engine's mask and its IllegalActionError
reasons are exactly what those clauses say on random states of every preset."""

from __future__ import annotations

import ast
import pathlib
import random

import pytest

from schnapsen_env import rulebook as rb
from schnapsen_env.actions import DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS
from schnapsen_env.cards import HEARTS, SPADES, mask_of, parse_card
from schnapsen_env.engine import GameState, IllegalActionError
from schnapsen_env.rules import VARIANTS, Rules

ROOT = pathlib.Path(__file__).resolve().parents[2]
C = parse_card
DEFAULT = Rules()
SHARP = Rules.preset("schnapsen-sharp")


def m(*cards: str) -> int:
    return mask_of(C(c) for c in cards)


# ---------------------------------------------------------------- §3 tricks
def test_s3_follower_wins_with_a_higher_card_of_the_led_suit():
    assert rb.follower_wins(C("KH"), C("TH"), SPADES)
    assert not rb.follower_wins(C("TH"), C("KH"), SPADES)


def test_s3_follower_wins_with_a_trump_on_a_non_trump_lead():
    assert rb.follower_wins(C("AH"), C("JS"), SPADES)


def test_s3_leader_wins_against_an_off_suit_non_trump_card():
    assert not rb.follower_wins(C("JH"), C("AD"), SPADES)


def test_s3_trump_lead_is_beaten_only_by_a_higher_trump():
    assert not rb.follower_wins(C("QS"), C("AH"), SPADES)
    assert rb.follower_wins(C("QS"), C("KS"), SPADES)


def test_s3_phase1_follower_may_play_any_card():
    hand = m("AH", "JS", "QD")
    assert rb.follow_cards(hand, C("KH"), SPADES, True) == hand


def test_s3_phase2_follower_must_win_with_a_higher_card_of_the_led_suit():
    assert rb.follow_cards(m("AH", "JH", "QS"), C("KH"), SPADES, False) == m("AH")


def test_s3_phase2_lower_card_of_the_led_suit_before_trump():
    assert rb.follow_cards(m("JH", "QS"), C("KH"), SPADES, False) == m("JH")


def test_s3_phase2_trump_when_void_in_the_led_suit():
    assert rb.follow_cards(m("QS", "AD"), C("KH"), SPADES, False) == m("QS")


def test_s3_phase2_any_card_without_the_led_suit_or_trump():
    assert rb.follow_cards(m("AD", "JC"), C("KH"), SPADES, False) == m("AD", "JC")


def test_s3_talon_open_until_closed_or_the_trump_card_is_gone():
    assert rb.talon_open(C("AH"), -1)
    assert not rb.talon_open(C("AH"), 0)
    assert not rb.talon_open(-1, -1)


def test_s3_draws_two_then_the_last_facedown_card_with_the_trump_card():
    assert rb.draws_after_trick(9) == (2, False)
    assert rb.draws_after_trick(2) == (2, False)
    assert rb.draws_after_trick(1) == (1, True)


# ----------------------------------------------------- §4 before leading
def test_s4_exchange_card_is_the_trump_jack_or_the_trump_nine():
    assert rb.exchange_card(DEFAULT, HEARTS) == C("JH")
    assert rb.exchange_card(Rules(deck=24), HEARTS) == C("9H")


def test_s4_exchange_allowed_at_first_lead_and_with_one_facedown_card_by_default():
    assert rb.exchange_forbidden(DEFAULT, m("JH"), HEARTS, True, 9, 0) is None
    assert rb.exchange_forbidden(DEFAULT, m("JH"), HEARTS, True, 1, 4) is None


def test_s4_exchange_needs_the_lowest_trump_and_an_open_talon():
    assert "lowest trump" in rb.exchange_forbidden(DEFAULT, m("QH"), HEARTS, True, 9, 1)
    assert "closed or exhausted" in rb.exchange_forbidden(DEFAULT, m("JH"), HEARTS, False, 5, 2)


def test_s4_sharp_forbids_exchange_before_the_first_trick_and_with_one_facedown_card():
    assert "sharp" in rb.exchange_forbidden(SHARP, m("JH"), HEARTS, True, 9, 0)
    assert "sharp" in rb.exchange_forbidden(SHARP, m("JH"), HEARTS, True, 1, 4)
    assert rb.exchange_forbidden(SHARP, m("JH"), HEARTS, True, 5, 2) is None


def test_s4_closing_allowed_while_the_talon_is_open_also_before_the_first_trick():
    assert rb.closing_forbidden(DEFAULT, -1, C("AH"), 9) is None
    assert rb.closing_forbidden(DEFAULT, -1, C("AH"), 1) is None


def test_s4_cannot_close_the_talon_twice_or_an_exhausted_talon():
    assert rb.closing_forbidden(DEFAULT, 0, C("AH"), 5) == "the talon is already closed"
    assert rb.closing_forbidden(DEFAULT, -1, -1, 0) == "the talon is exhausted"


def test_s4_allow_closing_false_and_sharp_with_one_facedown_card_forbid_closing():
    assert "allow_closing" in rb.closing_forbidden(Rules(allow_closing=False), -1, C("AH"), 9)
    assert "sharp" in rb.closing_forbidden(SHARP, -1, C("AH"), 1)


def test_s4_marriage_needs_king_and_queen_of_the_suit():
    assert rb.marriage_forbidden(DEFAULT, m("KH", "QH"), HEARTS, 0) is None
    assert "king and queen" in rb.marriage_forbidden(DEFAULT, m("KH", "QS"), HEARTS, 0)


def test_s4_sharp_marriage_only_once_the_announcer_has_a_trick():
    assert "sharp" in rb.marriage_forbidden(SHARP, m("KH", "QH"), HEARTS, 0)
    assert rb.marriage_forbidden(SHARP, m("KH", "QH"), HEARTS, 1) is None


def test_s4_marriage_suits_of_a_hand():
    assert rb.marriage_suits(m("KH", "QH", "KS", "QC", "KD", "QD")) == (HEARTS, 3)
    assert rb.marriage_suits(m("KH", "QS")) == ()


def test_s4_marriage_is_20_eyes_and_40_in_trump():
    assert rb.marriage_eyes(HEARTS, SPADES) == 20
    assert rb.marriage_eyes(SPADES, SPADES) == 40


def test_s4_marriage_leads_king_or_queen_only_the_king_under_sharp():
    assert rb.marriage_lead_cards(DEFAULT, HEARTS) == m("KH", "QH")
    assert rb.marriage_lead_cards(SHARP, HEARTS) == m("KH")
    assert rb.marriage_lead_cards(Rules(marriage_leads_king=True), HEARTS) == m("KH")


def test_s4_marriage_credited_at_once_after_a_trick_else_held():
    assert rb.marriage_credited_at_once(DEFAULT, 1)
    assert not rb.marriage_credited_at_once(DEFAULT, 0)
    assert not rb.marriage_credited_at_once(Rules(marriage_credit="next_trick"), 3)


def test_s4_after_a_marriage_only_its_card_may_follow():
    assert rb.special_action_reason(-1) is None
    assert "lead its card" in rb.special_action_reason(HEARTS)


# ------------------------------------------------------------- §5 scoring
@pytest.mark.parametrize(
    "eyes, trick, points", [(0, False, 3), (40, False, 3), (0, True, 2), (32, True, 2), (33, True, 1), (60, True, 1)]
)
def test_s5_game_points_scale_judged_by_the_loser(eyes, trick, points):
    assert rb.game_points_for(eyes, trick) == points


def test_s5_66_eyes_reach_the_goal_65_do_not():
    assert rb.reaches_66(66) and not rb.reaches_66(65)


def test_s5_declaring_is_an_action_only_under_manual():
    assert rb.declare_forbidden(Rules(declare="manual")) is None
    assert "auto" in rb.declare_forbidden(DEFAULT)


def test_s5_last_trick_bonus_10_in_sechsundsechzig_not_after_closing():
    assert rb.last_trick_bonus(Rules(deck=24), False) == 10
    assert rb.last_trick_bonus(Rules(deck=24), True) == 0
    assert rb.last_trick_bonus(DEFAULT, False) == 0
    assert rb.LAST_TRICK_GAME_POINTS == 1


def test_s5_closing_success_judged_at_closing_or_at_the_end_in_tournament_play():
    # opponent had 20 eyes and a trick at closing, 40 eyes now
    assert rb.closing_success_points(DEFAULT, 20, True, 40, True) == 2
    assert rb.closing_success_points(Rules(closing_counts_later_eyes=True), 20, True, 40, True) == 1
    assert rb.closing_success_points(DEFAULT, 0, False, 40, True) == 3


def test_s5_failed_closing_gives_2_or_3_without_a_trick_at_closing():
    assert rb.closing_failed_points(True) == 2
    assert rb.closing_failed_points(False) == 3


def test_s5_false_declaration_points_as_if_correct_or_a_fixed_2():
    assert rb.false_declaration_points(DEFAULT, 3) == 3
    assert rb.false_declaration_points(Rules(false_declaration_points=2), 3) == 2


def test_s5_trick_eyes_are_the_two_cards_eyes():
    assert rb.trick_eyes(C("AH"), C("TH")) == 21
    assert rb.trick_eyes(C("JS"), C("9S")) == 2


# ----------------------------------- the engine is the clauses, state by state
def _clause_reason(state: GameState, action: int):
    """What the rulebook says of a special action for the player on lead (None: allowed)."""
    p = state.current_player
    hand = state.hands[p]
    rules = state.rules
    if action == DECLARE:
        return rb.declare_forbidden(rules)
    order = rb.special_action_reason(state.pending_marriage)
    if order:
        return order
    facedown = state.talon_size
    if action < EXCHANGE:
        return rb.marriage_forbidden(rules, hand, action - MARRIAGE_BASE, state.tricks_won[p])
    if action == EXCHANGE:
        return rb.exchange_forbidden(rules, hand, state.trump_suit, state.talon_open, facedown, len(state.tricks))
    return rb.closing_forbidden(rules, state.closed_by, state.trump_card, facedown)


@pytest.mark.parametrize("variant", VARIANTS)
def test_engine_mask_and_reasons_are_the_rulebook_clauses(variant):
    rules = Rules.preset(variant)
    rng = random.Random(7)
    checked = 0
    for seed in range(150):
        state = GameState.from_seed(rules, seed)
        while not state.is_terminal:
            mask = state.legal_mask()
            p = state.current_player
            hand = state.hands[p]
            if state.lead_card >= 0:
                assert mask == rb.follow_cards(hand, state.lead_card, state.trump_suit, state.talon_open)
            for a in range(MARRIAGE_BASE, NUM_ACTIONS):
                if state.lead_card >= 0:
                    assert not mask >> a & 1
                    continue
                reason = _clause_reason(state, a)
                assert (reason is None) == bool(mask >> a & 1), (variant, seed, a, reason)
                if reason is not None:
                    with pytest.raises(IllegalActionError) as err:
                        state.clone().apply(a)
                    assert err.value.reason == reason
                checked += 1
            acts = state.legal_actions()
            state.apply(acts[rng.randrange(len(acts))])
    assert checked > 1000


RULE_CONSTANTS = {"TRUMP_MARRIAGE_EYES", "MARRIAGE_EYES", "SCHNEIDER_EYES", "LAST_TRICK_BONUS", "_HIGHER", "_LOWER"}
# rules.py defines the numbers, rulebook.py states the clauses; observation.py only scales
# its eye features by them (an upper bound, no rule decision)
RULE_CONSTANT_USERS = {
    "schnapsen_env/rules.py",
    "schnapsen_env/rulebook.py",
    "schnapsen_env/observation.py",
    "agents/solver.py",
}


def test_no_module_outside_the_rulebook_imports_the_rule_numbers():
    """Marriage, schneider and last-trick numbers and the follow tables are read by the
    rulebook (and handed to the compiled core by solver.py), not restated elsewhere."""
    offenders = []
    for path in sorted([*ROOT.glob("schnapsen_env/**/*.py"), *ROOT.glob("agents/**/*.py"), ROOT / "train.py"]):
        rel = path.relative_to(ROOT).as_posix()
        if rel in RULE_CONSTANT_USERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = {a.name for a in node.names} & RULE_CONSTANTS
                if names:
                    offenders.append(f"{rel}: {sorted(names)}")
            elif isinstance(node, ast.Name) and node.id in {"_HIGHER", "_LOWER"}:
                offenders.append(f"{rel}: {node.id}")
    assert offenders == []
