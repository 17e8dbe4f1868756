"""A rule-based Schnapsen player built on the tactics good players use.

:class:`HeuristicAgent` decides from the information set alone (RULES §8; eyes recounted from the
history when the rules hide them), deterministically (ties to the lower action id). Rules, in order:

On lead: (1) declare (``declare="manual"``) once own credited eyes reach 66; (2) exchange the lowest
trump whenever allowed; (3) close when the hand surely reaches 66: own and held eyes, a marriage
announceable now, the sure winners (top trumps in sequence; once they can draw every trump the
opponent may hold, the top cards of the other suits) and the cheapest card the opponent could add to
each; (4) announce a marriage, trump first; (5) lead: in phase 1 a top trump whose trick reaches 66,
else the cheapest card (:func:`give_away_cost`); in phase 2 sure winners (top trumps while the
opponent may hold trumps, then the highest-eyed), else the cheapest card.

Following (§3): in phase 1 win when winning reaches 66; take an ace or ten led with the cheapest
winner (a higher card of its suit first); take a jack or more with a cheap winner (a higher card of
its suit or a trump of king or below, never a live marriage partner); else discard the cheapest
card. In phase 2 the cheapest winning card, else the lowest-eyed legal card."""

from __future__ import annotations

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import (
    CARD_EYES,
    JACK,
    KING,
    QUEEN,
    TEN,
    RANKS_PER_SUIT,
    SUIT_MASKS,
    card_id,
    iter_cards,
    suit_of,
)
from schnapsen_env.engine import InformationSet, recount_eyes
from schnapsen_env.rulebook import (
    follow_cards,
    follower_wins,
    marriage_eyes,
    reaches_66,
    talon_open,
    trick_eyes,
)

from .base import Agent, check_current_player

#: lead/discard cost added for a trump (trumps are kept for the end)
TRUMP_KEEP_COST = 20
#: lead/discard cost added for a king or queen whose partner is held or may still be drawn
MARRIAGE_KEEP_COST = 8
#: in phase 1 a cheap lead is taken with a same-suit card of at most this many eyes (the king)
CHEAP_WINNER_MAX_EYES = CARD_EYES[KING]
#: an ace or ten led is a "fat" trick worth taking with any winning card (eyes of the ten)
FAT_LEAD_EYES = CARD_EYES[TEN]
#: a lead worth at least this (a jack) is taken with a cheap winner: a higher card of its
#: suit or a trump of at most CHEAP_WINNER_MAX_EYES, never a marriage partner
TAKE_LEAD_EYES = CARD_EYES[JACK]


def beats(follow: int, lead: int, trump: int) -> bool:
    """Whether ``follow`` wins a trick led by ``lead`` (RULES §3,
    :func:`~schnapsen_env.rulebook.follower_wins`)."""
    return follower_wins(lead, follow, trump)


def count_eyes(info: InformationSet) -> tuple[list[int], list[int]]:
    """Credited and held (announced, not yet credited) eyes of both players: ``info.eyes`` when the
    rules show them, else recounted from the won tricks and the marriages (RULES §4)."""
    if info.eyes is not None:
        return list(info.eyes), list(info.held_marriage_eyes)
    return recount_eyes(info)


def partner_alive(info: InformationSet, card: int) -> bool:
    """A king or queen whose partner is in the viewer's hand or may still be drawn (unseen while the
    talon is open, RULES §3; ``info.unseen`` excludes the opponent's known cards)."""
    rank = card % RANKS_PER_SUIT
    if rank not in (KING, QUEEN):
        return False
    partner = card_id(suit_of(card), QUEEN if rank == KING else KING)
    if info.hand >> partner & 1:
        return True
    return bool(talon_open(info.trump_card, info.closed_by) and info.unseen >> partner & 1)


def give_away_cost(info: InformationSet, card: int) -> int:
    """How much leading or discarding ``card`` hurts: its eyes, plus TRUMP_KEEP_COST for a trump and
    MARRIAGE_KEEP_COST for a king or queen whose partner is alive (:func:`partner_alive`)."""
    trump, partner = suit_of(card) == info.trump_suit, partner_alive(info, card)
    return CARD_EYES[card] + TRUMP_KEEP_COST * trump + MARRIAGE_KEEP_COST * partner


class HeuristicAgent(Agent):
    """The rule-based player described in the module docstring."""

    name = "heuristic"

    def _setup(self, info: InformationSet) -> None:
        self.info = info
        self.trump = info.trump_suit
        self.hand = info.hand
        #: cards the opponent may hold: unseen (hand or talon) plus known cards
        self.possible_opp = info.unseen | info.opponent_known
        self.phase2 = info.closed_by >= 0 or info.trump_card < 0
        eyes, held = count_eyes(info)
        self.my_eyes, self.my_held = eyes[info.player], held[info.player]
        self.min_opp_eyes = min((CARD_EYES[c] for c in iter_cards(self.possible_opp)), default=0)

    def _partner_alive(self, card: int) -> bool:
        return partner_alive(self.info, card)

    def _cost(self, card: int) -> int:
        return give_away_cost(self.info, card)

    def _cheapest(self, cards) -> int:
        return min(cards, key=lambda c: (self._cost(c), c))

    def _is_top(self, card: int, opp: int) -> bool:
        """No card the opponent may hold is higher in the suit of ``card``."""
        return not (SUIT_MASKS[suit_of(card)] & ((1 << card) - 1) & opp)

    def _sure_winner_phase2(self, card: int) -> bool:
        """Leading ``card`` wins whatever the opponent holds, when they must follow: no card they
        may hold both beats it and may be played to it (RULES §3 phase 2)."""
        opp = self.possible_opp
        exact = self.info.talon_size == 0 and self.info.trump_card < 0 and self.info.closed_by < 0
        sure = opp if exact else self.info.opponent_known
        for b in iter_cards(opp):
            if follower_wins(card, b, self.trump) and follow_cards(sure | (1 << b), card, self.trump, False) >> b & 1:
                return False
        return True

    def _sure_tricks_if_closed(self) -> list[int]:
        """Cards that surely win tricks after closing now (see module docstring, rule 3)."""
        opp, sure = self.possible_opp, []
        opp_trumps = min((opp & SUIT_MASKS[self.trump]).bit_count(), self.info.opponent_hand_size)
        for s in (self.trump, *(s for s in range(len(SUIT_MASKS)) if s != self.trump)):
            # the other suits once the trumps draw theirs
            if s != self.trump and len(sure) < opp_trumps:
                break
            for c in iter_cards(SUIT_MASKS[s]):  # ace first (lowest id)
                if self.hand >> c & 1:
                    sure.append(c)
                elif opp >> c & 1:
                    break
        return sure

    def _cheap_winner(self, winners: list[int], lead: int) -> int | None:
        """The winner taking a lead of a jack or more: a higher card of its suit or a card of at
        most CHEAP_WINNER_MAX_EYES, never a live marriage partner; same suit, then fewest eyes
        (None: none)."""
        suit, most = suit_of(lead), CHEAP_WINNER_MAX_EYES
        spare = [c for c in winners if not self._partner_alive(c)]
        cheap = [c for c in spare if CARD_EYES[c] <= most or suit_of(c) == suit]
        return min(cheap, key=lambda c: (suit_of(c) != suit, CARD_EYES[c], c)) if cheap else None

    def act(self, info: InformationSet) -> int:
        legal = check_current_player(info)
        self._setup(info)
        if info.lead_card >= 0:
            return self._follow([a for a in legal if a < MARRIAGE_BASE])
        return self._on_lead(legal)

    def _on_lead(self, legal: tuple) -> int:
        """Rules 1 to 5 of the module docstring, in order; closing when :meth:`_closes`."""
        if DECLARE in legal and reaches_66(self.my_eyes):
            return DECLARE
        if EXCHANGE in legal:
            return EXCHANGE
        marriages = [a for a in legal if MARRIAGE_BASE <= a < EXCHANGE]
        best = min(marriages, key=lambda a: (a - MARRIAGE_BASE != self.trump, a)) if marriages else None
        m_eyes = marriage_eyes(best - MARRIAGE_BASE, self.trump) if best is not None else 0
        if CLOSE in legal and self._closes(m_eyes):
            return CLOSE
        return best if best is not None else self._lead([a for a in legal if a < MARRIAGE_BASE])

    def _closes(self, m_eyes: int) -> bool:
        """Rule 3: own and held eyes, ``m_eyes`` of a marriage announceable now, the sure winners
        and the cheapest card the opponent could add to each reach 66."""
        sure = self._sure_tricks_if_closed()
        total = self.my_eyes + self.my_held + m_eyes + sum(CARD_EYES[c] for c in sure) + len(sure) * self.min_opp_eyes
        return bool(sure) and reaches_66(total)

    def _lead(self, cards: list[int]) -> int:
        if not self.phase2:
            opp_trumps = self.possible_opp & SUIT_MASKS[self.trump]
            base = self.my_eyes + self.my_held + self.min_opp_eyes
            for c in cards:  # a top trump that reaches 66
                top_trump = suit_of(c) == self.trump and self._is_top(c, opp_trumps)
                if top_trump and reaches_66(base + CARD_EYES[c]):
                    return c
            return self._cheapest(cards)
        if sure := [c for c in cards if self._sure_winner_phase2(c)]:
            opp_has_trump = bool(self.possible_opp & SUIT_MASKS[self.trump])
            return min(
                sure,
                key=lambda c: (not (opp_has_trump and suit_of(c) == self.trump), -CARD_EYES[c], c),
            )
        return self._cheapest(cards)

    def _follow(self, cards: list[int]) -> int:
        lead = self.info.lead_card
        winners = [c for c in cards if beats(c, lead, self.trump)]
        if self.phase2:
            return min(winners or cards, key=lambda c: (CARD_EYES[c], c))
        pick: int | None = None
        if winners:
            cheapest = min(winners, key=lambda c: (self._cost(c), c))
            same_suit = [c for c in winners if suit_of(c) == suit_of(lead)]
            if reaches_66(self.my_eyes + self.my_held + trick_eyes(lead, cheapest)):
                pick = cheapest
            elif CARD_EYES[lead] >= FAT_LEAD_EYES:
                pick = min(winners, key=lambda c: (suit_of(c) != suit_of(lead), CARD_EYES[c], c))
            elif CARD_EYES[lead] >= TAKE_LEAD_EYES:
                pick = self._cheap_winner(winners, lead)
            elif suit_of(lead) != self.trump:
                cheap = [c for c in same_suit if CARD_EYES[c] <= CHEAP_WINNER_MAX_EYES and not self._partner_alive(c)]
                if cheap:
                    pick = min(cheap, key=lambda c: (CARD_EYES[c], c))
        return pick if pick is not None else self._cheapest(cards)
