"""OpenSpiel game ``python_schnapsen``: the rules engine as a ``pyspiel`` game (the ``[openspiel]`` extra).

``import schnapsen_env.openspiel`` registers the game (``import schnapsen_env`` never does); then
``pyspiel.load_game("python_schnapsen", {"variant": "schnapsen-sharp"})`` or, with ``Rules``-style
arguments, ``schnapsen_env.openspiel.load_game("sechsundsechzig", declare="manual")``.

Parameters: ``variant`` (a RULES §7 preset) and each :class:`~schnapsen_env.rules.Rules` option
(``false_declaration_points`` as an int, ``0`` for ``"as_if_correct"``); an option equal to the
plain ``Rules()`` default takes the preset's value. ``str(game)`` loads back the same rules. Chance:
the dealer (1/2 each), then one uniform card per deck position (RULES §2). Actions: the engine's 31
ids; returns in game points, terminal only, zero-sum. The observation tensor is
:class:`schnapsen_env.observation.Observer`'s (zeros during the deal); the information-state string
is perfect recall. ``state.resample_from_infostate(player, sampler)``: a consistent state (not
posterior-weighted) seeded by ``sampler``, respecting
:func:`schnapsen_env.information.opponent_voids`.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from .actions import EXCHANGE, MARRIAGE_BASE, MAX_GAME_LENGTH, NUM_ACTIONS, action_to_str
from .cards import DECK_MASKS, NUM_CARDS, card_to_str, cards_of, deck_cards
from .engine import GameState, IllegalActionError
from .information import opponent_voids
from .observation import OBS_SIZE, OBS_SLICES, Observer
from .rulebook import MARRIAGE_PAIRS, exchange_card
from .rules import Rules

__all__ = ["GAME_NAME", "SchnapsenGame", "SchnapsenState", "load_game", "game_parameters"]

#: the OpenSpiel short name of the game
GAME_NAME = "python_schnapsen"
_NUM_PLAYERS = 2
_DEFAULTS = Rules().to_dict()
#: ``false_declaration_points`` as an OpenSpiel int parameter: 0 stands for "as_if_correct"
_FDP_AS_IF_CORRECT = 0
#: most tries of resample_from_infostate before it gives up (each try replays the game)
_RESAMPLE_TRIES = 1000


def game_parameters(rules: Rules, variant: str = "schnapsen") -> dict:
    """The OpenSpiel parameters of ``rules`` under preset ``variant`` (every option given)."""
    params = {"variant": variant, **rules.to_dict()}
    if params["false_declaration_points"] == "as_if_correct":
        params["false_declaration_points"] = _FDP_AS_IF_CORRECT
    return params


_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Schnapsen / Sechsundsechzig (schnapsen-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=game_parameters(Rules()),
)
_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    num_players=_NUM_PLAYERS,
    min_utility=-3.0,
    max_utility=3.0,
    utility_sum=0.0,
    max_game_length=MAX_GAME_LENGTH,
)


def rules_from_parameters(params: dict) -> tuple[str, Rules]:
    """``(variant, Rules)`` of OpenSpiel game parameters (every key present, as OpenSpiel passes
    them).

    Raises ``ValueError`` (the ``Rules`` one-line message) for a bad variant or option value."""
    variant = params.get("variant", "schnapsen")
    fdp = "false_declaration_points"  # an int parameter: _FDP_AS_IF_CORRECT or 2
    values = {name: params[name] for name in _DEFAULTS if name in params}
    if values.get(fdp) == _FDP_AS_IF_CORRECT:
        values[fdp] = "as_if_correct"
    elif values.get(fdp, 2) != 2:
        allowed = f'{_FDP_AS_IF_CORRECT} (= "as_if_correct") or 2'
        raise ValueError(f"bad value {values[fdp]!r} for option {fdp!r}: allowed {allowed}")
    overrides = {k: v for k, v in values.items() if v != _DEFAULTS[k] or type(v) is not type(_DEFAULTS[k])}
    return variant, Rules.preset(variant, **overrides)


def load_game(variant: str = "schnapsen", **options: Any) -> "SchnapsenGame":
    """``pyspiel.load_game("python_schnapsen", ...)`` from ``Rules``-style arguments (a RULES §7
    preset and option overrides); ``ValueError`` with ``Rules``' message for a bad one."""
    rules = Rules.preset(variant, **options)
    return pyspiel.load_game(GAME_NAME, game_parameters(rules, variant))


class SchnapsenGame(pyspiel.Game):
    """The OpenSpiel game: parameters as in the module docstring; ``rules`` and ``variant``
    attributes."""

    def __init__(self, params: dict | None = None):
        self.variant, self.rules = rules_from_parameters(dict(params or {}))
        self.observer = Observer(self.rules)
        super().__init__(_GAME_TYPE, _GAME_INFO, game_parameters(self.rules, self.variant))

    def new_initial_state(self) -> "SchnapsenState":
        """The state before the deal (a chance node: the dealer)."""
        return SchnapsenState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer: :class:`SchnapsenObserver` (observation: our 214-entry tensor and a string;
        perfect recall: the information-state string)."""
        return SchnapsenObserver(self, iig_obs_type, params)


class SchnapsenState(pyspiel.State):
    """One game: the deal as chance nodes, then the engine's
    :class:`~schnapsen_env.engine.GameState` (``engine``; ``None`` during the deal)."""

    def __init__(self, game: SchnapsenGame):
        super().__init__(game)
        self._rules = game.rules
        self._undealt = list(deck_cards(game.rules.deck))  # ascending card ids not dealt yet
        self.dealer = -1
        self.deck: list = []  # card ids in deal order, as dealt so far
        self.engine: GameState | None = None
        # per history index (a player's move): the cards each player drew after it (bitmasks)
        self.draws: dict = {}

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if self.engine.outcome is not None else self.engine.current_player

    def _legal_actions(self, player: int) -> list:
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list:
        if self.dealer < 0:
            return [(0, 0.5), (1, 0.5)]
        p = 1.0 / len(self._undealt)
        return [(c, p) for c in self._undealt]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            if action not in ((0, 1) if self.dealer < 0 else self._undealt):
                allowed = "dealer 0 or 1" if self.dealer < 0 else "a card id not dealt yet"
                raise ValueError(f"chance outcome {action!r} is not possible here: allowed {allowed}")
            if self.dealer < 0:
                self.dealer = action
                return
            self._undealt.remove(action)
            self.deck.append(action)
            if not self._undealt:
                self.engine = GameState(self._rules, self.deck, self.dealer)
            return
        g, before = self.engine, self.engine.hands[:]
        g.apply(action)
        if action < MARRIAGE_BASE and g.lead_card < 0:  # a trick was finished: the phase-1 draws
            gained = (g.hands[0] & ~before[0], g.hands[1] & ~before[1])
            if gained[0] or gained[1]:
                self.draws[len(g.history) - 1] = gained

    def _action_to_string(self, player: int, action: int) -> str:
        # the dealer is chosen first, then the cards are dealt
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.dealer < 0 else f"deal {card_to_str(action)}"
        return action_to_str(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.outcome is not None

    def returns(self) -> list:
        g = self.engine
        if g is None or g.outcome is None:
            return [0.0, 0.0]
        w, pts = g.outcome.winner, float(g.outcome.game_points)
        return [pts, -pts] if w == 0 else [-pts, pts]

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealer={self.dealer} deck={' '.join(card_to_str(c) for c in self.deck)}"
        moves = " ".join(f"{p}:{action_to_str(a)}" for p, a in self.engine.history)
        return f"{self.engine!r} history=[{moves}]"

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "SchnapsenState":
        """A state with the same information-state string for ``player_id`` (see the module
        docstring); ``probability_sampler()`` gives uniform floats in [0, 1)."""
        return _resample(self, player_id, probability_sampler)


# ---------------------------------------------------------------------- deal positions (RULES §2)
def _deal_positions(deck_size: int, dealer: int) -> tuple[list, list, int, int]:
    """``(positions of player 0's dealt cards, of player 1's, trump position, first talon
    position)``."""
    if deck_size == 20:
        fore = [0, 1, 2, 7, 8]
        deal = [3, 4, 5, 9, 10]
        trump = 6
    else:
        fore = [0, 1, 2, 6, 7, 8]
        deal = [3, 4, 5, 9, 10, 11]
        trump = 12
    hands = (fore, deal) if dealer == 1 else (deal, fore)  # the dealer's opponent is dealt first
    return *hands, trump, len(fore) + len(deal) + 1


def _info_state_string(state: SchnapsenState, player: int) -> str:
    parts = [f"p{player}", f"dealer {state.dealer}" if state.dealer >= 0 else "dealing"]
    own = []
    trump = -1
    n = len(state.deck)
    if state.dealer >= 0:  # the player's cards and the face-up trump card, as dealt so far
        *hands, trump_pos, _ = _deal_positions(state._rules.deck, state.dealer)
        own = [state.deck[i] for i in hands[player] if i < n]
        trump = state.deck[trump_pos] if trump_pos < n else -1
    parts.append("hand " + " ".join(card_to_str(c) for c in sorted(own)))
    if trump >= 0:
        parts.append("trump " + card_to_str(trump))
    if state.engine is not None:
        for i, (p, a) in enumerate(state.engine.history):
            parts.append(f"{p}:{action_to_str(a)}")
            drawn = state.draws.get(i)
            if drawn and drawn[player]:
                parts.append("draw " + " ".join(card_to_str(c) for c in cards_of(drawn[player])))
    return "|".join(parts)


class SchnapsenObserver:
    """OpenSpiel python observer. Default / ``perfect_recall=False``: ``tensor`` float32 ``(214,)``
    (our :class:`~schnapsen_env.observation.Observer`; named views in ``dict``) and a string of its
    non-zero fields. ``perfect_recall=True``: the information-state string (``tensor`` is empty)."""

    def __init__(self, game: SchnapsenGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported, got {params!r}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "python_schnapsen observes one player's information only (public_info=True, private_info=SINGLE_PLAYER)"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self._observer = game.observer
        self.tensor = np.zeros(0 if self.perfect_recall else OBS_SIZE, np.float32)
        self.dict = {} if self.perfect_recall else {name: self.tensor[s] for name, s in OBS_SLICES.items()}

    def set_from(self, state: SchnapsenState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)  # (empty with perfect recall)
        elif not self.perfect_recall:
            self._observer.fill_state(state.engine, player, self.tensor)

    def string_from(self, state: SchnapsenState, player: int) -> str:
        if self.perfect_recall:
            return _info_state_string(state, player)
        self.set_from(state, player)
        parts = [f"p{player}"]
        for name, view in self.dict.items():
            nonzero = np.flatnonzero(view)
            if len(nonzero) == 0:
                continue
            if name in _CARD_FIELDS:
                shown = (card_to_str(int(c)) for c in nonzero)
            else:
                shown = (f"{v:.4g}" for v in view)
            parts.append(name + " " + " ".join(shown))
        return "|".join(parts)


_CARD_FIELDS = {name for name, s in OBS_SLICES.items() if s.stop - s.start == NUM_CARDS}


# ---------------------------------------------------------------------- resampling
def _draw_slots(state: SchnapsenState) -> tuple[list, list, list]:
    """``(owner, time)`` per deck position from the public draw order: after each phase-1 trick the
    winner draws the next talon card, the loser the one after (or the face-up trump card)."""
    rules = state._rules
    p0, p1, trump_pos, talon_start = _deal_positions(rules.deck, state.dealer)
    owner: list = [None] * rules.deck
    for q, positions in ((0, p0), (1, p1), ("trump", [trump_pos])):
        for i in positions:
            owner[i] = q
    time = [0] * rules.deck
    pos = talon_start
    g = state.engine
    plays = 0
    for h, (_p, a) in enumerate(g.history):
        plays += a < MARRIAGE_BASE
        # the move that ended a phase-1 trick: its winner draws, then the loser
        if h in state.draws:
            winner = g.tricks[plays // 2 - 1].winner
            for q in (winner, 1 - winner):
                if pos < rules.deck:
                    owner[pos], time[pos] = q, h + 1
                    pos += 1
    return owner, time, list(range(pos, rules.deck))


def _resample(state: SchnapsenState, player: int, sampler) -> SchnapsenState:
    game = state.get_game()
    if state.engine is None:
        raise ValueError("resample_from_infostate needs a dealt game (the state is a chance node of the deal)")
    rng = random.Random(int(sampler() * (1 << 53)))
    g = state.engine
    rules = state._rules
    opp = 1 - player
    owner, time, talon_left = _draw_slots(state)
    # seen by the player
    new_deck = [c if o in (player, "trump") else -1 for c, o in zip(state.deck, owner)]
    placed = sum(1 << c for c in new_deck if c >= 0)
    # a card the opponent must have held -> the first history index by which it was in hand
    deadline: dict = {}
    for h, (p, a) in enumerate(g.history):
        if p != opp or a > EXCHANGE:
            continue
        if MARRIAGE_BASE <= a < EXCHANGE:
            shown = cards_of(MARRIAGE_PAIRS[a - MARRIAGE_BASE])
        else:  # a card played, or the trump exchange's low trump
            shown = [exchange_card(rules, g.trump_suit) if a == EXCHANGE else a]
        for c in shown:
            if not placed >> c & 1:
                deadline.setdefault(c, h)
    opp_slots = sorted((i for i, o in enumerate(owner) if o == opp), key=lambda i: time[i])
    free_cards = DECK_MASKS[rules.deck] & ~placed & ~sum(1 << c for c in deadline)
    forbidden = opponent_voids(g.information_set(player))
    for _ in range(_RESAMPLE_TRIES):
        deck, slots = new_deck[:], opp_slots[:]
        for c in sorted(deadline, key=deadline.get):
            allowed = [i for i in slots if time[i] <= deadline[c]]
            if not allowed:
                break
            i = rng.choice(allowed)
            deck[i] = c
            slots.remove(i)
        else:
            rest = cards_of(free_cards)
            rng.shuffle(rest)
            # the opponent's unknown current cards: prefer cards not excluded by their phase-2
            # follows (a stable sort)
            hand_cards = sorted(rest, key=lambda c: forbidden >> c & 1)[: len(slots)]
            talon_cards = [c for c in rest if c not in hand_cards]
            rng.shuffle(hand_cards)
            # as many cards as positions left
            for i, c in zip(slots + talon_left, hand_cards + talon_cards):
                deck[i] = c
            sample = _replay(game, state.dealer, deck, g.history)
            if sample is not None and _info_state_string(sample, player) == _info_state_string(
                state,
                player,
            ):
                return sample
    raise RuntimeError(f"resample_from_infostate found no consistent deal in {_RESAMPLE_TRIES} tries")


def _replay(game: SchnapsenGame, dealer: int, deck: list, history: list) -> SchnapsenState | None:
    """The OpenSpiel state of ``deck``/``dealer`` after ``history``, or None if a move is illegal
    there."""
    s = game.new_initial_state()
    for c in (dealer, *deck):
        s.apply_action(c)
    try:
        for _p, a in history:
            if not s.engine.is_legal(a):
                return None
            s.apply_action(a)
    except IllegalActionError:
        return None
    return s


pyspiel.register_game(_GAME_TYPE, SchnapsenGame)
