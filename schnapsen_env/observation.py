"""Observation encoding: a flat float32 vector of one player's information set (RULES §8).

:data:`OBSERVATION_TABLE` declares the layout once, fields ``(name, size, high, meaning)``
(:data:`OBS_SLICES`: their index ranges), relative to the viewer, so both seats share one space.
Card planes (24) are indexed by card id (the nines stay 0 in the 20-card game); the first
:data:`NUM_BINARY` entries are 0/1, the rest counts and eyes scaled to about [0, 1] (eyes /
:data:`EYES_SCALE`, 0 under ``show_eyes=False``). Nothing hidden is encoded: unknown cards are the
``unseen`` plane.

:class:`Observer` is the encoder; its :attr:`Observer.spec` is saved in checkpoints and compared on
loading (:func:`spec_difference`); :data:`RULE_FIELDS` maps rule options to fields. :func:`encode`
(InformationSet), :func:`encode_state` (GameState) and :func:`encode_full_state` use the cached
observer of the rules. ``bummerl_score``: game points per seat in the current Bummerl (RULES §6), or
None.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from .actions import NUM_ACTIONS
from .cards import DECK_MASKS, NUM_CARDS, NUM_SUITS, TOTAL_CARD_EYES
from .engine import GameState, InformationSet
from .rules import EYES_TO_WIN, LAST_TRICK_BONUS, MARRIAGE_EYES, TRUMP_MARRIAGE_EYES, Rules

#: version of the observation spec (:class:`Observer`): bump it when the layout or the meaning
#: of any number changes (checkpoints record it; loading a checkpoint of another version fails)
OBSERVATION_VERSION = 1
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
#: the five eye entries under ``show_eyes=False``
_NO_EYES = (0.0,) * 5

#: The observation layout, declared once: ``(name, size, high, meaning)``; low is 0 everywhere.
#: Binary fields (high 1, values 0/1) come first, then the scaled numeric fields.
OBSERVATION_TABLE: tuple = (
    # ---- card planes, indexed by card id
    ("hand", NUM_CARDS, 1.0, "cards in the viewer's hand"),
    (
        "opponent_known",
        NUM_CARDS,
        1.0,
        "opponent's cards known to be in hand (exchange, marriage partner, last trump card)",
    ),
    (
        "unseen",
        NUM_CARDS,
        1.0,
        "cards the viewer has not seen: opponent's unknown cards and face-down talon",
    ),
    (
        "trump_card",
        NUM_CARDS,
        1.0,
        "the face-up trump card under the talon (one-hot; all 0 once drawn)",
    ),
    (
        "lead_card",
        NUM_CARDS,
        1.0,
        "the card led in the current trick (one-hot; all 0 before the lead)",
    ),
    ("played_self", NUM_CARDS, 1.0, "cards the viewer played in finished tricks"),
    ("played_opponent", NUM_CARDS, 1.0, "cards the opponent played in finished tricks"),
    # ---- suits (one-hot / sets over C S H D)
    ("trump_suit", NUM_SUITS, 1.0, "the trump suit (one-hot)"),
    (
        "pending_marriage",
        NUM_SUITS,
        1.0,
        "suit announced at this lead whose king/queen is not led yet (one-hot)",
    ),
    ("marriages_self", NUM_SUITS, 1.0, "suits of the marriages the viewer announced"),
    ("marriages_opponent", NUM_SUITS, 1.0, "suits of the marriages the opponent announced"),
    # ---- flags
    ("to_move", 1, 1.0, "1 if the viewer is to act now"),
    ("is_leader", 1, 1.0, "1 if the viewer is on lead in the current trick"),
    ("is_dealer", 1, 1.0, "1 if the viewer dealt (the opponent was forehand)"),
    ("closed_by_self", 1, 1.0, "1 if the viewer closed the talon"),
    ("closed_by_opponent", 1, 1.0, "1 if the opponent closed the talon"),
    (
        "closed_opponent_had_trick",
        1,
        1.0,
        "after a closing: 1 if the closer's opponent had won a trick then",
    ),
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
    (
        "held_marriage_eyes_self",
        1,
        _EYES_HIGH,
        f"viewer's announced, not yet credited marriage eyes / {EYES_SCALE} (0 if hidden)",
    ),
    (
        "held_marriage_eyes_opponent",
        1,
        _EYES_HIGH,
        f"opponent's announced, not yet credited marriage eyes / {EYES_SCALE} (0 if hidden)",
    ),
    (
        "closed_opponent_eyes",
        1,
        _EYES_HIGH,
        f"after a closing: the closer's opponent's eyes then / {EYES_SCALE} (0 if hidden)",
    ),
    (
        "bummerl_score_self",
        1,
        MAX_BUMMERL_SCALED,
        "viewer's game points in this Bummerl / bummerl_target",
    ),
    (
        "bummerl_score_opponent",
        1,
        MAX_BUMMERL_SCALED,
        "opponent's game points in this Bummerl / bummerl_target",
    ),
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
_HAND = _S["hand"]
_OPPK = _S["opponent_known"]
_UNSEEN = _S["unseen"]
_TRUMPC, _LEAD = _S["trump_card"], _S["lead_card"]
_PLS, _PLO = _S["played_self"], _S["played_opponent"]
_TSUIT = _S["trump_suit"]
_PEND = _S["pending_marriage"]
_MARS = _S["marriages_self"]
_MARO = _S["marriages_opponent"]
_TOMOVE = _S["to_move"]
_LEADER = _S["is_leader"]
_DEALER = _S["is_dealer"]
_CLS = _S["closed_by_self"]
_CLO = _S["closed_by_opponent"]
_CLTRICK = _S["closed_opponent_had_trick"]
_EXS, _EXO = _S["exchanged_by_self"], _S["exchanged_by_opponent"]
_BUMMERL = _S["bummerl"]
_NUM0 = NUM_BINARY
_BIN_BYTES = (NUM_BINARY + 7) // 8
# observation bits, then the action mask bits at OBS_SIZE.. (numeric entries' bits stay 0)
_MASK_END = OBS_SIZE + NUM_ACTIONS
_ALL_BYTES = (_MASK_END + 7) // 8
# positional args (array, axis, count, bitorder): keyword parsing costs ~0.4 us
_unpack = np.unpackbits
_frombuffer = np.frombuffer
_UINT8 = np.dtype(np.uint8)
_INT8 = np.dtype(np.int8)
_FLOAT32 = np.dtype(np.float32)

#: Which rule option lives in which observation field, declared once (RULES §7):
#: ``field -> (option, value when the entry is 1, value when it is 0)``; the entry is 1 exactly when
#: ``getattr(rules, option) == value``. The encoder, :meth:`Observer.rule_entries`,
#: :func:`rules_from_observation` and the spec's ``fields[i]["rule"]`` all read this table.
RULE_FIELDS: dict = {
    "rule_deck_24": ("deck", 24, 20),
    "rule_sharp": ("sharp", True, False),
    "rule_declare_manual": ("declare", "manual", "auto"),
    "rule_false_declaration_2": ("false_declaration_points", 2, "as_if_correct"),
    "rule_closing_counts_later_eyes": ("closing_counts_later_eyes", True, False),
    "rule_show_eyes": ("show_eyes", True, False),
    "rule_allow_closing": ("allow_closing", True, False),
    "rule_marriage_leads_king": ("marriage_leads_king", True, False),
    "rule_marriage_credit_next_trick": ("marriage_credit", "next_trick", "first_trick"),
    "rule_schneider_bummerl": ("schneider_bummerl", True, False),
}
#: observation index of each rule field, in :data:`RULE_FIELDS` order
RULE_COLUMNS: tuple = tuple(_S[name] for name in RULE_FIELDS)

_INV_TALON = 1.0 / MAX_TALON
_INV_HAND = 1.0 / MAX_HAND
_INV_TRICKS = 1.0 / MAX_TRICKS
_INV_EYES = 1.0 / EYES_SCALE


def observation_view(obs: np.ndarray) -> dict:
    """Named views (no copies) over a flat observation (last dimension ``OBS_SIZE``): ``{field name:
    obs[slice]}``."""
    return {name: obs[..., sl] for name, sl in OBS_SLICES.items()}


def _fill(out, bits: int, numeric: tuple) -> np.ndarray:
    out[:_NUM0] = _unpack(
        _frombuffer(bits.to_bytes(_BIN_BYTES, "little"), _UINT8),
        -1,
        NUM_BINARY,
        "little",
    )
    out[_NUM0:] = numeric
    return out


# ---------------------------------------------------------------------------- the spec
def _layout_fields() -> list:
    fields = []
    for name, size, high, meaning in OBSERVATION_TABLE:
        f = {
            "name": name,
            "offset": OBS_SLICES[name].start,
            "size": size,
            "high": float(high),
            "meaning": meaning,
        }
        if name in RULE_FIELDS:
            option, one, zero = RULE_FIELDS[name]
            f["rule"] = {"option": option, "one": one, "zero": zero}
        fields.append(f)
    return fields


#: the layout part of every spec (``version``, ``size``, ``dtype``, ``low``, ``fields``), built once
_LAYOUT: dict = dict(
    version=OBSERVATION_VERSION,
    size=OBS_SIZE,
    dtype="float32",
    low=0.0,
    fields=_layout_fields(),
)


def describe_observation(spec: dict | None = None) -> str:
    """The layout as a Markdown table (index range, name, high, meaning), for docs: the
    ``fields`` of ``spec`` (default: this module's, :attr:`Observer.spec`)."""
    lines = ["| index | name | high | meaning |", "|---|---|---|---|"]
    for f in (_LAYOUT if spec is None else spec)["fields"]:
        start, size = f["offset"], f["size"]
        idx = f"{start}" if size == 1 else f"{start}–{start + size - 1}"
        lines.append(f"| {idx} | `{f['name']}` | {f['high']:.3g} | {f['meaning']} |")
    return "\n".join(lines)


def spec_difference(
    saved,
    current: dict | None = None,
    saved_name: str = "the checkpoint",
    current_name: str = "here",
) -> str | None:
    """The first difference between the layouts of two observation specs, in one line, or ``None``.

    Compared: ``version``, ``size``, ``dtype``, ``low`` and every field's name, offset, size, high
    and rule option (not ``rules``, ``bummerl`` or ``meaning``). ``current`` defaults to this
    module's layout."""
    cur = _LAYOUT if current is None else current
    if not isinstance(saved, dict):
        return f"the observation spec in {saved_name} is {type(saved).__name__}, not a dict"
    for key in ("version", "size", "dtype", "low"):
        if key not in saved:
            return f"the observation spec in {saved_name} has no {key!r}"
        if saved[key] != cur[key]:
            if key == "version":
                return (
                    f"observation spec version {saved[key]!r} in {saved_name} differs from version "
                    f"{cur[key]} {current_name}"
                )
            return f"observation {key} {saved[key]!r} in {saved_name}, {cur[key]!r} {current_name}"
    sf = saved.get("fields")
    if not isinstance(sf, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str) for f in sf):
        return f"the observation spec in {saved_name} has no list of named 'fields'"
    theirs = {f["name"]: f for f in sf}
    for f in cur["fields"]:
        name, g = f["name"], theirs.get(f["name"])
        if g is None:
            return f"field {name!r} (offset {f['offset']} {current_name}) is not in {saved_name}"
        if g.get("offset") != f["offset"]:
            return f"field {name!r} at offset {g.get('offset')!r} in {saved_name}, {f['offset']} {current_name}"
        for key in ("size", "high", "rule"):
            if g.get(key) != f.get(key):
                return f"field {name!r}: {key} {g.get(key)!r} in {saved_name}, {f.get(key)!r} {current_name}"
    ours = {f["name"] for f in cur["fields"]}
    for f in sf:
        if f["name"] not in ours:
            return f"field {f['name']!r} (offset {f.get('offset')!r} in {saved_name}) is not {current_name}"
    return None


# ------------------------------------------------------------------------- the observer
class Observer:
    """Builds one player's observation under fixed ``rules`` (default ``Rules()``), as OpenSpiel's
    observers.

    With ``bummerl`` (RULES §6) every call takes ``bummerl_score`` (game points per player) and
    fills the ``bummerl*`` fields, else they are 0. :attr:`spec` is a JSON-able dict of what the
    numbers are (checkpoints save it, :func:`spec_difference`). :meth:`fill_state` (GameState) and
    :meth:`fill_info` (InformationSet) write a float32 ``(OBS_SIZE,)`` array through one packer;
    :meth:`state_and_mask` returns new arrays (observation, int8 ``(NUM_ACTIONS,)`` mask).
    ``ValueError`` when ``rules`` is not a ``Rules``.
    """

    __slots__ = (
        "rules",
        "bummerl",
        "_rule_bits",
        "_full",
        "_show_eyes",
        "_target",
        "_bummerl_bit",
        "_spec",
    )

    def __init__(self, rules: Rules | None = None, bummerl: bool = False):
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
        self.rules = rules
        self.bummerl = bummerl
        bits = 0
        for name, (option, one, _zero) in RULE_FIELDS.items():
            if getattr(rules, option) == one:
                bits |= 1 << _S[name]
        self._rule_bits = bits
        self._full = DECK_MASKS[rules.deck]
        self._show_eyes = bool(rules.show_eyes)
        self._target = rules.bummerl_target
        self._bummerl_bit = 1 << _BUMMERL if bummerl else 0
        self._spec = None

    @classmethod
    def from_spec(cls, spec, name: str = "the spec") -> Observer:
        """The observer a spec describes (its ``rules`` and ``bummerl``). Raises ``ValueError``
        naming the first difference when its layout is not this module's (:func:`spec_difference`,
        ``name`` says whose spec it is), or when its context is malformed."""
        problem = spec_difference(spec, saved_name=name)
        if problem:
            raise ValueError(problem)
        try:
            return cls(Rules.from_dict(spec["rules"]), spec["bummerl"] is True)
        except (KeyError, ValueError, TypeError) as e:
            raise ValueError(f"the observation spec in {name} has no valid 'rules' and 'bummerl': {e}") from None

    @property
    def spec(self) -> dict:
        """The spec (class docstring): a new plain dict each time (JSON-able; ``json.dumps``
        works)."""
        if self._spec is None:
            self._spec = json.dumps({**_LAYOUT, "rules": self.rules.to_dict(), "bummerl": self.bummerl})
        return json.loads(self._spec)

    def __eq__(self, other) -> bool:
        return isinstance(other, Observer) and self.rules == other.rules and self.bummerl == other.bummerl

    def __hash__(self) -> int:
        return hash((self.rules, self.bummerl))

    def __repr__(self) -> str:
        return f"Observer(rules={self.rules!r}, bummerl={self.bummerl})"

    def rule_entries(self) -> np.ndarray:
        """float32 ``(len(RULE_FIELDS),)``: the ``rule_*`` entries of this observer's observations
        (at :data:`RULE_COLUMNS`, in :data:`RULE_FIELDS` order)."""
        return np.array([(self._rule_bits >> c) & 1 for c in RULE_COLUMNS], dtype=np.float32)

    # -------------------------------------------------------------------- encoding
    def fill_state(
        self,
        state: GameState,
        player: int,
        out: np.ndarray | None = None,
        bummerl_score: Sequence[int] | None = None,
    ) -> np.ndarray:
        """Write ``player``'s observation of ``state`` into ``out`` (float32 ``(OBS_SIZE,)``;
        ``None``: a new array) and return it."""
        out = np.empty(OBS_SIZE, dtype=np.float32) if out is None else out
        hands = state.hands
        return _fill(
            out,
            *self._pack(state, player, hands[player], hands[1 - player].bit_count(), bummerl_score),
        )

    def fill_info(
        self,
        info: InformationSet,
        out: np.ndarray | None = None,
        bummerl_score: Sequence[int] | None = None,
    ) -> np.ndarray:
        """Write the observation of ``info.player`` into ``out`` (float32 ``(OBS_SIZE,)``; ``None``:
        a new array) and return it."""
        out = np.empty(OBS_SIZE, dtype=np.float32) if out is None else out
        return _fill(
            out,
            *self._pack(info, info.player, info.hand, info.opponent_hand_size, bummerl_score),
        )

    def state_and_mask(
        self,
        state: GameState,
        player: int,
        bummerl_score: Sequence[int] | None = None,
    ) -> tuple:
        """``(observation float32 (OBS_SIZE,), action mask int8 (NUM_ACTIONS,))`` of ``player`` in
        ``state`` (the mask is all zeros when ``player`` is not to move), new arrays out of one bit
        unpacking (the environment's hot path)."""
        hands = state.hands
        bits, numeric = self._pack(
            state,
            player,
            hands[player],
            hands[1 - player].bit_count(),
            bummerl_score,
        )
        if state.current_player == player:
            bits |= state.legal_mask() << OBS_SIZE
        u = _unpack(_frombuffer(bits.to_bytes(_ALL_BYTES, "little"), _UINT8), -1, None, "little")
        obs = u[:OBS_SIZE].astype(_FLOAT32)
        obs[_NUM0:] = numeric
        return obs, u[OBS_SIZE:_MASK_END].view(_INT8)

    def _pack(self, src, player: int, hand: int, opponent_hand_size: int, bummerl_score) -> tuple:
        """The one encoder: the binary entries as one int (bit i = entry i) and the numeric entries.
        ``src`` is a GameState or an InformationSet: only attributes both have are read; ``hand``
        and ``opponent_hand_size`` are the two facts they keep differently."""
        o = 1 - player
        ps = po = 0
        for t in src.tricks:
            if t.leader == player:
                ps |= 1 << t.lead
                po |= 1 << t.follow
            else:
                po |= 1 << t.lead
                ps |= 1 << t.follow
        known = src.known[o]
        lead = src.lead_card
        lead_bit = 1 << lead if lead >= 0 else 0
        tc = src.trump_card
        tc_bit = 1 << tc if tc >= 0 else 0
        unseen = self._full & ~(hand | ps | po | lead_bit | tc_bit | known)
        bits = (
            hand << _HAND
            | known << _OPPK
            | unseen << _UNSEEN
            | tc_bit << _TRUMPC
            | lead_bit << _LEAD
            | ps << _PLS
            | po << _PLO
            | 1 << (_TSUIT + src.trump_suit)
            | self._rule_bits
        )
        if src.pending_marriage >= 0:
            bits |= 1 << (_PEND + src.pending_marriage)
        for q, s in src.marriages:
            bits |= 1 << ((_MARS if q == player else _MARO) + s)
        if src.current_player == player:
            bits |= 1 << _TOMOVE
        if src.leader == player:
            bits |= 1 << _LEADER
        if src.dealer == player:
            bits |= 1 << _DEALER
        c = src.closed_by
        if c >= 0:
            bits |= 1 << (_CLS if c == player else _CLO)
            if src.closed_opponent_had_trick:
                bits |= 1 << _CLTRICK
        ex = src.exchange
        if ex is not None:
            bits |= 1 << (_EXS if ex[0] == player else _EXO)
        if self.bummerl:  # bummerl_score: game points [player 0, player 1]
            bits |= self._bummerl_bit
            t = self._target
            bs, bo = bummerl_score[player] / t, bummerl_score[o] / t
        else:
            bs = bo = 0.0
        tw = src.tricks_won
        if self._show_eyes:
            e, h = src.eyes, src.held_marriage_eyes
            closed_eyes = src.closed_opponent_eyes * _INV_EYES if c >= 0 else 0.0
            eyes = (
                e[player] * _INV_EYES,
                e[o] * _INV_EYES,
                h[player] * _INV_EYES,
                h[o] * _INV_EYES,
                closed_eyes,
            )
        else:
            eyes = _NO_EYES
        numeric = (
            src.talon_size * _INV_TALON,
            opponent_hand_size * _INV_HAND,
            tw[player] * _INV_TRICKS,
            tw[o] * _INV_TRICKS,
            *eyes,
            bs,
            bo,
        )
        return bits, numeric


# ------------------------------------------------------------ module-level functions
# the observers of each Rules object, keyed by id (hashing a frozen dataclass costs more than an
# encoding step); an entry keeps its Rules alive and is checked by identity, so an id cannot alias
_OBSERVERS: dict = {}
_OBSERVERS_MAX = 1024


def observer_for(rules: Rules, bummerl: bool = False) -> Observer:
    """The (shared, cached) :class:`Observer` of ``rules`` and the episode kind."""
    entry = _OBSERVERS.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_OBSERVERS) > _OBSERVERS_MAX:
            _OBSERVERS.clear()
        entry = _OBSERVERS[id(rules)] = (rules, Observer(rules), Observer(rules, bummerl=True))
    return entry[2 if bummerl else 1]


def rules_from_observation(observation: np.ndarray, base: Rules | None = None) -> Rules:
    """The rules an observation was made under: its ``rule_*`` entries decoded with
    :data:`RULE_FIELDS`, every option the observation does not hold (``bummerl_target``) taken
    from ``base`` (default: the defaults). ``observation``: float32 ``(OBS_SIZE,)``."""
    row = np.asarray(observation)[list(RULE_COLUMNS)]
    options = (base or Rules()).to_dict()
    for (option, one, zero), v in zip(RULE_FIELDS.values(), row):
        options[option] = one if v == 1 else zero
    return Rules.from_dict(options)


def encode_state(
    state: GameState,
    player: int,
    bummerl_score: Sequence[int] | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The observation of ``player`` (0/1) in ``state``: float32 ``(OBS_SIZE,)``, exactly
    ``encode(state.information_set(player), bummerl_score)`` without building the InformationSet.
    ``bummerl_score``: game points per seat in the current Bummerl, or ``None`` for a single
    game."""
    return observer_for(state.rules, bummerl_score is not None).fill_state(
        state,
        player,
        out,
        bummerl_score,
    )


def encode(
    info: InformationSet, bummerl_score: Sequence[int] | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """The observation of ``info.player`` from an InformationSet: float32 ``(OBS_SIZE,)`` (layout
    :data:`OBSERVATION_TABLE`; ``bummerl_score`` as :func:`encode_state`)."""
    return observer_for(info.rules, bummerl_score is not None).fill_info(info, out, bummerl_score)


# ------------------------------------------------------------------ full state
#: full-state layout: player 0's observation, then player 1's hand, then the talon order
STATE_TABLE: tuple = (
    (
        "observation_player_0",
        OBS_SIZE,
        None,
        "encode_state(state, 0): player 0's observation (layout above)",
    ),
    ("hand_player_1", NUM_CARDS, 1.0, "cards in player 1's hand"),
    (
        "talon_order",
        NUM_CARDS,
        1.0,
        f"face-down talon cards: (k + 1) / {MAX_TALON} for the card drawn k-th from now, 0 elsewhere",
    ),
)
STATE_SIZE: int = OBS_SIZE + 2 * NUM_CARDS
STATE_LOW = np.zeros(STATE_SIZE, dtype=np.float32)
STATE_HIGH = np.concatenate([OBS_HIGH, np.ones(2 * NUM_CARDS, dtype=np.float32)])


def encode_full_state(
    state: GameState, bummerl_score: Sequence[int] | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """The full state (both hands, talon order) as float32 ``(STATE_SIZE,)`` (:data:`STATE_TABLE`),
    for centralized critics; it reveals hidden cards, so never an agent's observation."""
    out = np.empty(STATE_SIZE, dtype=np.float32) if out is None else out
    encode_state(state, 0, bummerl_score, out=out[:OBS_SIZE])
    h1 = state.hands[1]
    out[OBS_SIZE : OBS_SIZE + NUM_CARDS] = np.unpackbits(
        np.frombuffer(h1.to_bytes(3, "little"), dtype=np.uint8), count=NUM_CARDS, bitorder="little"
    )
    talon = out[OBS_SIZE + NUM_CARDS :]
    talon[:] = 0.0
    for k, c in enumerate(state.talon[state.talon_pos :]):
        talon[c] = (k + 1) * _INV_TALON
    return out
