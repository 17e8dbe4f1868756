"""Solver labels: decision states of played games, each legal action valued exactly in the true deal.

:func:`generate` plays games between agents given by spec (a seat's agent drawn per game from ``agents``;
``explore``: the share of moves played uniformly at random instead) and labels a share of the decision
states with :class:`agents.solver.DealTable` (one transposition table per deal). Per labelled state:

- ``observation``: float32 ``(OBS_SIZE,)``, the player's observation (:func:`schnapsen_env.observation.encode_state`,
  what the envs and PPO see);
- ``action_mask``: bool ``(NUM_ACTIONS,)``, the legal actions;
- ``labels``: float32 ``(NUM_ACTIONS,)``, each legal action's game points (-3..+3, RULES §5) for the player
  to act with best play by both afterwards (double-dummy: both hands and the talon known); 0 when illegal.
  The win label is its sign;
- ``deal``: int64, the deal index.

With a ``teacher`` (the spec of an agent with ``distribution``, e.g. ``search:iterations=2000``: expert
iteration, Anthony et al. 2017), two more arrays hold what the network clones (:mod:`agents.ppo.pretrain`):

- ``policy``: float32 ``(NUM_ACTIONS,)``, the teacher's visit shares from the player's information set (sum
  1, 0 when illegal); where nothing is hidden (RULES §8) or one action is legal, uniform over the best
  ``labels`` (exact there);
- ``value``: float32, the teacher's root value in its objective's unit: ``win`` 2 * win share - 1 (-1..1),
  ``points`` game points (-3..3); the best label's sign or game points where the labels are exact.

Deal ``i`` is seeded from ``(seed, i)`` (:func:`schnapsen_env.seeding.derive_seed`): the arrays do not
depend on ``workers``. ``python -m agents.labels --games N --agents heuristic random [--teacher SPEC] --out F.npz``."""

from __future__ import annotations

import argparse
import contextlib
import functools
import multiprocessing as mp
import random
import sys
from collections.abc import Sequence

import numpy as np

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cli_io import whole_range
from schnapsen_env.engine import GameState
from schnapsen_env.observation import OBS_SIZE, observer_for
from schnapsen_env.rules import PRESETS, Rules
from schnapsen_env.seeding import derive_seed

from . import make_agent
from .arena import _init_worker
from .extras import require
from .solver import DealTable, is_perfect_information

tqdm = require("tqdm", "agents.labels").tqdm

#: the arrays of a label set, by name: (dtype, shape of one row)
FIELDS = {
    "observation": (np.float32, (OBS_SIZE,)),
    "action_mask": (np.bool_, (NUM_ACTIONS,)),
    "labels": (np.float32, (NUM_ACTIONS,)),
    "deal": (np.int64, ()),
}
OBJECTIVES = ("win", "points")
#: lexicographic (sign, game points) as one number: sign first, points (|label| <= 3) break ties
SIGN_WEIGHT = 10.0
#: deals per worker task (the progress bar moves per task)
CHUNK = 32

_table = DealTable()


@functools.cache  # (spec, seat) -> Agent, built once per process (one per seat: agents keep per-game memory)
def _agent(spec: str, seat: int | str):
    return make_agent(spec)


def deal_states(deal: int, seed: int, specs: Sequence[str], explore: float, share: float, rules: Rules):
    """Play deal ``deal`` of ``seed``, yielding each sampled decision state (the live state: use it before
    the next one is asked for)."""
    rng = random.Random(derive_seed(seed, "labels", deal))
    state = GameState.from_seed(rules, rng=rng)
    seats = [_agent(rng.choice(specs), p) for p in range(2)]
    for p, agent in enumerate(seats):
        agent.reset(derive_seed(seed, "labels", deal, p))
    while not state.is_terminal:
        p = state.current_player
        if rng.random() < share:
            yield state
        action = rng.choice(state.legal_actions()) if rng.random() < explore else seats[p].act(state.information_set(p))
        state.apply(action)


def label_deal(
    deal: int, seed: int, specs: Sequence[str], explore: float, share: float, rules: Rules, teacher: str | None = None
) -> list:
    """The labelled states of :func:`deal_states`: ``[(observation, legal mask bits, {action: game points},
    teacher's (visit shares, root value) or None), ...]`` in play order."""
    observer = observer_for(rules)
    search = teacher and _agent(teacher, "teacher")
    if search:
        search.reset(derive_seed(seed, "labels", deal, "teacher"))
    rows = []
    for s in deal_states(deal, seed, specs, explore, share, rules):
        row = (observer.fill_state(s, s.current_player), s.legal_mask(), _table.action_values(s))
        exact = not search or is_perfect_information(s) or len(s.legal_actions()) == 1  # no search needed
        rows.append((*row, None if exact else search.distribution(s.information_set(s.current_player))))
    return rows


def _task(args) -> list:
    start, stop, *rest = args
    return [(d, label_deal(d, *rest)) for d in range(start, stop)]


def targets(labels: np.ndarray, mask: np.ndarray, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """``(policy target float32 (N, A): uniform over the best legal actions, value target float32 (N,))`` from
    ``labels`` float32 ``(N, A)`` (game points) and ``mask`` bool ``(N, A)``. Objective ``win``: labels are
    taken as their sign first, ties broken by game points, the value is the sign; ``points``: game points."""
    score = labels + SIGN_WEIGHT * np.sign(labels) if objective == "win" else labels.copy()
    score[~mask] = -np.inf
    best = score == score.max(1, keepdims=True)
    value = np.where(mask, labels, -np.inf).max(1)
    value = np.sign(value) if objective == "win" else value
    return (best / best.sum(1, keepdims=True)).astype(np.float32), value.astype(np.float32)


def to_arrays(deals: list, objective: str | None = None) -> dict:
    """The :data:`FIELDS` arrays of ``[(deal, rows of label_deal), ...]``; with a teacher's ``objective``,
    ``policy`` and ``value`` too (the module docstring)."""
    rows = [(d, *row) for d, deal_rows in deals for row in deal_rows]
    out = {name: np.zeros((len(rows), *shape), dtype) for name, (dtype, shape) in FIELDS.items()}
    for i, (d, obs, _, values, _) in enumerate(rows):
        out["observation"][i] = obs
        out["labels"][i, list(values)] = list(values.values())
        out["deal"][i] = d
    masks = np.array([row[2] for row in rows], dtype=np.int64).reshape(-1, 1)
    out["action_mask"][:] = masks >> np.arange(NUM_ACTIONS) & 1
    if objective is not None:
        out["policy"], out["value"] = targets(out["labels"], out["action_mask"], objective)
        scale = 2.0 if objective == "win" else 6.0  # the root value's [0, 1] in the objective's unit
        for i, (*_, searched) in enumerate(rows):
            if searched is not None:
                shares, value = searched
                out["policy"][i] = 0.0
                out["policy"][i, list(shares)] = list(shares.values())
                out["value"][i] = scale * value - scale / 2
    return out


def check_specs(agents: Sequence[str], teacher: str | None) -> str | None:
    """The teacher's objective (None without one; ``"win"`` unless it has an ``objective``); ``ValueError`` for a
    spec that builds no agent or a teacher without ``distribution(info) -> ({action: share}, value in [0, 1])``
    (:meth:`agents.search.SearchAgent.distribution`; an agent of your own may have one too)."""
    for spec in agents:
        make_agent(spec)
    if teacher is None:
        return None
    search = make_agent(teacher)
    if not hasattr(search, "distribution"):
        agent = "an agent with distribution(info) -> ({action: share}, value in [0, 1])"
        raise ValueError(f"teacher {teacher!r} gives no move distribution: give a search spec (e.g. search) or {agent}")
    return getattr(search, "objective", "win")


def generate(
    games: int,
    agents: Sequence[str] = ("heuristic", "random"),
    explore: float = 0.0,
    share: float = 1.0,
    seed: int = 0,
    workers: int = 2,
    variant: str = "schnapsen",
    progress: bool = False,
    teacher: str | None = None,
    first: int = 0,
) -> dict:
    """Label ``games`` deals (indices ``first..first+games-1``); returns the :data:`FIELDS` arrays, deals in order.

    ``agents``: spec strings (each seat's agent drawn per game); ``explore``: probability of a uniformly
    random move; ``share``: probability that a decision state is labelled; ``workers``: processes (1: in
    this one); ``variant``: a RULES §7 preset; ``teacher``: a search agent's spec (one with ``distribution``,
    :class:`agents.search.SearchAgent`) whose soft labels are added. ``ValueError`` for a bad spec or variant."""
    rules = Rules.preset(variant)
    objective = check_specs(agents, teacher)  # a bad spec fails here, not in a worker
    end, rest = first + games, (seed, tuple(agents), explore, share, rules, teacher)
    tasks = [(s, min(end, s + CHUNK), *rest) for s in range(first, end, CHUNK)]
    deals: list = []
    with contextlib.ExitStack() as stack, tqdm(total=games, unit="game", desc="labels", disable=not progress) as bar:
        # (more workers: spawn, as agents.arena: a forked torch thread pool can deadlock; imap keeps task order)
        pool = None if workers == 1 else stack.enter_context(mp.get_context("spawn").Pool(workers, _init_worker))
        chunks = map(_task, tasks) if pool is None else pool.imap(_task, tasks)
        for chunk in chunks:
            deals.extend(chunk)
            bar.update(len(chunk))
    return to_arrays(deals, objective)


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability in [0, 1], got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.labels", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=whole_range(1), required=True, help="deals to play")
    ap.add_argument("--agents", nargs="+", default=["heuristic", "random"], help="agent specs; per seat, drawn")
    ap.add_argument("--explore", type=_share, default=0.0, help="share of uniformly random moves")
    ap.add_argument("--share", type=_share, default=1.0, help="share of decision states labelled")
    ap.add_argument("--workers", type=whole_range(1), default=2, help="processes")
    ap.add_argument("--teacher", help="a search spec whose visit shares and root value are added (expert iteration)")
    ap.add_argument("--seed", type=whole_range(0), default=0)
    ap.add_argument("--variant", choices=sorted(PRESETS), default="schnapsen")
    ap.add_argument("--out", required=True, help="the .npz file to write")
    args = ap.parse_args(argv)
    try:
        arrays = generate(
            args.games, args.agents, args.explore, args.share, args.seed, args.workers, args.variant, True, args.teacher
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    np.savez_compressed(args.out, **arrays)
    print(f"{len(arrays['deal'])} labelled states of {args.games} games -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
