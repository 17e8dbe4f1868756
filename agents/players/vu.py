"""Adapter: the bots of the PyPI package ``schnapsen`` (VU Amsterdam course platform) as our agents.

``vu:rdeep`` (RdeepBot; ``vu:rdeep,samples=32,depth=6``), ``vu:bully``, ``vu:rand``; they play only
the ``vu-course`` preset (RULES §7), that package's rules. The package (GPL-3, ``pip install
schnapsen``) is imported lazily. Each :meth:`VUAgent.act` turns our information set into the
package's ``LeaderPerspective``/``FollowerPerspective`` (past tricks as a ``Previous`` chain; the
hidden cards a random determinization from the agent's ``rng``) and the bot's move back into an
action id."""

from __future__ import annotations

import random
from typing import Annotated, Literal

from pydantic import Field

from schnapsen_env.actions import EXCHANGE, MARRIAGE_BASE
from schnapsen_env.cards import KING, QUEEN, RANKS_PER_SUIT, card_id, cards_of
from schnapsen_env.engine import InformationSet
from schnapsen_env.rules import Rules

from .base import Agent, check_current_player, checked_arguments
from .heuristic import count_eyes

VUBot = Literal["rdeep", "bully", "rand"]  #: bot names of ``vu:BOT``
VU_PRESET = "vu-course"  #: the preset whose rules are the package's rules
#: RdeepBot defaults (the course's reference opponent)
RDEEP_SAMPLES = 16
RDEEP_DEPTH = 4

_INSTALL_HINT = (
    "the vu:* agents need the optional GPL package 'schnapsen' (VU Amsterdam course platform): pip install "
    '"schnapsen-env[vu]" (or pip install -e ".[vu]" from a clone), or pip install schnapsen==0.0.5'
)


def _import_schnapsen():
    try:
        from schnapsen import game as g
        from schnapsen.bots import BullyBot, RandBot, RdeepBot
        from schnapsen.deck import Card, Rank, Suit
    except ImportError as e:
        raise ImportError(_INSTALL_HINT) from e
    return g, {"rdeep": RdeepBot, "bully": BullyBot, "rand": RandBot}, Card, Rank, Suit


class VUAgent(Agent):
    """A bot of the ``schnapsen`` package through our :class:`Agent` interface: ``bot`` one of
    :data:`VUBot`; ``samples``/``depth``: ``rdeep``'s rollouts per move and depth in tricks.
    ``ValueError`` for a bad value, ``ImportError`` without the package; :meth:`act` needs the
    ``vu-course`` preset."""

    name = "vu"

    @checked_arguments
    def __init__(
        self,
        bot: VUBot = "rdeep",
        samples: Annotated[int, Field(ge=1)] | None = None,
        depth: Annotated[int, Field(ge=1)] | None = None,
        seed: int | None = None,
    ):
        if bot != "rdeep" and (samples is not None or depth is not None):
            raise ValueError(f"samples/depth are options of vu:rdeep only, not of vu:{bot}")
        self.bot_name = bot
        self.samples = RDEEP_SAMPLES if samples is None else samples
        self.depth = RDEEP_DEPTH if depth is None else depth
        self._g, self._bots, self._Card, rank, suit = _import_schnapsen()
        self._suits = (suit.CLUBS, suit.SPADES, suit.HEARTS, suit.DIAMONDS)  # in our suit order
        self._ranks = (rank.ACE, rank.TEN, rank.KING, rank.QUEEN, rank.JACK)
        self._engine = self._g.SchnapsenGamePlayEngine()
        self._rules = Rules.preset(VU_PRESET)
        super().__init__(seed)
        self.name = f"vu:{bot}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._make_bot()

    def _make_bot(self) -> None:
        options = (self.samples, self.depth) if self.bot_name == "rdeep" else ()
        self._bot = self._bots[self.bot_name](*options, random.Random(self.rng.getrandbits(63)))

    def _card(self, c: int):
        return self._Card.get_card(
            self._ranks[c % RANKS_PER_SUIT],
            self._suits[c // RANKS_PER_SUIT],
        )

    def _our_card(self, card) -> int:
        return card_id(self._suits.index(card.suit), self._ranks.index(card.rank))

    def _marriage(self, suit: int):
        return self._g.Marriage(self._card(card_id(suit, QUEEN)), self._card(card_id(suit, KING)))

    def perspective(self, info: InformationSet):
        """The package's perspective of our seat for ``info``, and the leader's move (or None)."""
        g = self._g
        p, o = info.player, 1 - info.player
        unknown = cards_of(info.unseen)
        self.rng.shuffle(unknown)
        n_opp_unknown = info.opponent_hand_size - bin(info.opponent_known).count("1")
        talon = unknown[n_opp_unknown:]
        hands = {p: cards_of(info.hand), o: cards_of(info.opponent_known) + unknown[:n_opp_unknown]}
        leader_move = None
        if info.lead_card >= 0:  # the package keeps the led card in the leader's hand
            hands[info.leader].append(info.lead_card)
            h = info.history
            if len(h) >= 2 and h[-2][0] == info.leader and MARRIAGE_BASE <= h[-2][1] < EXCHANGE:
                leader_move = self._marriage(h[-2][1] - MARRIAGE_BASE)
            else:
                leader_move = g.RegularMove(self._card(info.lead_card))
        eyes, held = count_eyes(info)
        won = {0: [], 1: []}
        for t in info.tricks:
            won[t.winner] += [self._card(t.lead), self._card(t.follow)]
        trump_suit = self._card(card_id(info.trump_suit, 0)).suit
        dummy = g._DummyBot() if hasattr(g, "_DummyBot") else None

        def bot_state(q: int):
            bot = self._bot if q == p else dummy
            hand, score = g.Hand([self._card(c) for c in hands[q]]), g.Score(eyes[q], held[q])
            return g.BotState(implementation=bot, hand=hand, score=score, won_cards=list(won[q]))

        def chain(prev, trick, leader_remained_leader: bool):
            state = g.GameState(
                leader=bot_state(p),
                follower=bot_state(o),
                talon=empty,
                previous=prev,
            )
            return g.Previous(
                state=state,
                trick=trick,
                leader_remained_leader=leader_remained_leader,
            )

        empty = g.Talon([], trump_suit)
        prev = self._previous_chain(info, chain)
        leader, follower = info.leader, 1 - info.leader
        pile = g.Talon(
            [self._card(c) for c in talon + ([info.trump_card] if info.trump_card >= 0 else [])],
            trump_suit,
        )
        state = g.GameState(
            leader=bot_state(leader),
            follower=bot_state(follower),
            talon=pile,
            previous=prev,
        )
        if p == leader:
            return g.LeaderPerspective(state, self._engine), None
        return g.FollowerPerspective(state, self._engine, leader_move), leader_move

    def _previous_chain(self, info: InformationSet, chain):
        """The past tricks of ``info`` as the package's ``Previous`` chain (only their cards are read);
        ``chain(previous, trick, leader_remained_leader)`` links one trick."""
        g = self._g
        prev = None
        pending = None
        plays = []
        tricks = iter(info.tricks)
        for who, a in info.history:
            if a < MARRIAGE_BASE:
                plays.append((who, a))
                if len(plays) == 2:
                    (lw, lc), (_, fc) = plays
                    lm = pending if pending is not None else g.RegularMove(self._card(lc))
                    trick = g.RegularTrick(
                        leader_move=lm,
                        follower_move=g.RegularMove(self._card(fc)),
                    )
                    prev = chain(prev, trick, next(tricks).winner == lw)
                    plays = []
                    pending = None
            elif a < EXCHANGE:
                pending = self._marriage(a - MARRIAGE_BASE)
            elif a == EXCHANGE:
                _, taken, given = info.exchange
                trick = g.ExchangeTrick(
                    exchange=g.TrumpExchange(self._card(given)),
                    trump_card=self._card(taken),
                )
                prev = chain(prev, trick, True)
        return prev

    def to_action(self, move) -> int:
        """Our action id for one of the package's moves."""
        if move.is_trump_exchange():
            return EXCHANGE
        if move.is_marriage():
            return MARRIAGE_BASE + self._our_card(move.as_marriage().king_card) // RANKS_PER_SUIT
        return self._our_card(move.as_regular_move().card)

    def cannot_play(self, rules) -> str | None:
        """The bot plays only the package's own rules, the ``vu-course`` preset."""
        if rules == self._rules:
            return None
        return (
            f"{self.name} plays only under the {VU_PRESET!r} preset (its package's rules); got rules {rules.to_dict()}"
        )

    def act(self, info: InformationSet) -> int:
        check_current_player(info)
        reason = self.cannot_play(info.rules)
        if reason:
            raise ValueError(reason)
        if not hasattr(self, "_bot"):
            self._make_bot()
        if info.lead_card < 0 and info.pending_marriage >= 0:
            # the package leads the king with the marriage
            return card_id(info.pending_marriage, KING)
        persp, leader_move = self.perspective(info)
        # the arena refuses an illegal one
        return self.to_action(self._bot.get_move(persp, leader_move))
