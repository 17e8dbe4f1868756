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
game-point value of each legal action). When the worlds are few (after the
talon ran out the opponent's hand is known: one world) all of them are
enumerated instead of sampled. A single legal action is returned without search.

How the action is chosen (each measured against ``heuristic`` on duplicate deals,
``schnapsen`` preset; figures in the helper's report):

* ``objective="win"`` (default): the highest share of worlds won (value > 0),
  ties by mean game points, since the benchmarks count games won;
  ``"points"``: the highest mean game points (the original PIMC rule).
* ``shared_followups=True`` (default): close, exchange and marriage are followed
  by another action of the same player; that action must be one choice for all
  worlds (the player still does not know which is true), so such an action is
  valued by its best follow-up over all worlds, not by each world's own best
  follow-up (less strategy fusion, RULES §4).
* ``close_min_win=0.5`` (default): close only when closing wins in at least half
  the worlds. In each world the solver's opponent knows every card, which makes
  keeping the talon open look hopeless when behind; a "desperation" close then
  wins in the worlds but rarely at the table, while an open game keeps chances.

Example::

    from agents.pimc import PIMCAgent
    agent = PIMCAgent(samples=40, seed=1)
    action = agent.act(state.information_set(state.current_player))
"""

from __future__ import annotations

import itertools
import math

from schnapsen_env.actions import CLOSE, DECLARE, MARRIAGE_BASE
from schnapsen_env.cards import RANKS_PER_SUIT, SUIT_MASKS, iter_cards
from schnapsen_env.engine import GameState, InformationSet

from . import solver
from .base import Agent, check_to_move

#: default number of sampled worlds per decision
DEFAULT_SAMPLES = 40
#: what :meth:`PIMCAgent.choose` maximises first: games won or game points
OBJECTIVES = ("win", "points")
DEFAULT_OBJECTIVE = "win"
#: share of worlds that closing must win before it is considered
DEFAULT_CLOSE_MIN_WIN = 0.5
#: value close/exchange/marriage by their best follow-up over all worlds (see PIMCAgent.action_stats)
DEFAULT_SHARED_FOLLOWUPS = True

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
    the only random source (same seed and information set, same choice);
    ``objective``: ``"win"`` or ``"points"``; ``close_min_win``: share of worlds
    in [0, 1] that closing must win; ``shared_followups``: bool (see the module
    docstring). Raises ``ValueError`` for ``samples < 1`` or any other bad value.
    """

    name = "pimc"

    def __init__(self, samples: int = DEFAULT_SAMPLES, seed: int | None = None, objective: str = DEFAULT_OBJECTIVE,
                 close_min_win: float = DEFAULT_CLOSE_MIN_WIN, shared_followups: bool = DEFAULT_SHARED_FOLLOWUPS):
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be an int >= 1, got {samples!r}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if isinstance(close_min_win, bool) or not isinstance(close_min_win, (int, float)) \
                or not 0.0 <= close_min_win <= 1.0:
            raise ValueError(f"close_min_win must be a number in [0, 1], got {close_min_win!r}")
        if type(shared_followups) is not bool:
            raise ValueError(f"shared_followups must be True or False, got {shared_followups!r}")
        super().__init__(seed)
        self.samples = samples
        self.shared_followups = shared_followups
        self.objective = objective
        self.close_min_win = float(close_min_win)

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
    def action_stats(self, info: InformationSet) -> dict:
        """Per legal action over the worlds: ``{action: (win_fraction, mean_game_points)}``.

        ``win_fraction`` is the share of worlds whose exact value is > 0 (the
        viewer wins the game with best play: RULES §5 games have no draw);
        ``mean_game_points`` is the mean exact value in game points (-3..+3).
        With ``shared_followups``, an action after which the viewer moves again
        (close, exchange, marriage: RULES §4) gets the statistics of its best
        follow-up action *over all worlds* (by :meth:`choose`'s order) instead
        of the mean of each world's best follow-up: the viewer will not know
        which world is true when choosing the follow-up either.
        Raises ``ValueError`` if the viewer is not to move.
        """
        legal = check_to_move(info)
        worlds = self.worlds(info)
        totals = dict.fromkeys(legal, 0)
        wins = dict.fromkeys(legal, 0)
        me, opp = info.player, 1 - info.player
        preludes = [a for a in legal if MARRIAGE_BASE <= a < DECLARE] if self.shared_followups else []
        follow: dict = {a: {} for a in preludes}  # prelude -> follow-up -> [wins, total]
        core = solver._core if solver.core_available() else None
        if core is not None:
            rules_t = solver._core_rules(info.rules)
            base = list(solver._state_to_core(GameState.from_information_set(info, *worlds[0])))
            base[_TALON_POS_FIELD] = 0
        for hand, talon in worlds:
            if core is not None:
                base[_HAND_FIELD[opp]] = hand
                base[_TALON_FIELD] = talon
                vals = core.action_values(rules_t, tuple(base))
            else:
                vals = solver.action_values(GameState.from_information_set(info, hand, talon)).items()
            for a, v in vals:
                totals[a] += v
                wins[a] += v > 0
            if preludes:
                root = dict(vals)
                for a in preludes:
                    child = GameState.from_information_set(info, hand, talon)
                    child.apply(a)
                    if child.is_terminal or child.current_player != me:
                        fvals = [(None, root[a])]
                    elif core is not None:
                        fvals = core.action_values(rules_t, solver._state_to_core(child))
                    else:
                        fvals = solver.action_values(child).items()
                    acc = follow[a]
                    for b, v in fvals:
                        w_t = acc.setdefault(b, [0, 0])
                        w_t[0] += v > 0
                        w_t[1] += v
        n = len(worlds)
        stats = {a: (wins[a] / n, totals[a] / n) for a in legal}
        for a in preludes:
            fstats = {b: (w / n, t / n) for b, (w, t) in follow[a].items()}
            stats[a] = max(fstats.values(), key=self._key)
        return stats

    def action_scores(self, info: InformationSet) -> dict:
        """Mean game points of each legal action over the worlds: ``{action: float}``."""
        return {a: pts for a, (_, pts) in self.action_stats(info).items()}

    def choose(self, stats: dict) -> int:
        """The action :meth:`act` plays given :meth:`action_stats`' ``stats``.

        ``objective="win"``: the highest win fraction, ties by mean game points;
        ``"points"``: the highest mean game points, ties by win fraction; last
        ties: lowest action id. ``close`` is dropped unless it wins in at least
        ``close_min_win`` of the worlds (and another action remains).
        """
        candidates = [a for a in stats if a != CLOSE or stats[a][0] >= self.close_min_win] or list(stats)
        return max(candidates, key=lambda a: (*self._key(stats[a]), -a))

    def _key(self, stat: tuple) -> tuple:
        """Order of ``(win_fraction, mean_game_points)`` pairs under the objective."""
        return stat if self.objective == "win" else (stat[1], stat[0])

    def act(self, info: InformationSet) -> int:
        """The legal action :meth:`choose` picks from the sampled worlds' exact values.
        Raises ``ValueError`` if the viewer is not to move."""
        legal = check_to_move(info)
        if len(legal) == 1:
            return legal[0]
        return self.choose(self.action_stats(info))
