"""Batched agents for :class:`~schnapsen_env.vector.engine.VectorGames`: one action per game, as int64
``(N,)`` on the games' device (0 for games that are over), without a Python loop over games.

The protocol: ``batched = True``, ``act(games, rows=None)`` (``rows``: a bool mask ``(N,)`` or game
indices), ``reset(seed=None)``, ``get_state()``/``set_state(state)`` and ``name``;
:func:`agents.make_batched_agent` builds one from a spec. :class:`BatchedHeuristic` plays exactly
:class:`agents.players.heuristic.HeuristicAgent`'s action (tests/agents/test_batched_agents.py compares them
at every decision); :class:`BatchedPolicy` plays greedily as :class:`agents.players.neural.PPOAgent`.
"""

from __future__ import annotations

import copy

import torch

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import (
    DECK_MASKS,
    KING,
    NUM_CARDS,
    NUM_SUITS,
    QUEEN,
    RANKS_PER_SUIT,
    card_id,
)
from schnapsen_env.rules import Rules
from schnapsen_env.vector.engine import MAX_EYES_TABLE, VectorGames, as_device, selection_mask
from schnapsen_env.vector.observation import VectorObserver

from .base import action_id
from .neural import Policy, PPOAgent, seeded_generator
from .heuristic import (
    CHEAP_WINNER_MAX_EYES,
    FAT_LEAD_EYES,
    MARRIAGE_KEEP_COST,
    TAKE_LEAD_EYES,
    TRUMP_KEEP_COST,
)

__all__ = ["BatchedRandom", "BatchedHeuristic", "BatchedPolicy", "ScalarAgents"]

# lexicographic keys for "min over cards" with ties to the lower card id: key = (... * _SCALE + c)
_CARD_BITS = 5  # 2**5 > NUM_CARDS: the card id sits in the low bits of a key
_SCALE = 1 << 8  # each key component is < 256 (eyes, costs, flags)
_NONE = torch.iinfo(torch.int64).max  # key of a card that is not a candidate


def _first(cases: list, default: torch.Tensor) -> torch.Tensor:
    """Per game the value of the first ``(condition (N,), value)`` case whose condition holds, else
    ``default``."""
    out = default
    for cond, value in reversed(cases):
        out = torch.where(cond, value, out)
    return out


def _pick(pair: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """``pair[i, p[i]]`` for a (N, 2) tensor."""
    return pair.gather(1, p.unsqueeze(1)).squeeze(1)


class _SeededGenerator:
    """A ``torch.Generator`` seeded from stream :attr:`STREAM` of a user seed (made on the first
    games' device when none is given), with ``reset``/``get_state``/``set_state`` for
    checkpoints."""

    STREAM = "batched"

    def __init__(self, seed: int | None = None, device=None):
        self.seed, self.device = seed, None if device is None else as_device(device)
        self.reset()

    def _generator_for(
        self,
        games: VectorGames,
        generator: torch.Generator | None,
    ) -> torch.Generator:
        """``generator`` if given, else this agent's (made on ``games.device`` at the first
        call)."""
        if generator is not None:
            return generator
        if self.generator is None:
            self.device = games.device
            self.generator = seeded_generator(games.device, self._seed_now, self.STREAM)
        return self.generator

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator (``seed=None``: the seed given at construction), as
        :meth:`agents.players.base.Agent.reset`."""
        self._seed_now = self.seed if seed is None else seed
        self.generator = None if self.device is None else seeded_generator(self.device, self._seed_now, self.STREAM)

    def get_state(self) -> torch.Tensor | None:
        """The generator state (a uint8 tensor; None before the first game), for checkpoints."""
        return None if self.generator is None else self.generator.get_state()

    def set_state(self, state: torch.Tensor | None) -> None:
        """Restore :meth:`get_state`."""
        if state is not None:
            if self.generator is None:
                self.generator = seeded_generator(
                    self.device or torch.device("cpu"),
                    self._seed_now,
                    self.STREAM,
                )
            self.generator.set_state(state)


class BatchedRandom(_SeededGenerator):
    """A uniformly random legal action per game (the batched
    :class:`agents.players.random_agent.RandomAgent`), from a ``torch.Generator`` on ``device`` (None: the
    first games') seeded from ``seed``."""

    name = "random"
    batched = True
    #: the stream of the user's seed that seeds the torch generator
    STREAM = "batched_random"

    def act(
        self,
        games: VectorGames,
        rows: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """int64 (N,) on ``games.device``: a uniformly random legal action per game in play (0 where
        over), drawn from ``generator`` or this agent's seeded one. ``rows`` is ignored (keys for
        every game)."""
        generator = self._generator_for(games, generator)
        mask = games.legal_mask()
        keys = torch.rand(mask.shape, generator=generator, device=generator.device).to(games.device)
        keys = torch.where(mask, keys, torch.full_like(keys, -1.0))
        a = keys.argmax(dim=1)
        return torch.where(mask.any(dim=1), a, torch.zeros_like(a))


def _reaches(tables, eyes: torch.Tensor) -> torch.Tensor:
    """bool, ``eyes``' shape: whether ``eyes`` (int64) reach 66 under the games' rules
    (``games.tables``)."""
    return tables.reaches[eyes.clamp(0, MAX_EYES_TABLE - 1)]


class _HeuristicTables:
    """Card tables for the heuristic beyond the engine's (``games.tables``), on one device."""

    def __init__(self, rules: Rules, device: torch.device):
        def t(x, dtype=torch.int64):
            return torch.tensor(x, dtype=dtype, device=device)

        cards = range(NUM_CARDS)
        self.ids = t(list(cards))
        self.suit = self.ids // RANKS_PER_SUIT
        rank = [c % RANKS_PER_SUIT for c in cards]
        self.is_kq = t([r in (KING, QUEEN) for r in rank], torch.bool)
        # the marriage partner of a king or queen (the card itself for the other ranks)
        kq = {KING: QUEEN, QUEEN: KING}
        self.partner = t([card_id(c // RANKS_PER_SUIT, kq[r]) if r in kq else c for c, r in zip(cards, rank)])
        self.full_deck = DECK_MASKS[rules.deck]
        # the card-play bits (actions 0..23) of an action bitmask
        self.card_actions = (1 << NUM_CARDS) - 1


class BatchedHeuristic:
    """The rule-based player of :mod:`agents.players.heuristic` for a whole batch of games: for every game
    in play the action ``HeuristicAgent().act(games.game_state(i).information_set(p))`` chooses,
    with tensor operations. ``rules``: the rules it plays (None: taken from the games)."""

    name = "heuristic"
    batched = True

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the heuristic is deterministic (the batched-agent protocol)."""

    def get_state(self) -> None:
        return None

    def set_state(self, state) -> None:
        """Nothing to restore (deterministic)."""

    def __init__(self, rules: Rules | None = None):
        self.rules = rules
        self._tables: dict = {}

    def _card_tables(self, games: VectorGames) -> _HeuristicTables:
        key = (games.rules, games.device)
        if key not in self._tables:
            self._tables[key] = _HeuristicTables(games.rules, games.device)
        return self._tables[key]

    # ------------------------------------------------------------------ eyes (RULES §4, §8)
    def _eyes(
        self,
        games: VectorGames,
        player: torch.Tensor,
        card_tables: _HeuristicTables,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """int64 (N,) credited and held (announced, not yet credited) eyes of player ``p``: the
        engine's when the rules show eyes, else recounted from the public history as
        ``recount_eyes`` does."""
        tables = games.tables
        if games.rules.show_eyes:
            return _pick(games.eyes, player), _pick(games.held_marriage_eyes, player)
        won = _pick(games.won_cards, player)
        card_eyes = (((won.unsqueeze(1) >> card_tables.ids) & 1) * tables.card_eyes).sum(1)
        # the history: trick-completing plays (every second card) and who won them (their cards are
        # public)
        history = games.history
        pos = torch.arange(history.shape[1], device=history.device)
        is_play = (history >= 0) & (history < MARRIAGE_BASE)
        completes = is_play & ((is_play.long().cumsum(1) & 1) == 0)
        won_by_p = completes & (((won.unsqueeze(1) >> history.clamp(0, NUM_CARDS - 1)) & 1) == 1)
        big = history.shape[1]
        first_win = torch.where(won_by_p, pos, big).min(1).values
        last_win = torch.where(won_by_p, pos, -1).max(1).values
        # where each suit's marriage was announced (column NUM_SUITS collects the other actions)
        is_m = (history >= MARRIAGE_BASE) & (history < MARRIAGE_BASE + NUM_SUITS)
        at_all = torch.full(
            (history.shape[0], NUM_SUITS + 1),
            big,
            dtype=torch.int64,
            device=history.device,
        )
        at_all.scatter_reduce_(
            1,
            torch.where(is_m, history - MARRIAGE_BASE, NUM_SUITS),
            pos.expand_as(history),
            "amin",
        )
        mine = _pick(games.marriages, player)
        credited = held = torch.zeros_like(player)
        for s in range(NUM_SUITS):
            at, announced = at_all[:, s], ((mine >> s) & 1) == 1
            # credited at once if the announcer had won a trick before (marriage_credited_at_once),
            # else on the announcer's next trick (RULES §4)
            at_once = tables.credited_at_once[(first_win < at).long()]
            done = announced & (at_once | (last_win > at))
            pts = tables.marriage_eyes[s, games.trump_suit]
            credited = credited + torch.where(done, pts, 0)
            held = held + torch.where(announced & ~done, pts, 0)
        return card_eyes + credited, held

    def act(self, games: VectorGames, rows: torch.Tensor | None = None) -> torch.Tensor:
        """int64 (N,) on ``games.device``: the heuristic's action for the player to move in every
        game in play, 0 for games that are over (``rows`` is accepted for the batched-agent
        protocol)."""
        tables = games.tables
        card_tables = self._card_tables(games)
        trump = games.trump_suit
        legal = games.legal_mask_bits()
        in_play = games.current_player >= 0
        player = games.current_player.clamp(min=0)
        opponent = 1 - player
        hand = _pick(games.hands, player)
        opp_known = _pick(games.known, opponent)
        opp_n = self._popcount(_pick(games.hands, opponent), card_tables)  # a count: public
        lead = games.lead_card
        trump_card = games.trump_card
        closed = games.closed_by >= 0
        unseen = self._unseen(games, hand, opp_known, card_tables)
        opp = unseen | opp_known  # cards the opponent may hold
        phase2 = closed | (trump_card < 0)
        my_eyes, my_held = self._eyes(games, player, card_tables)

        def reaches(eyes):
            return _reaches(tables, eyes)

        def bits(mask):  # (N,) bitmask -> (N, 24) bool
            return ((mask.unsqueeze(1) >> card_tables.ids) & 1) == 1

        eyes24 = tables.card_eyes.unsqueeze(0)  # (1, 24)
        trump_mask = tables.suit_masks[trump]  # (N,)
        is_trump = card_tables.suit.unsqueeze(0) == trump.unsqueeze(1)  # (N, 24)
        in_hand = bits(hand)
        in_opp = bits(opp)
        min_opp_eyes = torch.where(in_opp, eyes24, _SCALE).min(1).values
        min_opp_eyes = torch.where(in_opp.any(1), min_opp_eyes, 0)
        partner_alive = self._partner_alive(card_tables, in_hand, bits(unseen), phase2)
        cost = eyes24 + is_trump * TRUMP_KEEP_COST + partner_alive * MARRIAGE_KEEP_COST

        cards = bits(legal & card_tables.card_actions)  # legal card plays (N, 24)
        cheapest, _ = self._argmin(cost, cards, card_tables)

        # ---------------------------------------------------------------- on lead
        def has(action):
            return ((legal >> action) & 1) == 1

        best_suit, any_marriage = self._best_marriage(has, trump)
        m_eyes = torch.where(any_marriage, tables.marriage_eyes[best_suit, trump], 0)
        # rule 3: close when the sure tricks reach 66
        sure_n, sure_eyes = self._sure_tricks_if_closed(
            in_hand, in_opp, is_trump, opp, trump_mask, opp_n, eyes24, card_tables
        )
        total = my_eyes + my_held + m_eyes + sure_eyes + sure_n * min_opp_eyes
        do_close = has(CLOSE) & (sure_n > 0) & reaches(total)
        # rule 5: lead a card (HeuristicAgent._lead). Phase 1: the lowest top trump whose trick
        # reaches 66, else the cheapest card
        top_trump = is_trump & ((tables.higher.unsqueeze(0) & (opp & trump_mask).unsqueeze(1)) == 0)
        p1_cand = cards & top_trump & reaches((my_eyes + my_held + min_opp_eyes).unsqueeze(1) + eyes24)
        p1_top, p1_any = self._argmin(torch.zeros_like(cost), p1_cand, card_tables)
        p2_sure, p2_any = self._sure_winner_lead(games, card_tables, cards, opp, opp_known)
        phase2_pick = torch.where(p2_any, p2_sure, cheapest)
        phase1_pick = torch.where(p1_any, p1_top, cheapest)
        lead_pick = torch.where(phase2, phase2_pick, phase1_pick)
        rules = [
            (has(DECLARE) & reaches(my_eyes), DECLARE),
            (has(EXCHANGE), EXCHANGE),
            (do_close, CLOSE),
            (any_marriage, MARRIAGE_BASE + best_suit),
        ]
        on_lead = _first(rules, lead_pick)

        # ---------------------------------------------------------------- following
        base_eyes = my_eyes + my_held
        follow_pick = self._follow(games, card_tables, cards, cost, cheapest, partner_alive, base_eyes)
        action = torch.where(lead >= 0, follow_pick, on_lead)
        return torch.where(in_play, action, torch.zeros_like(action))

    @staticmethod
    def _partner_alive(card_tables: _HeuristicTables, in_hand, in_unseen, phase2) -> torch.Tensor:
        """bool (N, 24), ``HeuristicAgent._partner_alive``: a king or queen whose partner is in hand
        (``in_hand``), or unseen (``in_unseen``) while the talon is open (not ``phase2``)."""
        partner = card_tables.partner.expand_as(in_hand)
        partner_in_hand = in_hand.gather(1, partner)
        partner_unseen = in_unseen.gather(1, partner) & ~phase2.unsqueeze(1)
        return card_tables.is_kq & (partner_in_hand | partner_unseen)

    @staticmethod
    def _best_marriage(has, trump: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The suit (N,) of the marriage to announce (the trump marriage first, then the lowest
        suit) and whether any is legal (N,); ``has(action)``: bool (N,), whether ``action`` is
        legal."""
        m_legal = torch.stack([has(MARRIAGE_BASE + s) for s in range(NUM_SUITS)], 1)  # (N, 4)
        suits = torch.arange(NUM_SUITS, device=trump.device)
        # trump marriage first
        m_key = (suits.unsqueeze(0) != trump.unsqueeze(1)).long() * NUM_SUITS + suits
        m_key = torch.where(m_legal, m_key, _NONE)
        return m_key.min(1).values % NUM_SUITS, m_legal.any(1)

    @staticmethod
    def _unseen(games: VectorGames, hand, opp_known, card_tables: _HeuristicTables) -> torch.Tensor:
        """int64 (N,) bitmask: the cards the player to move has not seen (their own ``hand``, the
        finished tricks, the lead card, the face-up trump card) and does not know in the opponent's
        hand."""
        lead = games.lead_card
        trump_card = games.trump_card
        seen = hand | games.played[:, 0] | games.played[:, 1]
        seen = seen | torch.where(lead >= 0, 1 << lead.clamp(min=0), 0)
        seen = seen | torch.where(trump_card >= 0, 1 << trump_card.clamp(min=0), 0)
        return card_tables.full_deck & ~seen & ~opp_known

    def _sure_winner_lead(
        self,
        games,
        card_tables,
        cards,
        opp,
        opp_known,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Phase 2 (``HeuristicAgent._sure_winner_phase2``): the card (N,) to lead among ``cards``
        (bool (N, 24)) that the opponent cannot beat (a non-trump while they may hold a trump last,
        then the most eyes), and whether any (N,). ``opp``: cards they may hold; ``opp_known``:
        cards they surely hold."""
        tables = games.tables
        trump = games.trump_suit
        trump_mask = tables.suit_masks[trump]  # (N,)
        eyes24 = tables.card_eyes.unsqueeze(0)  # (1, 24)
        is_trump = card_tables.suit.unsqueeze(0) == trump.unsqueeze(1)  # (N, 24)
        # leading c, a card b the opponent may hold takes the trick if it beats c (follower_wins)
        # and may be played beside the cards they surely hold (follow_cards precedence: a higher
        # card of the suit, a lower one, a trump, any other); with nothing hidden, every card they
        # may hold is held
        exact = (games.facedown == 0) & (games.trump_card < 0) & (games.closed_by < 0)
        sure_opp = torch.where(exact, opp, opp_known).unsqueeze(1)  # (N, 1)
        threat = torch.zeros_like(cards)
        for beaters, prior in self._threat_tables(games, tables, card_tables):
            # a card of this class beats the lead and is legal unless a surely held card ranks first
            beaten = (opp.unsqueeze(1) & beaters[trump]) != 0
            if prior is not None:
                beaten &= (sure_opp & prior[trump]) == 0
            threat |= beaten
        opp_has_trump = ((opp & trump_mask) != 0).unsqueeze(1)
        key = (~(opp_has_trump & is_trump)).long() * _SCALE + (_SCALE - 1 - eyes24)
        return self._argmin(key, cards & ~threat, card_tables)

    # ------------------------------------------------------------------ pieces
    @staticmethod
    def _popcount(mask: torch.Tensor, card_tables: _HeuristicTables) -> torch.Tensor:
        return ((mask.unsqueeze(1) >> card_tables.ids) & 1).sum(1)

    @staticmethod
    def _argmin(
        key: torch.Tensor, cand: torch.Tensor, card_tables: _HeuristicTables
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The candidate card (N,) of least ``key`` (N, 24), ties to the lower id, and whether any
        (N,)."""
        m = torch.where(cand, (key << _CARD_BITS) | card_tables.ids, _NONE).min(1).values
        any_ = m != _NONE
        return torch.where(any_, m & ((1 << _CARD_BITS) - 1), 0), any_

    @staticmethod
    def _sure_tricks_if_closed(
        in_hand,
        in_opp,
        is_trump,
        opp,
        trump_mask,
        opp_n,
        eyes24,
        card_tables,
    ):
        """Count and card eyes (N,) of the cards sure to win tricks after closing now, as
        ``HeuristicAgent._sure_tricks_if_closed``."""
        n = in_hand.shape[0]
        blocked = (in_opp & ~in_hand).view(n, NUM_SUITS, RANKS_PER_SUIT)
        # a held card counts while no card the opponent may hold lies above it in its suit
        before = blocked.long().cumsum(2) - blocked.long()
        seq = in_hand.view(n, NUM_SUITS, RANKS_PER_SUIT) & (before == 0)
        seq = seq.view(n, NUM_CARDS)
        cnt, eyes = torch.where(seq, 1, 0), torch.where(seq, eyes24, 0)
        trump_n, trump_e = (
            torch.where(is_trump, cnt, 0).sum(1),
            torch.where(is_trump, eyes, 0).sum(1),
        )
        opp_trumps = torch.minimum(BatchedHeuristic._popcount(opp & trump_mask, card_tables), opp_n)
        others = trump_n >= opp_trumps
        other_n, other_e = (
            torch.where(is_trump, 0, cnt).sum(1),
            torch.where(is_trump, 0, eyes).sum(1),
        )
        return trump_n + torch.where(others, other_n, 0), trump_e + torch.where(others, other_e, 0)

    def _threat_tables(self, games, tables, card_tables) -> list:
        """Per follow precedence class (higher card of the led suit, lower one, trump, other; RULES
        §3 phase 2) ``(beaters, prior)``, int64 (4, 24) bitmasks per trump suit and lead: the
        class's cards that beat the lead and the cards of the classes before it (None for the
        first). Classes that cannot win are left out."""
        key = ("threat", games.rules, games.device)
        if key in self._tables:
            return self._tables[key]
        higher, lower, suit_masks, wins = (
            x.tolist() for x in (tables.higher, tables.lower, tables.suit_masks, tables.follower_wins)
        )

        # follow_cards precedence: higher of the suit, lower, trump, other
        def classes(trump: int, c: int) -> list:
            cls = [higher[c], lower[c], suit_masks[trump] & ~suit_masks[c // RANKS_PER_SUIT]]
            return cls + [card_tables.full_deck & ~(cls[0] | cls[1] | cls[2])]

        def table(f) -> torch.Tensor:  # int64 (4, 24): f(trump suit, lead card)
            rows = [[f(trump, c) for c in range(NUM_CARDS)] for trump in range(NUM_SUITS)]
            return torch.tensor(rows, dtype=torch.int64, device=games.device)

        out = []
        for k in range(4):
            beaters = table(
                lambda trump, c, k=k: classes(trump, c)[k] & sum(1 << b for b in range(NUM_CARDS) if wins[trump][c][b])
            )
            if beaters.any():
                out.append(
                    (
                        beaters,
                        table(lambda trump, c, k=k: sum(classes(trump, c)[:k])) if k else None,
                    )
                )
        self._tables[key] = out
        return out

    @staticmethod
    def _follow(games, card_tables, cards, cost, cheapest, partner_alive, base_eyes):
        """``HeuristicAgent._follow``: the card to play to the lead (N,); ``base_eyes``: the
        player's credited and held eyes (N,)."""
        argmin = BatchedHeuristic._argmin
        tables = games.tables
        trump = games.trump_suit
        lead_c = games.lead_card.clamp(min=0)
        phase2 = (games.closed_by >= 0) | (games.trump_card < 0)
        eyes24 = tables.card_eyes.unsqueeze(0)  # (1, 24)
        wins = tables.follower_wins[trump, lead_c] == 1  # (N, 24)
        winners, lead_eyes = cards & wins, tables.card_eyes[lead_c]
        # phase 2: the cheapest (eyes) winner, else the lowest-eyed legal card
        w2, w2_any = argmin(eyes24.expand_as(cost), winners, card_tables)
        l2, _ = argmin(eyes24.expand_as(cost), cards, card_tables)
        p2 = torch.where(w2_any, w2, l2)
        # phase 1
        cheapest_w, any_w = argmin(cost, winners, card_tables)
        off_suit = (card_tables.suit.unsqueeze(0) != (lead_c // RANKS_PER_SUIT).unsqueeze(1)).long()
        key_suit = off_suit * _SCALE + eyes24
        to_66 = _reaches(tables, base_eyes + lead_eyes + tables.card_eyes[cheapest_w])
        fat, _ = argmin(key_suit, winners, card_tables)
        take_cand = winners & ~partner_alive & ((eyes24 <= CHEAP_WINNER_MAX_EYES) | (off_suit == 0))
        take, take_any = argmin(key_suit, take_cand, card_tables)
        plain_cand = winners & (off_suit == 0) & (eyes24 <= CHEAP_WINNER_MAX_EYES) & ~partner_alive
        plain, plain_any = argmin(eyes24.expand_as(cost), plain_cand, card_tables)
        lead_trump = (lead_c // RANKS_PER_SUIT) == trump
        is_fat = lead_eyes >= FAT_LEAD_EYES
        is_take = ~is_fat & (lead_eyes >= TAKE_LEAD_EYES)
        is_plain = ~is_fat & ~is_take & ~lead_trump
        cases = [
            (to_66, cheapest_w),
            (is_fat, fat),
            (is_take & take_any, take),
            (is_plain & plain_any, plain),
        ]
        p1 = torch.where(any_w, _first(cases, cheapest), cheapest)
        return torch.where(phase2, p2, p1)


class BatchedPolicy(_SeededGenerator):
    """A :class:`agents.players.neural.PPOAgent` as a batched agent: one network call per step on
    ``device``, greedy play equal to the scalar agent's; ``sample=True`` draws from stream
    :attr:`STREAM` of the agent's seed. Single games only."""

    name = "ppo"
    batched = True
    #: the stream of the agent's seed that seeds the torch generator (``sample=True``)
    STREAM = "batched_policy"

    def __init__(self, agent: PPOAgent, rules: Rules, device=None):
        dev = as_device(device)
        super().__init__(agent.seed, dev)
        agent.check_rules(rules)  # the scalar agent's once-per-agent warning for other rules
        core = agent.policy_core
        self.sample = core.sample
        self.policy = Policy(
            copy.deepcopy(core.model),
            core.rules,
            name=core.name,
            device=dev,
            sample=core.sample,
        )
        self.observer = VectorObserver(rules, False, dev)

    def act(
        self,
        games: VectorGames,
        rows: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """int64 (N,) on ``games.device``: the policy's action for the player to move in every game
        of ``rows`` (a bool mask (N,) or game indices; None: every game in play), 0 elsewhere.
        ``generator``: draw from it instead of this agent's generator (``sample=True`` only)."""
        todo = games.current_player >= 0
        if rows is not None:
            todo = todo & selection_mask(rows, games.n, games.device)
        out = torch.zeros(games.n, dtype=torch.int64, device=games.device)
        idx = todo.nonzero().squeeze(1)
        if idx.numel():
            # those games alone
            obs = self.observer.observe(games, games.current_player.clamp(min=0), rows=idx)
            out[idx] = self.policy.choose(
                obs,
                games.legal_mask(idx),
                self._generator_for(games, generator),
            )
        return out


class ScalarAgents:
    """A scalar :class:`~agents.players.base.Agent` as a batched agent, asked game by game on the mover's
    information set (for agents without a batched form)."""

    batched = True

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)

    def reset(self, seed: int | None = None) -> None:
        if callable(getattr(self.agent, "reset", None)):
            self.agent.reset(seed)

    def get_state(self):
        """The agent's ``random.Random`` state as plain lists (or None), for checkpoints."""
        rng = getattr(self.agent, "rng", None)
        if rng is None:
            return None
        version, internal, gauss = rng.getstate()
        return [version, list(internal), gauss]

    def set_state(self, state) -> None:
        if state is not None and getattr(self.agent, "rng", None) is not None:
            self.agent.rng.setstate((int(state[0]), tuple(int(x) for x in state[1]), state[2]))

    def act(self, games: VectorGames, rows: torch.Tensor | None = None) -> torch.Tensor:
        """int64 (N,): the agent's action in every game of ``rows`` (a bool mask (N,) or game
        indices; None: every game in play) whose player is to move; 0 elsewhere. :class:`NotAnAction` when
        the agent returns something that is not an action id (a float, a bool, an array of several)."""
        todo = games.current_player >= 0
        if rows is not None:
            todo = todo & selection_mask(rows, games.n, games.device)
        out = torch.zeros(games.n, dtype=torch.int64)
        for i in todo.nonzero().squeeze(1).tolist():
            state = games.game_state(i)
            move = self.agent.act(state.information_set(state.current_player))
            out[i] = action_id(move)  # NotAnAction for a float, a bool, an array
        return out.to(games.device)
