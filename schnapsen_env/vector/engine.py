"""The batched rules engine: N games of Schnapsen or Sechsundsechzig as PyTorch tensors.

:class:`VectorGames` holds ``num_games`` games as tensors on one torch ``device`` and advances all
of them at once, with the rules of the scalar engine (:class:`schnapsen_env.engine.GameState`), move
for move. The rule numbers and predicates are those of :mod:`schnapsen_env.rulebook`, tabulated at
construction over their small domains (:class:`_Tables`); the transitions only gather from them.

State (all tensors have the batch as their first dimension ``N``; ``int64`` unless said):

========================  ========  ===============================================================
field                     shape     meaning (invariant) ========================  ========
=============================================================== ``deck``                  (N, 24)
deal order (RULES §2); entries past the deck size are 0 ``dealer``                (N,)      0/1; the
other player is forehand ``trump_suit``            (N,)      0..3, suit of the first face-up card
``hands``                 (N, 2)    card bitmask per player; disjoint ``known``                 (N,
2)    cards of each hand that are public (exchange, marriage, last draw) ``played``
(N, 2)    cards each player played in finished tricks ``won_cards``             (N, 2)    cards in
the tricks each player won (public: who took which trick) ``talon_pos``             (N,)      index
into ``deck`` of the next face-down card (deck size when none) ``trump_card``            (N,)
face-up trump card, -1 once drawn ``leader``                (N,)      player on lead in the current
trick ``current_player``        (N,)      player to act, -1 once the game is over ``lead_card``
(N,)      card led in the current trick, -1 before the lead ``pending_marriage``      (N,)      suit
announced at this lead and not yet led, else -1 ``eyes``                  (N, 2)    credited eyes
(cards, credited marriages, last-trick 10) ``held_marriage_eyes``    (N, 2)    announced, not yet
credited marriage eyes ``tricks_won``            (N, 2)    tricks won per player ``num_tricks``
(N,)      finished tricks (= tricks_won summed) ``marriages``             (N, 2)    bitmask of the
suits each player announced ``closed_by``             (N,)      closer or -1
``closed_opponent_eyes``  (N,)      the closer's opponent's eyes at closing (0 if not closed)
``closed_opponent_had_trick`` (N,)  0/1: the closer's opponent had a trick at closing
``exchanged_by``          (N,)      the player who exchanged the trump card, or -1 ``winner``
(N,)      winner once over, else -1 ``game_points``           (N,)      game points once over
(1..3), else 0 ``reason``                (N,)      index into :data:`schnapsen_env.engine.REASONS`
once over, else -1 ``history``               (N, L)    actions so far (``L`` = MAX_GAME_LENGTH), -1
after the last ``num_actions``           (N,)      actions applied so far ========================
========  ===============================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import torch

from ..cli_io import one_line
from ..actions import (
    CLOSE,
    DECLARE,
    EXCHANGE,
    MARRIAGE_BASE,
    MAX_GAME_LENGTH,
    NUM_ACTIONS,
    action_to_str,
)
from ..cards import (
    CARD_EYES,
    DECK_MASKS,
    KING,
    NUM_CARDS,
    NUM_SUITS,
    RANKS_PER_SUIT,
    SUIT_MASKS,
    brief_repr,
    card_id,
    cards_of,
)
from ..engine import REASONS, GameState, Outcome
from ..learner import ILLEGAL_ACTIONS, _choice
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
    reaches_66,
    marriage_credited_at_once,
    marriage_eyes,
    marriage_forbidden,
    marriage_lead_cards,
)
from ..rules import RENONCE_POINTS, Rules

__all__ = ["VectorGames", "VectorIllegalActionError", "as_device", "MAX_EYES_TABLE"]

#: the ``reason`` codes of a finished game (indices into ``engine.REASONS``)
_DECLARED, _LAST, _CLOSING_FAILED, _FALSE, _RENONCE = (
    REASONS.index(r) for r in ("declared_66", "last_trick", "closing_failed", "false_declaration", "renonce")
)
#: eyes covered by the lookup tables indexed by eyes (more than any player can hold: 120 card
#: eyes + 10 last trick + 40 + 3 * 20 marriages)
MAX_EYES_TABLE = 256


def as_device(device) -> torch.device:
    """``device`` (a ``torch.device``, a name, or None: CPU) as its tensors report it (``"cuda"`` is
    ``cuda:0``), so comparisons are exact. ``ValueError`` for a device torch does not know or cannot
    use here."""
    try:
        dev = torch.zeros(0, device="cpu" if device is None else device).device
        torch.Generator(device=dev)
    # AssertionError: torch built without CUDA
    except (RuntimeError, TypeError, AssertionError) as e:
        raise ValueError(
            f"unknown torch device {device!r} or not usable here ({one_line(e)[:100]}): "
            "allowed 'cpu' or an accelerator this machine has"
        ) from None
    return dev


def row_indices(rows, device: torch.device) -> torch.Tensor:
    """A selection of games -- a bool mask (N,) or game indices (K,) (tensor, array or list) -- as
    int64 game indices (K,) on ``device``."""
    t = torch.as_tensor(rows, device=device)
    return t.nonzero().squeeze(1) if t.dtype == torch.bool else t.to(torch.int64).reshape(-1)


def selection_mask(selection, n: int, device: torch.device) -> torch.Tensor:
    """A selection of games (as :func:`row_indices` takes it) as a bool mask (n,) on ``device``."""
    t = torch.as_tensor(selection, device=device)
    if t.dtype == torch.bool:
        return t
    mask = torch.zeros(n, dtype=torch.bool, device=device)
    mask[t.to(torch.int64)] = True
    return mask


def batch_actions(actions, n: int, device: torch.device) -> torch.Tensor:
    """``actions`` as int64 (n,) on ``device``: integers of shape (n,) (a tensor, an array or a
    list; not bool, float, other shapes). ``ValueError`` naming what was given and what is allowed;
    the values (0..30, legal) are :meth:`VectorGames.step`'s check."""
    try:
        a = torch.as_tensor(actions, device=device)
    except (TypeError, ValueError, RuntimeError):  # None, strings, ragged or object arrays
        a = None
    if a is None or a.dtype.is_floating_point or a.dtype.is_complex or a.dtype == torch.bool or a.shape != (n,):
        got = brief_repr(actions) if a is None else f"{a.dtype} of shape {tuple(a.shape)}"
        raise ValueError(f"illegal actions ({got}): not action ids (allowed ints 0..{NUM_ACTIONS - 1} of shape ({n},))")
    return a.to(torch.int64)


class VectorIllegalActionError(ValueError):
    """An illegal action for a game in play (RULES §3–§5); nothing was changed. ``games``: the
    games' indices, ``actions``: their actions, ``reason``: the scalar engine's reason for the
    first."""

    def __init__(self, games: list, actions: list, reason: str):
        self.games = games
        self.actions = actions
        self.reason = reason
        text = action_to_str(actions[0]) if 0 <= actions[0] < NUM_ACTIONS else str(actions[0])
        more = f" (and {len(games) - 1} more games)" if len(games) > 1 else ""
        super().__init__(f"illegal action {text!r} in game {games[0]}{more}: {reason}")


class _Tables:
    """The rulebook's clauses for one :class:`Rules`, tabulated over their domains (tensors on
    ``device``)."""

    def __init__(self, rules: Rules, device: torch.device):
        def t(x, dtype=torch.int64):
            return torch.tensor(x, dtype=dtype, device=device)

        cards = range(NUM_CARDS)
        # RULES §3: follower_wins for every trump suit, lead and follow: (4, 24, 24) as an int 0/1
        self.follower_wins = t(
            [[[int(follower_wins(lead, follow, ts)) for follow in cards] for lead in cards] for ts in range(NUM_SUITS)]
        )
        self.card_eyes = t(list(CARD_EYES))
        # RULES §3 phase 2: the follower's precedence. "Higher" = same suit and winning against the
        # lead under a trump suit other than the lead's (so only rank decides), "lower" = the rest
        # of the suit
        higher, lower = [], []
        for lead in cards:
            other = (lead // RANKS_PER_SUIT + 1) % NUM_SUITS
            suit = [c for c in cards if c // RANKS_PER_SUIT == lead // RANKS_PER_SUIT and c != lead]
            higher.append(sum(1 << c for c in suit if follower_wins(lead, c, other)))
            lower.append(sum(1 << c for c in suit if not follower_wins(lead, c, other)))
        self.higher, self.lower = t(higher), t(lower)
        self.suit_masks = t(list(SUIT_MASKS))
        # RULES §3 drawing: for every face-down count 0..24: cards drawn, loser takes the trump card
        counts = range(NUM_CARDS + 1)
        draws = [draws_after_trick(k) for k in counts]
        self.drawn = t([d for d, _ in draws])
        self.loser_takes_trump = t([bool(x) for _, x in draws], torch.bool)
        # RULES §4 exchange: the exchanging card per trump suit; allowed per (face-down count,
        # tricks played > 0)
        self.exchange_card = t([exchange_card(rules, s) for s in range(NUM_SUITS)])
        low = 1 << exchange_card(rules, 0)
        self.exchange_ok = t(
            [[exchange_forbidden(rules, low, 0, True, k, tp) is None for tp in (0, 1)] for k in counts],
            torch.bool,
        )
        # RULES §4 closing: allowed per face-down count (talon open, not closed; 0 where it cannot
        # be open)
        self.closing_ok = t(
            [k > 0 and closing_forbidden(rules, -1, 0, k) is None for k in counts],
            torch.bool,
        )
        # RULES §4 marriage: allowed (holding the pair) per announcer having a trick; credited at
        # once per same
        self.marriage_ok = t(
            [marriage_forbidden(rules, MARRIAGE_PAIRS[0], 0, tr) is None for tr in (0, 1)],
            torch.bool,
        )
        self.credited_at_once = t(
            [marriage_credited_at_once(rules, tr) for tr in (0, 1)],
            torch.bool,
        )
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
        # closing_success_points under these rules: does it read the opponent's eyes now (or at
        # closing)?
        self.counts_later = closing_success_points(rules, 0, False, 100, True) == game_points_for(
            100,
            True,
        )
        self.manual_declare = declare_forbidden(rules) is None
        self.last_trick_points = LAST_TRICK_GAME_POINTS
        self.deck_size = rules.deck
        # RULES §2, read off the scalar engine's deal of the deck in id order (dealer 1: player 0 is
        # forehand): the deck positions of each hand, of the face-up trump card and of the first
        # talon card
        ids = [c for c in cards if DECK_MASKS[rules.deck] >> c & 1]
        dealt = GameState(rules, ids, 1)
        self.fore_positions = [ids.index(c) for c in cards_of(dealt.hands[0])]
        self.dealer_positions = [ids.index(c) for c in cards_of(dealt.hands[1])]
        self.trump_position = ids.index(dealt.trump_card)
        self.talon_start = ids.index(dealt.talon[0])


# ---------------------------------------------------------------- the state matrix
#: Column layout of the state: one int64 matrix (N, STATE_COLUMNS); every public field of
#: :class:`VectorGames` is a view of its columns. ``(name, width, value before a deal)``; widths 2
#: are per player.
# fmt: off
LAYOUT = (
    ("dealer", 1, 0), ("trump_suit", 1, 0), ("hands", 2, 0), ("known", 2, 0), ("played", 2, 0), ("won_cards", 2, 0),
    ("talon_pos", 1, 0), ("trump_card", 1, -1), ("leader", 1, 0), ("current_player", 1, -1), ("lead_card", 1, -1),
    ("pending_marriage", 1, -1), ("eyes", 2, 0), ("held_marriage_eyes", 2, 0), ("tricks_won", 2, 0),
    ("num_tricks", 1, 0), ("marriages", 2, 0), ("closed_by", 1, -1), ("closed_opponent_eyes", 1, 0),
    ("closed_opponent_had_trick", 1, 0), ("exchanged_by", 1, -1), ("winner", 1, -1), ("game_points", 1, 0),
    ("reason", 1, -1), ("num_actions", 1, 0), ("deck", NUM_CARDS, 0), ("history", MAX_GAME_LENGTH, -1),
)
# fmt: on
_COLUMNS = {}  # name -> (first column, width)
_INITIAL_ROW = []  # the state row of a game not dealt yet
for _name, _width, _initial in LAYOUT:
    _COLUMNS[_name] = (len(_INITIAL_ROW), _width)
    _INITIAL_ROW += [_initial] * _width
del _name, _width, _initial
#: columns of the state matrix
STATE_COLUMNS = len(_INITIAL_ROW)
#: most games one VectorGames holds (the state is about 1 KB per game)
MAX_NUM_GAMES = 1 << 20
#: the column of ``current_player`` (-1 once the game is over)
_CURRENT_PLAYER = _COLUMNS["current_player"][0]
#: ``step(actions, games)`` transforms only the selected rows (gathered, stepped, scattered back)
#: when they are fewer than 1 / this of the games; more, and the whole matrix is cheaper
_SUBSET_STEP_FRACTION = 2


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
            d[name] = S[:, c : c + w]
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
    """int64 (N,): legal actions of the player to move as bits (0 once over), as
    ``GameState.legal_mask``."""
    d = _unpack(S)
    cp = d["current_player"]
    p = cp.clamp(min=0)
    hand = _pick(d, "hands", p)
    lead = d["lead_card"]
    talon_open = (d["trump_card"] >= 0) & (d["closed_by"] < 0)
    # RULES §3 following: phase 1 any card; phase 2 higher of the suit, else lower, else trump, else
    # any
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


def _end(
    d: dict,
    mask: torch.Tensor,
    winner: torch.Tensor,
    points: torch.Tensor,
    reason: int,
) -> None:
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
        scale = T.game_points[
            d["closed_opponent_eyes"].clamp(max=MAX_EYES_TABLE - 1) * 2 + d["closed_opponent_had_trick"]
        ]
    _end(d, mask & (c >= 0) & (q == c), q, scale, _DECLARED)
    _closing_failed(d, T, mask & (c >= 0) & (q != c))


def _transition(
    S: torch.Tensor,
    a: torch.Tensor,
    act: torch.Tensor,
    renonce: torch.Tensor,
    T: "_Tables",
) -> torch.Tensor:
    """The next state matrix: ``GameState.apply`` of the legal actions ``a`` in the games ``act``,
    and a renonce of the mover (RULES §5.4) in the games ``renonce`` (disjoint from ``act``)."""
    d = _unpack(S)
    n = S.shape[0]
    p = d["current_player"].clamp(min=0)
    o = 1 - p
    _end(d, renonce, o, torch.full_like(p, RENONCE_POINTS), _RENONCE)
    # the action log
    pos = d["num_actions"].clamp(max=MAX_GAME_LENGTH - 1)
    slot = torch.arange(MAX_GAME_LENGTH, device=S.device).expand(
        n,
        MAX_GAME_LENGTH,
    ) == pos.unsqueeze(1)
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
    d["closed_opponent_eyes"] = torch.where(
        is_close,
        _pick(d, "eyes", o),
        d["closed_opponent_eyes"],
    )
    d["closed_opponent_had_trick"] = torch.where(
        is_close, (_pick(d, "tricks_won", o) > 0).long(), d["closed_opponent_had_trick"]
    )
    d["closed_by"] = torch.where(is_close, p, d["closed_by"])

    # ---- following: the trick goes to its winner, then the phase 1 draw (RULES §3)
    lead = d["lead_card"].clamp(min=0)
    follow = a.clamp(max=NUM_CARDS - 1)
    leader = d["leader"]
    w = torch.where(T.follower_wins[d["trump_suit"], lead, follow] == 1, 1 - leader, leader)
    trick_eyes = T.card_eyes[lead] + T.card_eyes[follow] + _pick(d, "held_marriage_eyes", w)
    _add(d, "eyes", w, torch.where(is_follow, trick_eyes, 0))
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
    lose_draw = torch.where(
        draw,
        one << torch.where(loser_takes, d["trump_card"].clamp(min=0), second),
        0,
    )
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
    false_closed = T.false_points[T.closing_failed[d["closed_opponent_had_trick"]]]
    _end(d, decl_false & (c >= 0) & (p != c), c.clamp(min=0), false_closed, _FALSE)
    return _pack(d)


class VectorGames:
    """``num_games`` games under one :class:`Rules`, as tensors on ``device`` (see the module
    docstring).

    ``compile=True``: the mask and the transition through ``torch.compile``. ``ValueError`` for
    rules that are not a :class:`Rules`, ``num_games`` not in 1..MAX_NUM_GAMES, an unusable device
    or a bad ``illegal_action``. No game is dealt until :meth:`reset`."""

    def __init__(
        self,
        rules: Rules | None = None,
        num_games: int = 1,
        device=None,
        illegal_action: str = "raise",
        compile: bool = False,
    ):
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
        if not isinstance(num_games, Integral) or not 1 <= num_games <= MAX_NUM_GAMES:
            raise ValueError(f"bad value {num_games!r} for 'num_games': allowed an int from 1 to {MAX_NUM_GAMES}")
        self.rules = rules
        self.n = num_games = int(num_games)
        self.device = dev = as_device(device)
        self.illegal_action = _choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        self.tables = T = _Tables(rules, dev)
        self._mask_cache = None
        self._initial = torch.tensor(_INITIAL_ROW, device=dev)
        self._state = S = self._initial.repeat(num_games, 1)
        for name, (c, w) in _COLUMNS.items():  # every public field is a view of the state matrix
            setattr(self, name, S[:, c] if w == 1 else S[:, c : c + w])
        self._action_bits = torch.arange(NUM_ACTIONS, device=dev)
        self._deck_ids = torch.tensor(
            [c for c in range(NUM_CARDS) if DECK_MASKS[rules.deck] >> c & 1],
            device=dev,
        )
        mask_fn = lambda S: _mask_bits(S, T)  # noqa: E731
        transition_fn = lambda S, a, act, ren: _transition(S, a, act, ren, T)  # noqa: E731
        # dynamic shapes: one compilation serves the whole batch and the subsets of rows that step()
        # and legal_mask_bits(rows) work on (no slower than a static kernel on CPU, measured)
        self._mask_fn = torch.compile(mask_fn, dynamic=True) if compile else mask_fn
        self._transition_fn = torch.compile(transition_fn, dynamic=True) if compile else transition_fn

    @property
    def state(self) -> torch.Tensor:
        """int64 (N, STATE_COLUMNS): the whole state (:data:`LAYOUT`); the fields are views of it:
        change them in place (then the mask cache is stale) or through the methods."""
        return self._state

    # ------------------------------------------------------------------ dealing
    def reset(self, decks, dealers, games=None) -> None:
        """Deal new games (RULES §2): ``decks`` int (k, deck size) card ids in deal order, each a
        permutation of the variant's cards, and ``dealers`` int (k,) 0/1 (tensors, arrays or lists),
        into the games ``games`` (a bool (N,) mask or k distinct game indices; None: all N)."""
        idx = torch.arange(self.n, device=self.device) if games is None else row_indices(games, self.device)
        decks = torch.as_tensor(decks, dtype=torch.int64, device=self.device).reshape(
            idx.numel(),
            self.rules.deck,
        )
        self._deal(idx, decks, torch.as_tensor(dealers, dtype=torch.int64, device=self.device))

    def _deal(self, idx: torch.Tensor, decks: torch.Tensor, dealers: torch.Tensor) -> None:
        """RULES §2, as ``GameState._deal``: decks (k, deck size) and dealers (k,) into games
        ``idx``."""
        self._mask_cache = None
        bits = torch.ones((), dtype=torch.int64, device=self.device) << decks
        T = self.tables
        fh, dh = bits[:, T.fore_positions].sum(1), bits[:, T.dealer_positions].sum(1)
        trump_card = decks[:, T.trump_position]
        fore = 1 - dealers
        self._state[idx] = self._initial
        self.deck[idx, : self.rules.deck] = decks
        self.dealer[idx] = dealers
        self.trump_suit[idx] = trump_card // RANKS_PER_SUIT
        self.hands[idx] = torch.stack(
            [torch.where(fore == 0, fh, dh), torch.where(fore == 0, dh, fh)],
            dim=1,
        )
        self.talon_pos[idx] = T.talon_start
        self.trump_card[idx] = trump_card
        self.leader[idx] = self.current_player[idx] = fore

    def reset_from_seeds(self, seeds: Sequence[int], games=None) -> None:
        """Deal into ``games`` (as :meth:`reset`) the deals ``GameState.from_seed(rules, seed)``
        makes, one per seed (ints >= 0; shuffled on the host by the scalar engine itself)."""
        deals = [GameState.from_seed(self.rules, s) for s in seeds]
        self.reset([g.deck for g in deals], [g.dealer for g in deals], games)

    def random_deals(self, k: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``k`` random deals drawn from ``generator`` on this device: ``(decks (k, deck size),
        dealers (k,))`` (a uniform shuffle: argsort of uniform keys; dealer uniform). For auto-reset
        in the vector environments; these deals are not those of ``GameState.from_seed``."""
        keys = torch.rand((k, self.rules.deck), generator=generator, device=self.device)
        return self._deck_ids[keys.argsort(dim=1)], torch.randint(
            0,
            2,
            (k,),
            generator=generator,
            device=self.device,
        )

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
        """int64 (N,): the mover's legal actions as a bitmask (bit ``a`` = action ``a``; 0 when
        over), cached until a method changes the state. ``rows`` (indices (K,) or a bool mask (N,)):
        only those games, shape (K,)."""
        m = self._mask_cache
        if rows is not None:
            rows = row_indices(rows, self.device)
            return m[rows] if m is not None else self._mask_fn(self._state[rows])
        if m is None:
            m = self._mask_cache = self._mask_fn(self._state)
        return m

    def legal_mask(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """bool (N, NUM_ACTIONS): the legal actions of the player to move (all False once over);
        ``rows`` (game indices (K,) or a bool mask (N,), as for :meth:`legal_mask_bits`): only those
        games, (K, NUM_ACTIONS)."""
        return ((self.legal_mask_bits(rows).unsqueeze(1) >> self._action_bits) & 1).bool()

    # ------------------------------------------------------------------ stepping
    def step(self, actions, games=None) -> torch.Tensor:
        """Apply ``actions`` (int (N,)) for each game's player to move (only in ``games``, a bool
        mask or distinct indices, when given; over games are ignored). Returns bool (N,): the games
        this step ended.

        An illegal action: :class:`VectorIllegalActionError` and nothing changes under ``"raise"``;
        a renonce of the mover (RULES §5.4) under ``"renonce"``, the other games stepping.
        """
        a = batch_actions(actions, self.n, self.device)
        playing = self.current_player >= 0
        rows = None
        if games is not None:  # a few games step: transform only their rows of the state matrix
            playing = playing & selection_mask(games, self.n, self.device)
            rows = playing.nonzero().squeeze(1)
            if rows.numel() * _SUBSET_STEP_FRACTION > self.n:
                rows = None
        if rows is None:
            S, bits = self._state, self.legal_mask_bits()
        else:
            S = self._state[rows]
            bits = self.legal_mask_bits(rows)
            a = a[rows]
            playing = playing[rows]
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        illegal = playing & ~(in_range & (((bits >> a.clamp(0, NUM_ACTIONS - 1)) & 1) == 1))
        if bool(illegal.any()):
            if self.illegal_action == "raise":
                bad = illegal.nonzero().squeeze(1)
                games_ = (bad if rows is None else rows[bad]).tolist()
                bad_actions = a[bad].tolist()
                reason = self.game_state(games_[0])._why_illegal(bad_actions[0])
                raise VectorIllegalActionError(games_, bad_actions, reason)
            playing = playing & ~illegal
        a = torch.where(playing, a, 0)
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
    def game_state(self, i: int) -> GameState:
        """Game ``i`` (a dealt game) as a scalar :class:`GameState` (its deal replayed with its
        actions so far): for agents that need a state or an information set, for records and for
        checking."""
        g = GameState(self.rules, self.deck[i, : self.rules.deck].tolist(), int(self.dealer[i]))
        for a in self.history[i, : int(self.num_actions[i])].tolist():
            g.apply(a)
        if int(self.reason[i]) == _RENONCE and g.outcome is None:
            g.renonce(g.current_player)
        return g

    def outcome(self, i: int) -> Outcome | None:
        """The :class:`Outcome` of game ``i`` once over, else None (same values as the scalar
        engine's)."""
        if int(self.winner[i]) < 0:
            return None
        eyes, tricks = tuple(self.eyes[i].tolist()), tuple(self.tricks_won[i].tolist())
        return Outcome(
            int(self.winner[i]),
            int(self.game_points[i]),
            REASONS[int(self.reason[i])],
            eyes,
            tricks,
        )
