"""Solver labels: decision states of played games, each legal action valued exactly in its deal.

:func:`generate` plays games between agents given by spec (a seat's agent drawn per game from
``agents``; ``explore``: the share of moves played uniformly at random instead) and labels a share
of the decision states with :class:`agents.players.solver.DealTable` (one transposition table per deal). Per
labelled state:

- ``observation``: float32 ``(OBS_SIZE,)``, the player's observation
  (:func:`schnapsen_env.observation.encode_state`, what the envs and PPO see);
- ``action_mask``: bool ``(NUM_ACTIONS,)``, the legal actions;
- ``labels``: float32 ``(NUM_ACTIONS,)``, each legal action's game points (-3..+3, RULES §5) for
  the player to act with best play by both afterwards (double-dummy: both hands and the talon
  known); 0 when illegal. The win label is its sign;
- ``deal``: int64, the deal index.

With a ``teacher`` (the spec of an agent with ``distribution``, e.g. ``search:iterations=2000``:
expert iteration, Anthony et al. 2017), two more arrays hold what the network clones
(:mod:`agents.training.pretrain`):

- ``policy``: float32 ``(NUM_ACTIONS,)``, the teacher's visit shares from the player's information
  set (sum 1, 0 when illegal); where nothing is hidden (RULES §8) or one action is legal, uniform
  over the best ``labels`` (exact there);
- ``value``: float32, the teacher's root value in its objective's unit: ``win`` 2 * win share - 1
  (-1..1), ``points`` game points (-3..3); the best label's sign or game points where the labels are
  exact.

Deal ``i`` is seeded from ``(seed, i)`` (:func:`schnapsen_env.seeding.derive_seed`): the arrays do
not depend on ``workers``.
``python -m agents.evaluation.labels --games N --agents heuristic random [--teacher SPEC] --out F.npz``."""

from __future__ import annotations

import argparse
import functools
import random
import sys
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cli_io import one_line, whole_range
from schnapsen_env.engine import GameState
from schnapsen_env.observation import OBS_SIZE, observer_for
from schnapsen_env.rules import PRESETS, Rules
from schnapsen_env.seeding import derive_seed

from ..registry import make_agent
from ..extras import require
from ..players.solver import DealTable, is_perfect_information
from .workers import (
    Backend,
    Bar,
    WorkerError,
    replace_atomically,
    run_tasks,
    sigterm_as_interrupt,
    usable_cpus,
)

require("tqdm", "agents.evaluation.labels")  # the progress bar of run_tasks

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


class LabelRow(NamedTuple):
    """One labelled decision state of :func:`label_deal`."""

    observation: np.ndarray  #: float32 ``(OBS_SIZE,)``, the player's observation
    legal_mask: int  #: the legal actions as bits (bit ``a`` for action ``a``)
    values: dict  #: {legal action: game points with best play by both, -3..3}
    #: the teacher's ({action: visit share}, root value in [0, 1]); None where the labels are exact
    teacher: tuple | None


class LabelledDeal(NamedTuple):
    """The labelled states of one deal, in play order."""

    deal: int
    rows: list  #: :class:`LabelRow` each


class LabelTask(NamedTuple):
    """Deals ``deals`` to label in a worker (the arguments of :func:`label_deal` but the deal)."""

    deals: range
    seed: int
    specs: tuple
    explore: float
    share: float
    rules: Rules
    teacher: str | None


@functools.cache  # (spec, seat) -> Agent, built once per process (one a seat: per-game memory)
def _agent(spec: str, seat: int | str):
    return make_agent(spec)


def deal_states(
    deal: int,
    seed: int,
    specs: Sequence[str],
    explore: float,
    share: float,
    rules: Rules,
):
    """Play deal ``deal`` of ``seed``, yielding each sampled decision state (the live state: use it
    before the next one is asked for)."""
    rng = random.Random(derive_seed(seed, "labels", deal))
    state = GameState.from_seed(rules, rng=rng)
    seats = [_agent(rng.choice(specs), seat) for seat in range(2)]
    for seat, agent in enumerate(seats):
        agent.reset(derive_seed(seed, "labels", deal, seat))
    while not state.is_terminal:
        player = state.current_player
        if rng.random() < share:
            yield state
        if rng.random() < explore:
            action = rng.choice(state.legal_actions())
        else:
            action = seats[player].act(state.information_set(player))
        state.apply(action)


def label_deal(
    deal: int,
    seed: int,
    specs: Sequence[str],
    explore: float,
    share: float,
    rules: Rules,
    teacher: str | None = None,
) -> list[LabelRow]:
    """The labelled states of :func:`deal_states`, a :class:`LabelRow` each, in play order."""
    observer = observer_for(rules)
    search = teacher and _agent(teacher, "teacher")
    if search:
        search.reset(derive_seed(seed, "labels", deal, "teacher"))
    rows = []
    for state in deal_states(deal, seed, specs, explore, share, rules):
        player = state.current_player
        # no search where nothing is hidden or one action is legal
        exact = not search or is_perfect_information(state) or len(state.legal_actions()) == 1
        row = LabelRow(
            observation=observer.fill_state(state, player),
            legal_mask=state.legal_mask(),
            values=_table.action_values(state),
            teacher=None if exact else search.distribution(state.information_set(player)),
        )
        rows.append(row)
    return rows


def _task(task: LabelTask) -> list[LabelledDeal]:
    labelled = []
    for deal in task.deals:
        rows = label_deal(
            deal,
            task.seed,
            task.specs,
            task.explore,
            task.share,
            task.rules,
            teacher=task.teacher,
        )
        labelled.append(LabelledDeal(deal, rows))
    return labelled


def targets(labels: np.ndarray, mask: np.ndarray, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """``(policy target, value target)``: float32 ``(N, A)``, uniform over the best legal actions,
    and float32 ``(N,)``, from ``labels`` float32 ``(N, A)`` (game points) and ``mask`` bool
    ``(N, A)``. Objective ``win``: labels are taken as their sign first, ties broken by game
    points, the value is the sign; ``points``: game points."""
    score = labels + SIGN_WEIGHT * np.sign(labels) if objective == "win" else labels.copy()
    score[~mask] = -np.inf
    best = score == score.max(1, keepdims=True)
    value = np.where(mask, labels, -np.inf).max(1)
    value = np.sign(value) if objective == "win" else value
    return (best / best.sum(1, keepdims=True)).astype(np.float32), value.astype(np.float32)


def to_arrays(deals: Sequence[LabelledDeal], objective: str | None = None) -> dict:
    """The :data:`FIELDS` arrays of the labelled deals; with a teacher's ``objective``, ``policy``
    and ``value`` too (the module docstring)."""
    rows = [row for labelled in deals for row in labelled.rows]
    out = {name: np.zeros((len(rows), *shape), dtype) for name, (dtype, shape) in FIELDS.items()}
    out["deal"][:] = [labelled.deal for labelled in deals for _ in labelled.rows]
    for i, row in enumerate(rows):
        out["observation"][i] = row.observation
        out["labels"][i, list(row.values)] = list(row.values.values())
    masks = np.array([row.legal_mask for row in rows], dtype=np.int64).reshape(-1, 1)
    out["action_mask"][:] = masks >> np.arange(NUM_ACTIONS) & 1
    if objective is not None:
        out["policy"], out["value"] = targets(out["labels"], out["action_mask"], objective)
        scale = 2.0 if objective == "win" else 6.0  # root value [0, 1] in the objective's unit
        for i, row in enumerate(rows):
            if row.teacher is not None:
                shares, value = row.teacher
                out["policy"][i] = 0.0
                out["policy"][i, list(shares)] = list(shares.values())
                out["value"][i] = scale * value - scale / 2
    return out


def check_specs(agents: Sequence[str], teacher: str | None) -> str | None:
    """The teacher's objective (None without one; ``"win"`` unless it has an ``objective``);
    ``ValueError`` for a spec that builds no agent or a teacher without
    ``distribution(info) -> ({action: share}, value in [0, 1])``
    (:meth:`agents.players.search.SearchAgent.distribution`; an agent of your own may have one too)."""
    for spec in agents:
        make_agent(spec)
    if teacher is None:
        return None
    search = make_agent(teacher)
    if not hasattr(search, "distribution"):
        agent = "an agent with distribution(info) -> ({action: share}, value in [0, 1])"
        give = f"give a search spec (e.g. search) or {agent}"
        raise ValueError(f"teacher {teacher!r} gives no move distribution: {give}")
    return getattr(search, "objective", "win")


def generate(
    games: int,
    agents: Sequence[str] = ("heuristic", "random"),
    explore: float = 0.0,
    share: float = 1.0,
    seed: int = 0,
    workers: int | None = None,
    variant: str = "schnapsen",
    progress: bool = False,
    teacher: str | None = None,
    first: int = 0,
) -> dict:
    """Label ``games`` deals (indices ``first..first+games-1``); returns the :data:`FIELDS` arrays,
    deals in order.

    ``agents``: spec strings (each seat's agent drawn per game); ``explore``: probability of a
    uniformly random move; ``share``: probability that a decision state is labelled; ``workers``:
    processes (1: in this one; None: :func:`agents.evaluation.workers.usable_cpus`); ``variant``: a RULES §7
    preset; ``teacher``: a search agent's spec (one with ``distribution``,
    :class:`agents.players.search.SearchAgent`) whose soft labels are added. ``ValueError`` for
    ``games`` < 1, a bad spec or variant; :class:`agents.evaluation.workers.WorkerError` naming the deals when
    a worker dies or an agent raises there."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    rules = Rules.preset(variant)
    objective = check_specs(agents, teacher)  # a bad spec fails here, not in a worker
    end = first + games
    tasks = [
        LabelTask(
            deals=range(start, min(end, start + CHUNK)),
            seed=seed,
            specs=tuple(agents),
            explore=explore,
            share=share,
            rules=rules,
            teacher=teacher,
        )
        for start in range(first, end, CHUNK)
    ]
    backend = Backend(workers=usable_cpus() if workers is None else workers)
    bar = Bar(total=games, description="labels", unit="game") if progress else None
    chunks = list(run_tasks(_task, tasks, backend=backend, describe=_describe, progress=bar))
    return to_arrays([labelled for chunk in chunks for labelled in chunk], objective)


def _describe(task: LabelTask) -> str:
    return f"labels of deals {task.deals.start}-{task.deals.stop - 1}"


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability in [0, 1], got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    description = __doc__.split("\n\n")[0]
    ap = argparse.ArgumentParser(prog="python -m agents.evaluation.labels", description=description)
    ap.add_argument("--games", type=whole_range(1), required=True, help="deals to play")
    agents_help = "agent specs; per seat, drawn"
    ap.add_argument("--agents", nargs="+", default=["heuristic", "random"], help=agents_help)
    ap.add_argument("--explore", type=_share, default=0.0, help="share of uniformly random moves")
    ap.add_argument("--share", type=_share, default=1.0, help="share of decision states labelled")
    workers_help = "processes (default: the CPUs this process may use; same arrays for any number)"
    ap.add_argument("--workers", type=whole_range(1), default=usable_cpus(), help=workers_help)
    teacher_help = "an agent spec with distribution(info), e.g. search:iterations=2000 or FILE.py:NAME, whose visit "
    teacher_help += "shares and root value are added (expert iteration)"
    ap.add_argument("--teacher", help=teacher_help)
    ap.add_argument("--seed", type=whole_range(0), default=0)
    ap.add_argument("--variant", choices=sorted(PRESETS), default="schnapsen")
    ap.add_argument("--out", required=True, help="the .npz file to write")
    args = ap.parse_args(argv)
    out = args.out if args.out.endswith(".npz") else f"{args.out}.npz"  # as numpy names it
    try:
        with sigterm_as_interrupt():
            arrays = generate(
                args.games,
                args.agents,
                args.explore,
                args.share,
                args.seed,
                args.workers,
                args.variant,
                progress=True,
                teacher=args.teacher,
            )
        with replace_atomically(out) as temporary, open(temporary, "wb") as file:
            np.savez_compressed(file, **arrays)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the workers are stopped on the way out
        print(f"{ap.prog}: interrupted: nothing written", file=sys.stderr)
        return 130
    except (ValueError, WorkerError, OSError) as e:
        print(f"{ap.prog}: error: {one_line(e)}", file=sys.stderr)
        return 2
    print(f"{len(arrays['deal'])} labelled states of {args.games} games -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
