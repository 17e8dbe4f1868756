"""The batched observer: the observation of :mod:`schnapsen_env.observation` for N games at once.

:class:`VectorObserver` writes the float32 observation of one viewer per game into a ``(N,
OBS_SIZE)`` tensor: the same layout, scales and values as ``Observer.fill_state``, reading only what
the viewer may know (RULES §8). Its :attr:`~VectorObserver.spec` is the scalar observer's, so
checkpoints trained on either load with the other.
"""

from __future__ import annotations

import torch

from ..cards import DECK_MASKS, NUM_CARDS, NUM_SUITS
from ..observation import (
    EYES_SCALE,
    MAX_HAND,
    MAX_TALON,
    MAX_TRICKS,
    NUM_BINARY,
    OBS_SIZE,
    OBS_SLICES,
    RULE_COLUMNS,
)
from ..observation import Observer
from ..rules import Rules
from .engine import _unpack, as_device, row_indices

__all__ = ["VectorObserver"]

#: the binary fields after the flags (the rule fields, the Bummerl flag) are constant per observer
_FLAGS_END = OBS_SLICES["exchanged_by_opponent"].stop


class VectorObserver:
    """Batched observations: row ``i`` of :meth:`observe` equals ``Observer(rules,
    bummerl).fill_state( games.game_state(i), viewer[i], bummerl_score[i])``. ``compile=True``: the
    encoder through ``torch.compile`` (dynamic shapes)."""

    def __init__(
        self,
        rules: Rules | None = None,
        bummerl: bool = False,
        device=None,
        compile: bool = False,
    ):
        self.scalar = Observer(rules, bummerl)  # checks rules and bummerl
        self.rules, self.bummerl = self.scalar.rules, bummerl
        self.device = dev = as_device(device)
        self._card_bits = torch.arange(NUM_CARDS, device=dev)
        self._suit_bits = torch.arange(NUM_SUITS, device=dev)
        rule = torch.zeros(OBS_SIZE, dtype=torch.float32, device=dev)
        rule[list(RULE_COLUMNS)] = torch.as_tensor(self.scalar.rule_entries(), device=dev)
        if bummerl:
            rule[OBS_SLICES["bummerl"]] = 1.0
        self._constant = rule  # rule fields and the Bummerl flag
        self._show_eyes = bool(self.rules.show_eyes)
        self._target = self.rules.bummerl_target
        self._zeros = None
        self._deck_size, self._full_deck = self.rules.deck, DECK_MASKS[self.rules.deck]
        self._fn = torch.compile(self._observe, dynamic=True) if compile else self._observe

    @property
    def spec(self) -> dict:
        """The scalar observer's :attr:`~schnapsen_env.observation.Observer.spec` (the same
        numbers)."""
        return self.scalar.spec

    def observe(
        self,
        games,
        viewer: torch.Tensor,
        bummerl_score: torch.Tensor | None = None,
        out: torch.Tensor | None = None,
        rows: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """float32 ``(N, OBS_SIZE)`` (or ``(K, OBS_SIZE)`` with ``rows``): each game as its
        ``viewer`` sees it.

        ``viewer``: int64 (N,) player ids 0/1 (indexed by ``rows`` too); ``bummerl_score``: int64
        (N, 2) game points per player (read only when ``bummerl``); ``out``: a float32 tensor to
        write into; ``rows``: game indices (K,) or a bool mask (N,), only those games encoded (row
        ``j`` is game ``rows[j]``)."""
        S = games.state
        scores = bummerl_score if self.bummerl else self._no_scores(games.n)
        if rows is not None:
            rows = row_indices(rows, self.device)
            S = S[rows]
            viewer = viewer[rows]
            scores = scores[rows]
        obs = self._fn(S, viewer, scores)
        if out is None:
            return obs
        out.copy_(obs)
        return out

    def _no_scores(self, n: int) -> torch.Tensor:
        z = self._zeros
        if z is None or z.shape[0] != n:
            z = self._zeros = torch.zeros((n, 2), dtype=torch.int64, device=self.device)
        return z

    def _observe(self, S: torch.Tensor, v: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """The observations as one pure function of the state matrix (compiled when asked)."""
        d = _unpack(S)
        n = S.shape[0]
        v0 = v == 0

        def own(name):
            return torch.where(v0, d[name + "0"], d[name + "1"])

        def other(name):
            return torch.where(v0, d[name + "1"], d[name + "0"])

        one = torch.ones_like(v)
        hand = own("hands")
        known = other("known")
        ps = own("played")
        po = other("played")
        lead = d["lead_card"]
        lead_bit = torch.where(lead >= 0, one << lead.clamp(min=0), 0)
        tc = d["trump_card"]
        tc_bit = torch.where(tc >= 0, one << tc.clamp(min=0), 0)
        unseen = self._full_deck & ~(hand | ps | po | lead_bit | tc_bit | known)
        planes = torch.stack([hand, known, unseen, tc_bit, lead_bit, ps, po], dim=1)
        cards = ((planes.unsqueeze(2) >> self._card_bits) & 1).reshape(n, -1)
        pm = d["pending_marriage"]
        pending = torch.where(pm >= 0, one << pm.clamp(min=0), 0)
        suits = torch.stack(
            [one << d["trump_suit"], pending, own("marriages"), other("marriages")],
            dim=1,
        )
        suit_bits = ((suits.unsqueeze(2) >> self._suit_bits) & 1).reshape(n, -1)
        c = d["closed_by"]
        ex = d["exchanged_by"]
        o = 1 - v
        flags = [
            d["current_player"] == v,
            d["leader"] == v,
            d["dealer"] == v,
            c == v,
            (c >= 0) & (c == o),
        ]
        flags += [(c >= 0) & (d["closed_opponent_had_trick"] == 1), ex == v, (ex >= 0) & (ex == o)]
        flags = torch.stack(flags, dim=1)
        rest = self._constant[_FLAGS_END:NUM_BINARY].expand(n, -1)
        # numeric fields: computed in float64 and rounded once, as the scalar encoder's Python
        # floats
        opp_size = ((other("hands").unsqueeze(1) >> self._card_bits) & 1).sum(1)
        cols = [
            (self._deck_size - d["talon_pos"]).double() * (1.0 / MAX_TALON),
            opp_size.double() * (1.0 / MAX_HAND),
        ]
        cols += [
            own("tricks_won").double() * (1.0 / MAX_TRICKS),
            other("tricks_won").double() * (1.0 / MAX_TRICKS),
        ]
        zero = torch.zeros(n, dtype=torch.float64, device=S.device)
        if self._show_eyes:
            inv = 1.0 / EYES_SCALE
            cols += [own("eyes").double() * inv, other("eyes").double() * inv]
            cols += [
                own("held_marriage_eyes").double() * inv,
                other("held_marriage_eyes").double() * inv,
            ]
            cols.append(torch.where(c >= 0, d["closed_opponent_eyes"].double() * inv, 0.0))
        else:
            cols += [zero] * 5
        if self.bummerl:
            s0, s1 = scores[:, 0], scores[:, 1]
            cols += [
                torch.where(v0, s0, s1).double() / self._target,
                torch.where(v0, s1, s0).double() / self._target,
            ]
        else:
            cols += [zero, zero]
        numeric = torch.stack(cols, dim=1)
        return torch.cat(
            [cards.float(), suit_bits.float(), flags.float(), rest, numeric.float()],
            dim=1,
        )

    def __repr__(self) -> str:
        return f"VectorObserver(rules={self.rules!r}, bummerl={self.bummerl}, device={str(self.device)!r})"
