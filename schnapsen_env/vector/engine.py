"""The batched rules engine: N games of Schnapsen or Sechsundsechzig as PyTorch tensors.

:class:`VectorGames` holds the state of ``num_games`` games as tensors on one torch
``device`` and advances all of them at once: :meth:`~VectorGames.reset` deals (deck orders
and dealers, RULES §2), :meth:`~VectorGames.legal_mask` gives every game's legal actions,
:meth:`~VectorGames.step` applies one action per game. There is no Python loop over games.
The games follow exactly the rules of the scalar engine (:class:`schnapsen_env.engine.GameState`):
the same deal from the same deck, the same legal actions, the same transitions, the same
outcomes (``tests/test_vector.py`` drives both with the same actions and compares every step).

**One source of the rules.** The rule *numbers and predicates* are not restated here: at
construction every clause of :mod:`schnapsen_env.rulebook` that the transitions need is
evaluated over its whole (small) domain into lookup tables (who wins a trick for every
trump suit, lead and follow; the game points for every loser's eyes; whether an exchange,
a closing or a marriage is allowed for every face-down count and trick count under these
rules; ...), and the batched code only gathers from them. What remains here is the order in
which RULES §3–§5 apply them (the same order as ``GameState.apply``), written with tensors.

State (all tensors have the batch as their first dimension ``N``; ``int64`` unless said):

========================  ========  ===============================================================
field                     shape     meaning (invariant)
========================  ========  ===============================================================
``deck``                  (N, 24)   deal order (RULES §2); entries past the deck size are 0
``dealer``                (N,)      0/1; the other player is forehand
``trump_suit``            (N,)      0..3, suit of the first face-up card
``hands``                 (N, 2)    card bitmask per player; disjoint
``known``                 (N, 2)    cards of each hand that are public (exchange, marriage, last draw)
``played``                (N, 2)    cards each player played in finished tricks
``won_cards``             (N, 2)    cards in the tricks each player won (public: who took which trick)
``talon_pos``             (N,)      index into ``deck`` of the next face-down card (deck size when none)
``trump_card``            (N,)      face-up trump card, -1 once drawn
``leader``                (N,)      player on lead in the current trick
``current_player``        (N,)      player to act, -1 once the game is over
``lead_card``             (N,)      card led in the current trick, -1 before the lead
``pending_marriage``      (N,)      suit announced at this lead and not yet led, else -1
``eyes``                  (N, 2)    credited eyes (cards, credited marriages, last-trick 10)
``held_marriage_eyes``    (N, 2)    announced, not yet credited marriage eyes
``tricks_won``            (N, 2)    tricks won per player
``num_tricks``            (N,)      finished tricks (= tricks_won summed)
``marriages``             (N, 2)    bitmask of the suits each player announced
``closed_by``             (N,)      closer or -1
``closed_opponent_eyes``  (N,)      the closer's opponent's eyes at closing (0 if not closed)
``closed_opponent_had_trick`` (N,)  0/1: the closer's opponent had a trick at closing
``exchanged_by``          (N,)      the player who exchanged the trump card, or -1
``winner``                (N,)      winner once over, else -1
``game_points``           (N,)      game points once over (1..3), else 0
``reason``                (N,)      index into :data:`schnapsen_env.engine.REASONS` once over, else -1
``history``               (N, L)    actions so far (``L`` = MAX_GAME_LENGTH), -1 after the last
``num_actions``           (N,)      actions applied so far
========================  ========  ===============================================================

Illegal actions: :meth:`~VectorGames.step` refuses a batch holding an illegal action for a
game in play with :class:`VectorIllegalActionError` (nothing changes), or, with
``illegal_action="renonce"``, ends those games as a renonce of the mover (RULES §5.4) and plays
the others, the same choice as the scalar environment makes per game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ..actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, MAX_GAME_LENGTH, NUM_ACTIONS, action_to_str
from ..cards import (
    CARD_EYES, DECK_MASKS, KING, NUM_CARDS, NUM_SUITS, RANKS_PER_SUIT, SUIT_MASKS, as_int, brief_repr, card_id,
    cards_of,
)
from ..engine import REASONS, GameState, Outcome, validate_seed
from ..rulebook import (
    LAST_TRICK_GAME_POINTS,
    MARRIAGE_PAIRS,
    closing_failed_points,
    closing_forbidden,
    closing_success_points,
    declare_forbidden,
    draws_after_trick,
    exchange_card,
    exchange_forbidden,
    false_declaration_points,
    follower_wins,
    game_points_for,
    last_trick_bonus,
    marriage_credited_at_once,
    marriage_eyes,
    marriage_forbidden,
    marriage_lead_cards,
    reaches_66,
)
from ..rules import RENONCE_POINTS, Rules

__all__ = ["VectorGames", "VectorIllegalActionError", "REASON_IDS", "as_device", "decks_from_seeds",
           "MAX_EYES_TABLE"]

#: reason name -> the ``reason`` code of a finished game (index into ``engine.REASONS``)
REASON_IDS = {name: i for i, name in enumerate(REASONS)}
_DECLARED, _LAST, _CLOSING_FAILED, _FALSE, _RENONCE = (REASON_IDS[r] for r in REASONS)
#: eyes covered by the lookup tables indexed by eyes (more than any player can hold: 120 card
#: eyes + 10 last trick + 40 + 3 * 20 marriages)
MAX_EYES_TABLE = 256


def as_device(device) -> torch.device:
    """``device`` (a ``torch.device``, a string such as ``"cpu"``/``"cuda:0"``, or None for the
    CPU) as a ``torch.device`` this machine can compute and draw random numbers on; ``ValueError``
    naming it otherwise (an unknown name, a device torch was not built with or this machine lacks).
    The device is returned as tensors made there report it (``"cpu:0"`` is ``cpu``, ``"cuda"`` is
    ``cuda:0``), so that comparing a tensor's device with it is exact."""
    if device is None:
        return torch.device("cpu")
    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device must be a torch device or a string such as 'cpu' or 'cuda', got {brief_repr(device)}")
    try:
        dev = torch.device(device)
    except RuntimeError as e:
        raise ValueError(f"unknown torch device {str(device)!r}: {str(e).splitlines()[0]}") from None
    if dev.type == "cpu":
        return torch.device("cpu")  # a CPU tensor's device has no index, whatever index was asked for
    if dev.type == "cuda" and not (torch.cuda.is_available() and (dev.index or 0) < torch.cuda.device_count()):
        raise ValueError(f"torch device {str(device)!r} is not available here (torch.cuda.is_available() is "
                         f"{torch.cuda.is_available()}); use 'cpu'")
    if dev.type == "meta":
        raise ValueError(f"torch device {str(device)!r} holds no data: allowed 'cpu' or an accelerator this "
                         "machine has")
    try:  # the engine needs tensors and a random generator there
        dev = torch.zeros(1, device=dev).device  # "cuda" -> cuda:0, as its tensors say
        torch.Generator(device=dev)
    except (RuntimeError, AssertionError) as e:
        raise ValueError(f"torch device {str(device)!r} is not available here "
                         f"({' '.join(str(e).split())[:120]}); use 'cpu'") from None
    return dev


def decks_from_seeds(rules: Rules, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The deals ``GameState.from_seed(rules, seed)`` makes, for many seeds, on the host:
    ``(decks int64 (len(seeds), 24), dealers int64 (len(seeds),))`` (deck entries past the
    variant's deck size are 0). ``ValueError`` for seeds that are not a sequence, or a seed that is
    not a non-negative int."""
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise ValueError(f"seeds must be a sequence of whole numbers >= 0 (one per game), got {brief_repr(seeds)}")
    seeds = list(seeds)
    decks = np.zeros((len(seeds), NUM_CARDS), dtype=np.int64)
    dealers = np.zeros(len(seeds), dtype=np.int64)
    for i, s in enumerate(seeds):
        g = GameState.from_seed(rules, validate_seed(s, f"seeds[{i}]"))
        decks[i, : rules.deck] = g.deck
        dealers[i] = g.dealer
    return decks, dealers


def to_tensor(x, device: torch.device | None = None) -> torch.Tensor:
    """``torch.as_tensor(x, device=device)``, numpy arrays with negative strides included (``a[::-1]``,
    ``np.flip``: torch refuses those, so they are copied first). Raises what ``torch.as_tensor`` raises
    for what cannot be a tensor."""
    if isinstance(x, np.ndarray) and any(stride < 0 for stride in x.strides):
        x = np.ascontiguousarray(x)
    return torch.as_tensor(x, device=device)


def int_tensor(x, name: str, expected: str, shape: tuple | None, device: torch.device) -> torch.Tensor:
    """``x`` (a tensor, array or list of whole numbers) as int64 on ``device``, of ``shape`` (None: any 1-d
    length; ``[]`` is an empty one), or the one-line ``ValueError`` "``name`` must be ``expected``, got ..."."""
    try:
        t = to_tensor(x, device)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be {expected}, got {brief_repr(x)}") from None
    if isinstance(x, (list, tuple)) and not x:
        t = t.to(torch.int64)  # [] is float32 to torch
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool or \
            (t.dim() != 1 if shape is None else tuple(t.shape) != shape):
        raise ValueError(f"{name} must be {expected}, got {t.dtype} {tuple(t.shape)}")
    return t.to(torch.int64)


def row_indices(rows, n: int, device: torch.device, name: str = "rows", distinct: bool = False) -> torch.Tensor:
    """A selection of games as int64 (K,) game indices on ``device``. ``rows``: a bool mask of shape
    (n,) (a tensor, array or list) or a 1-d tensor/array/list of game indices in 0..n-1 (repeats
    allowed unless ``distinct``: reads may repeat a game, a deal or a step may not). A one-line
    ``ValueError`` naming ``name`` and what is wrong otherwise."""
    expected = f"a bool mask of shape ({n},) or a 1-d tensor of game indices"
    if isinstance(rows, (list, tuple)) and not rows:
        return torch.zeros(0, dtype=torch.int64, device=device)
    try:
        t = to_tensor(rows, device)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be {expected}, got {brief_repr(rows)}") from None
    if t.dtype == torch.bool:
        if tuple(t.shape) != (n,):
            raise ValueError(f"{name} as a mask must be bool of shape ({n},), got {tuple(t.shape)}")
        return t.nonzero().squeeze(1)
    r = int_tensor(t, name, expected, None, device)
    if r.numel() and (int(r.min()) < 0 or int(r.max()) >= n):
        raise ValueError(f"{name} must lie in 0..{n - 1}, got {int(r.min())}..{int(r.max())}")
    if distinct and r.unique().numel() != r.numel():
        raise ValueError(f"{name} must be distinct game indices (each game once)")
    return r


def selection_mask(selection, n: int, device: torch.device, name: str = "games") -> torch.Tensor:
    """A selection of games as bool (n,) on ``device``: a bool mask of shape (n,) as it is, or distinct
    game indices (see :func:`row_indices`); a one-line ``ValueError`` naming ``name`` otherwise.
    Used wherever games act or are dealt (``VectorGames.step``, ``VectorEpisodes``, batched agents)."""
    if isinstance(selection, torch.Tensor) and selection.dtype == torch.bool and tuple(selection.shape) == (n,):
        return selection.to(device)
    mask = torch.zeros(n, dtype=torch.bool, device=device)
    mask[row_indices(selection, n, device, name, distinct=True)] = True
    return mask


class VectorIllegalActionError(ValueError):
    """A batch of actions with an illegal action for a game in play (RULES §3–§5).

    ``games``: the indices of the games whose action is illegal; ``actions``: those actions;
    ``reason``: the scalar engine's reason for the first of them. Nothing was changed.
    """

    def __init__(self, games: list, actions: list, reason: str):
        self.games = games
        self.actions = actions
        self.reason = reason
        try:
            text = action_to_str(actions[0])
        except ValueError:
            text = brief_repr(actions[0])
        more = f" (and {len(games) - 1} more games)" if len(games) > 1 else ""
        super().__init__(f"illegal action {text!r} in game {games[0]}{more}: {reason}")


def _bits(values) -> int:
    m = 0
    for v in values:
        m |= 1 << v
    return m


class _Tables:
    """The rulebook's clauses for one :class:`Rules`, tabulated over their domains (tensors on ``device``)."""

    def __init__(self, rules: Rules, device: torch.device):
        def t(x, dtype=torch.int64):
            return torch.tensor(x, dtype=dtype, device=device)

        cards = range(NUM_CARDS)
        # RULES §3: follower_wins for every trump suit, lead and follow: (4, 24, 24) as an int 0/1
        self.follower_wins = t([[[int(follower_wins(lead, follow, ts)) for follow in cards] for lead in cards]
                                for ts in range(NUM_SUITS)])
        self.card_eyes = t(list(CARD_EYES))
        # RULES §3 phase 2: the follower's precedence. "Higher" = same suit and winning against the lead
        # under a trump suit other than the lead's (so only rank decides), "lower" = the rest of the suit
        higher, lower = [], []
        for lead in cards:
            other = (lead // RANKS_PER_SUIT + 1) % NUM_SUITS
            suit = [c for c in cards if c // RANKS_PER_SUIT == lead // RANKS_PER_SUIT and c != lead]
            higher.append(_bits(c for c in suit if follower_wins(lead, c, other)))
            lower.append(_bits(c for c in suit if not follower_wins(lead, c, other)))
        self.higher = t(higher)
        self.lower = t(lower)
        self.suit_masks = t(list(SUIT_MASKS))
        # RULES §3 drawing: for every face-down count 0..24: cards drawn, loser takes the trump card
        draws = [draws_after_trick(k) for k in range(NUM_CARDS + 1)]
        self.drawn = t([d for d, _ in draws])
        self.loser_takes_trump = t([bool(x) for _, x in draws], torch.bool)
        # RULES §4 exchange: the exchanging card per trump suit; allowed per (face-down count, tricks played > 0)
        self.exchange_card = t([exchange_card(rules, s) for s in range(NUM_SUITS)])
        self.exchange_ok = t([[exchange_forbidden(rules, 1 << exchange_card(rules, 0), 0, True, k, tp) is None
                               for tp in (0, 1)] for k in range(NUM_CARDS + 1)], torch.bool)
        # RULES §4 closing: allowed per face-down count (talon open, not closed; 0 where it cannot be open)
        self.closing_ok = t([k > 0 and closing_forbidden(rules, -1, 0, k) is None for k in range(NUM_CARDS + 1)],
                            torch.bool)
        # RULES §4 marriage: allowed (holding the pair) per announcer having a trick; credited at once per same
        self.marriage_ok = t([marriage_forbidden(rules, MARRIAGE_PAIRS[0], 0, tr) is None for tr in (0, 1)],
                             torch.bool)
        self.credited_at_once = t([marriage_credited_at_once(rules, tr) for tr in (0, 1)], torch.bool)
        self.marriage_eyes = t([[marriage_eyes(s, ts) for ts in range(NUM_SUITS)] for s in range(NUM_SUITS)])
        self.marriage_lead = t([marriage_lead_cards(rules, s) for s in range(NUM_SUITS)])
        self.pairs = t(list(MARRIAGE_PAIRS))
        self.king_bits = [1 << card_id(s, KING) for s in range(NUM_SUITS)]
        # RULES §5
        self.reaches = t([reaches_66(e) for e in range(MAX_EYES_TABLE)], torch.bool)
        # game_points_for(loser eyes, loser has a trick): index eyes * 2 + has_trick
        self.game_points = t([game_points_for(e, bool(tr)) for e in range(MAX_EYES_TABLE) for tr in (0, 1)])
        self.last_bonus = t([last_trick_bonus(rules, bool(c)) for c in (0, 1)])
        self.closing_failed = t([closing_failed_points(bool(tr)) for tr in (0, 1)])
        self.false_points = t([false_declaration_points(rules, p) if p else 0 for p in range(4)])
        # closing_success_points under these rules: does it read the opponent's eyes now (or at closing)?
        self.counts_later = closing_success_points(rules, 0, False, 100, True) == game_points_for(100, True)
        self.manual_declare = declare_forbidden(rules) is None
        self.last_trick_points = LAST_TRICK_GAME_POINTS
        self.full_deck = DECK_MASKS[rules.deck]
        self.deck_size = rules.deck
        # RULES §2, read off the scalar engine's deal of the deck in id order (dealer 1: player 0 is
        # forehand): the deck positions of each hand, of the face-up trump card and of the first talon card
        ids = [c for c in cards if DECK_MASKS[rules.deck] >> c & 1]
        dealt = GameState(rules, ids, 1)
        self.fore_positions = [ids.index(c) for c in cards_of(dealt.hands[0])]
        self.dealer_positions = [ids.index(c) for c in cards_of(dealt.hands[1])]
        self.trump_position = ids.index(dealt.trump_card)
        self.talon_start = ids.index(dealt.talon[0])


# ---------------------------------------------------------------- the state matrix
#: Column layout of the state: one int64 matrix (N, STATE_COLUMNS); every public field of
#: :class:`VectorGames` is a view of its columns (``(name, width)``; widths 2 are per player).
LAYOUT = (
    ("dealer", 1), ("trump_suit", 1), ("hands", 2), ("known", 2), ("played", 2), ("won_cards", 2),
    ("talon_pos", 1), ("trump_card", 1), ("leader", 1), ("current_player", 1), ("lead_card", 1),
    ("pending_marriage", 1), ("eyes", 2), ("held_marriage_eyes", 2), ("tricks_won", 2), ("num_tricks", 1),
    ("marriages", 2), ("closed_by", 1), ("closed_opponent_eyes", 1), ("closed_opponent_had_trick", 1),
    ("exchanged_by", 1), ("winner", 1), ("game_points", 1), ("reason", 1), ("num_actions", 1),
    ("deck", NUM_CARDS), ("history", MAX_GAME_LENGTH),
)
_COLUMNS = {}
_pos = 0
for _name, _width in LAYOUT:
    _COLUMNS[_name] = (_pos, _width)
    _pos += _width
#: columns of the state matrix
STATE_COLUMNS = _pos
#: most games one VectorGames holds (the state is about 1 KB per game)
MAX_NUM_GAMES = 1 << 20
#: the column of ``current_player`` (-1 once the game is over)
_CURRENT_PLAYER = _COLUMNS["current_player"][0]
#: ``step(actions, games)`` transforms only the selected rows (gathered, stepped, scattered back) when
#: they are fewer than 1 / this of the games; more, and the whole matrix is cheaper
_SUBSET_STEP_FRACTION = 2
#: the value of each field in a game not dealt yet (and the reset value before a deal)
_INITIAL = {"trump_card": -1, "current_player": -1, "lead_card": -1, "pending_marriage": -1, "closed_by": -1,
            "exchanged_by": -1, "winner": -1, "reason": -1, "history": -1}
del _pos, _name, _width


def _unpack(S: torch.Tensor) -> dict:
    """The columns of ``S`` by name; a per-player field ``f`` as ``f0`` and ``f1`` (N,)."""
    d = {}
    for name, (c, w) in _COLUMNS.items():
        if w == 1:
            d[name] = S[:, c]
        elif w == 2:
            d[name + "0"] = S[:, c]
            d[name + "1"] = S[:, c + 1]
        else:
            d[name] = S[:, c:c + w]
    return d


def _pack(d: dict) -> torch.Tensor:
    cols = []
    for name, (_c, w) in _COLUMNS.items():
        if w == 1:
            cols.append(d[name])
        elif w == 2:
            cols += [d[name + "0"], d[name + "1"]]
    return torch.cat([torch.stack(cols, dim=1), d["deck"], d["history"]], dim=1)


def _pick(d: dict, name: str, p: torch.Tensor) -> torch.Tensor:
    """Player ``p``'s entry of per-player field ``name`` (N,)."""
    return torch.where(p == 1, d[name + "1"], d[name + "0"])


def _add(d: dict, name: str, p: torch.Tensor, v: torch.Tensor) -> None:
    """Add ``v`` to player ``p``'s entry of ``name`` (``v`` is 0 where nothing changes)."""
    d[name + "0"] = d[name + "0"] + torch.where(p == 0, v, 0)
    d[name + "1"] = d[name + "1"] + torch.where(p == 1, v, 0)


def _or(d: dict, name: str, p: torch.Tensor, v: torch.Tensor) -> None:
    d[name + "0"] = d[name + "0"] | torch.where(p == 0, v, 0)
    d[name + "1"] = d[name + "1"] | torch.where(p == 1, v, 0)


def _set(d: dict, name: str, p: torch.Tensor, v: torch.Tensor, where: torch.Tensor) -> None:
    d[name + "0"] = torch.where(where & (p == 0), v, d[name + "0"])
    d[name + "1"] = torch.where(where & (p == 1), v, d[name + "1"])


def _mask_bits(S: torch.Tensor, T: "_Tables") -> torch.Tensor:
    """int64 (N,): legal actions of the player to move as bits (0 once over), as ``GameState.legal_mask``."""
    d = _unpack(S)
    cp = d["current_player"]
    p = cp.clamp(min=0)
    hand = _pick(d, "hands", p)
    lead = d["lead_card"]
    talon_open = (d["trump_card"] >= 0) & (d["closed_by"] < 0)
    # RULES §3 following: phase 1 any card; phase 2 higher of the suit, else lower, else trump, else any
    lead_c = lead.clamp(min=0)
    hi = hand & T.higher[lead_c]
    lo = hand & T.lower[lead_c]
    tr = hand & T.suit_masks[d["trump_suit"]]
    follow = torch.where(hi != 0, hi, torch.where(lo != 0, lo, torch.where(tr != 0, tr, hand)))
    follow = torch.where(talon_open, hand, follow)
    # RULES §4/§5.1 leading
    declare = (1 << DECLARE) if T.manual_declare else 0
    pm = d["pending_marriage"]
    pending = (T.marriage_lead[pm.clamp(min=0)] & hand) | declare
    has_trick = (_pick(d, "tricks_won", p) > 0).long()
    pairs = hand & (hand >> 1)
    suits = torch.zeros_like(hand)
    for s, kb in enumerate(T.king_bits):
        suits = suits | (((pairs & kb) != 0).long() << (MARRIAGE_BASE + s))
    suits = torch.where(T.marriage_ok[has_trick], suits, 0)
    facedown = T.deck_size - d["talon_pos"]
    ex_holds = ((hand >> T.exchange_card[d["trump_suit"]]) & 1) == 1
    ex = talon_open & ex_holds & T.exchange_ok[facedown, (d["num_tricks"] > 0).long()]
    cl = talon_open & T.closing_ok[facedown]
    lead_mask = hand | declare | suits | (ex.long() << EXCHANGE) | (cl.long() << CLOSE)
    lead_mask = torch.where(pm >= 0, pending, lead_mask)
    m = torch.where(lead >= 0, follow, lead_mask)
    return torch.where(cp >= 0, m, 0)


def _end(d: dict, mask: torch.Tensor, winner: torch.Tensor, points: torch.Tensor, reason: int) -> None:
    d["winner"] = torch.where(mask, winner, d["winner"])
    d["game_points"] = torch.where(mask, points, d["game_points"])
    d["reason"] = torch.where(mask, reason, d["reason"])
    d["current_player"] = torch.where(mask, -1, d["current_player"])


def _points_judged_by(d: dict, T: "_Tables", loser: torch.Tensor) -> torch.Tensor:
    """``game_points_for`` (RULES §5) judged by ``loser``'s eyes and tricks now, per game."""
    eyes = _pick(d, "eyes", loser).clamp(max=MAX_EYES_TABLE - 1)
    return T.game_points[eyes * 2 + (_pick(d, "tricks_won", loser) > 0).long()]


def _closing_failed(d: dict, T: "_Tables", mask: torch.Tensor) -> None:
    """RULES §5.3: the closing failed; the closer's opponent wins 2 or 3."""
    c = d["closed_by"].clamp(min=0)
    _end(d, mask, 1 - c, T.closing_failed[d["closed_opponent_had_trick"]], _CLOSING_FAILED)


def _reach_66(d: dict, T: "_Tables", mask: torch.Tensor, q: torch.Tensor) -> None:
    """``GameState._reach_66`` for the games ``mask`` (player ``q`` reached or declared 66)."""
    c = d["closed_by"]
    _end(d, mask & (c < 0), q, _points_judged_by(d, T, 1 - q), _DECLARED)
    if T.counts_later:
        scale = _points_judged_by(d, T, 1 - c.clamp(min=0))
    else:
        scale = T.game_points[d["closed_opponent_eyes"].clamp(max=MAX_EYES_TABLE - 1) * 2
                              + d["closed_opponent_had_trick"]]
    _end(d, mask & (c >= 0) & (q == c), q, scale, _DECLARED)
    _closing_failed(d, T, mask & (c >= 0) & (q != c))


def _transition(S: torch.Tensor, a: torch.Tensor, act: torch.Tensor, renonce: torch.Tensor,
                T: "_Tables") -> torch.Tensor:
    """The next state matrix: ``GameState.apply`` of the legal actions ``a`` in the games ``act``, and a
    renonce of the mover (RULES §5.4) in the games ``renonce`` (disjoint from ``act``)."""
    d = _unpack(S)
    n = S.shape[0]
    p = d["current_player"].clamp(min=0)
    o = 1 - p
    _end(d, renonce, o, torch.full_like(p, RENONCE_POINTS), _RENONCE)
    # the action log
    pos = d["num_actions"].clamp(max=MAX_GAME_LENGTH - 1)
    slot = torch.arange(MAX_GAME_LENGTH, device=S.device).expand(n, MAX_GAME_LENGTH) == pos.unsqueeze(1)
    d["history"] = torch.where(slot & act.unsqueeze(1), a.unsqueeze(1), d["history"])
    d["num_actions"] = d["num_actions"] + act.long()

    is_card = act & (a < MARRIAGE_BASE)
    is_marriage = act & (a >= MARRIAGE_BASE) & (a < EXCHANGE)
    is_exchange = act & (a == EXCHANGE)
    is_close = act & (a == CLOSE)
    is_declare = act & (a == DECLARE)
    leading = d["lead_card"] < 0
    is_lead = is_card & leading
    is_follow = is_card & ~leading

    one = torch.ones_like(a)
    bit = torch.where(is_card, one << a.clamp(max=NUM_CARDS - 1), 0)
    # a card leaves the hand (and is no longer "known in hand")
    d["hands0"] = d["hands0"] ^ torch.where(p == 0, bit, 0)
    d["hands1"] = d["hands1"] ^ torch.where(p == 1, bit, 0)
    d["known0"] = d["known0"] & ~torch.where(p == 0, bit, 0)
    d["known1"] = d["known1"] & ~torch.where(p == 1, bit, 0)

    # ---- leading a card
    d["lead_card"] = torch.where(is_lead, a, d["lead_card"])
    d["pending_marriage"] = torch.where(is_lead, -1, d["pending_marriage"])
    cur = torch.where(is_lead, o, d["current_player"])

    # ---- marriage (RULES §4): its cards become public; eyes credited at once or held
    s = (a - MARRIAGE_BASE).clamp(0, NUM_SUITS - 1)
    pts = T.marriage_eyes[s, d["trump_suit"]]
    d["pending_marriage"] = torch.where(is_marriage, s, d["pending_marriage"])
    _or(d, "marriages", p, torch.where(is_marriage, one << s, 0))
    _or(d, "known", p, torch.where(is_marriage, _pick(d, "hands", p) & T.pairs[s], 0))
    at_once = is_marriage & T.credited_at_once[(_pick(d, "tricks_won", p) > 0).long()]
    _add(d, "eyes", p, torch.where(at_once, pts, 0))
    _add(d, "held_marriage_eyes", p, torch.where(is_marriage & ~at_once, pts, 0))
    marriage_66 = at_once & T.reaches[_pick(d, "eyes", p)] if not T.manual_declare else torch.zeros_like(act)

    # ---- exchange (RULES §4)
    low = T.exchange_card[d["trump_suit"]]
    taken = d["trump_card"].clamp(min=0)
    _set(d, "hands", p, (_pick(d, "hands", p) & ~(one << low)) | (one << taken), is_exchange)
    _or(d, "known", p, torch.where(is_exchange, one << taken, 0))
    d["trump_card"] = torch.where(is_exchange, low, d["trump_card"])
    d["exchanged_by"] = torch.where(is_exchange, p, d["exchanged_by"])

    # ---- close (RULES §4)
    d["closed_opponent_eyes"] = torch.where(is_close, _pick(d, "eyes", o), d["closed_opponent_eyes"])
    d["closed_opponent_had_trick"] = torch.where(is_close, (_pick(d, "tricks_won", o) > 0).long(),
                                                 d["closed_opponent_had_trick"])
    d["closed_by"] = torch.where(is_close, p, d["closed_by"])

    # ---- following: the trick goes to its winner, then the phase 1 draw (RULES §3)
    lead = d["lead_card"].clamp(min=0)
    follow = a.clamp(max=NUM_CARDS - 1)
    leader = d["leader"]
    w = torch.where(T.follower_wins[d["trump_suit"], lead, follow] == 1, 1 - leader, leader)
    _add(d, "eyes", w, torch.where(is_follow, T.card_eyes[lead] + T.card_eyes[follow]
                                   + _pick(d, "held_marriage_eyes", w), 0))
    _set(d, "held_marriage_eyes", w, torch.zeros_like(w), is_follow)
    _add(d, "tricks_won", w, is_follow.long())
    d["num_tricks"] = d["num_tricks"] + is_follow.long()
    lead_bit = torch.where(is_follow, one << lead, 0)
    follow_bit = torch.where(is_follow, bit, 0)
    _or(d, "played", leader, lead_bit)
    _or(d, "played", 1 - leader, follow_bit)
    _or(d, "won_cards", w, lead_bit | follow_bit)
    d["lead_card"] = torch.where(is_follow, -1, d["lead_card"])
    d["leader"] = torch.where(is_follow, w, leader)
    cur = torch.where(is_follow, w, cur)
    closed = d["closed_by"] >= 0
    draw = is_follow & (d["trump_card"] >= 0) & ~closed
    tp = d["talon_pos"]
    facedown = (T.deck_size - tp).clamp(min=0)
    loser_takes = T.loser_takes_trump[facedown]
    deck = d["deck"]
    first = deck.gather(1, tp.clamp(max=NUM_CARDS - 1).unsqueeze(1)).squeeze(1)
    second = deck.gather(1, (tp + 1).clamp(max=NUM_CARDS - 1).unsqueeze(1)).squeeze(1)
    _or(d, "hands", w, torch.where(draw, one << first, 0))
    lose_draw = torch.where(draw, one << torch.where(loser_takes, d["trump_card"].clamp(min=0), second), 0)
    _or(d, "hands", 1 - w, lose_draw)
    took_trump = draw & loser_takes
    _or(d, "known", 1 - w, torch.where(took_trump, lose_draw, 0))
    d["trump_card"] = torch.where(took_trump, -1, d["trump_card"])
    d["talon_pos"] = torch.where(draw, tp + T.drawn[facedown], tp)
    last = is_follow & ~draw & ((d["hands0"] | d["hands1"]) == 0)
    _add(d, "eyes", w, torch.where(last, T.last_bonus[closed.long()], 0))
    d["current_player"] = torch.where(renonce, d["current_player"], cur)

    # ---- endings (RULES §5), in GameState's order
    w_reaches = T.reaches[_pick(d, "eyes", w)]
    if not T.manual_declare:
        trick_66 = is_follow & w_reaches
        last_plain = last & ~w_reaches
    else:
        trick_66 = torch.zeros_like(act)
        last_plain = last
    c = d["closed_by"]
    last_open = last_plain & (c < 0)
    last_closed = last_plain & (c >= 0)
    closer_66 = (w == c) & w_reaches
    decl_right = is_declare & T.reaches[_pick(d, "eyes", p)]
    decl_false = is_declare & ~decl_right
    reach_w = trick_66 | (last_open & w_reaches) | (last_closed & closer_66)
    _reach_66(d, T, reach_w | marriage_66 | decl_right, torch.where(reach_w, w, p))
    _closing_failed(d, T, last_closed & ~closer_66)
    _end(d, last_open & ~w_reaches, w, torch.full_like(w, T.last_trick_points), _LAST)
    # a false declaration (RULES §5.1, §5.3)
    _end(d, decl_false & (c < 0), o, T.false_points[_points_judged_by(d, T, o)], _FALSE)
    _closing_failed(d, T, decl_false & (c >= 0) & (p == c))
    _end(d, decl_false & (c >= 0) & (p != c), c.clamp(min=0),
         T.false_points[T.closing_failed[d["closed_opponent_had_trick"]]], _FALSE)
    return _pack(d)


class VectorGames:
    """``num_games`` games under one :class:`Rules`, as tensors on ``device`` (see the module docstring).

    ``VectorGames(rules=None, num_games=1, device="cpu", illegal_action="raise", compile=False)``.
    ``compile=True`` runs the mask and the transition through ``torch.compile`` (fused kernels: several
    times faster on large batches; the first steps pay the compilation). Raises ``ValueError`` for
    rules that are not a :class:`Rules`, a ``num_games`` that is not a whole number >= 1, an unknown
    device or an ``illegal_action`` other than ``"raise"``/``"renonce"``. After construction no game
    is dealt (every game is over with no outcome; :meth:`step` raises ``ValueError`` until then): call
    :meth:`reset`.
    """

    def __init__(self, rules: Rules | None = None, num_games: int = 1, device=None, illegal_action: str = "raise",
                 compile: bool = False):  # noqa: A002 - torch.compile's word
        if rules is None:
            rules = Rules()
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules object, got {brief_repr(rules)}")
        if as_int(num_games) is None or not 1 <= as_int(num_games) <= MAX_NUM_GAMES:
            raise ValueError(f"num_games must be a whole number from 1 to {MAX_NUM_GAMES} (limit MAX_NUM_GAMES), got "
                             f"{brief_repr(num_games)}")
        num_games = as_int(num_games)
        if illegal_action not in ("raise", "renonce"):
            raise ValueError(f"bad value {brief_repr(illegal_action)} for 'illegal_action': allowed 'raise', 'renonce'")
        if type(compile) is not bool:
            raise ValueError(f"compile must be True or False, got {brief_repr(compile)}")
        self.rules = rules
        self.n = num_games
        self.device = dev = as_device(device)
        self.illegal_action = illegal_action
        self.tables = T = _Tables(rules, dev)
        self._mask_cache = None
        self._dealt = False  # no game dealt yet: step() refuses to run
        S = torch.zeros((num_games, STATE_COLUMNS), dtype=torch.int64, device=dev)
        for name, value in _INITIAL.items():
            c, w = _COLUMNS[name]
            S[:, c:c + w] = value
        self._set_state(S)
        self._action_bits = torch.arange(NUM_ACTIONS, device=dev)
        self._deck_ids = torch.tensor(sorted(c for c in range(NUM_CARDS) if DECK_MASKS[rules.deck] >> c & 1),
                                      device=dev)
        self.compiled = compile
        if compile:
            # dynamic shapes: one compilation serves the whole batch and the subsets of rows that step()
            # and legal_mask_bits(rows) work on (no slower than a static kernel on CPU, measured)
            self._mask_fn = torch.compile(lambda S: _mask_bits(S, T), dynamic=True)
            self._transition_fn = torch.compile(lambda S, a, act, ren: _transition(S, a, act, ren, T), dynamic=True)
        else:
            self._mask_fn = lambda S: _mask_bits(S, T)
            self._transition_fn = lambda S, a, act, ren: _transition(S, a, act, ren, T)

    def _set_state(self, S: torch.Tensor) -> None:
        """Make ``S`` the state matrix; every public field becomes a view of its columns."""
        self._state = S
        self._mask_cache = None
        for name, (c, w) in _COLUMNS.items():
            object.__setattr__(self, name, S[:, c] if w == 1 else S[:, c:c + w])

    @property
    def state(self) -> torch.Tensor:
        """int64 (N, STATE_COLUMNS): the whole state (:data:`LAYOUT`); the fields are views of it."""
        return self._state

    def __setattr__(self, name: str, value) -> None:
        if name in _COLUMNS:
            raise AttributeError(f"{name} is a view of the state matrix: change it in place or through the methods")
        object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ dealing
    def reset(self, decks, dealers, games=None) -> None:
        """Deal new games (RULES §2): ``decks`` int (k, deck size) or (k, 24) card ids in deal order
        (24 wide: entries past the deck size must be 0, as in the state's ``deck`` field)
        (array-like or tensor), ``dealers`` int (k,) 0/1, into the games ``games`` (a bool (N,) mask,
        an index list/tensor of k games, or None for all N). Raises ``ValueError`` naming the first bad
        row (not a permutation of the variant's cards, a dealer other than 0/1, a shape that does not fit).
        """
        idx = self._indices(games)
        k = idx.numel()
        d = self.rules.deck
        if isinstance(dealers, (list, tuple)) and any(isinstance(x, (bool, np.bool_)) for x in dealers):
            raise ValueError(f"dealers must be whole numbers 0/1 (not bools) of shape ({k},), got "
                             f"{brief_repr(dealers)}")
        given_decks, given_dealers = decks, dealers
        try:
            decks = to_tensor(np.asarray(decks) if not isinstance(decks, torch.Tensor) else decks)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(f"decks must be whole numbers of shape ({k}, {d}), got "
                             f"{' '.join(brief_repr(given_decks).split())}") from None
        try:
            dealers = to_tensor(np.asarray(dealers) if not isinstance(dealers, torch.Tensor) else dealers)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(f"dealers must be whole numbers 0/1 of shape ({k},), got "
                             f"{' '.join(brief_repr(given_dealers).split())}") from None
        if k == 0 and isinstance(given_dealers, (list, tuple)) and not given_dealers:
            dealers = dealers.to(torch.int64)  # [] is float64 to numpy
        if k == 0 and isinstance(given_decks, (list, tuple)) and not given_decks:
            decks = torch.zeros((0, d), dtype=torch.int64)
        if decks.dtype.is_floating_point or decks.dtype == torch.bool or decks.dim() != 2 or decks.shape[0] != k \
                or decks.shape[1] not in (d, NUM_CARDS):
            raise ValueError(f"decks must be whole numbers of shape ({k}, {d}), got {decks.dtype} {tuple(decks.shape)}")
        if dealers.dtype.is_floating_point or dealers.dtype == torch.bool or tuple(dealers.shape) != (k,):
            raise ValueError(f"dealers must be whole numbers 0/1 of shape ({k},), got {dealers.dtype} "
                             f"{tuple(dealers.shape)}")
        if decks.shape[1] > d and bool((decks[:, d:] != 0).any()):  # the state's own layout: padding is 0
            i = int((decks[:, d:] != 0).any(dim=1).nonzero()[0, 0])
            raise ValueError(f"decks[{i}] has {NUM_CARDS} entries: past the {d} cards of the variant they must be 0 "
                             f"(the layout of the state's deck field), got {decks[i, d:].tolist()}")
        decks = decks[:, :d].to(self.device, torch.int64)
        dealers = dealers.to(self.device, torch.int64)
        sorted_decks = decks.sort(dim=1).values
        bad = (sorted_decks != self._deck_ids).any(dim=1)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise ValueError(f"decks[{i}] is not a permutation of the {d} cards of the variant "
                             f"({'no nines' if d == 20 else 'nines included'})")
        bad = (dealers != 0) & (dealers != 1)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise ValueError(f"dealers[{i}] must be 0 or 1, got {int(dealers[i])}")
        self._deal(idx, decks, dealers)

    def _deal(self, idx: torch.Tensor, decks: torch.Tensor, dealers: torch.Tensor) -> None:
        """RULES §2, as ``GameState._deal``: checked decks (k, deck size) and dealers (k,) into games ``idx``."""
        self._mask_cache = None
        self._dealt = True
        rules = self.rules
        bits = torch.ones((), dtype=torch.int64, device=self.device) << decks
        T = self.tables
        fh = bits[:, T.fore_positions].sum(1)
        dh = bits[:, T.dealer_positions].sum(1)
        trump_pos, talon_start = T.trump_position, T.talon_start
        trump_card = decks[:, trump_pos]
        fore = 1 - dealers
        full = torch.zeros((idx.numel(), NUM_CARDS), dtype=torch.int64, device=self.device)
        full[:, : rules.deck] = decks
        self.deck[idx] = full
        self.dealer[idx] = dealers
        self.trump_suit[idx] = trump_card // RANKS_PER_SUIT
        self.hands[idx] = torch.stack([torch.where(fore == 0, fh, dh), torch.where(fore == 0, dh, fh)], dim=1)
        self.known[idx] = 0
        self.played[idx] = 0
        self.won_cards[idx] = 0
        self.talon_pos[idx] = talon_start
        self.trump_card[idx] = trump_card
        self.leader[idx] = fore
        self.current_player[idx] = fore
        self.lead_card[idx] = -1
        self.pending_marriage[idx] = -1
        self.eyes[idx] = 0
        self.held_marriage_eyes[idx] = 0
        self.tricks_won[idx] = 0
        self.num_tricks[idx] = 0
        self.marriages[idx] = 0
        self.closed_by[idx] = -1
        self.closed_opponent_eyes[idx] = 0
        self.closed_opponent_had_trick[idx] = False
        self.exchanged_by[idx] = -1
        self.winner[idx] = -1
        self.game_points[idx] = 0
        self.reason[idx] = -1
        self.history[idx] = -1
        self.num_actions[idx] = 0

    def reset_from_seeds(self, seeds: Sequence[int], games=None) -> None:
        """Deal into ``games`` (as :meth:`reset`) the deals ``GameState.from_seed(rules, seed)`` makes
        (shuffled on the host by the scalar engine's own function, :func:`decks_from_seeds`)."""
        idx = self._indices(games)
        decks, dealers = decks_from_seeds(self.rules, seeds)
        if len(decks) != idx.numel():
            raise ValueError(f"seeds: expected {idx.numel()} (one per game dealt), got {len(decks)}")
        self.reset(decks, dealers, idx)

    def random_deals(self, k: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``k`` random deals drawn from ``generator`` on this device: ``(decks (k, deck size),
        dealers (k,))`` (a uniform shuffle: argsort of uniform keys; dealer uniform). For auto-reset in
        the vector environments; these deals are not those of ``GameState.from_seed``. ``ValueError``
        for a ``k`` that is not a whole number >= 0."""
        if as_int(k) is None or k < 0:
            raise ValueError(f"k must be a whole number >= 0, got {brief_repr(k)}")
        keys = torch.rand((k, self.rules.deck), generator=generator, device=self.device)
        decks = self._deck_ids[keys.argsort(dim=1)]
        dealers = torch.randint(0, 2, (k,), generator=generator, device=self.device)
        return decks, dealers

    def _indices(self, games) -> torch.Tensor:
        if games is None:
            return torch.arange(self.n, device=self.device)
        return row_indices(games, self.n, self.device, "games", distinct=True)

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> torch.Tensor:
        """bool (N,): the game is over (or was never dealt)."""
        return self.current_player < 0

    @property
    def facedown(self) -> torch.Tensor:
        """(N,) face-down talon cards left."""
        return self.rules.deck - self.talon_pos

    def legal_mask_bits(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """int64 (N,): the legal actions of the player to move as a bitmask over action ids
        (bit ``a`` = action ``a``; 0 for a game that is over). Composed from the rulebook tables
        exactly as ``GameState.legal_mask``. Cached until the state changes through the methods (a
        state tensor changed in place from outside is not seen). ``rows`` (game indices (K,), repeats
        allowed, or a bool mask (N,) of K games): only those games, shape (K,) (from the cache when it
        is there, else computed for those rows alone)."""
        if rows is not None:
            return self._mask_bits_of(row_indices(rows, self.n, self.device))
        m = self._mask_cache
        if m is None:
            m = self._mask_cache = self._mask_fn(self._state)
        return m

    def _mask_bits_of(self, rows: torch.Tensor) -> torch.Tensor:
        """:meth:`legal_mask_bits` of checked int64 ``rows``: from the cache, else for those rows alone."""
        m = self._mask_cache
        return m[rows] if m is not None else self._mask_fn(self._state[rows])

    def legal_mask(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """bool (N, NUM_ACTIONS): the legal actions of the player to move (all False once over);
        ``rows`` (game indices (K,) or a bool mask (N,), as for :meth:`legal_mask_bits`): only those
        games, (K, NUM_ACTIONS)."""
        return ((self.legal_mask_bits(rows).unsqueeze(1) >> self._action_bits) & 1).bool()

    # ------------------------------------------------------------------ stepping
    def step(self, actions, games: torch.Tensor | None = None) -> torch.Tensor:
        """Apply ``actions`` (int (N,), one action id per game; entries of games that are over are
        ignored) for each game's player to move; with ``games`` (a bool mask (N,) or distinct game
        indices (K,), as for :meth:`reset`) only in those games, the others' entries are ignored.
        Returns bool (N,): the games this step ended.

        An illegal action for a game in play: :class:`VectorIllegalActionError` (nothing changed)
        under ``illegal_action="raise"``; a renonce of the mover (RULES §5.4: the opponent wins 3
        game points, reason ``renonce``) under ``"renonce"``. An action outside 0..30 for a game that
        steps, or a shape other than (N,), always raises ``ValueError`` (entries of games that do not
        step are ignored, whatever they hold); so does a step before any game was dealt.
        """
        try:
            a = to_tensor(actions, self.device)
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(f"actions must be whole numbers of shape ({self.n},), got {brief_repr(actions)}") from None
        if a.dtype.is_floating_point or a.dtype == torch.bool or tuple(a.shape) != (self.n,):
            raise ValueError(f"actions must be whole numbers of shape ({self.n},), got {a.dtype} {tuple(a.shape)}")
        if not self._dealt:
            raise ValueError("no game has been dealt: call reset() (or reset_from_seeds()) first")
        a = a.to(torch.int64)
        playing = self.current_player >= 0
        if games is not None:
            playing = playing & selection_mask(games, self.n, self.device)
        out_of_range = playing & ((a < 0) | (a >= NUM_ACTIONS))
        if bool(out_of_range.any()):
            i = int(out_of_range.nonzero()[0, 0])
            raise ValueError(f"actions[{i}] = {int(a[i])} is not an action id (allowed 0..{NUM_ACTIONS - 1})")
        a = torch.where(playing, a, 0)
        rows = None
        if games is not None:  # a few games step: transform only their rows of the state matrix
            rows = playing.nonzero().squeeze(1)
            if rows.numel() * _SUBSET_STEP_FRACTION > self.n:
                rows = None
        if rows is None:
            S, bits = self._state, self.legal_mask_bits()
        else:
            S, bits, a, playing = self._state[rows], self._mask_bits_of(rows), a[rows], playing[rows]
        illegal = playing & (((bits >> a) & 1) == 0)
        if bool(illegal.any()):
            if self.illegal_action == "raise":
                bad = illegal.nonzero().squeeze(1)
                games_ = (bad if rows is None else rows[bad]).tolist()
                bad_actions = a[bad].tolist()
                reason = self.game_state(games_[0])._why_illegal(bad_actions[0])
                raise VectorIllegalActionError(games_, bad_actions, reason)
            playing = playing & ~illegal
        new = self._transition_fn(S, a, playing, illegal)
        self._mask_cache = None
        ended = (playing | illegal) & (new[:, _CURRENT_PLAYER] < 0)
        if rows is None:
            self._state.copy_(new)
            return ended
        self._state[rows] = new
        out = torch.zeros(self.n, dtype=torch.bool, device=self.device)
        out[rows] = ended
        return out

    # ------------------------------------------------------------------ scalar views
    def _game_index(self, i) -> int:
        """``i`` as an int in 0..N-1 (numpy and 0-d torch integers accepted, bools not), else ``ValueError``."""
        value = None if isinstance(i, torch.Tensor) and i.dim() else as_int(i)  # torch indexes with [1] too
        if value is None or not 0 <= value < self.n:
            raise ValueError(f"game index must be an int in 0..{self.n - 1}, got {brief_repr(i)}")
        return value

    def game_state(self, i: int) -> GameState:
        """Game ``i`` as a scalar :class:`GameState` (its deal replayed with its actions so far):
        for agents that need a state or an information set, for records and for checking. ``i``: a whole
        number (numpy and 0-d torch integers too, e.g. from ``np.flatnonzero(done)``) in 0..N-1."""
        i = self._game_index(i)
        d = self.rules.deck
        if int(self.current_player[i]) < 0 and int(self.winner[i]) < 0:
            raise ValueError(f"game {i} has not been dealt: call reset() first")
        g = GameState(self.rules, self.deck[i, :d].tolist(), int(self.dealer[i]))
        for a in self.history[i, : int(self.num_actions[i])].tolist():
            g.apply(a)
        if int(self.reason[i]) == _RENONCE and g.outcome is None:
            g.renonce(g.current_player)
        return g

    def outcome(self, i: int) -> Outcome | None:
        """The :class:`Outcome` of game ``i`` once over, else None (same values as the scalar engine's)."""
        i = self._game_index(i)
        if int(self.winner[i]) < 0:
            return None
        return Outcome(int(self.winner[i]), int(self.game_points[i]), REASONS[int(self.reason[i])],
                       tuple(self.eyes[i].tolist()), tuple(self.tricks_won[i].tolist()))

