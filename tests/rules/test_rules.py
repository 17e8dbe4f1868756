"""One test (at least) per rule of RULES.md §2–§7, each on a hand-built deal.

Deals are written with :func:`helpers.make_deck` / :func:`helpers.deal`:
forehand hand, dealer hand, face-up trump card, face-down talon in draw order.
Dealer 1 unless said, so player 0 (P0) is forehand. In the comments
``P0 AC / P1 JD: P0 +13`` means P0 leads AC, P1 follows JD, P0 wins 13 eyes.
Eyes: A 11, T 10, K 4, Q 3, J 2, 9 0.
"""

from __future__ import annotations

import pytest
from helpers import act, deal, hand, legal_texts, make_deck, play, snapshot

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS
from schnapsen_env.cards import parse_card
from schnapsen_env.engine import GameState, IllegalActionError, Outcome, game_points_for
from schnapsen_env.match import Bummerl, BummerlOverError, Match
from schnapsen_env.rules import PRESETS, VARIANTS, Rules


def plays(cards: str) -> list[str]:
    """``"AC JD"`` -> ``["play AC", "play JD"]``."""
    return [f"play {c}" for c in cards.split()]


# ---------------------------------------------------------------- deals

# DEAL_A: trump hearts (QH face up). P0 holds the trump jack and the spade pair.
DEAL_A = ("AC TC KS QS JH", "AS TS KC JD TH", "QH", "AD TD KD QD JC JS AH KH QC")
# Five phase-1 tricks on DEAL_A, P0 always wins:
#   T1 P0 AC / P1 JD: P0 +13 (13); P0 draws AD, P1 TD
#   T2 P0 AD / P1 TD: P0 +21 (34); P0 draws KD, P1 QD
#   T3 P0 TC / P1 KC: P0 +14 (48); P0 draws JC, P1 JS
#   T4 P0 KD / P1 QD: P0 +7  (55); P0 draws AH, P1 KH  -> one face-down card (QC) left
#   T5 P0 JC / P1 JS: P0 +4  (59); P0 draws QC, P1 gets the face-up QH -> talon exhausted
A_T1_T4 = plays("AC JD AD TD TC KC KD QD")
A_T5 = plays("JC JS")

# DEAL_B: as DEAL_A but P1 (dealer) holds the trump jack.
DEAL_B = ("AC TC KS QS JD", "AS TS KC JH TH", "QH", "AD TD KD QD JC JS AH KH QC")

# DEAL_C: trump hearts (JH face up); P0 holds the trump pair KH QH and the spade pair.
DEAL_C = ("KH QH AC KS QS", "AS TS KC JD TH", "JH", "AD TD KD QD JC JS AH TC QC")

# DEAL_CL: trump hearts (AH face up) for closings; P0 holds the trump pair.
DEAL_CL = ("KH QH AS TS QC", "JS AC KC JD QD", "AH", "TC JC KS QS TH JH AD TD KD")

# DEAL_P2 / DEAL_P2B: phase-2 precedence after P0 closes at the first lead (trump hearts).
DEAL_P2 = ("KS AD AC TC QS", "AS JS KH TD JD", "JH", "KC QC JC TS AH TH QH KD QD")
DEAL_P2B = ("KS AD AC TC AH", "AS JS TD JD KC", "JH", "QC JC TS QS TH KH QH KD QD")

# DEAL_24: Sechsundsechzig, trump hearts (QH face up); P0 holds the trump nine and jack.
DEAL_24 = ("AC TC KS QS JH 9H", "AS TS KC JD TH 9C", "QH", "AD TD KD QD 9D JC JS 9S AH KH QC")


def outcome_tuple(state):
    o = state.outcome
    return None if o is None else (o.winner, o.game_points, o.reason, tuple(o.eyes), tuple(o.tricks_won))


def after_close(d, *actions, **kw):
    """Deal ``d``, P0 closes at the first lead, then the actions."""
    return play(deal(*d, **kw), "close", *actions)


# ================================================================ §2 dealing

D20 = "AC TC KC QC JC AS TS KS QS JS AH TH KH QH JH AD TD KD QD JD".split()
D24 = "AC TC KC QC JC 9C AS TS KS QS JS 9S AH TH KH QH JH 9H AD TD KD QD JD 9D".split()


@pytest.mark.parametrize("dealer", [0, 1])
def test_s2_deal_20_cards_deck_order_and_forehand(dealer):
    # deck[0:3]+deck[7:9] forehand, deck[3:6]+deck[9:11] dealer, deck[6] trump card, deck[11:] talon
    state = GameState(Rules(), D20, dealer)
    fore = 1 - dealer
    assert hand(state, fore) == {"AC", "TC", "KC", "KS", "QS"}
    assert hand(state, dealer) == {"QC", "JC", "AS", "JS", "AH"}
    assert state.trump_card == parse_card("TS") and state.trump_suit == 1  # spades
    assert [c for c in state.talon] == [parse_card(c) for c in D20[11:]]
    assert state.talon_size == 9
    assert state.current_player == fore and state.leader == fore
    # the first trick: forehand leads AC, dealer QC (phase 1): forehand wins 14,
    # draws deck[11] = TH, the dealer deck[12] = KH
    play(state, "play AC", "play QC")
    assert state.eyes[fore] == 14 and state.current_player == fore
    assert "TH" in hand(state, fore) and "KH" in hand(state, dealer)
    assert state.talon_size == 7


@pytest.mark.parametrize("dealer", [0, 1])
def test_s2_deal_24_cards_deck_order_and_forehand(dealer):
    # deck[0:3]+deck[6:9] forehand, deck[3:6]+deck[9:12] dealer, deck[12] trump card, deck[13:] talon
    rules = Rules.preset("sechsundsechzig")
    state = GameState(rules, D24, dealer)
    fore = 1 - dealer
    assert rules.hand_size == 6
    assert hand(state, fore) == {"AC", "TC", "KC", "AS", "TS", "KS"}
    assert hand(state, dealer) == {"QC", "JC", "9C", "QS", "JS", "9S"}
    assert state.trump_card == parse_card("AH") and state.trump_suit == 2  # hearts
    assert list(state.talon) == [parse_card(c) for c in D24[13:]]
    assert state.talon_size == 11
    assert state.current_player == fore


def test_s2_helper_make_deck_matches_rules_deal_order():
    deck = make_deck("AC TC KC KS QS", "QC JC AS JS AH", "TS", D20[11:])
    assert deck == D20
    deck24 = make_deck("AC TC KC AS TS KS", "QC JC 9C QS JS 9S", "AH", D24[13:])
    assert deck24 == D24


def test_s2_trump_suit_stays_after_exchange_and_last_draw():
    # the suit of the first face-up card is trump for the whole game, even
    # after the exchange puts JH under the talon and the last draw takes it
    state = deal(*DEAL_A)
    play(state, "exchange", *A_T1_T4, *A_T5)
    assert state.trump_suit == 2 and state.trump_card == -1


def test_s2_first_dealer_is_seeded_random():
    rules = Rules()
    dealers = {GameState.from_seed(rules, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1}
    for s in range(10):
        a, b = GameState.from_seed(rules, seed=s), GameState.from_seed(rules, seed=s)
        assert (a.dealer, a.hands, a.talon, a.trump_card) == (b.dealer, b.hands, b.talon, b.trump_card)


# ================================================================ §3 tricks


def test_s3_higher_card_of_led_suit_wins():
    # P0 KS / P1 AS: P1 +15 (4 + 11), P1 draws AD, P0 draws TD, P1 leads
    state = play(deal(*DEAL_A), "play KS", "play AS")
    assert state.eyes == [0, 15] and state.tricks_won == [0, 1]
    assert state.current_player == 1
    assert "AD" in hand(state, 1) and "TD" in hand(state, 0)


def test_s3_off_suit_discard_loses_even_if_higher_rank():
    # P0 QS / P1 KC (not spade, not trump): P0 +7
    state = play(deal(*DEAL_A), "play QS", "play KC")
    assert state.eyes == [7, 0] and state.current_player == 0


def test_s3_trump_beats_a_non_trump_lead():
    # P0 AC / P1 TH (trump): P1 +21
    state = play(deal(*DEAL_A), "play AC", "play TH")
    assert state.eyes == [0, 21] and state.current_player == 1


def test_s3_trump_lead_higher_trump_wins():
    # P0 JH / P1 TH: P1 +12
    state = play(deal(*DEAL_A), "play JH", "play TH")
    assert state.eyes == [0, 12]


def test_s3_trump_lead_beats_a_non_trump_ace():
    # P0 JH / P1 AS: P0 +13
    state = play(deal(*DEAL_A), "play JH", "play AS")
    assert state.eyes == [13, 0]


def test_s3_phase1_winner_draws_first_then_loser():
    # P0 AC / P1 JD: P0 +13, draws AD (talon top), P1 draws TD
    state = play(deal(*DEAL_A), "play AC", "play JD")
    assert hand(state, 0) == {"TC", "KS", "QS", "JH", "AD"}
    assert hand(state, 1) == {"AS", "TS", "KC", "TH", "TD"}
    assert state.talon_size == 7


def test_s3_phase1_last_facedown_card_to_winner_trump_card_to_loser():
    # after T4 (see DEAL_A) one face-down card (QC) is left; T5 P0 JC / P1 JS: P0 +4
    # (59): P0 draws QC, P1 gets the face-up QH; the talon is exhausted
    state = play(deal(*DEAL_A), *A_T1_T4)
    assert state.talon_size == 1 and state.trump_card == parse_card("QH")
    play(state, *A_T5)
    assert state.eyes == [59, 0]
    assert hand(state, 0) == {"KS", "QS", "JH", "AH", "QC"}
    assert hand(state, 1) == {"AS", "TS", "TH", "KH", "QH"}
    assert state.talon_size == 0 and state.trump_card == -1
    # the loser's face-up card is public (RULES §8)
    assert state.information_set(0).opponent_known == 1 << parse_card("QH")


def test_s3_phase1_follower_is_free_to_discard_or_trump():
    # P0 leads KS; P1 (AS TS KC JD TH) may play anything: no duty to follow or win
    state = play(deal(*DEAL_A), "play KS")
    assert legal_texts(state) == {"play AS", "play TS", "play KC", "play JD", "play TH"}


def test_s3_phase1_lower_card_while_holding_higher_is_legal():
    # P0 KS / P1 TS would win; P1 may play KC instead: P0 +8
    state = play(deal(*DEAL_A), "play KS", "play KC")
    assert state.eyes == [8, 0]


def test_s3_phase2_exhausted_talon_follower_must_win_with_higher_card_of_led_suit():
    # after T5 P0: KS QS JH AH QC, P1: AS TS TH KH QH; P0 leads KS: P1 must play AS or TS
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5, "play KS")
    assert legal_texts(state) == {"play AS", "play TS"}


def test_s3_phase2_exhausted_talon_follower_without_led_suit_must_trump():
    # P0 leads QC: P1 holds no club, must trump (TH KH QH), not discard a spade
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5, "play QC")
    assert legal_texts(state) == {"play TH", "play KH", "play QH"}
    snap = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(act(state, "play AS"))
    assert snapshot(state) == snap


def test_s3_phase2_exhausted_talon_lower_of_led_suit_when_unable_to_win():
    # P0 leads AH (trump ace): P1's trumps are all lower and must be played
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5, "play AH")
    assert legal_texts(state) == {"play TH", "play KH", "play QH"}


def test_s3_phase2_closed_talon_follower_must_win_with_higher_card_of_led_suit():
    # DEAL_P2, P0 closes, leads KS: P1 (AS JS KH TD JD) must play AS (not JS, not trump KH)
    state = after_close(DEAL_P2, "play KS")
    assert legal_texts(state) == {"play AS"}


def test_s3_phase2_closed_talon_lower_card_of_led_suit_before_trump():
    # P0 leads AD: P1 cannot win in diamonds, must still follow (TD or JD), not trump KH
    state = after_close(DEAL_P2, "play AD")
    assert legal_texts(state) == {"play TD", "play JD"}


def test_s3_phase2_closed_talon_must_trump_without_led_suit():
    # P0 leads AC: P1 holds no club, must trump KH
    state = after_close(DEAL_P2, "play AC")
    assert legal_texts(state) == {"play KH"}


def test_s3_phase2_closed_talon_any_card_without_led_suit_or_trump():
    # DEAL_P2B: P0 leads AH (trump); P1 (AS JS TD JD KC) holds no heart: any card
    state = after_close(DEAL_P2B, "play AH")
    assert legal_texts(state) == {"play AS", "play JS", "play TD", "play JD", "play KC"}
    # P0 leads AC: P1's only club KC (lower) must be played
    state = after_close(DEAL_P2B, "play AC")
    assert legal_texts(state) == {"play KC"}


def test_s3_no_drawing_after_closing():
    # DEAL_P2: P0 closes, AC / KH: P1 +15 (trump), nobody draws
    state = after_close(DEAL_P2, "play AC", "play KH")
    assert state.eyes == [0, 15]
    assert state.talon_size == 9 and len(hand(state, 0)) == 4 and len(hand(state, 1)) == 4


# ================================================================ §4 exchange


def test_s4_first_lead_legal_actions_default():
    # DEAL_A first lead: any card, marriage S (KS QS), exchange (JH), close; no declare (auto)
    state = deal(*DEAL_A)
    assert legal_texts(state) == {*plays("AC TC KS QS JH"), "marriage S", "exchange", "close"}


def test_s4_exchange_trump_jack_for_trump_card_at_first_lead():
    state = play(deal(*DEAL_A), "exchange")
    assert hand(state, 0) == {"AC", "TC", "KS", "QS", "QH"}
    assert state.trump_card == parse_card("JH") and state.trump_suit == 2
    assert state.current_player == 0 and state.lead_card == -1
    assert state.exchange == (0, parse_card("QH"), parse_card("JH"))
    assert "exchange" not in legal_texts(state)
    # the card taken is public
    assert state.information_set(1).opponent_known & (1 << parse_card("QH"))


def test_s4_exchange_nine_in_sechsundsechzig():
    state = deal(*DEAL_24, variant="sechsundsechzig")
    assert "exchange" in legal_texts(state)
    play(state, "exchange")
    assert "QH" in hand(state, 0) and "9H" not in hand(state, 0) and "JH" in hand(state, 0)
    assert state.trump_card == parse_card("9H")


def test_s4_trump_jack_does_not_exchange_in_sechsundsechzig():
    # P0 holds JH but the 9H lies in the talon: no exchange
    state = deal(
        "AC TC KS QS JH 9D", "AS TS KC JD TH 9C", "QH", "AD TD KD QD 9H JC JS 9S AH KH QC", variant="sechsundsechzig"
    )
    assert "exchange" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(EXCHANGE)


def test_s4_exchange_only_by_the_player_on_lead():
    # DEAL_B: P1 holds JH. P0 leads AC; P1 (follower) may not exchange
    state = play(deal(*DEAL_B), "play AC")
    assert EXCHANGE not in state.legal_actions()
    snap = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(EXCHANGE)
    assert snapshot(state) == snap
    # P1 trumps with TH: P1 +21, draws AD; P1 is on lead and may exchange now
    play(state, "play TH")
    assert state.eyes == [0, 21] and state.current_player == 1
    assert "exchange" in legal_texts(state)
    play(state, "exchange")
    assert "QH" in hand(state, 1)


def test_s4_exchange_not_by_a_player_without_the_lowest_trump():
    # DEAL_A: P0 KS / P1 AS: P1 +15 leads, but P0 holds JH: no exchange for P1
    state = play(deal(*DEAL_A), "play KS", "play AS")
    assert "exchange" not in legal_texts(state)


def test_s4_exchange_allowed_with_one_facedown_card_left_by_default():
    # after T4 one face-down card; P0 exchanges JH for QH; T5 JC / JS: P0 draws QC,
    # P1 gets the JH that lay under the talon
    state = play(deal(*DEAL_A), *A_T1_T4)
    assert state.talon_size == 1
    play(state, "exchange", *A_T5)
    assert "QH" in hand(state, 0) and "JH" in hand(state, 1)


def test_s4_sharp_forbids_exchange_at_first_lead_and_with_one_facedown_card_left():
    state = deal(*DEAL_A, variant="schnapsen-sharp")
    assert "exchange" not in legal_texts(state)
    play(state, "play AC", "play JD")  # P0 +13, talon 7
    assert "exchange" in legal_texts(state)
    play(state, "play AD", "play TD", "play TC", "play KC", "play KD", "play QD")  # talon 1
    assert state.talon_size == 1
    assert "exchange" not in legal_texts(state)


def test_s4_no_exchange_after_closing():
    state = play(deal(*DEAL_A), "close")
    assert "exchange" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(EXCHANGE)


def test_s4_no_exchange_when_the_trump_card_is_gone():
    # after T5 P0 still holds JH but the talon is exhausted
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5)
    assert "JH" in hand(state, 0)
    assert "exchange" not in legal_texts(state)


def test_s4_no_exchange_after_announcing_a_marriage():
    # RULES §9: after "marriage S" the next action must lead KS/QS (or declare)
    state = play(deal(*DEAL_A), "marriage S")
    assert legal_texts(state) == {"play KS", "play QS"}
    with pytest.raises(IllegalActionError):
        state.apply(EXCHANGE)


# ================================================================ §4 closing


def test_s4_close_before_the_first_trick():
    state = play(deal(*DEAL_A), "close")
    assert state.closed_by == 0 and state.current_player == 0
    info = state.information_set(1)
    assert info.closed_by == 0 and info.closed_opponent_had_trick is False and info.closed_opponent_eyes == 0


def test_s4_cannot_close_the_talon_twice():
    state = play(deal(*DEAL_A), "close")
    assert CLOSE not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(CLOSE)
    # nor can the opponent once on lead: P0 KS / P1 AS (must win), P1 +15 leads
    play(state, "play KS", "play AS")
    assert state.current_player == 1 and CLOSE not in state.legal_actions()


def test_s4_cannot_close_an_exhausted_talon():
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5)
    assert "close" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(CLOSE)


def test_s4_close_with_one_facedown_card_left_default_but_not_sharp():
    state = play(deal(*DEAL_A), *A_T1_T4)
    assert state.talon_size == 1 and "close" in legal_texts(state)
    sharp = play(deal(*DEAL_A, variant="schnapsen-sharp"), *A_T1_T4)
    assert sharp.talon_size == 1 and "close" not in legal_texts(sharp)
    # earlier, sharp allows closing
    assert "close" in legal_texts(deal(*DEAL_A, variant="schnapsen-sharp"))


@pytest.mark.parametrize("variant,options", [("schnapsen", {"allow_closing": False}), ("vu-course", {})])
def test_s4_allow_closing_false_forbids_closing(variant, options):
    state = deal(*DEAL_A, variant=variant, **options)
    assert CLOSE not in state.legal_actions()
    play(state, "play AC", "play JD")
    assert CLOSE not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(CLOSE)


def test_s4_only_the_player_on_lead_may_close():
    state = play(deal(*DEAL_A), "play AC")
    with pytest.raises(IllegalActionError):
        state.apply(CLOSE)


def test_s4_closing_records_closer_opponent_eyes_and_trick():
    # P1 wins T1 QS / AH (+14 ... see test_s5_closed_talon_closer_scored_on_eyes_at_closing)
    state = deal("KH KS QS TC TH", "AH JC JD JS TS", "JH", "TD KC KD QC AC AD QH AS QD")
    play(state, "play QS", "play AH", "play TD", "play TC", "play JC", "play KC", "play QC", "play JD", "close")
    info = state.information_set(0)
    assert info.closed_by == 0 and info.closed_opponent_eyes == 34 and info.closed_opponent_had_trick is True


# ================================================================ §4 marriages


def test_s4_marriage_20_credited_at_once_after_a_trick():
    # T1 P0 AC / P1 JD: P0 +13; P0 announces S (not trump): 13 + 20 = 33 at once
    state = play(deal(*DEAL_A), "play AC", "play JD", "marriage S")
    assert state.eyes == [33, 0] and state.held_marriage_eyes == [0, 0]
    assert legal_texts(state) == {"play KS", "play QS"}


def test_s4_marriage_40_in_trump_held_until_the_first_trick():
    # DEAL_C: P0 announces H (trump) at the first lead: 40 held; QH / JD: P0 +5, then 40 -> 45
    state = play(deal(*DEAL_C), "marriage H")
    assert state.eyes == [0, 0] and state.held_marriage_eyes == [40, 0]
    assert state.information_set(1).held_marriage_eyes == (40, 0)
    play(state, "play QH", "play JD")
    assert state.eyes == [45, 0] and state.held_marriage_eyes == [0, 0]


def test_s4_marriage_held_stays_held_when_announcer_loses_the_trick():
    # DEAL_C: P0 announces H (40 held), leads KH; P1 TH (higher trump): P1 +14; still held
    state = play(deal(*DEAL_C), "marriage H", "play KH", "play TH")
    assert state.eyes == [0, 14] and state.held_marriage_eyes == [40, 0]


def test_s4_marriage_must_lead_king_or_queen_of_that_suit():
    state = play(deal(*DEAL_A), "marriage S")
    assert legal_texts(state) == {"play KS", "play QS"}
    snap = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(act(state, "play AC"))
    assert snapshot(state) == snap
    play(state, "play QS")  # the queen is fine by default
    assert state.lead_card == parse_card("QS")


@pytest.mark.parametrize(
    "variant,options",
    [
        ("schnapsen", {"marriage_leads_king": True}),
        ("schnapsen-sharp", {}),
        ("schnapsen", {"sharp": True}),
        ("vu-course", {}),
    ],
)
def test_s4_marriage_leads_king_option_and_sharp_allow_only_the_king(variant, options):
    state = play(deal(*DEAL_A, variant=variant, **options), "play AC", "play JD", "marriage S")
    plays = {t for t in legal_texts(state) if t.startswith("play")}
    assert plays == {"play KS"}
    with pytest.raises(IllegalActionError):
        state.apply(act(state, "play QS"))


def test_s4_at_most_one_marriage_per_lead():
    state = play(deal(*DEAL_C), "marriage H")
    assert "marriage S" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(MARRIAGE_BASE + 1)  # marriage S


def test_s4_marriage_needs_king_and_queen():
    # DEAL_A: P0 holds no club pair
    state = deal(*DEAL_A)
    with pytest.raises(IllegalActionError):
        state.apply(MARRIAGE_BASE + 0)


def test_s4_marriage_lost_if_announcer_never_wins_a_trick():
    # trump hearts (KH face up). P0 announces S at the first lead (20 held), leads KS;
    # P1 AS: P1 +15, draws TC, P0 KC. P1 closes (P0: no trick, 0 eyes).
    # AC / JC +13 (28); TC / QC +13 (41); TS / QS +13 (54); AH / JD (P0 has no heart:
    # any card) +13 -> 67: P1 wins 3 (P0 had no trick at closing), P0's 20 is lost.
    state = deal("KS QS JC JD QC", "AH TH AS TS AC", "KH", "TC KC AD TD KD QD JS QH JH")
    play(state, "marriage S", *plays("KS AS"), "close", *plays("AC JC TC QC TS QS AH JD"))
    assert outcome_tuple(state) == (1, 3, "declared_66", (0, 67), (0, 5))


def test_s4_marriage_credit_next_trick_held_although_announcer_has_a_trick():
    # T1 P0 AC / P1 JD: P0 +13; marriage S held (next_trick): 13, held 20;
    # QS / KC: P0 +7 and the 20 -> 40
    state = play(deal(*DEAL_A, marriage_credit="next_trick"), "play AC", "play JD", "marriage S")
    assert state.eyes == [13, 0] and state.held_marriage_eyes == [20, 0]
    play(state, "play QS", "play KC")
    assert state.eyes == [40, 0] and state.held_marriage_eyes == [0, 0]


def test_s4_marriage_credit_next_trick_lost_trick_keeps_it_held():
    # as above but P1 wins QS with AS (+14): the 20 stays held
    state = play(deal(*DEAL_A, marriage_credit="next_trick"), "play AC", "play JD", "marriage S", "play QS", "play AS")
    assert state.eyes == [13, 14] and state.held_marriage_eyes == [20, 0]


def test_s4_sharp_marriage_only_once_the_announcer_has_a_trick():
    state = deal(*DEAL_A, variant="schnapsen-sharp")
    assert "marriage S" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(MARRIAGE_BASE + 1)
    play(state, "play AC", "play JD")  # P0 +13
    assert "marriage S" in legal_texts(state)


def test_s4_only_the_player_on_lead_may_announce():
    # P1 (dealer) holds both pairs of DEAL_C; P0 leads AS; P1 may not announce
    state = deal("AS TS KC JD TH", "KH QH AC KS QS", "JH", "AD TD KD QD JC JS AH TC QC")
    play(state, "play AS")
    assert not any(MARRIAGE_BASE <= a < EXCHANGE for a in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply(MARRIAGE_BASE + 2)


# ================================================================ §5 scoring


@pytest.mark.parametrize(
    "eyes,trick,points", [(0, False, 3), (40, False, 3), (0, True, 2), (32, True, 2), (33, True, 1), (65, True, 1)]
)
def test_s5_scale_3_2_1_with_32_33_boundary(eyes, trick, points):
    assert game_points_for(eyes, trick) == points


def test_s5_auto_66_after_a_trick_loser_without_trick_3():
    # DEAL_A T1-T5: 59:0; P0 AH / P1 TH (must give a lower trump): +21 -> 80: 3
    state = play(deal(*DEAL_A), *A_T1_T4, *A_T5, "play AH", "play TH")
    assert outcome_tuple(state) == (0, 3, "declared_66", (80, 0), (6, 0))


def test_s5_loser_with_32_eyes_gives_2():
    # trump KS. T1 P0 JS/KC +6; T2 TH/JD +12 (18); T3 P0 AC / P1 TS (trump) P1 +21;
    # T4 P1 AS/JH +13 (34); T5 AH/QS (trump) P0 +14 (32); T6 QD/KD P1 +7 (41);
    # T7 KH/QH +7 (48); T8 TC/QC +13 (61); T9 KS/TD +14 -> 75. P0 32 with a trick: 2.
    state = deal("QS JH AD JS TH", "AH KC KH TC JD", "KS", "AC JC QD TS AS QC KD TD QH")
    play(state, *plays("JS KC TH JD AC TS AS JH AH QS QD KD KH QH TC QC KS TD"))
    assert outcome_tuple(state) == (1, 2, "declared_66", (32, 75), (3, 6))


def test_s5_loser_with_33_eyes_gives_1():
    deck = "TS QS KH JS QD KC KD JD QC QH AD AH TD TC TH AS JH AC KS JC".split()
    state = GameState(Rules(), deck, 1)
    # P0: TS QS KH QH AD? no: P0 = deck[0:3]+deck[7:9] = TS QS KH + JD QC; P1 = JS QD KC + QH AD
    assert hand(state, 0) == {"TS", "QS", "KH", "JD", "QC"}
    assert hand(state, 1) == {"JS", "QD", "KC", "QH", "AD"}
    # trump KD. T1 P0 JD/KC +6; T2 KH/QD (trump) P1 +7; T3 P1 TD/QC +13 (20); T4 QH/JH +5 (25);
    # T5 AS/AH +22 (47); T6 AC/KD P0 +15 (21); T7 TS/JS +12 (33); T8 KS/AD P1 +15 (62);
    # T9 TC/TH +20 -> 82. P0 33 with a trick: 1.
    play(state, *plays("JD KC KH QD TD QC QH JH AS AH AC KD TS JS KS AD TC TH"))
    assert outcome_tuple(state) == (1, 1, "declared_66", (33, 82), (3, 6))


def test_s5_auto_marriage_reaching_66_ends_the_game():
    # DEAL_A T1-T4: 55:0; marriage S: 75 -> the game ends at once, P1 trickless: 3
    state = play(deal(*DEAL_A), *A_T1_T4, "marriage S")
    assert outcome_tuple(state) == (0, 3, "declared_66", (75, 0), (4, 0))
    assert state.legal_actions() == []


def test_s5_declare_is_never_legal_under_auto():
    state = deal(*DEAL_A)
    assert DECLARE not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(DECLARE)


def test_s5_manual_reaching_66_does_not_end_the_game_declare_does():
    state = play(deal(*DEAL_A, declare="manual"), *A_T1_T4, "marriage S")
    assert state.outcome is None and state.eyes == [75, 0]
    assert legal_texts(state) == {"play KS", "play QS", "declare"}
    play(state, "declare")
    assert outcome_tuple(state) == (0, 3, "declared_66", (75, 0), (4, 0))


def test_s5_manual_declare_legal_for_player_on_lead_at_any_time_not_follower():
    state = deal(*DEAL_A, declare="manual")
    assert "declare" in legal_texts(state)
    play(state, "play AC")
    assert "declare" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        state.apply(DECLARE)


# DEAL_S (trump hearts, JH face up): T1 P0 TC / P1 TS (off suit): P0 +20, draws AH, P1 TH;
# T2 P0 TD / P1 JC: P0 +12 (32)  [or QC: +13 (33)]; P0 draws KH, P1 QH;
# T3 P0 QS / P1 AS: P1 +14, P1 leads and declares falsely (14 < 66).
DEAL_S = ("TC TD QS KD AC", "TS JC QC AS KC", "JH", "AH TH KH QH JS KS AD JD QD")


@pytest.mark.parametrize("second,p0_eyes,points", [("play JC", 32, 2), ("play QC", 33, 1)])
def test_s5_false_declaration_opponent_wins_as_if_correct(second, p0_eyes, points):
    # had P1 been right, P0 (the loser) with p0_eyes and a trick would give `points`
    state = deal(*DEAL_S, declare="manual")
    play(state, "play TC", "play TS", "play TD", second, "play QS", "play AS", "declare")
    assert outcome_tuple(state) == (0, points, "false_declaration", (p0_eyes, 14), (2, 1))


def test_s5_false_declaration_against_trickless_opponent_gives_3():
    # P0 QS / P1 AS: P1 +14, declares falsely; P0 has no trick: P0 wins 3
    state = play(deal(*DEAL_S, declare="manual"), "play QS", "play AS", "declare")
    assert outcome_tuple(state) == (0, 3, "false_declaration", (0, 14), (0, 1))


@pytest.mark.parametrize(
    "actions,p0_eyes,tricks",
    [
        (("play TC", "play TS", "play TD", "play QC", "play QS", "play AS"), 33, (2, 1)),  # as-if-correct: 1
        (("play QS", "play AS"), 0, (0, 1)),  # as-if-correct: 3
    ],
)
def test_s5_false_declaration_points_2_is_a_fixed_2(actions, p0_eyes, tricks):
    state = play(deal(*DEAL_S, declare="manual", false_declaration_points=2), *actions, "declare")
    assert outcome_tuple(state) == (0, 2, "false_declaration", (p0_eyes, 14), tricks)


def test_s5_false_declaration_at_first_lead():
    # P0 declares with 0 eyes; P1 has no trick: P1 wins 3
    state = play(deal(*DEAL_A, declare="manual"), "declare")
    assert outcome_tuple(state) == (1, 3, "false_declaration", (0, 0), (0, 0))


# last trick, 20 cards (trump spades, AS face up):
# T1 P0 AH/QC +14; T2 AD/TC +21 (35); T3 JD/JS (trump) P1 +4; T4 P1 QD/KD P0 +7 (42);
# T5 KC/TS (trump) P1 +14 (18) -- talon exhausted, P1 gets... P0 gets AS;
# T6 P1 KS/AS P0 +15 (57); T7 AC/QS (trump) P1 +14 (32); T8 QH/KH P0 +7 (64);
# T9 P0 JH/TH P1 +12 (44); T10 P1 TD/JC +12 -> 56. Nobody reached 66; P1 wins the last trick: 1.
LAST20 = "JD JH KD TD JS QH AS AD AH QS QC KC TC AC QD TS JC KH TH KS".split()
LAST20_ACTIONS = plays("AH QC AD TC JD JS QD KD KC TS KS AS AC QS QH KH JH TH TD JC")


def test_s5_last_trick_wins_1_game_point():
    state = GameState(Rules(), LAST20, 1)
    play(state, *LAST20_ACTIONS)
    assert outcome_tuple(state) == (1, 1, "last_trick", (64, 56), (5, 5))


def test_s5_last_trick_manual_mode_ends_by_itself():
    state = GameState(Rules(declare="manual"), LAST20, 1)
    play(state, *LAST20_ACTIONS)
    assert outcome_tuple(state) == (1, 1, "last_trick", (64, 56), (5, 5))


def test_s5_sechsundsechzig_last_trick_10_eyes_below_66_is_1_point():
    # trump clubs (9C face up). T1 P0 9H/TC P1 +10; T2 JC/QC P0 +5; T3 9D/TH P0 +10 (15);
    # T4 AH/KD +15 (30); T5 QH/KH P1 +7 (17); T6 P1 QD/KC (trump) P0 +7 (37);
    # T7 TS/KS +14 (51); T8 TD/AD P1 +21 (38); T9 JD/JH +4 (42); T10 9C/9S +0;
    # T11 QS/AS P0 +14 (65); T12 P0 JS / P1 AC (trump) +13 (55) + 10 last trick = 65: 1 point.
    deck = "TD 9H QC QD TH KH JS 9D QH KS QS TC 9C JC AS KC JD AH KD TS AC AD 9S JH".split()
    state = GameState(Rules.preset("sechsundsechzig"), deck, 1)
    play(state, *plays("9H TC JC QC 9D TH AH KD QH KH QD KC TS KS TD AD JD JH 9C 9S QS AS JS AC"))
    assert outcome_tuple(state) == (1, 1, "last_trick", (65, 65), (6, 6))


def test_s5_sechsundsechzig_last_trick_10_eyes_reach_66_on_the_scale():
    # trump hearts (QH face up). T1 JD/QD P1 +5; T2 P1 QC / P0 TH P0 +13; T3 AS/9C +11 (24);
    # T4 JC/KC P1 +6 (11); T5 P1 9D / P0 KH +4 (28); T6 QS/TS P1 +13 (24); T7 P1 JH / P0 AH +13 (41);
    # T8 9S/JS P1 +2 (26); T9 P1 KS / P0 9H (trump) +4 (45); T10 TC/AC P1 +21 (47);
    # T11 TD/KD P1 +14 (61); T12 P1 AD / P0 QH (trump) +14 (59) + 10 = 69 >= 66: P1 61 -> 1.
    deck = "JD TH QS QD AD JS JC AH AS QC 9D 9C QH KC 9H TC TS KH AC JH KD 9S KS TD".split()
    state = GameState(Rules.preset("sechsundsechzig"), deck, 1)
    play(state, *plays("JD QD QC TH AS 9C JC KC 9D KH QS TS JH AH 9S JS KS 9H TC AC TD KD AD QH"))
    assert outcome_tuple(state) == (0, 1, "declared_66", (69, 61), (6, 6))


# DEAL_CL closings, trump hearts. P0 closes at the first lead (P1: 0 eyes, no trick).
# 40 held; QH/JD +5 -> 45; QC/KC: P1 must win with a higher club, +7; JS/TS: P0 must win with a higher
# spade, +12 -> 57; AS/QD: P1 has no spade, no trump: +14 -> 71
CL_WIN = ("close", "marriage H", *plays("QH JD QC KC JS TS AS QD"))


def test_s5_closed_talon_closer_scored_on_eyes_at_closing():
    # P1 had no trick when the talon was closed: 3, though P1 ends with a trick and 7 eyes
    state = play(deal(*DEAL_CL), *CL_WIN)
    assert outcome_tuple(state) == (0, 3, "declared_66", (71, 7), (3, 1))


def test_s5_closing_counts_later_eyes_uses_final_eyes_and_tricks():
    # same game, closing_counts_later_eyes: P1 ends with a trick and 7 eyes: 2
    for kw in ({"closing_counts_later_eyes": True}, {"variant": "schnapsen-tournament"}):
        state = play(deal(*DEAL_CL, **kw), *CL_WIN)
        assert outcome_tuple(state) == (0, 2, "declared_66", (71, 7), (3, 1))


def test_s5_closed_talon_opponent_had_33_at_closing_gives_1():
    # trump hearts (JH). T1 P0 QS / P1 AH P1 +14; T2 P1 TD / P0 TC +20 (34); T3 JC/KC P0 +6;
    # T4 QC/JD +5 (11); one face-down card left: P0 closes (P1: 34, a trick).
    # QH/KD +7 (18); KS/TS P1 +14 (48); P1 JS / P0 TH (must trump) +12 (30); AC/AS +22 (52);
    # KH/AD +15 -> 67: P0 wins on P1's 34 at closing: 1.
    state = deal("KH KS QS TC TH", "AH JC JD JS TS", "JH", "TD KC KD QC AC AD QH AS QD")
    play(state, "play QS", "play AH", "play TD", "play TC", "play JC", "play KC", "play QC", "play JD")
    assert state.talon_size == 1 and state.eyes == [11, 34]
    play(state, "close", *plays("QH KD KS TS JS TH AC AS KH AD"))
    assert outcome_tuple(state) == (0, 1, "declared_66", (67, 48), (6, 3))


def test_s5_closing_failed_gives_3_when_opponent_had_no_trick_at_closing():
    # P0 closes; QC/AC P1 +14; P1 KC / P0 QH (must trump) +7; KH/JD +6 (13); AS/JS +13 (26);
    # TS/QD +13 -> 39. All cards played, P0 below 66: closing failed, P1 trickless at closing: 3
    state = play(deal(*DEAL_CL), "close", *plays("QC AC KC QH KH JD AS JS TS QD"))
    assert outcome_tuple(state) == (1, 3, "closing_failed", (39, 14), (4, 1))


def test_s5_closing_failed_gives_2_when_opponent_had_a_trick_no_last_trick_rule():
    # trump diamonds (QD). T1 P0 JC / P1 AH +13; T2 KC/AD (trump) P1 +15; P1 closes (P0: 13, a trick).
    # KS/TS P0 +14 (27); QH/KH P1 +7 (22); AS/JS +13 (35); KD/TC +14 (49); JH/QC +5 -> 54.
    # P1 won the last trick but the talon was closed: closing failed, 2.
    deck = "JC JS TS AS JH KD QD TC KC AD AH QC KH KS QH AC TD TH QS JD".split()
    state = GameState(Rules(), deck, 1)
    play(state, *plays("JC AH KC AD"), "close", *plays("KS TS QH KH AS JS KD TC JH QC"))
    assert outcome_tuple(state) == (0, 2, "closing_failed", (27, 54), (2, 5))


@pytest.mark.parametrize("declare", ["auto", "manual"])
def test_s5_closing_failed_when_opponent_reaches_66_by_a_marriage(declare):
    # DEAL_CL: T1 AS/JS P0 +13 (draws TC, P1 JC); T2 QC/AC P1 +14 (draws KS, P0 QS);
    # P1 closes (P0: 13, a trick). KS/TS (must win) P0 +14 (27); P0 announces 40: 67.
    # The closer's opponent reached 66: closing failed, 2 (P0 had a trick at closing).
    state = play(deal(*DEAL_CL, declare=declare), *plays("AS JS QC AC"), "close", *plays("KS TS"), "marriage H")
    if declare == "manual":
        assert state.outcome is None
        play(state, "declare")
    assert outcome_tuple(state) == (0, 2, "closing_failed", (67, 14), (2, 1))


def test_s5_closer_false_declaration_is_a_failed_closing():
    # P0 closes and declares with 0 eyes: closing failed, P1 trickless at closing: 3
    state = play(deal(*DEAL_CL, declare="manual"), "close", "declare")
    assert outcome_tuple(state) == (1, 3, "closing_failed", (0, 0), (0, 0))


def test_s5_no_sechsundsechzig_bonus_after_closing():
    # 24 cards: P0 closes at once and the last trick earns no 10 eyes: eyes total 120 minus talon
    state = deal(*DEAL_24, variant="sechsundsechzig", declare="manual")
    play(state, "close")
    import random

    rng = random.Random(5)
    while not state.is_terminal:
        state.apply(rng.choice([a for a in state.legal_actions() if a != DECLARE]))
    from schnapsen_env.cards import CARD_EYES

    left = list(state.talon) + [state.trump_card]
    marriages = sum(40 if s == state.trump_suit else 20 for p, s in state.marriages if state.tricks_won[p])
    assert sum(state.outcome.eyes) == 120 - sum(CARD_EYES[c] for c in left) + marriages
    assert state.outcome.reason in ("declared_66", "closing_failed")


def test_s5_renonce_opponent_wins_3():
    state = play(deal(*DEAL_A), "play AC", "play JD")
    state.renonce(1)
    assert outcome_tuple(state) == (0, 3, "renonce", (13, 0), (1, 0))
    assert state.legal_actions() == []
    state2 = deal(*DEAL_A)
    state2.renonce(0)
    assert outcome_tuple(state2) == (1, 3, "renonce", (0, 0), (0, 0))


def test_s5_any_action_after_the_end_is_illegal():
    state = play(deal(*DEAL_A), *A_T1_T4, "marriage S")  # ends at 75
    snap = snapshot(state)
    for a in range(NUM_ACTIONS):
        with pytest.raises(IllegalActionError):
            state.apply(a)
    assert snapshot(state) == snap


# ======================================================= errors and options


def test_illegal_action_raises_value_error_and_leaves_state_unchanged():
    states = [
        deal(*DEAL_A),
        play(deal(*DEAL_A), "play KS"),
        play(deal(*DEAL_A), "marriage S"),
        after_close(DEAL_P2, "play AD"),
        play(deal(*DEAL_A), *A_T1_T4, *A_T5, "play QC"),
        deal(*DEAL_A, variant="schnapsen-sharp"),
    ]
    checked = 0
    for state in states:
        legal = set(state.legal_actions())
        for a in [*range(NUM_ACTIONS), -1, NUM_ACTIONS, 99]:
            if a in legal:
                continue
            snap = snapshot(state)
            mask = state.legal_mask()
            with pytest.raises(ValueError) as e:
                state.apply(a)
            assert isinstance(e.value, IllegalActionError)
            assert snapshot(state) == snap and state.legal_mask() == mask
            checked += 1
    assert checked > 100


BAD_OPTION_VALUES = [
    ("deck", 22),
    ("deck", "20"),
    ("sharp", "yes"),
    ("declare", "auto2"),
    ("false_declaration_points", 3),
]
BAD_OPTION_VALUES += [
    ("closing_counts_later_eyes", 1),
    ("show_eyes", None),
    ("allow_closing", 0),
    ("bummerl_target", 0),
]
BAD_OPTION_VALUES += [("marriage_leads_king", "true"), ("marriage_credit", "at_once"), ("bummerl_target", 2.5)]
BAD_OPTION_VALUES += [("schneider_bummerl", "no")]


@pytest.mark.parametrize("name,value", BAD_OPTION_VALUES)
def test_rules_bad_option_value_raises_naming_option_and_allowed_values(name, value):
    with pytest.raises(ValueError) as e:
        Rules.from_dict({name: value})
    msg = str(e.value)
    assert name in msg and "allowed" in msg


def test_rules_unknown_option_raises_naming_it_and_the_options():
    with pytest.raises(ValueError) as e:
        Rules.from_dict({"last_trick_points": 1})
    msg = str(e.value)
    assert "last_trick_points" in msg and "marriage_credit" in msg and "deck" in msg
    with pytest.raises(ValueError):
        Rules.preset("bauernschnapsen")


def test_rules_good_values_accepted():
    good = {"deck": 24, "declare": "manual", "false_declaration_points": 2, "bummerl_target": 3}
    r = Rules.from_dict({**good, "marriage_credit": "next_trick"})
    assert {k: getattr(r, k) for k in good} == good and r.marriage_credit == "next_trick"
    assert r.hand_size == 6


DEFAULTS = {
    "deck": 20,
    "sharp": False,
    "declare": "auto",
    "false_declaration_points": "as_if_correct",
    "closing_counts_later_eyes": False,
    "show_eyes": True,
    "allow_closing": True,
    "marriage_leads_king": False,
    "marriage_credit": "first_trick",
    "bummerl_target": 7,
    "schneider_bummerl": True,
}


@pytest.mark.parametrize(
    "variant,changes",
    [
        ("schnapsen", {}),
        ("schnapsen-sharp", {"sharp": True, "declare": "manual", "show_eyes": False}),
        ("schnapsen-tournament", {"closing_counts_later_eyes": True, "schneider_bummerl": False}),
        ("sechsundsechzig", {"deck": 24}),
        ("vu-course", {"allow_closing": False, "marriage_leads_king": True, "marriage_credit": "next_trick"}),
    ],
)
def test_s7_presets_are_exactly_as_in_rules(variant, changes):
    r = Rules.preset(variant).to_dict()
    expected = {**DEFAULTS, **changes}
    if variant == "schnapsen-sharp":
        # sharp implies "marriage leads the king"; the preset may spell it out
        assert r.pop("marriage_leads_king") in (False, True)
        expected.pop("marriage_leads_king")
        assert Rules.preset(variant).king_only
    assert r == expected
    assert (
        set(VARIANTS)
        == set(PRESETS)
        == {"schnapsen", "schnapsen-sharp", "schnapsen-tournament", "sechsundsechzig", "vu-course"}
    )
    assert Rules() == Rules.preset("schnapsen")


# ================================================================ §6 Bummerl


def _out(winner, points):
    return Outcome(winner, points, "declared_66", (66, 0), (3, 0))


def test_s6_bummerl_first_to_7_game_points():
    b = Bummerl(Rules(), first_dealer=0)
    for w, p in [(0, 3), (1, 2), (0, 3)]:  # 6:2
        b.record(_out(w, p))
    assert not b.is_over and b.winner is None and b.value == 0
    b.record(_out(0, 1))  # 7:2
    assert b.is_over and b.winner == 0 and b.scores == [7, 2] and b.value == 1
    with pytest.raises(BummerlOverError):
        b.record(_out(1, 1))


def test_s6_bummerl_target_option():
    b = Bummerl(Rules(bummerl_target=3), first_dealer=1)
    b.record(_out(1, 2))
    assert not b.is_over
    b.record(_out(1, 1))
    assert b.winner == 1 and b.value == 2  # 3:0, Schneider-Bummerl


def test_s6_schneider_bummerl_counts_double():
    b = Bummerl(Rules(), first_dealer=0)
    for p in (3, 3, 2):  # 8:0
        b.record(_out(1, p))
    assert b.winner == 1 and b.is_schneider and b.value == 2


def test_s6_schneider_bummerl_off_counts_single():
    for rules in (Rules(schneider_bummerl=False), Rules.preset("schnapsen-tournament")):
        b = Bummerl(rules, first_dealer=0)
        for p in (3, 3, 2):
            b.record(_out(1, p))
        assert b.winner == 1 and b.value == 1


def test_s6_dealer_alternates_after_every_game():
    b = Bummerl(Rules(), first_dealer=1)
    dealers = []
    import random

    rng = random.Random(0)
    for _ in range(3):
        state = b.new_game(rng)
        dealers.append(state.dealer)
        assert state.current_player == 1 - state.dealer
        b.record(_out(0, 1))
    assert dealers == [1, 0, 1] and b.dealer == 0


@pytest.mark.parametrize("to_win", [2, 3])
def test_s6_match_first_to_2_or_3_bummerl_next_bummerl_at_0_0(to_win):
    m = Match(Rules(), first_dealer=0, bummerls_to_win=to_win)
    # Bummerl 1: P0 7:2 (value 1)
    for w, p in [(1, 2), (0, 3), (0, 3), (0, 1)]:
        m.record(_out(w, p))
    assert m.bummerl_wins == [1, 0] and m.bummerl.scores == [0, 0] and not m.is_over
    assert m.finished[0].scores == [7, 2]
    # Bummerl 2: P1 wins 7:1
    for w, p in [(0, 1), (1, 3), (1, 3), (1, 1)]:
        m.record(_out(w, p))
    assert m.bummerl_wins == [1, 1] and not m.is_over
    # Bummerl 3: P0 3+3+1 = 7:0, Schneider: counts 2
    for p in (3, 3, 1):
        m.record(_out(0, p))
    assert m.bummerl_wins == [3, 1]
    assert m.is_over and m.winner == 0
    with pytest.raises(BummerlOverError):
        m.record(_out(0, 1))


def test_s6_match_dealer_keeps_alternating_across_bummerl():
    m = Match(Rules(bummerl_target=1), first_dealer=0, bummerls_to_win=3)
    m.record(_out(0, 1))  # first Bummerl over after one game (dealer 0)
    assert m.bummerl.dealer == 1 and m.bummerl.scores == [0, 0]


# ======================================================= later additions (§5)


@pytest.mark.parametrize("fdp,points", [("as_if_correct", 3), (2, 2)])
def test_s5_false_declaration_by_closers_opponent_gives_closer_2_or_3(fdp, points):
    # DEAL_CL manual: P0 closes (P1 trickless), 40 held, QH/JD +5 -> 45; QC/KC P1 +7; P1 on lead
    # declares with 7: had P1 been right the closing would have failed with 3 -> P0 gets 3
    # (a fixed 2 under false_declaration_points=2)
    state = play(deal(*DEAL_CL, declare="manual", false_declaration_points=fdp), *CL_WIN[:6], "declare")
    assert outcome_tuple(state) == (0, points, "false_declaration", (45, 7), (1, 1))


HELD66 = "AH QD TD JH AC KD TH KC QC JS AS KS JC JD TS AD QS TC QH KH".split()


def test_s5_manual_undeclared_66_then_last_trick_wins_on_the_scale():
    # trump TH. T1 QC/JS P0 +5; T2 AH/JC +13 (18); T3 TD/KD +14 (32); T4 KS/JH (trump) P1 +6;
    # T5 P1 TC / P0 KC +14 (20); T6 P1 TS / P0 QH (trump) +13 (45); T7 JD/KH P1 +6 (26);
    # T8 P1 AC / P0 TH +21 -> 66 (not declared); T9 QD/AS +14 (80); T10 AD/QS +14 -> 94.
    # P0 wins the last trick holding 66+: declared_66 on the scale, P1 26 with a trick: 2
    state = GameState(Rules(declare="manual"), HELD66, 1)
    play(state, *plays("QC JS AH JC TD KD KS JH TC KC TS QH JD KH AC TH"))
    assert state.eyes == [66, 26] and state.outcome is None and "declare" in legal_texts(state)
    play(state, "play QD", "play AS", "play AD", "play QS")
    assert outcome_tuple(state) == (0, 2, "declared_66", (94, 26), (7, 3))


def test_s5_manual_undeclared_66_earns_nothing_when_other_wins_last_trick():
    # trump KC. T1 QS/AD P0 +14; T2 TS/TC (trump) P1 +20; T3 P1 JS / P0 QC +5 (19); T4 AH/JD +13 (32);
    # T5 JH/JC P1 +4 (24); T6 P1 KS / P0 AC +15 (47); T7 KH/QH +7 (54); T8 KC/AS +15 -> 69 (not
    # declared); T9 KD/TD P1 +14 (38); T10 P1 QD / P0 TH +13 -> 51, last trick: P1 wins 1
    deck = "QS QC TS AS AD TD KC KH AC TC QH AH JD JS JH TH JC KD QD KS".split()
    state = GameState(Rules(declare="manual"), deck, 1)
    play(state, *plays("QS AD TS TC JS QC AH JD JH JC KS AC KH QH KC AS KD TD QD TH"))
    assert outcome_tuple(state) == (1, 1, "last_trick", (69, 51), (6, 4))


def test_s5_closing_scale_uses_credited_eyes_not_held_marriage():
    # marriage_credit="next_trick", trump JH. T1 P0 TD / P1 QH (trump) P1 +13; T2 P1 QC / P0 AH +14;
    # P0 announces D: 20 held; T3 QD/KH P1 +7 (20); P1 closes: P0 has 14 credited eyes (+20 held)
    # and a trick. AC/JC +13 (33); TC/KD +14 (47); TH/KS +14 (61); AS/TS +21 -> 82.
    # Scored on P0's 14 credited eyes at closing: 2 (the held 20 would have made it 34: 1)
    deck = "KD AH KS AC QC KH JH JD TD TH QH AS QD JC TC KC TS JS QS AD".split()
    state = GameState(Rules(marriage_credit="next_trick"), deck, 1)
    play(state, "play TD", "play QH", "play QC", "play AH", "marriage D", "play QD", "play KH", "close")
    assert state.held_marriage_eyes == [20, 0] and state.eyes == [14, 20]
    play(state, "play AC", "play JC", "play TC", "play KD", "play TH", "play KS", "play AS", "play TS")
    assert outcome_tuple(state) == (1, 2, "declared_66", (14, 82), (1, 6))
