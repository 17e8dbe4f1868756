"""ExpertAgent (agents/players/expert.py): one hand-built position per tactic and legality on every
preset (determinism and independence from hidden cards: test_information_only.py).

Card ids: suit C S H D = 0..3, rank A T K Q J = 0..4, id = 6 * suit + rank (so AC 0,
TC 1, JC 4, AS 6, AH 12, TD 19, JD 22); actions: marriage 24 + suit, exchange 28, close 29.
"""

from __future__ import annotations

import random

import pytest
from helpers import deal, play

from agents import make_agent
from agents.players import solver
from agents.players.expert import ExpertAgent
from schnapsen_env.actions import CLOSE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import DIAMONDS, parse_card
from schnapsen_env.engine import GameState
from schnapsen_env.rules import PRESETS, Rules


def card(text: str) -> int:
    return parse_card(text)


def expert_move(state: GameState, player: int) -> int:
    return ExpertAgent(seed=0).act(state.information_set(player))


# ------------------------------------------------------------------ tactics
def test_exchange_first():
    # RULES §4: the forehand holds the trump jack JH, the ace AH lies face up
    s = deal("JH KH QH KS QS", "AC TC KC QC JC", "AH")
    assert expert_move(s, 0) == EXCHANGE


def test_trump_marriage_announced_first():
    # trump diamonds: marriages in diamonds (40) and spades (20) held; 40 first (RULES §4)
    s = deal("KD QD KS QS JC", "AC TC KC QC JS", "AD")
    assert expert_move(s, 0) == MARRIAGE_BASE + DIAMONDS


def test_closes_on_a_sure_hand():
    # AH TH KH QH of trump (JH face up): the opponent holds no trump and no heart. After closing:
    # AH wins (11 + at least 2), then 40 for the trump marriage, KH, TH: 11+2+40+4+2+10+2 = 71 >= 66,
    # every trick taken by a heart lead, in every world: closing wins 3 game points for sure
    s = deal("AH TH KH QH AC", "TC KC QC JC AS", "JH")
    assert expert_move(s, 0) == CLOSE


def test_does_not_close_a_weak_hand():
    # jacks, a lone queen and king: leads the cheapest card JC (2 eyes, no trump, no marriage partner)
    s = deal("JC QS JS KD JD", "AC TC KC QC TS", "AH")
    assert expert_move(s, 0) == card("JC")


def test_after_a_closing_plays_the_action_winning_most_worlds():
    # after the sure closing above every lead wins every trick (the opponent has neither hearts nor
    # trumps), so every action wins 3 game points in every world: ties go to the lowest id, AC
    s = deal("AH TH KH QH AC", "TC KC QC JC AS", "JH")
    s.apply(CLOSE)
    assert expert_move(s, 0) == card("AC")


def test_phase2_plays_the_exact_solver_move():
    # forehand leads its five clubs, the dealer follows with spades: the forehand wins all five
    # tricks (60 eyes, the dealer none) and draws AH AD QD JD KH; the dealer TH QH TD KD and JH.
    s = deal("AC TC KC QC JC", "AS TS KS QS JS", "JH", "AH TH AD QH QD TD JD KD KH")
    for lead, follow in zip(("AC", "TC", "KC", "QC", "JC"), ("JS", "QS", "KS", "TS", "AS")):
        play(s, "play " + lead, "play " + follow)
    assert s.talon_size == 0 and s.trump_card < 0 and list(s.eyes) == [60, 0]
    # AH: the dealer must follow with a lower heart, the trick gives >= 13 eyes: 73, and the
    # dealer has no trick: 3 game points. AD likewise (the dealer must follow TD or KD). QD, JD
    # and KH lose the lead (TD/KD, TH beat them) and the sure 3. Best: AH and AD; the lower id is AH.
    values = solver.action_values(s)
    assert values[card("AH")] == values[card("AD")] == 3
    assert max(values[card(c)] for c in ("QD", "JD", "KH")) < 3
    assert expert_move(s, 0) == card("AH")


def test_takes_the_lead_to_announce_a_marriage():
    # trump diamonds; the dealer holds KD QD (40 to announce) and TD; JC is led. Winning with TD
    # (10 eyes + trump: within the 40 the marriage brings) gives the lead to announce next.
    s = deal("JC AH KS QS JS", "KD QD TD JH QH", "AD")
    play(s, "play JC")
    assert expert_move(s, 1) == card("TD")
    # without the marriage (JS for QD) the ten of trump is kept and the cheapest card thrown:
    # a jack, JS (2 eyes, the lower id of JS and JH)
    s = deal("JC AH KS QS QD", "KD JS TD JH QH", "AD")
    play(s, "play JC")
    assert expert_move(s, 1) == card("JS")


def test_trump_management():
    # phase 1: trumps are not led (AD TD kept); the cheapest plain card JC is led
    s = deal("AD TD JC QS KH", "AC TC KC QC JS", "JD")
    assert expert_move(s, 0) == card("JC")
    # a ten led (fat) with no higher spade in hand: taken with the lowest trump JD, not AD
    s = deal("TS AH KS QS JS", "KC AD JD QH JC", "TD")
    play(s, "play TS")
    assert expert_move(s, 1) == card("JD")


def test_card_counting_bare_ten():
    # the ace of clubs is still out: leading TC would hand the opponent 21 eyes, so AS (11) goes first
    s = deal("TC AS AD TD KD", "AC KC QC JS QS", "JD", allow_closing=False)
    assert expert_move(s, 0) == card("AS")
    # once AC has fallen (the dealer threw it on JS) TC is top of its suit: TC (10) before AS (11)
    s = deal("TC AS JS AD TD", "AC TS KC QC QS", "JD", "KD JH QH KH AH TH KS QD JC", allow_closing=False)
    play(s, "play JS", "play AC")
    info = s.information_set(0)
    assert info.hand >> card("TC") & 1 and info.hand >> card("AS") & 1 and info.current_player == 0
    assert expert_move(s, 0) == card("TC")


# ------------------------------------------------------------------ properties
def _random_positions(rules: Rules, games: int, seed: int):
    """Every position of ``games`` games between random players, as states."""
    rng = random.Random(seed)
    for g in range(games):
        s = GameState.from_seed(rules, seed=seed * 1000 + g)
        while not s.is_terminal:
            yield s
            s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_always_legal_on_every_preset(preset):
    rules = Rules.preset(preset)
    agent = make_agent("expert", seed=1)
    for s in _random_positions(rules, 6, 5):
        info = s.information_set(s.current_player)
        assert agent.act(info) in info.legal_actions
