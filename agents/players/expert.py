"""A stronger rule-based Schnapsen player: counted cards, tactics, and exact endgames.

:class:`ExpertAgent` decides from the information set alone (RULES §8), deterministically given its
seed (worlds are drawn from a generator seeded by the game seed and the public history). In order:
once the talon is exhausted, the exact :func:`~agents.players.solver.action_values` best action; after a
closing, or with at most ``ENDGAME_TALON`` face-down cards, the action winning most of the
consistent worlds (all when few, else ``WORLDS``; only the agent may close in them), closing only
when it wins ``CLOSE_MIN_WIN`` of them. Otherwise tactics on counted cards: declare at 66; exchange
always; close when closing wins ``CLOSE_MIN_WIN`` of the sampled worlds; announce a marriage (trump
first); lead a top trump only when it reaches 66, else the cheapest card by
:func:`agents.players.heuristic.give_away_cost` plus ``BARE_TEN_COST`` for a ten whose ace is out; follow as
the heuristic does, but also win a trick with a winner worth at most the marriage it lets us
announce (§4), and take a fat lead with the cheapest trump so the trump ace and ten stay for phase
2."""

from __future__ import annotations

import random

from schnapsen_env.actions import CLOSE
from schnapsen_env.cards import CARD_EYES, RANKS_PER_SUIT, SUIT_MASKS, TEN, iter_cards, suit_of
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.rulebook import (
    MARRIAGE_PAIRS,
    follower_wins,
    marriage_eyes,
    marriage_forbidden,
    marriage_suits,
)
from schnapsen_env.rulebook import reaches_66, trick_eyes

from . import solver
from .base import check_current_player
from .pimc import consistent_worlds
from .heuristic import FAT_LEAD_EYES, TAKE_LEAD_EYES, HeuristicAgent

#: most worlds (opponent hand, talon order) solved per decision; all are enumerated when there are
#: fewer
WORLDS = 24
#: solve the open-talon endgame exactly over worlds once at most this many face-down cards remain
ENDGAME_TALON = 3
#: share of the worlds that closing must win (the solver's play sees every card, so ask for
#: near-certainty)
CLOSE_MIN_WIN = 0.9
#: lead cost added for a ten whose ace the opponent may hold (they would take 21 eyes with it)
BARE_TEN_COST = 6


def _mask_eyes(mask: int) -> int:
    return sum(CARD_EYES[c] for c in iter_cards(mask))


class ExpertAgent(HeuristicAgent):
    """The player described in the module docstring. ``seed`` seeds the sampled worlds. Its card
    counting (``_setup``) and give-away cost are :class:`~agents.players.heuristic.HeuristicAgent`'s."""

    name = "expert"

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self._game_seed = self.seed

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._game_seed = self.seed if seed is None else seed

    def _higher_out(self, card: int) -> int:
        """Cards of the suit of ``card`` that beat it and the opponent may hold (or draw)."""
        return SUIT_MASKS[suit_of(card)] & ((1 << card) - 1) & self.possible_opp

    def _lead_cost(self, card: int) -> int:
        return self._cost(card) + (BARE_TEN_COST if card % RANKS_PER_SUIT == TEN and self._higher_out(card) else 0)

    def _worlds(self, info: InformationSet, keep_order: bool) -> list:
        """``(opponent hand, talon)`` pairs consistent with ``info``: all when at most ``WORLDS``
        (in a fixed order), else ``WORLDS`` drawn with a generator seeded by the game seed and
        the public history. ``keep_order``: the talon order matters (the talon is open)."""
        rng = random.Random(f"{self._game_seed}|{info.player}|{info.hand}|{info.history}")
        return consistent_worlds(info, WORLDS, keep_order, rng)[0]

    def _solve_worlds(self, info: InformationSet, legal: tuple) -> int:
        """The action winning most worlds, then most mean game points (lowest id on ties);
        ``close`` only when it wins in ``CLOSE_MIN_WIN`` of them."""
        wins, points = dict.fromkeys(legal, 0), dict.fromkeys(legal, 0)
        worlds = self._worlds(info, keep_order=info.closed_by < 0)
        me = (info.player,)  # an opponent who sees every card would close far too well
        for hand, talon in worlds:
            for a, v in solver.action_values(
                GameState.from_information_set(info, hand, talon),
                me,
            ).items():
                wins[a] += v > 0
                points[a] += v
        cands = [a for a in legal if a != CLOSE or wins[a] >= CLOSE_MIN_WIN * len(worlds)] or list(legal)
        return max(cands, key=lambda a: (wins[a], points[a], -a))

    def _closing_wins(self, info: InformationSet) -> bool:
        """Closing now, then best play, wins in at least ``CLOSE_MIN_WIN`` of the worlds."""
        worlds = self._worlds(info, keep_order=False)
        won = 0
        for hand, talon in worlds:
            g = GameState.from_information_set(info, hand, talon)
            g.apply(CLOSE)
            won += g.outcome.winner == info.player if g.is_terminal else solver.solve(g).value > 0
        return won >= CLOSE_MIN_WIN * len(worlds)

    def _closes(self, m_eyes: int) -> bool:
        """Closing wins :data:`CLOSE_MIN_WIN` of the worlds, solved only when a cheap bound reaches
        66: all own cards, the best cards the opponent may hold and ``m_eyes`` of a marriage
        announceable now."""
        opp = sorted((CARD_EYES[c] for c in iter_cards(self.possible_opp)), reverse=True)
        best = self.my_eyes + self.my_held + m_eyes + _mask_eyes(self.hand) + sum(opp[: self.info.opponent_hand_size])
        return reaches_66(best) and self._closing_wins(self.info)

    def endgame_action(self, info: InformationSet) -> int | None:
        """The solved part of this player's play (module docstring: phase 2 exact, after a closing,
        last talon cards), or None while the talon is open with more than ``ENDGAME_TALON``
        face-down cards (where the tactics decide). Also used by ``ppo:endgame=expert``."""
        legal = check_current_player(info)
        # not None once the talon is exhausted: nothing hidden
        exact = solver.perfect_information_action(info)
        if exact is not None:
            return exact
        if info.closed_by >= 0 or info.talon_size <= ENDGAME_TALON:
            return legal[0] if len(legal) == 1 else self._solve_worlds(info, legal)
        return None

    def act(self, info: InformationSet) -> int:
        legal = check_current_player(info)
        if len(legal) == 1:
            return legal[0]
        solved = self.endgame_action(info)
        # the heuristic's rules, with these methods
        return solved if solved is not None else super().act(info)

    def _lead(self, cards: list) -> int:
        base = self.my_eyes + self.my_held + self.min_opp_eyes
        for c in cards:  # a top trump that takes the game
            top_trump = suit_of(c) == self.trump and not self._higher_out(c)
            if top_trump and reaches_66(base + CARD_EYES[c]):
                return c
        return min(cards, key=lambda c: (self._lead_cost(c), c))

    def _announceable_marriages(self) -> list:
        """Suits of held marriages that may be announced at our next lead, after winning this trick
        (§4)."""
        tricks = self.info.tricks_won[self.info.player] + 1
        return [
            s for s in marriage_suits(self.hand) if marriage_forbidden(self.info.rules, self.hand, s, tricks) is None
        ]

    def _follow(self, cards: list) -> int:
        lead = self.info.lead_card
        winners = [c for c in cards if follower_wins(lead, c, self.trump)]
        if not winners:
            return min(cards, key=lambda c: (self._cost(c), c))
        cheapest = min(winners, key=lambda c: (self._cost(c), c))
        if reaches_66(self.my_eyes + self.my_held + trick_eyes(lead, cheapest)):
            return cheapest
        if CARD_EYES[lead] >= FAT_LEAD_EYES:
            return min(winners, key=lambda c: (suit_of(c) != suit_of(lead), self._cost(c), c))
        suits = self._announceable_marriages()
        if suits:  # win the lead to announce: spend at most what the best marriage brings
            pairs = sum(MARRIAGE_PAIRS[s] for s in suits)  # the suits' pairs are disjoint masks
            worth = max(marriage_eyes(s, self.trump) for s in suits)
            if cheap := [c for c in winners if not pairs >> c & 1 and self._cost(c) <= worth]:
                return min(cheap, key=lambda c: (self._cost(c), c))
        if CARD_EYES[lead] >= TAKE_LEAD_EYES:
            pick = self._cheap_winner(winners, lead)
            if pick is not None:
                return pick
        return min(cards, key=lambda c: (self._cost(c), c))
