"""The batched observer: the observation of :mod:`schnapsen_env.observation` for N games at once.

:class:`VectorObserver` writes, for every game of a :class:`~schnapsen_env.vector.engine.VectorGames`,
the float32 observation of one viewer per game into a ``(N, OBS_SIZE)`` tensor: the same layout
(:data:`~schnapsen_env.observation.OBSERVATION_TABLE`, :data:`~schnapsen_env.observation.OBS_SLICES`),
the same rule fields (read off the scalar :class:`~schnapsen_env.observation.Observer`), the same
scales and the same float32 values as ``Observer.fill_state`` (``tests/test_vector.py`` compares
them element for element). Its :attr:`~VectorObserver.spec` is the scalar observer's spec, so
checkpoints trained on either load with the other.

Only what the viewer may know is read (RULES §8): the viewer's hand, the opponent's known
cards and hand size, the played cards, the face-up cards, the public flags, counts and (with
``show_eyes``) eyes.
"""

from __future__ import annotations

import torch

from ..cards import NUM_CARDS, NUM_SUITS
from ..observation import (
    EYES_SCALE,
    MAX_HAND,
    MAX_TALON,
    MAX_TRICKS,
    NUM_BINARY,
    OBS_SIZE,
    OBS_SLICES,
    RULE_COLUMNS,
    Observer,
)
from ..rules import Rules
from ..cards import brief_repr

__all__ = ["VectorObserver"]

_CARD_PLANES = ("hand", "opponent_known", "unseen", "trump_card", "lead_card", "played_self", "played_opponent")
_SUIT_PLANES = ("trump_suit", "pending_marriage", "marriages_self", "marriages_opponent")
_FLAGS = ("to_move", "is_leader", "is_dealer", "closed_by_self", "closed_by_opponent", "closed_opponent_had_trick",
          "exchanged_by_self", "exchanged_by_opponent")


def _check_layout() -> None:
    """The planes above lie one after the other from index 0, as the batched packing assumes."""
    pos = 0
    for name, size in [(n, NUM_CARDS) for n in _CARD_PLANES] + [(n, NUM_SUITS) for n in _SUIT_PLANES] + [
            (n, 1) for n in _FLAGS]:
        if OBS_SLICES[name] != slice(pos, pos + size):
            raise ImportError(f"schnapsen_env.vector.observation: field {name!r} moved in the observation table")
        pos += size


_check_layout()
_FLAGS_START = OBS_SLICES[_FLAGS[0]].start
_NUMERIC = ("talon_size", "opponent_hand_size", "tricks_won_self", "tricks_won_opponent", "eyes_self",
            "eyes_opponent", "held_marriage_eyes_self", "held_marriage_eyes_opponent", "closed_opponent_eyes",
            "bummerl_score_self", "bummerl_score_opponent")
if [OBS_SLICES[n].start for n in _NUMERIC] != list(range(NUM_BINARY, OBS_SIZE)):
    raise ImportError("schnapsen_env.vector.observation: the numeric fields moved in the observation table")


class VectorObserver:
    """Batched observations under fixed parameters: ``VectorObserver(rules=None, bummerl=False, device=None)``.

    ``observe(games, viewer, bummerl_score=None, out=None)`` returns float32 ``(N, OBS_SIZE)``:
    row ``i`` is ``Observer(rules, bummerl).fill_state(games.game_state(i), viewer[i], bummerl_score[i])``.
    ``viewer``: int64 (N,) 0/1; ``bummerl_score``: int64 (N, 2) game points per seat (required
    exactly when ``bummerl``). Raises ``ValueError`` for games under other rules.
    """

    def __init__(self, rules: Rules | None = None, bummerl: bool = False, device=None):
        from .engine import as_device

        self.scalar = Observer(rules, bummerl)  # checks rules and bummerl
        self.rules = self.scalar.rules
        self.bummerl = bummerl
        self.device = dev = as_device(device)
        self._card_bits = torch.arange(NUM_CARDS, device=dev)
        self._suit_bits = torch.arange(NUM_SUITS, device=dev)
        rule = torch.zeros(OBS_SIZE, dtype=torch.float32, device=dev)
        rule[list(RULE_COLUMNS)] = torch.as_tensor(self.scalar.rule_entries(), device=dev)
        if bummerl:
            rule[OBS_SLICES["bummerl"]] = 1.0
        self._constant = rule  # rule fields and the Bummerl flag
        self._constant_cols = torch.nonzero(rule).squeeze(1)
        self._show_eyes = bool(self.rules.show_eyes)
        self._target = self.rules.bummerl_target

    @property
    def spec(self) -> dict:
        """The scalar observer's :attr:`~schnapsen_env.observation.Observer.spec` (the same numbers)."""
        return self.scalar.spec

    def observe(self, games, viewer: torch.Tensor, bummerl_score: torch.Tensor | None = None,
                out: torch.Tensor | None = None) -> torch.Tensor:
        if games.rules != self.rules:
            raise ValueError(f"this observer encodes games under {self.rules!r}; the games are under {games.rules!r}")
        if self.bummerl and bummerl_score is None:
            raise ValueError("bummerl_score is required: this observer encodes Bummerl episodes")
        if not self.bummerl and bummerl_score is not None:
            raise ValueError("bummerl_score must be None: this observer encodes single games")
        n = games.n
        if out is None:
            out = torch.empty((n, OBS_SIZE), dtype=torch.float32, device=self.device)
        v = viewer
        o = 1 - v
        v0 = v == 0

        def own(pair):
            return torch.where(v0, pair[:, 0], pair[:, 1])

        def other(pair):
            return torch.where(v0, pair[:, 1], pair[:, 0])

        one = torch.ones_like(v)
        hand = own(games.hands)
        known = other(games.known)
        ps, po = own(games.played), other(games.played)
        lead = games.lead_card
        lead_bit = torch.where(lead >= 0, one << lead.clamp(min=0), 0)
        tc = games.trump_card
        tc_bit = torch.where(tc >= 0, one << tc.clamp(min=0), 0)
        unseen = games.tables.full_deck & ~(hand | ps | po | lead_bit | tc_bit | known)
        planes = torch.stack([hand, known, unseen, tc_bit, lead_bit, ps, po], dim=1)
        card_end = len(_CARD_PLANES) * NUM_CARDS
        out[:, :card_end] = ((planes.unsqueeze(2) >> self._card_bits) & 1).reshape(n, card_end)
        pm = games.pending_marriage
        suits = torch.stack([one << games.trump_suit, torch.where(pm >= 0, one << pm.clamp(min=0), 0),
                             own(games.marriages), other(games.marriages)], dim=1)
        out[:, card_end:_FLAGS_START] = ((suits.unsqueeze(2) >> self._suit_bits) & 1).reshape(n, 4 * NUM_SUITS)
        c = games.closed_by
        ex = games.exchanged_by
        flags = torch.stack([games.current_player == v, games.leader == v, games.dealer == v, c == v,
                             (c >= 0) & (c == o), (c >= 0) & (games.closed_opponent_had_trick == 1), ex == v,
                             (ex >= 0) & (ex == o)], dim=1)
        out[:, _FLAGS_START:_FLAGS_START + len(_FLAGS)] = flags
        out[:, _FLAGS_START + len(_FLAGS):NUM_BINARY] = 0.0
        out[:, self._constant_cols] = self._constant[self._constant_cols]
        # numeric fields: computed in float64 and rounded once, as the scalar encoder's Python floats
        opp_size = ((other(games.hands).unsqueeze(1) >> self._card_bits) & 1).sum(1)
        tw_s, tw_o = own(games.tricks_won), other(games.tricks_won)
        num = torch.zeros((n, OBS_SIZE - NUM_BINARY), dtype=torch.float64, device=self.device)
        num[:, 0] = games.facedown.double() * (1.0 / MAX_TALON)
        num[:, 1] = opp_size.double() * (1.0 / MAX_HAND)
        num[:, 2] = tw_s.double() * (1.0 / MAX_TRICKS)
        num[:, 3] = tw_o.double() * (1.0 / MAX_TRICKS)
        if self._show_eyes:
            inv = 1.0 / EYES_SCALE
            num[:, 4] = own(games.eyes).double() * inv
            num[:, 5] = other(games.eyes).double() * inv
            num[:, 6] = own(games.held_marriage_eyes).double() * inv
            num[:, 7] = other(games.held_marriage_eyes).double() * inv
            num[:, 8] = torch.where(c >= 0, games.closed_opponent_eyes.double() * inv, 0.0)
        if self.bummerl:
            s = torch.as_tensor(bummerl_score, device=self.device)
            num[:, 9] = own(s).double() / self._target
            num[:, 10] = other(s).double() / self._target
        out[:, NUM_BINARY:] = num
        return out

    def __repr__(self) -> str:
        return f"VectorObserver(rules={self.rules!r}, bummerl={self.bummerl}, device={brief_repr(str(self.device))})"
