"""Observation encoding: a flat float32 vector of one player's information set (RULES §8).

One table, :data:`OBSERVATION_TABLE`, declares the layout once: every entry is a
named field ``(name, size, high, meaning)``; the fields lie one after the other
in a flat ``float32`` array of :data:`OBS_SIZE` entries, and
:data:`OBS_SLICES` gives each field's index range. :func:`observation_view`
returns named numpy views over one flat array (for reading and debugging).

Everything is **relative to the viewer** ("self" = the viewer, "opponent" = the
other player), so both seats share one observation space and a self-play
network needs no seat input.

* Card planes (24 entries each) are indexed by card id (``suit * 6 + rank``,
  :mod:`schnapsen_env.cards`); in the 20-card game the nine entries stay 0.
* The first :data:`NUM_BINARY` entries are 0/1 (card planes, one-hot suits,
  flags, the rule options); the remaining :data:`NUM_NUMERIC` are counts and
  eyes scaled to about [0, 1] (see each field's ``high``).
* Eyes (card points, not game points) are divided by :data:`EYES_SCALE` (66,
  so 1.0 means "enough to win"). With ``show_eyes=False`` (Scharfschnapsen,
  RULES §7) the eye fields are 0: the agent must count them itself. Finished
  tricks are encoded as "cards played by self / by the opponent" (who played
  which card is public); which cards went together in one trick is not
  encoded, so the eyes cannot be read off the observation either.
* Nothing hidden is encoded: the opponent's unknown cards and the talon order
  appear only as the ``unseen`` plane (cards the viewer has not seen).

Functions (all raise ``ValueError`` for a player other than 0/1 or a bad
``bummerl_score``; ``out`` must be a float32 array of shape ``(OBS_SIZE,)``):

* :func:`encode` ``(info, bummerl_score=None, out=None)``: from an
  :class:`~schnapsen_env.engine.InformationSet` (what agents get);
* :func:`encode_state` ``(state, player, bummerl_score=None, out=None)``: the
  same numbers straight from a :class:`~schnapsen_env.engine.GameState`
  (fast path of the environment; never builds an InformationSet);
* :func:`action_mask` ``(state, player)`` / :func:`info_action_mask` ``(info)``:
  int8 ``(NUM_ACTIONS,)``, 1 = legal; all zeros when ``player`` is not to move;
* :func:`encode_full_state` ``(state, bummerl_score=None)``: the full state
  (both hands, talon order) for centralized critics, :data:`STATE_SIZE` entries.

``bummerl_score`` is the pair of game points collected in the current Bummerl
(RULES §6), indexed by seat like ``Bummerl.scores``: ``[points of player 0,
points of player 1]``; ``None`` when the episode is a single game (the Bummerl
fields are then 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .actions import NUM_ACTIONS
from .cards import NUM_CARDS, NUM_SUITS, TOTAL_CARD_EYES, deck_cards, mask_of
from .engine import GameState, InformationSet
from .rules import EYES_TO_WIN, LAST_TRICK_BONUS, MARRIAGE_EYES, TRUMP_MARRIAGE_EYES, Rules
from .cards import brief_repr

#: eyes are divided by this (66: 1.0 means enough eyes to win, RULES §5.1)
EYES_SCALE = EYES_TO_WIN
#: upper bound of a player's eyes: all card eyes, the last-trick 10, all four marriages
MAX_EYES = TOTAL_CARD_EYES + LAST_TRICK_BONUS + TRUMP_MARRIAGE_EYES + (NUM_SUITS - 1) * MARRIAGE_EYES
#: most face-down talon cards (Sechsundsechzig: 24 - 2*6 - 1)
MAX_TALON = Rules(deck=24).talon_facedown
#: most cards in a hand (Sechsundsechzig)
MAX_HAND = Rules(deck=24).hand_size
#: most tricks in a game (24 cards)
MAX_TRICKS = NUM_CARDS // 2
#: the scaled Bummerl score can reach (target - 1 + 3) / target <= 3 (target 1)
MAX_BUMMERL_SCALED = 3.0

_EYES_HIGH = MAX_EYES / EYES_SCALE

#: The observation layout, declared once: ``(name, size, high, meaning)``; low is 0 everywhere.
#: Binary fields (high 1, values 0/1) come first, then the scaled numeric fields.
OBSERVATION_TABLE: tuple = (
    # ---- card planes, indexed by card id
    ("hand", NUM_CARDS, 1.0, "cards in the viewer's hand"),
    ("opponent_known", NUM_CARDS, 1.0,
     "opponent's cards known to be in hand (exchange, marriage partner, last trump card)"),
    ("unseen", NUM_CARDS, 1.0, "cards the viewer has not seen: opponent's unknown cards and face-down talon"),
    ("trump_card", NUM_CARDS, 1.0, "the face-up trump card under the talon (one-hot; all 0 once drawn)"),
    ("lead_card", NUM_CARDS, 1.0, "the card led in the current trick (one-hot; all 0 before the lead)"),
    ("played_self", NUM_CARDS, 1.0, "cards the viewer played in finished tricks"),
    ("played_opponent", NUM_CARDS, 1.0, "cards the opponent played in finished tricks"),
    # ---- suits (one-hot / sets over C S H D)
    ("trump_suit", NUM_SUITS, 1.0, "the trump suit (one-hot)"),
    ("pending_marriage", NUM_SUITS, 1.0, "suit announced at this lead whose king/queen is not led yet (one-hot)"),
    ("marriages_self", NUM_SUITS, 1.0, "suits of the marriages the viewer announced"),
    ("marriages_opponent", NUM_SUITS, 1.0, "suits of the marriages the opponent announced"),
    # ---- flags
    ("to_move", 1, 1.0, "1 if the viewer is to act now"),
    ("is_leader", 1, 1.0, "1 if the viewer is on lead in the current trick"),
    ("is_dealer", 1, 1.0, "1 if the viewer dealt (the opponent was forehand)"),
    ("closed_by_self", 1, 1.0, "1 if the viewer closed the talon"),
    ("closed_by_opponent", 1, 1.0, "1 if the opponent closed the talon"),
    ("closed_opponent_had_trick", 1, 1.0, "after a closing: 1 if the closer's opponent had won a trick then"),
    ("exchanged_by_self", 1, 1.0, "1 if the viewer exchanged the trump card"),
    ("exchanged_by_opponent", 1, 1.0, "1 if the opponent exchanged the trump card"),
    # ---- the rule options (RULES §7), so one network can play every variant
    ("rule_deck_24", 1, 1.0, "rules: 24-card Sechsundsechzig"),
    ("rule_sharp", 1, 1.0, "rules: sharp (Scharfschnapsen limits)"),
    ("rule_declare_manual", 1, 1.0, 'rules: declare="manual"'),
    ("rule_false_declaration_2", 1, 1.0, "rules: false_declaration_points=2"),
    ("rule_closing_counts_later_eyes", 1, 1.0, "rules: closing_counts_later_eyes"),
    ("rule_show_eyes", 1, 1.0, "rules: show_eyes (eye fields below are filled)"),
    ("rule_allow_closing", 1, 1.0, "rules: allow_closing"),
    ("rule_marriage_leads_king", 1, 1.0, "rules: marriage_leads_king"),
    ("rule_marriage_credit_next_trick", 1, 1.0, 'rules: marriage_credit="next_trick"'),
    ("rule_schneider_bummerl", 1, 1.0, "rules: schneider_bummerl"),
    ("bummerl", 1, 1.0, "1 if the episode is a Bummerl (the score fields are filled)"),
    # ---- numeric fields (scaled)
    ("talon_size", 1, 1.0, f"face-down talon cards / {MAX_TALON}"),
    ("opponent_hand_size", 1, 1.0, f"cards in the opponent's hand / {MAX_HAND}"),
    ("tricks_won_self", 1, 1.0, f"tricks won by the viewer / {MAX_TRICKS}"),
    ("tricks_won_opponent", 1, 1.0, f"tricks won by the opponent / {MAX_TRICKS}"),
    ("eyes_self", 1, _EYES_HIGH, f"viewer's credited eyes / {EYES_SCALE} (0 if hidden)"),
    ("eyes_opponent", 1, _EYES_HIGH, f"opponent's credited eyes / {EYES_SCALE} (0 if hidden)"),
    ("held_marriage_eyes_self", 1, _EYES_HIGH,
     f"viewer's announced, not yet credited marriage eyes / {EYES_SCALE} (0 if hidden)"),
    ("held_marriage_eyes_opponent", 1, _EYES_HIGH,
     f"opponent's announced, not yet credited marriage eyes / {EYES_SCALE} (0 if hidden)"),
    ("closed_opponent_eyes", 1, _EYES_HIGH,
     f"after a closing: the closer's opponent's eyes then / {EYES_SCALE} (0 if hidden)"),
    ("bummerl_score_self", 1, MAX_BUMMERL_SCALED, "viewer's game points in this Bummerl / bummerl_target"),
    ("bummerl_score_opponent", 1, MAX_BUMMERL_SCALED, "opponent's game points in this Bummerl / bummerl_target"),
)

#: name -> slice of the flat observation
OBS_SLICES: dict = {}
_pos = 0
for _name, _size, _high, _meaning in OBSERVATION_TABLE:
    OBS_SLICES[_name] = slice(_pos, _pos + _size)
    _pos += _size
#: length of the observation vector
OBS_SIZE: int = _pos
#: the first NUM_BINARY entries are 0/1
NUM_BINARY: int = OBS_SLICES["talon_size"].start
NUM_NUMERIC: int = OBS_SIZE - NUM_BINARY
#: per-entry bounds of the observation Box (float32)
OBS_LOW = np.zeros(OBS_SIZE, dtype=np.float32)
OBS_HIGH = np.concatenate([np.full(s, h, dtype=np.float32) for _, s, h, _ in OBSERVATION_TABLE])
del _pos, _name, _size, _high, _meaning

# bit positions of the binary fields (bit i of the packed int = entry i of the observation)
_S = {name: sl.start for name, sl in OBS_SLICES.items()}
_HAND, _OPPK, _UNSEEN = _S["hand"], _S["opponent_known"], _S["unseen"]
_TRUMPC, _LEAD = _S["trump_card"], _S["lead_card"]
_PLS, _PLO = _S["played_self"], _S["played_opponent"]
_TSUIT, _PEND, _MARS, _MARO = _S["trump_suit"], _S["pending_marriage"], _S["marriages_self"], _S["marriages_opponent"]
_TOMOVE, _LEADER, _DEALER = _S["to_move"], _S["is_leader"], _S["is_dealer"]
_CLS, _CLO, _CLTRICK = _S["closed_by_self"], _S["closed_by_opponent"], _S["closed_opponent_had_trick"]
_EXS, _EXO = _S["exchanged_by_self"], _S["exchanged_by_opponent"]
_BUMMERL = _S["bummerl"]
_NUM0 = NUM_BINARY
_BIN_BYTES = (NUM_BINARY + 7) // 8
_MASK_BYTES = (NUM_ACTIONS + 7) // 8
# observation bits, then the action mask bits at OBS_SIZE.. (numeric entries' bits stay 0)
_MASK_END = OBS_SIZE + NUM_ACTIONS
_ALL_BYTES = (_MASK_END + 7) // 8
_unpack = np.unpackbits  # positional args (array, axis, count, bitorder): keyword parsing costs ~0.4 us
_frombuffer = np.frombuffer
_UINT8, _INT8, _FLOAT32 = np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.float32)

_RULE_FIELDS = (
    ("rule_deck_24", lambda r: r.deck == 24),
    ("rule_sharp", lambda r: r.sharp),
    ("rule_declare_manual", lambda r: r.declare == "manual"),
    ("rule_false_declaration_2", lambda r: r.false_declaration_points == 2),
    ("rule_closing_counts_later_eyes", lambda r: r.closing_counts_later_eyes),
    ("rule_show_eyes", lambda r: r.show_eyes),
    ("rule_allow_closing", lambda r: r.allow_closing),
    ("rule_marriage_leads_king", lambda r: r.marriage_leads_king),
    ("rule_marriage_credit_next_trick", lambda r: r.marriage_credit == "next_trick"),
    ("rule_schneider_bummerl", lambda r: r.schneider_bummerl),
)
_RULE_BITS_CACHE: dict = {}
_RULE_CACHE_MAX = 1024
_FULL20 = mask_of(deck_cards(20))
_FULL24 = mask_of(deck_cards(24))

_INV_TALON = 1.0 / MAX_TALON
_INV_HAND = 1.0 / MAX_HAND
_INV_TRICKS = 1.0 / MAX_TRICKS
_INV_EYES = 1.0 / EYES_SCALE


def _rule_bits(rules: Rules) -> int:
    # keyed by id (hashing a frozen dataclass costs more than the whole lookup); the entry
    # keeps the Rules object alive and is checked by identity, so a reused id cannot alias
    entry = _RULE_BITS_CACHE.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    bits = 0
    for name, f in _RULE_FIELDS:
        if f(rules):
            bits |= 1 << _S[name]
    if len(_RULE_BITS_CACHE) > _RULE_CACHE_MAX:
        _RULE_BITS_CACHE.clear()
    _RULE_BITS_CACHE[id(rules)] = (rules, bits)
    return bits


def observation_view(obs: np.ndarray) -> dict:
    """Named views (no copies) over a flat observation: ``{field name: obs[slice]}``."""
    if not isinstance(obs, np.ndarray) or obs.shape[-1] != OBS_SIZE:
        raise ValueError(f"observation must be a numpy array with last dimension {OBS_SIZE}")
    return {name: obs[..., sl] for name, sl in OBS_SLICES.items()}


def describe_observation() -> str:
    """The layout as a Markdown table (index range, name, high, meaning), for docs."""
    lines = ["| index | name | high | meaning |", "|---|---|---|---|"]
    for name, size, high, meaning in OBSERVATION_TABLE:
        sl = OBS_SLICES[name]
        idx = f"{sl.start}" if size == 1 else f"{sl.start}–{sl.stop - 1}"
        lines.append(f"| {idx} | `{name}` | {high:.3g} | {meaning} |")
    return "\n".join(lines)


def _check_player(player) -> None:
    if player not in (0, 1) or type(player) is bool:
        raise ValueError(f"player must be 0 or 1, got {brief_repr(player)}")


def _bummerl_values(bummerl_score, player: int, rules: Rules):
    """(bummerl bit, scaled own score, scaled opponent score)."""
    if bummerl_score is None:
        return 0, 0.0, 0.0
    try:
        a, b = bummerl_score
    except (TypeError, ValueError):
        raise ValueError(
            "bummerl_score must be a pair [game points of player 0, of player 1] or None, "
            f"got {brief_repr(bummerl_score)}"
        ) from None
    if not (isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) and a >= 0 and b >= 0):
        raise ValueError(f"bummerl_score must hold two whole numbers >= 0, got {brief_repr(bummerl_score)}")
    t = rules.bummerl_target
    if player == 0:
        return 1 << _BUMMERL, a / t, b / t
    return 1 << _BUMMERL, b / t, a / t


def _out_array(out):
    if out is None:
        return np.empty(OBS_SIZE, dtype=np.float32)
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (OBS_SIZE,):
        raise ValueError(f"out must be a float32 numpy array of shape ({OBS_SIZE},)")
    return out


def _fill(out, bits: int, numeric: tuple) -> np.ndarray:
    out[:_NUM0] = _unpack(_frombuffer(bits.to_bytes(_BIN_BYTES, "little"), _UINT8), -1, NUM_BINARY, "little")
    out[_NUM0:] = numeric
    return out


def _packed(state: GameState, player: int, bummerl_score) -> tuple:
    """The binary entries of the observation as one int (bit i = entry i) and the numeric entries."""
    rules = state.rules
    o = 1 - player
    ps = po = 0
    for t in state.tricks:
        if t.leader == player:
            ps |= 1 << t.lead
            po |= 1 << t.follow
        else:
            po |= 1 << t.lead
            ps |= 1 << t.follow
    hand = state.hands[player]
    known = state.known[o]
    lead = state.lead_card
    lead_bit = 1 << lead if lead >= 0 else 0
    tc = state.trump_card
    tc_bit = 1 << tc if tc >= 0 else 0
    full = _FULL24 if rules.deck == 24 else _FULL20
    unseen = full & ~(hand | ps | po | lead_bit | tc_bit | known)
    bits = (hand << _HAND | known << _OPPK | unseen << _UNSEEN | tc_bit << _TRUMPC | lead_bit << _LEAD
            | ps << _PLS | po << _PLO | 1 << (_TSUIT + state.trump_suit) | _rule_bits(rules))
    if state.pending_marriage >= 0:
        bits |= 1 << (_PEND + state.pending_marriage)
    for q, s in state.marriages:
        bits |= 1 << ((_MARS if q == player else _MARO) + s)
    if state.current_player == player:
        bits |= 1 << _TOMOVE
    if state.leader == player:
        bits |= 1 << _LEADER
    if state.dealer == player:
        bits |= 1 << _DEALER
    c = state.closed_by
    if c >= 0:
        bits |= 1 << (_CLS if c == player else _CLO)
        if state.closed_opponent_had_trick:
            bits |= 1 << _CLTRICK
    ex = state.exchange
    if ex is not None:
        bits |= 1 << (_EXS if ex[0] == player else _EXO)
    if bummerl_score is None:
        bs = bo = 0.0
    else:
        bb, bs, bo = _bummerl_values(bummerl_score, player, rules)
        bits |= bb
    tw = state.tricks_won
    if rules.show_eyes:
        e, h = state.eyes, state.held_marriage_eyes
        numeric = (state.talon_size * _INV_TALON, state.hands[o].bit_count() * _INV_HAND,
                   tw[player] * _INV_TRICKS, tw[o] * _INV_TRICKS,
                   e[player] * _INV_EYES, e[o] * _INV_EYES, h[player] * _INV_EYES, h[o] * _INV_EYES,
                   state.closed_opponent_eyes * _INV_EYES if c >= 0 else 0.0, bs, bo)
    else:
        numeric = (state.talon_size * _INV_TALON, state.hands[o].bit_count() * _INV_HAND,
                   tw[player] * _INV_TRICKS, tw[o] * _INV_TRICKS, 0.0, 0.0, 0.0, 0.0, 0.0, bs, bo)
    return bits, numeric


def encode_state(state: GameState, player: int, bummerl_score: Sequence[int] | None = None,
                 out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``player`` (0/1) in ``state``: float32 ``(OBS_SIZE,)``.

    Gives exactly ``encode(state.information_set(player), bummerl_score)`` but
    reads the state directly (no InformationSet is built). Writes into ``out``
    when given (and returns it). Raises ``ValueError`` for a bad player,
    ``bummerl_score`` or ``out``.
    """
    _check_player(player)
    out = _out_array(out)
    bits, numeric = _packed(state, player, bummerl_score)
    return _fill(out, bits, numeric)


def encode_state_and_mask(state: GameState, player: int,
                          bummerl_score: Sequence[int] | None = None) -> tuple:
    """``(encode_state(state, player, bummerl_score), action_mask(state, player))`` in one go.

    The environment's hot path: both arrays come out of one bit unpacking; the
    observation is a new float32 ``(OBS_SIZE,)`` array, the mask a new int8
    ``(NUM_ACTIONS,)`` array. Raises ``ValueError`` for a bad player or ``bummerl_score``.
    """
    _check_player(player)
    return _encode_and_mask(state, player, bummerl_score)


def _encode_and_mask(state: GameState, player: int, bummerl_score) -> tuple:
    """:func:`encode_state_and_mask` without the argument check (the environment's hot path)."""
    bits, numeric = _packed(state, player, bummerl_score)
    if state.current_player == player:
        bits |= state.legal_mask() << OBS_SIZE
    u = _unpack(_frombuffer(bits.to_bytes(_ALL_BYTES, "little"), _UINT8), -1, None, "little")
    obs = u[:OBS_SIZE].astype(_FLOAT32)
    obs[_NUM0:] = numeric
    return obs, u[OBS_SIZE:_MASK_END].view(_INT8)


def encode(info: InformationSet, bummerl_score: Sequence[int] | None = None,
           out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``info.player`` from an InformationSet: float32 ``(OBS_SIZE,)``.

    Layout: :data:`OBSERVATION_TABLE`. ``bummerl_score``: game points per seat
    in the current Bummerl, or ``None`` for a single game. Writes into ``out``
    when given. Raises ``ValueError`` for a bad ``bummerl_score`` or ``out``.
    """
    if not isinstance(info, InformationSet):
        raise ValueError(f"info must be an InformationSet, got {type(info).__name__}")
    out = _out_array(out)
    player = info.player
    rules = info.rules
    ps = po = 0
    for t in info.tricks:
        if t.leader == player:
            ps |= 1 << t.lead
            po |= 1 << t.follow
        else:
            po |= 1 << t.lead
            ps |= 1 << t.follow
    lead_bit = 1 << info.lead_card if info.lead_card >= 0 else 0
    tc_bit = 1 << info.trump_card if info.trump_card >= 0 else 0
    bits = (info.hand << _HAND | info.opponent_known << _OPPK | info.unseen << _UNSEEN | tc_bit << _TRUMPC
            | lead_bit << _LEAD | ps << _PLS | po << _PLO | 1 << (_TSUIT + info.trump_suit) | _rule_bits(rules))
    if info.pending_marriage >= 0:
        bits |= 1 << (_PEND + info.pending_marriage)
    for q, s in info.marriages:
        bits |= 1 << ((_MARS if q == player else _MARO) + s)
    if info.current_player == player:
        bits |= 1 << _TOMOVE
    if info.leader == player:
        bits |= 1 << _LEADER
    if info.dealer == player:
        bits |= 1 << _DEALER
    if info.closed_by >= 0:
        bits |= 1 << (_CLS if info.closed_by == player else _CLO)
        if info.closed_opponent_had_trick:
            bits |= 1 << _CLTRICK
    if info.exchange is not None:
        bits |= 1 << (_EXS if info.exchange[0] == player else _EXO)
    if bummerl_score is not None:
        bb, bs, bo = _bummerl_values(bummerl_score, player, rules)
        bits |= bb
    else:
        bs = bo = 0.0
    o = 1 - player
    tw = info.tricks_won
    if info.eyes is not None:
        e, h = info.eyes, info.held_marriage_eyes
        closed_eyes = info.closed_opponent_eyes * _INV_EYES if info.closed_opponent_eyes is not None else 0.0
        eyes_part = (e[player] * _INV_EYES, e[o] * _INV_EYES, h[player] * _INV_EYES, h[o] * _INV_EYES, closed_eyes)
    else:
        eyes_part = (0.0, 0.0, 0.0, 0.0, 0.0)
    numeric = (info.talon_size * _INV_TALON, info.opponent_hand_size * _INV_HAND,
               tw[player] * _INV_TRICKS, tw[o] * _INV_TRICKS) + eyes_part + (bs, bo)
    return _fill(out, bits, numeric)


def mask_to_array(legal: int) -> np.ndarray:
    """An action bitmask (``GameState.legal_mask()``) as int8 ``(NUM_ACTIONS,)``."""
    return _unpack(_frombuffer(legal.to_bytes(_MASK_BYTES, "little"), _UINT8), -1, NUM_ACTIONS,
                   "little").view(_INT8)


def action_mask(state: GameState, player: int) -> np.ndarray:
    """Legal actions of ``player`` as int8 ``(NUM_ACTIONS,)``: 1 = legal.

    All zeros when ``player`` is not to move (or the game is over). Raises
    ``ValueError`` for a player other than 0/1.
    """
    _check_player(player)
    if state.current_player != player:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return mask_to_array(state.legal_mask())


def info_action_mask(info: InformationSet) -> np.ndarray:
    """Legal actions of ``info.player`` as int8 ``(NUM_ACTIONS,)`` (zeros when not to move)."""
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if info.legal_actions:
        m[list(info.legal_actions)] = 1
    return m


# ------------------------------------------------------------------ full state
#: full-state layout: player 0's observation, then player 1's hand, then the talon order
STATE_TABLE: tuple = (
    ("observation_player_0", OBS_SIZE, None, "encode_state(state, 0): player 0's observation (layout above)"),
    ("hand_player_1", NUM_CARDS, 1.0, "cards in player 1's hand"),
    ("talon_order", NUM_CARDS, 1.0,
     f"face-down talon cards: (k + 1) / {MAX_TALON} for the card drawn k-th from now, 0 elsewhere"),
)
STATE_SIZE: int = OBS_SIZE + 2 * NUM_CARDS
STATE_LOW = np.zeros(STATE_SIZE, dtype=np.float32)
STATE_HIGH = np.concatenate([OBS_HIGH, np.ones(2 * NUM_CARDS, dtype=np.float32)])


def encode_full_state(state: GameState, bummerl_score: Sequence[int] | None = None,
                      out: np.ndarray | None = None) -> np.ndarray:
    """The full state (both hands, talon order) as float32 ``(STATE_SIZE,)``, for centralized critics.

    Layout :data:`STATE_TABLE`. Reveals hidden cards: never give it to an agent
    as its observation.
    """
    if out is None:
        out = np.empty(STATE_SIZE, dtype=np.float32)
    elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (STATE_SIZE,):
        raise ValueError(f"out must be a float32 numpy array of shape ({STATE_SIZE},)")
    encode_state(state, 0, bummerl_score, out=out[:OBS_SIZE])
    h1 = state.hands[1]
    out[OBS_SIZE:OBS_SIZE + NUM_CARDS] = np.unpackbits(
        np.frombuffer(h1.to_bytes(3, "little"), dtype=np.uint8), count=NUM_CARDS, bitorder="little")
    talon = out[OBS_SIZE + NUM_CARDS:]
    talon[:] = 0.0
    for k, c in enumerate(state.talon[state.talon_pos:]):
        talon[c] = (k + 1) * _INV_TALON
    return out
