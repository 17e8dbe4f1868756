"""Perfect-information Monte Carlo (PIMC) agent: sample worlds, solve each exactly, average.

For a decision, :class:`PIMCAgent` draws ``samples`` worlds (the opponent's
hand and the talon order) consistent with the information set (RULES §8):

* cards the opponent is known to hold (``info.opponent_known``: the partner of
  an announced marriage, the card taken by an exchange, the trump card drawn
  last) are always in the opponent's hand;
* the other cards go among ``info.unseen`` (the opponent's unknown cards and
  the face-down talon);
* after a closing, a follow in a closed trick reveals what the opponent did not
  hold (RULES §3 phase 2: they follow suit, higher if they can, else trump), so
  such cards are never given to them.

Every world is solved with :func:`agents.solver.action_values` (the exact
game-point value of each legal action) and the action with the best mean game
points is played (ties: lowest action id). When the worlds are few (after the
talon ran out the opponent's hand is known: one world) all of them are
enumerated instead of sampled. A single legal action is returned without search.

Example::

    from agents.pimc import PIMCAgent
    agent = PIMCAgent(samples=40, seed=1)
    action = agent.act(state.information_set(state.current_player))
"""

from __future__ import annotations

import itertools
import math

from schnapsen_env.actions import CLOSE, MARRIAGE_BASE
from schnapsen_env.cards import RANKS_PER_SUIT, SUIT_MASKS, iter_cards
from schnapsen_env.engine import GameState, InformationSet

from . import solver
from .base import Agent, check_to_move

#: default number of sampled worlds per decision
DEFAULT_SAMPLES = 40

# index of the talon, its draw position and each hand in agents.solver._state_to_core
_HAND_FIELD = (0, 1)
_TALON_FIELD = 2
_TALON_POS_FIELD = 3


def closed_trick_voids(info: InformationSet) -> int:
    """Cards the opponent cannot hold, inferred from their follows after a closing.

    In a trick played with the talon closed (RULES §3 phase 2) the follower had
    to play a higher card of the led suit, else a lower one, else a trump.
    Hands only shrink after a closing, so what the opponent could not have held
    then they do not hold now. Returns a card bitmask (0 when nothing follows).
    The talon exhausted (not closed) needs no inference: the hand is then known.
    """
    if info.closed_by < 0:
        return 0
    opp = 1 - info.player
    plays_before_close = 0
    for _, action in info.history:
        if action == CLOSE:
            break
        if action < MARRIAGE_BASE:
            plays_before_close += 1
    first_closed_trick = plays_before_close // 2
    trump_mask = SUIT_MASKS[info.trump_suit]
    forbidden = 0
    for t in info.tricks[first_closed_trick:]:
        if t.leader == opp:
            continue
        lead, follow = t.lead, t.follow
        suit = SUIT_MASKS[lead // RANKS_PER_SUIT]
        higher = suit & ((1 << lead) - 1)  # lower id = higher rank
        if follow // RANKS_PER_SUIT == lead // RANKS_PER_SUIT:
            if follow > lead:  # followed lower: held nothing higher
                forbidden |= higher
        else:  # did not follow suit: held none of it
            forbidden |= suit
            if follow // RANKS_PER_SUIT != info.trump_suit:
                forbidden |= trump_mask  # and no trump either
    return forbidden


class PIMCAgent(Agent):
    """PIMC over the exact solver: ``samples`` worlds per decision, seeded.

    ``samples``: worlds per decision (int >= 1); ``seed``: seeds ``self.rng``,
    the only random source (same seed and information set, same choice).
    Raises ``ValueError`` for ``samples < 1``.
    """

    name = "pimc"

    def __init__(self, samples: int = DEFAULT_SAMPLES, seed: int | None = None):
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be an int >= 1, got {samples!r}")
        super().__init__(seed)
        self.samples = samples

    # ------------------------------------------------------------ worlds
    def worlds(self, info: InformationSet) -> list:
        """The ``(opponent_hand_mask, talon_tuple)`` worlds for ``info``.

        All consistent worlds when there are at most ``samples`` of them (in a
        fixed order), otherwise ``samples`` worlds drawn with ``self.rng``.
        """
        known = info.opponent_known
        need = info.opponent_hand_size - known.bit_count()
        allowed = info.unseen & ~closed_trick_voids(info)
        if allowed.bit_count() < need:  # cannot happen in a legal game; do not trust the inference
            allowed = info.unseen
        allowed_cards = list(iter_cards(allowed))
        unseen = info.unseen
        talon_size = info.talon_size
        order_matters = info.closed_by < 0 and talon_size > 1
        count = math.comb(len(allowed_cards), need) * (math.factorial(talon_size) if order_matters else 1)
        out = []
        if count <= self.samples:
            for combo in itertools.combinations(allowed_cards, need):
                hand = known
                for c in combo:
                    hand |= 1 << c
                rest = list(iter_cards(unseen & ~hand))
                if order_matters:
                    out.extend((hand, perm) for perm in itertools.permutations(rest))
                else:
                    out.append((hand, tuple(rest)))
            return out
        rng = self.rng
        for _ in range(self.samples):
            picked = rng.sample(allowed_cards, need)
            hand = known
            for c in picked:
                hand |= 1 << c
            rest = list(iter_cards(unseen & ~hand))
            rng.shuffle(rest)
            out.append((hand, tuple(rest)))
        return out

    # ------------------------------------------------------------ acting
    def action_scores(self, info: InformationSet) -> dict:
        """Mean game points of each legal action over the worlds: ``{action: float}``."""
        legal = check_to_move(info)
        worlds = self.worlds(info)
        totals = dict.fromkeys(legal, 0)
        opp = 1 - info.player
        if solver.core_available():
            base_state = GameState.from_information_set(info, *worlds[0])
            rules_t = solver._core_rules(info.rules)
            base = list(solver._state_to_core(base_state))
            base[_TALON_POS_FIELD] = 0
            core = solver._core
            for hand, talon in worlds:
                base[_HAND_FIELD[opp]] = hand
                base[_TALON_FIELD] = talon
                for a, v in core.action_values(rules_t, tuple(base)):
                    totals[a] += v
        else:
            for hand, talon in worlds:
                vals = solver.action_values(GameState.from_information_set(info, hand, talon))
                for a, v in vals.items():
                    totals[a] += v
        n = len(worlds)
        return {a: totals[a] / n for a in legal}

    def act(self, info: InformationSet) -> int:
        """The legal action with the best mean game points over the sampled worlds
        (ties: lowest action id). Raises ``ValueError`` if the viewer is not to move."""
        legal = check_to_move(info)
        if len(legal) == 1:
            return legal[0]
        scores = self.action_scores(info)
        return max(legal, key=lambda a: (scores[a], -a))
