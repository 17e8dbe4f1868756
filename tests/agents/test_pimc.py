"""PIMCAgent (agents/players/pimc.py): worlds consistent with the information set (RULES §8),
legal and reproducible choices."""

from __future__ import annotations

import random

import pytest

from agents.players import solver
from agents.players.pimc import PIMCAgent, inference_weight, lead_inferences
from schnapsen_env import VARIANTS, GameState, Rules
from schnapsen_env.actions import CLOSE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import RANKS_PER_SUIT, SUIT_MASKS, card_id, iter_cards
from schnapsen_env.information import opponent_voids

RULE_SETS = [Rules.preset(v) for v in VARIANTS]


def phase2_follow_ok(lead: int, follow: int, hand: int, trump: int) -> bool:
    """RULES §3 phase 2: was ``follow`` a legal reply to ``lead`` from ``hand``?"""
    suit = SUIT_MASKS[lead // RANKS_PER_SUIT]
    higher = hand & suit & ((1 << lead) - 1)
    if higher:
        return bool(higher >> follow & 1)
    lower = hand & suit
    if lower:
        return bool(lower >> follow & 1)
    trumps = hand & SUIT_MASKS[trump]
    if trumps:
        return bool(trumps >> follow & 1)
    return bool(hand >> follow & 1)


def check_world(info, hand: int, talon: tuple) -> None:
    """Everything the viewer knows holds in the world ``(hand, talon)``."""
    opp = 1 - info.player
    assert hand.bit_count() == info.opponent_hand_size
    assert len(talon) == info.talon_size
    assert hand & info.opponent_known == info.opponent_known  # marriages, exchange, last draw
    talon_mask = sum(1 << c for c in talon)
    assert not hand & talon_mask
    assert hand | talon_mask == info.unseen | info.opponent_known
    assert not (hand | talon_mask) & info.hand  # never the viewer's own cards
    for t in info.tricks:  # never a card already played
        assert not (hand | talon_mask) >> t.lead & 1 and not (hand | talon_mask) >> t.follow & 1
    if info.trump_card >= 0:
        assert not (hand | talon_mask) >> info.trump_card & 1
    # follows after a closing: the opponent's hand then was this hand plus its later cards
    if info.closed_by >= 0:
        n_close = [i for i, (_, a) in enumerate(info.history) if a == 29]
        before = sum(1 for _, a in info.history[: n_close[0]] if a < MARRIAGE_BASE)
        first = before // 2
        later = 0
        if info.lead_card >= 0 and info.leader == opp:
            later |= 1 << info.lead_card
        for t in reversed(info.tricks[first:]):
            mine = t.lead if t.leader == opp else t.follow
            later |= 1 << mine
            if t.leader != opp:
                assert phase2_follow_ok(t.lead, t.follow, hand | later, info.trump_suit)
    GameState.from_information_set(info, hand, talon).validate()


def game_infos(rules: Rules, seed: int, games: int):
    """Information sets of the player to move along random games."""
    rng = random.Random(seed)
    for _ in range(games):
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal:
            yield s, s.information_set(s.current_player)
            s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("rules", RULE_SETS, ids=list(VARIANTS))
def test_worlds_respect_the_information_set(rules):
    agent = PIMCAgent(samples=12, seed=1)
    closed_checked = 0
    for state, info in game_infos(rules, seed=21, games=25):
        worlds = agent.weighted_worlds(info)[0]
        assert 1 <= len(worlds) <= 12
        for hand, talon in worlds:
            check_world(info, hand, talon)
        if info.closed_by >= 0 and info.tricks and opponent_voids(info):
            closed_checked += 1
        if state.trump_card < 0 and state.closed_by < 0:  # talon exhausted: one exact world
            assert worlds == [(state.hands[1 - info.player], ())]
    assert closed_checked > 0 or rules.allow_closing is False


def test_void_inference_is_exact():
    """A phase-2 follow that does not follow suit forbids that suit (and trump); never a held card."""
    rules = Rules.preset("schnapsen")
    found = 0
    for state, info in game_infos(rules, seed=22, games=60):
        forb = opponent_voids(info)
        # the true opponent hand never holds a forbidden card
        assert not state.hands[1 - info.player] & forb
        found += forb != 0
    assert found > 0


@pytest.mark.parametrize("rules", RULE_SETS, ids=list(VARIANTS))
def test_pimc_plays_legal_actions_in_full_games(rules):
    agent = PIMCAgent(samples=2, seed=3)
    rng = random.Random(23)
    for g in range(2):
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal:
            info = s.information_set(s.current_player)
            # the 24-card game's first decisions are slow to search: PIMC joins after two tricks
            pimc_turn = s.current_player == g % 2 and (rules.deck == 20 or len(s.tricks) >= 2)
            a = agent.act(info) if pimc_turn else rng.choice(s.legal_actions())
            assert a in info.legal_actions
            s.apply(a)


def test_phase2_plays_exactly():
    """With the talon exhausted the one world is the true position: PIMC plays a solver-best action."""
    rules = Rules.preset("schnapsen")
    for state, info in game_infos(rules, seed=25, games=10):
        if state.trump_card < 0 and state.closed_by < 0 and len(info.legal_actions) > 1:
            a = PIMCAgent(samples=40, seed=0).act(info)
            assert a in solver.solve(state).best_actions


def test_choose_follows_the_objective():
    """Win fraction first (ties by mean points) for "win"; mean points first for "points"."""
    stats = {3: (0.6, 0.5), 7: (0.55, 1.2), 11: (0.6, 0.9)}
    assert PIMCAgent(objective="win").choose(stats) == 11
    assert PIMCAgent(objective="points").choose(stats) == 7
    tied = {5: (0.5, 1.0), 2: (0.5, 1.0)}
    assert PIMCAgent(objective="win").choose(tied) == 2  # last tie: lowest id


def test_close_needs_its_win_threshold():
    close_stats = {CLOSE: (0.8, 1.5), 4: (0.7, 0.6)}
    assert PIMCAgent(objective="win", close_min_win=0.9).choose(close_stats) == 4
    assert PIMCAgent(objective="win", close_min_win=0.8).choose(close_stats) == CLOSE
    assert PIMCAgent(objective="points", close_min_win=0.0).choose(close_stats) == CLOSE
    assert PIMCAgent(close_min_win=1.0).choose({CLOSE: (0.2, -1.0)}) == CLOSE  # the only action stays


def test_act_matches_the_world_statistics():
    """act() plays choose(action_stats()) on the same worlds; a close it plays wins often enough."""
    rules = Rules.preset("schnapsen")
    seen_close = 0
    for _state, info in game_infos(rules, seed=27, games=6):
        if len(info.legal_actions) < 2 or len(info.tricks) < 2:  # early phase 1 is slow to search
            continue
        for threshold in (0.0, 1.0):
            stats = PIMCAgent(samples=8, seed=5, objective="win", close_min_win=threshold).action_stats(info)
            agent = PIMCAgent(samples=8, seed=5, objective="win", close_min_win=threshold)
            a = agent.act(info)
            assert a == agent.choose(stats) and a in info.legal_actions
            for w, pts in stats.values():
                assert 0.0 <= w <= 1.0 and -solver.MAX_GAME_POINTS <= pts <= solver.MAX_GAME_POINTS
                assert (w == 0.0) <= (pts < 0) and (w == 1.0) <= (pts > 0)
            if a == CLOSE:
                assert stats[CLOSE][0] >= threshold
        seen_close += CLOSE in info.legal_actions
    assert seen_close > 0


def test_shared_followups_value_preludes_by_one_follow_up():
    """Close/exchange/marriage valued by one follow-up for all worlds: never above the per-world best,
    other actions unchanged; the difference shows in some position."""
    rules = Rules.preset("schnapsen")
    lower = 0
    for _state, info in game_infos(rules, seed=28, games=8):
        if CLOSE not in info.legal_actions or len(info.tricks) < 1:
            continue
        shared = PIMCAgent(samples=8, seed=6, shared_followups=True).action_stats(info)
        fused = PIMCAgent(samples=8, seed=6, shared_followups=False).action_stats(info)
        assert shared.keys() == fused.keys()
        for a in info.legal_actions:
            if MARRIAGE_BASE <= a <= CLOSE:
                assert shared[a][0] <= fused[a][0] + 1e-12 and shared[a][1] <= fused[a][1] + 1e-12
                lower += shared[a] != fused[a]
            else:
                assert shared[a] == fused[a]
    assert lower > 0


# ----------------------------------------------------------------- lead inference
def _skipped_exchange_deal():
    """A deal whose forehand holds the exchange card and leads a card instead (no marriage in hand)."""
    rules = Rules.preset("schnapsen")
    for seed in range(500):
        s = GameState.from_seed(rules, seed=seed)
        fh = s.current_player
        if EXCHANGE in s.legal_actions() and not any(MARRIAGE_BASE <= a < EXCHANGE for a in s.legal_actions()):
            jack = card_id(s.trump_suit, rules.exchange_rank)
            lead = next(c for c in iter_cards(s.hands[fh]) if c != jack)
            s.apply(lead)
            return s, fh, jack
    raise AssertionError("no such deal in 500 seeds")


def test_skipped_exchange_rules_out_the_exchange_card_until_a_draw():
    s, fh, jack = _skipped_exchange_deal()
    viewer = 1 - fh
    infs = lead_inferences(s.information_set(viewer))
    assert len(infs) == 1 and infs[0].draws == 0 and infs[0].groups[0] == 1 << jack
    with_jack = s.hands[fh]  # the true hand: it holds the jack it did not exchange
    assert inference_weight(infs, with_jack, 0.0) == 0.0
    assert inference_weight(infs, with_jack, 0.1) == pytest.approx(0.1)
    # after the trick both draw once: the jack may be that draw (1 card of the 5 held since)
    s.apply(next(c for c in iter_cards(s.hands[viewer])))
    info = s.information_set(viewer)
    infs = lead_inferences(info)
    assert len(infs) == 1 and infs[0].draws == 1
    hand = s.hands[fh]
    assert hand >> jack & 1 and hand.bit_count() == 5
    assert inference_weight(infs, hand, 0.0) == pytest.approx(1 / 5)
    assert inference_weight(infs, hand, 0.1) == pytest.approx(1 - 0.9 * 4 / 5)
    assert inference_weight(infs, hand & ~(1 << jack), 0.0) == 1.0


def test_enumerated_worlds_carry_inference_weights():
    rules = Rules.preset("schnapsen")
    agent = PIMCAgent(samples=10_000, seed=0, lead_inference=0.0)  # more than the worlds: enumerated
    found = 0
    for _state, info in game_infos(rules, seed=27, games=40):
        if info.talon_size > 2 or info.closed_by >= 0 or info.trump_card < 0 or not info.legal_actions:
            continue
        worlds, weights = agent.weighted_worlds(info)
        infs = lead_inferences(info)
        expected = [inference_weight(infs, h, 0.0) for h, _ in worlds]
        if not any(expected):  # nothing fits the inference: the worlds count equally
            expected = [1.0] * len(worlds)
        assert weights == expected
        found += any(w < 1.0 for w in weights)
    assert found > 0


# ----------------------------------------------------------------- opponent closing
def test_worlds_without_opponent_closes_never_look_worse():
    """Same worlds (same seed); taking the opponent's closes away only helps the viewer in each."""
    rules = Rules.preset("schnapsen")
    compared = 0
    for _state, info in game_infos(rules, seed=28, games=6):
        if len(info.legal_actions) < 2 or info.closed_by >= 0 or info.trump_card < 0:
            continue
        kw = dict(samples=8, seed=4, shared_followups=False)
        free = PIMCAgent(opponent_closes=False, **kw).action_stats(info)
        full = PIMCAgent(opponent_closes=True, **kw).action_stats(info)
        assert free.keys() == full.keys()
        for a in free:
            assert free[a][0] >= full[a][0] - 1e-12 and free[a][1] >= full[a][1] - 1e-12
        compared += 1
    assert compared > 10
