"""Matches between agents: pairs, round robins, duplicate deals, confidence intervals, ratings.

    from agents.evaluation.arena import play_pair
    r = play_pair("heuristic", "random", games=200, seed=7)       # duplicate deals by default
    python -m agents.evaluation.arena --agents random heuristic pimc:samples=40 --games 2000 --out runs/arena

The command line plays a round robin and writes ``results.json``, ``results.csv``, ``games.csv``,
``ratings.csv`` and ``ratings.png`` into ``--out``. Game ``g`` of pair ``k`` is dealt by
:func:`deal_rng` from deal ``g // 2`` under ``duplicate`` (seats swapped; agent A sits in seat
``g % 2``), else ``g``; ``--workers``/``--ray`` give the same results. With ``bummerl=True`` the
unit is a Bummerl (RULES §6)."""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import NamedTuple, TextIO

from schnapsen_env import seeding
from schnapsen_env.cli_io import EVEN_GAMES, one_line, silence, whole_range
from schnapsen_env.engine import GameState, InformationSet
from schnapsen_env.learner import EPISODE_OVER, LearnerGame
from schnapsen_env.rulebook import NO_TRICK_GAME_POINTS as MOST_GAME_POINTS
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import derive_seed

from ..registry import make_agent, portable_spec
from ..players.base import Agent, NotAnAction, action_id
from ..extras import require
from .stats import PRIOR_WINS, bradley_terry_ratings, mean_interval, wilson_interval
from .workers import (
    Backend,
    Bar,
    WorkerError,
    init_ray,
    replace_atomically,
    run_tasks,
    sigterm_as_interrupt,
    usable_cpus,
)

require("tqdm", "agents.evaluation.arena")  # the progress bars of run_tasks

AgentLike = str | Agent
#: largest number of units (games or Bummerls) a worker plays per task
MAX_CHUNK = 50
#: chunks per worker, so the progress bar moves and the load spreads
CHUNKS_PER_WORKER = 8


def deal_rng(seed: int, pair_index: int, deal: int) -> random.Random:
    """The generator that shuffles deal ``deal`` of pair ``pair_index`` (deck and dealer):
    stream ``"seed/pair_index/deal"`` of :mod:`schnapsen_env.seeding`, independent of the
    agents' streams ``"seed/pair_index/unit/A"`` and ``".../B"``."""
    return seeding.stream(seed, pair_index, deal)


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a pair: ``winner`` 0 = agent A, 1 = agent B; ``seat_a`` is A's seat."""

    unit: int  #: game index (or Bummerl index with bummerl=True)
    deal: int  #: deal index (unit // 2 with duplicate)
    seat_a: int
    dealer: int
    winner: int
    game_points: int
    reason: str
    deck: tuple = ()  #: the deal (card ids in deal order, RULES §2)
    actions: tuple = ()  #: every action of the game, in order (action ids)

    def to_record(self, rules: Rules, variant: str) -> dict:
        """The RULES §9 record of this game (replayed once here, so it is known to be valid)."""
        from schnapsen_env.replay import to_record

        state = GameState(rules, list(self.deck), self.dealer)
        for a in self.actions:
            state.apply(a)
        return to_record(state, variant if variant in VARIANTS else "schnapsen")


@dataclass
class PairResult:
    """The result of :func:`play_pair`: ``wins`` and ``mean_game_points`` (the loser scores 0) as
    ``[A, B]``; ``win_rate_ci``: Wilson 95% interval of A's win rate; ``game_points_ci``:
    ``[[low, high]`` for A and B] (:func:`agents.evaluation.stats.mean_interval`); the ``bummerl*`` fields with
    Bummerl play."""

    agents: list
    games: int
    wins: list
    mean_game_points: list
    win_rate_ci: tuple
    game_points_ci: list
    net_game_points: float = 0.0  #: mean of A's points minus B's per game
    net_game_points_ci: tuple = (0.0, 0.0)
    variant: str = "schnapsen"
    rules: dict = field(default_factory=dict)
    seed: int = 0
    pair_index: int = 0
    duplicate: bool = True
    bummerls: int | None = None
    bummerl_wins: list | None = None
    bummerl_points: list | None = None  #: Bummerl won per agent, a Schneider-Bummerl counting 2
    bummerl_win_rate_ci: tuple | None = None
    records: list = field(default_factory=list, repr=False)
    #: median ms per decision of A, B (a timing)
    ms_per_decision: list = field(default_factory=lambda: [0.0, 0.0])

    @property
    def win_rate(self) -> float:
        """A's share of games won."""
        return self.wins[0] / self.games

    def to_dict(self) -> dict:
        """JSON-ready summary: the fields but the per-game records, and ``win_rate`` (the Bummerl
        fields and ``bummerl_win_rate`` only with Bummerl play; no timings, so equal runs give equal
        dicts)."""
        names = [f.name for f in fields(self) if f.name not in ("records", "ms_per_decision")]
        d = {name: getattr(self, name) for name in names}
        d["win_rate"] = self.win_rate
        if self.bummerls is None:
            d = {k: v for k, v in d.items() if not k.startswith("bummerl")}
        else:
            d["bummerl_win_rate"] = self.bummerl_wins[0] / self.bummerls
        return json.loads(json.dumps(d))  # tuples as lists, as results.json holds them


def play_game(state: GameState, seats: Sequence[Agent]) -> GameState:
    """Play ``state`` to the end, ``seats[p]`` acting for player ``p``; ``ValueError`` naming an
    agent that plays an illegal action."""
    while not state.is_terminal:
        state.apply(_agent_action(state, seats))
    return state


class AgentError(WorkerError):
    """An agent raised while choosing a move: the message names the agent, the game, the move (the game's and
    the agent's own count), and the exception's type and message (the exception itself is the ``__cause__``);
    ``detail`` is the traceback of the agent's frames, from its ``act`` down (:func:`traceback_note`)."""


def _agent_action(
    state: GameState,
    seats: Sequence[Agent],
    clock: Sequence[list] | None = None,
    game: int | None = None,
) -> int:
    """The action of the agent to act in ``state`` (its seconds appended to ``clock[player]``), read by
    :func:`agents.players.base.action_id` (as a policy function's is). ``ValueError`` naming the agent, the game, the
    move, the value and its type and the legal actions for a value that is no action id or not a legal one;
    :class:`AgentError` when the agent raises."""
    player = state.current_player
    info = state.information_set(player)
    agent = seats[player]
    start = time.perf_counter()
    try:
        action = agent.act(info)
        if type(action) is not int:
            action = action_id(action)
    except NotAnAction as refused:
        # Agent.act's value here, or a policy function's in PolicyAgent.act
        legal = list(info.legal_actions)
        returned = refused.text(refused.value, _where(game, info))
        raise ValueError(f"agent {agent.name!r} returned {returned}; legal were {legal}") from None
    except Exception as error:
        where = _where(game, info)
        cause = f"{type(error).__name__}: {error}"
        frames = traceback.TracebackException(type(error), error, error.__traceback__.tb_next)
        detail = f"agent {agent.name!r} raised{where}:\n{''.join(frames.format())}"
        raise AgentError(f"agent {agent.name!r} raised {cause}{where}", detail) from error
    if clock is not None:
        clock[player].append(time.perf_counter() - start)
    if action not in info.legal_actions:
        raise ValueError(
            f"agent {agent.name!r} returned illegal action {action!r}{_where(game, info)}; "
            f"legal were {list(info.legal_actions)}"
        )
    return action


def _where(game: int | None, info: InformationSet) -> str:
    """`` in game G at move M of the game (the agent's move K)`` (without the game when none is given), for an
    agent's error: M counts both players' moves in this game, K the agent's own."""
    in_game = f" in game {game}" if game is not None else ""
    own = 1 + sum(1 for player, _ in info.history if player == info.player)
    return f"{in_game} at move {len(info.history) + 1} of the game (the agent's move {own})"


#: the file in ``--out`` that holds an agent's traceback when it raised (arena and ladder)
TRACEBACK_FILE = "agent_traceback.txt"


def traceback_note(error: Exception, *, out: str | None, show: bool) -> str:
    """Where the traceback of an agent that raised (``error.detail``, :class:`AgentError`, through workers too)
    went, as the end of the command's one-line error: printed on stderr with ``show`` (``--traceback``), else
    written to ``out/`` :data:`TRACEBACK_FILE` when ``out`` is a folder, else not kept (the note says how to
    see it). ``""`` for an error without a traceback. ``OSError`` is not raised: an unwritable file is said."""
    detail = getattr(error, "detail", None)
    if not detail:
        return ""
    if show:
        print(detail, file=sys.stderr, end="" if detail.endswith("\n") else "\n")
        return ""
    if out is not None and os.path.isdir(out):
        path = os.path.join(out, TRACEBACK_FILE)
        try:
            with (
                replace_atomically(path) as temporary,
                open(temporary, "w", encoding="utf-8") as file,
            ):
                file.write(detail)
        except OSError as failed:
            reason = f"{path}: {failed.strerror}"
            return f" (its traceback could not be written to {reason}; --traceback prints it)"
        return f" (its traceback: {path})"
    return " (--traceback prints its traceback)"


class UnitResult(NamedTuple):
    """One played unit (a game, or a Bummerl with ``bummerl=True``) of a pair."""

    records: list  #: its games, :class:`GameRecord` each
    bummerl_winner: int | None  #: 0 = agent A, 1 = agent B; None for a game unit
    value: int  #: the Bummerl winner's reward, 1 or 2 (a Schneider-Bummerl); 0 for a game unit
    seconds: tuple  #: A's and B's seconds per decision, two lists


class ChunkTask(NamedTuple):
    """Units ``units`` of pair ``pair_index``, played in a worker from the agents' spec strings."""

    spec_a: str
    spec_b: str
    rules: dict  #: :meth:`Rules.to_dict`
    seed: int
    pair_index: int
    units: range
    duplicate: bool
    bummerl: bool


def _play_units(
    agent_a: Agent,
    agent_b: Agent,
    rules: Rules,
    units: range,
    *,
    seed: int,
    pair_index: int,
    duplicate: bool,
    bummerl: bool,
) -> list[UnitResult]:
    """Play units ``units`` of a pair, one :class:`UnitResult` each."""
    core = LearnerGame(rules, "bummerl" if bummerl else "game")  # checked before: no illegal action
    out = []
    for unit in units:
        deal = unit // 2 if duplicate else unit
        seat_a = unit % 2
        seats = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
        agent_a.reset(derive_seed(seed, pair_index, unit, "A"))
        agent_b.reset(derive_seed(seed, pair_index, unit, "B"))
        core.start(deal_rng(seed, pair_index, deal), seat=seat_a)
        records = []
        clock = ([], [])  # seconds per decision of seat 0 and seat 1
        while True:
            state = core.state
            if not core.apply(_agent_action(state, seats, clock, unit)):
                continue
            outcome = state.outcome
            record = GameRecord(
                unit=unit,
                deal=deal,
                seat_a=seat_a,
                dealer=state.dealer,
                winner=int(outcome.winner != seat_a),
                game_points=outcome.game_points,
                reason=outcome.reason,
                deck=state.deck,
                actions=tuple(action for _, action in state.history),
            )
            records.append(record)
            if core.end_game() == EPISODE_OVER:
                break
        seconds = (clock[seat_a], clock[1 - seat_a])
        if bummerl:
            result = UnitResult(
                records,
                bummerl_winner=int(core.winner != seat_a),
                value=core.rewards[core.winner],
                seconds=seconds,
            )
            out.append(result)
        else:
            out.append(UnitResult(records, bummerl_winner=None, value=0, seconds=seconds))
    return out


def _play_chunk(agents: tuple[Agent, Agent], task: ChunkTask) -> list[UnitResult]:
    """Units ``task.units`` of a pair played by ``agents`` (A, B): :func:`_play_units`."""
    return _play_units(
        *agents,
        Rules.from_dict(task.rules),
        task.units,
        seed=task.seed,
        pair_index=task.pair_index,
        duplicate=task.duplicate,
        bummerl=task.bummerl,
    )


def _chunk_task(task: ChunkTask) -> list[UnitResult]:
    """A worker's (or Ray task's) chunk: the agents built from their specs, then
    :func:`_play_chunk`."""
    return _play_chunk((make_agent(task.spec_a), make_agent(task.spec_b)), task)


#: ``--ray [ADDRESS]``'s help, the same in every command that offers it (arena, ladder, calibration)
RAY_HELP = (
    "play the games as Ray tasks on the cluster at ADDRESS (none: this machine's cluster or a new local one) "
    "instead of --workers; same results; needs pip install 'schnapsen-env[rllib]'"
)


def add_ray_argument(ap: argparse.ArgumentParser) -> None:
    """Add ``--ray [ADDRESS]`` to ``ap``: ``args.ray`` is None without it, ``""`` without an address."""
    ap.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS", help=RAY_HELP)


def local_workers(ray_address: str | None, workers: int | None) -> int:
    """The local processes of a command with ``--workers`` and ``--ray [ADDRESS]``: 1 under Ray (the
    cluster's CPUs play the games), else ``workers`` or, when not given, :func:`usable_cpus`. ``ValueError``
    for ``--workers`` above 1 with ``--ray``."""
    if ray_address is None:
        return usable_cpus() if workers is None else workers
    if workers not in (None, 1):
        raise ValueError("--workers is for local processes: with --ray the cluster's CPUs play the games")
    return 1


def play_pair(
    a: AgentLike,
    b: AgentLike,
    games: int,
    seed: int,
    *,
    rules: Rules | None = None,
    duplicate: bool = True,
    bummerl: bool = False,
    workers: int = 1,
    progress: bool | Callable[[int], object] = False,
    pair_index: int = 0,
    variant: str | None = None,
    ray: bool = False,
) -> PairResult:
    """Play ``games`` games (Bummerls with ``bummerl=True``) between agents ``a`` and ``b``.

    ``a``/``b``: spec strings, or :class:`Agent` instances with ``workers=1`` and no Ray; ``rules``
    default to the preset ``variant``; ``duplicate`` plays each deal twice, seats swapped; ``workers > 1``
    (processes) and ``ray=True`` (:func:`agents.evaluation.workers.init_ray`) give the same results (the chunks
    run by :func:`agents.evaluation.workers.run_tasks`). ``progress``: ``True`` draws this pair's bar; a callable
    (such as a caller's ``tqdm(...).update``) is called with each finished chunk's number of units instead.
    ``ValueError`` for ``games`` < 1, an odd ``games`` with ``duplicate``, instances with workers, ``workers`` > 1
    with Ray, a bad spec or an illegal action; :class:`AgentError` when an agent raises (``workers=1``);
    :class:`WorkerError` naming the games when a worker dies or its games raise."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if duplicate and games % 2:
        raise ValueError(f"games must be even with duplicate deals (each deal is played twice), got {games}")
    if (workers > 1 or ray) and not (isinstance(a, str) and isinstance(b, str)):
        raise ValueError("agents given as instances play only with workers=1 and without Ray: pass spec strings")
    rules = Rules.preset(variant or "schnapsen") if rules is None else rules
    # bad specs fail
    agents = (
        make_agent(a) if isinstance(a, str) else a,
        make_agent(b) if isinstance(b, str) else b,
    )
    backend = Backend(workers=workers, ray_address="" if ray else None)
    pair = f"{agents[0].name} vs {agents[1].name}"
    names = PairWords(pair=pair, unit="bummerl" if bummerl else "game")
    bar = None
    if progress is True:
        bar = Bar(total=games, description=names.pair, unit=names.unit, leave=False)
    # instances play here
    play = functools.partial(_play_chunk, agents) if backend == Backend() else _chunk_task
    tasks = _chunk_tasks(
        a,
        b,
        rules,
        games,
        seed,
        pair_index,
        duplicate=duplicate,
        bummerl=bummerl,
        backend=backend,
    )
    chunks = run_tasks(
        play,
        tasks,
        backend=backend,
        describe=names.describe,
        progress=progress if callable(progress) else bar,
    )
    return summarize(
        agents[0].name,
        agents[1].name,
        # list(): an interruption stops the workers
        [unit for chunk in list(chunks) for unit in chunk],
        rules=rules,
        seed=seed,
        pair_index=pair_index,
        duplicate=duplicate,
        bummerl=bummerl,
        variant=variant,
    )


def _chunk_tasks(
    a: AgentLike,
    b: AgentLike,
    rules: Rules,
    games: int,
    seed: int,
    pair_index: int,
    *,
    duplicate: bool,
    bummerl: bool,
    backend: Backend,
) -> list[ChunkTask]:
    """The pair's units ``0..games-1`` in chunks, :data:`CHUNKS_PER_WORKER` for each task ``backend`` runs at once (so
    the progress bar moves and the load spreads) and :data:`MAX_CHUNK` units at most."""
    parallel = backend.parallel()
    chunk_count = parallel * CHUNKS_PER_WORKER
    step = MAX_CHUNK if parallel <= 1 else max(1, min(MAX_CHUNK, -(-games // chunk_count)))
    return [
        ChunkTask(
            spec_a=portable_spec(a),
            spec_b=portable_spec(b),
            rules=rules.to_dict(),
            seed=seed,
            pair_index=pair_index,
            units=range(start, min(games, start + step)),
            duplicate=duplicate,
            bummerl=bummerl,
        )
        for start in range(0, games, step)
    ]


class PairWords(NamedTuple):
    """A pair's chunks in words: ``pair`` ``"A vs B"``, ``unit`` ``"game"`` or ``"bummerl"``."""

    pair: str
    unit: str

    def describe(self, task: ChunkTask) -> str:
        """``"A vs B, game 7"`` or ``"A vs B, games 0-49"``: a chunk, for an error."""
        units = task.units
        if len(units) == 1:
            return f"{self.pair}, {self.unit} {units.start}"
        return f"{self.pair}, {self.unit}s {units.start}-{units.stop - 1}"


def summarize(
    name_a: str,
    name_b: str,
    results: Sequence[UnitResult],
    *,
    rules: Rules,
    seed: int,
    pair_index: int,
    duplicate: bool,
    bummerl: bool,
    variant: str | None = None,
) -> PairResult:
    """Build a :class:`PairResult` from the per-unit results of :func:`_play_units`."""
    records = [record for unit in results for record in unit.records]
    n = len(records)
    wins = [sum(1 for r in records if r.winner == 0), sum(1 for r in records if r.winner == 1)]
    pts = [[r.game_points if r.winner == who else 0 for r in records] for who in (0, 1)]
    cis = [mean_interval(p, 0, MOST_GAME_POINTS) for p in pts]
    net = mean_interval([x - y for x, y in zip(*pts)], -MOST_GAME_POINTS, MOST_GAME_POINTS)
    seconds = [[second for unit in results for second in unit.seconds[who]] for who in (0, 1)]
    ms = [1000 * statistics.median(times) if times else 0.0 for times in seconds]
    res = PairResult(
        agents=[name_a, name_b],
        games=n,
        wins=wins,
        mean_game_points=[cis[0][0], cis[1][0]],
        win_rate_ci=wilson_interval(wins[0], n),
        game_points_ci=[[c[1], c[2]] for c in cis],
        net_game_points=net[0],
        net_game_points_ci=(net[1], net[2]),
        variant=variant or _variant_of(rules),
        rules=rules.to_dict(),
        seed=seed,
        pair_index=pair_index,
        duplicate=duplicate,
        records=records,
        ms_per_decision=ms,
    )
    if bummerl:
        res.bummerls = len(results)
        res.bummerl_wins = [0, 0]
        res.bummerl_points = [0, 0]
        for unit in results:
            res.bummerl_wins[unit.bummerl_winner] += 1
            res.bummerl_points[unit.bummerl_winner] += unit.value
        res.bummerl_win_rate_ci = wilson_interval(res.bummerl_wins[0], res.bummerls)
    return res


def _variant_of(rules: Rules) -> str:
    return next((v for v in VARIANTS if Rules.preset(v) == rules), "custom")


def round_robin(
    specs: Sequence[AgentLike],
    games: int,
    seed: int,
    *,
    rules: Rules | None = None,
    duplicate: bool = True,
    bummerl: bool = False,
    workers: int = 1,
    progress: bool = False,
    variant: str | None = None,
    ray: bool = False,
    finished: Mapping[int, PairResult] | None = None,
    on_pair: Callable[[PairResult], object] | None = None,
) -> dict:
    """Every pair of ``specs`` (``itertools.combinations`` order, pair index 0, 1, ...) plays
    :func:`play_pair`; returns ``{"pairs": [...], "ratings": {...}, ...}`` (PairResults under
    ``"_results"``), ratings by :func:`agents.evaluation.stats.bradley_terry_ratings` over all games, best
    first. ``specs``: spec strings or :class:`Agent` instances (named by their ``name``).
    ``finished``: results by pair index of an interrupted round robin of the same specs and
    settings, taken as they are instead of played again; ``on_pair(result)``: called after each
    pair played. ``ValueError`` unless there are at least two agents with distinct names, and as
    :func:`play_pair`."""
    names = [x if isinstance(x, str) else x.name for x in specs]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"a round robin needs at least two agents with distinct names, got {names}")
    finished = finished or {}
    results = []
    for pair_index, (spec_a, spec_b) in enumerate(itertools.combinations(specs, 2)):
        if pair_index in finished:
            results.append(finished[pair_index])
            continue
        result = play_pair(
            spec_a,
            spec_b,
            games,
            seed,
            rules=rules,
            duplicate=duplicate,
            bummerl=bummerl,
            workers=workers,
            progress=progress,
            pair_index=pair_index,
            variant=variant,
            ray=ray,
        )
        results.append(result)
        if on_pair is not None:
            on_pair(result)
    return _report(names, results, seed=seed, games=games, duplicate=duplicate, bummerl=bummerl)


def _report(
    names: Sequence[str],
    results: Sequence[PairResult],
    *,
    seed: int,
    games: int,
    duplicate: bool,
    bummerl: bool,
) -> dict:
    """The :func:`round_robin` dict of the pairs' ``results`` of agents ``names``, rated over
    all games."""
    games_order = [
        (result.agents[record.winner], result.agents[1 - record.winner])
        for result in results
        for record in result.records
    ]
    ratings = bradley_terry_ratings(names, games_order)
    return {
        "seed": seed,
        "games_per_pair": games,
        "duplicate": duplicate,
        "bummerl": bummerl,
        "variant": results[0].variant,
        "rules": results[0].rules,
        "rating_model": "Bradley-Terry over all games (choix) with "
        f"{PRIOR_WINS:g} virtual win each way per pair, "
        "pool Elo (centred on the pool mean; not the ladder's scale), 95% normal-approximation interval",
        "pairs": [r.to_dict() for r in results],
        "ratings": dict(sorted(ratings.items(), key=lambda kv: -kv[1]["elo"])),
        "_results": results,
    }


def format_table(report: dict) -> str:
    """The round robin as a plain-text table (columns as wide as the longest agent name)."""
    width = max(len("agent A"), *(len(name) for name in report["ratings"]))
    head = (
        f"{'agent A':<{width}} {'agent B':<{width}} {'games':>6} {'A wins':>22} {'A pts/game':>20} {'B pts/game':>20}"
    )
    lines = [head + (f" {'A Bummerl wins':>22}" if report["bummerl"] else "")]
    for p in report["pairs"]:
        lo, hi = p["win_rate_ci"]
        (alo, ahi), (blo, bhi) = p["game_points_ci"]
        ma, mb = p["mean_game_points"]
        line = (
            f"{p['agents'][0]:<{width}} {p['agents'][1]:<{width}} {p['games']:>6} "
            f"{p['win_rate']:>7.1%} [{lo:.1%}, {hi:.1%}] {ma:>6.2f} [{alo:.2f}, {ahi:.2f}] "
            f"{mb:>6.2f} [{blo:.2f}, {bhi:.2f}]"
        )
        if report["bummerl"]:
            blo2, bhi2 = p["bummerl_win_rate_ci"]
            line += f" {p['bummerl_win_rate']:>7.1%} [{blo2:.1%}, {bhi2:.1%}] of {p['bummerls']}"
        lines.append(line)
    lines += ["", f"pool Elo ratings ({report['rating_model']}):"]
    for name, r in report["ratings"].items():
        interval = f"[{r['low']:+.1f}, {r['high']:+.1f}]"
        lines.append(f"  {name:<{width}} {r['elo']:+7.1f}  {interval}  ({r['games']} games)")
    return "\n".join(lines)


def write_outputs(report: dict, out_dir: str) -> list[str]:
    """Write results.json, results.csv, games.csv, ratings.csv and ratings.png to ``out_dir``, each
    to a temporary file renamed into place (:func:`agents.evaluation.workers.replace_atomically`): a failed
    write leaves an earlier file whole. Returns the paths; ``OSError`` when one cannot be written.
    """
    os.makedirs(out_dir, exist_ok=True)
    p = os.path.join(out_dir, "results.json")
    with replace_atomically(p) as temporary, open(temporary, "w") as f:
        json.dump({k: v for k, v in report.items() if not k.startswith("_")}, f, indent=2)
    pairs = [
        [*q["agents"], q["games"], *q["wins"], q["win_rate"], *q["win_rate_ci"]]
        + [*q["mean_game_points"], q["net_game_points"], q.get("bummerls", "")]
        + (q.get("bummerl_wins") or ["", ""])
        for q in report["pairs"]
    ]
    games = [
        [r.pair_index, *r.agents, g.unit, g.deal, g.seat_a, g.dealer] + [r.agents[g.winner], g.game_points, g.reason]
        for r in report.get("_results", [])
        for g in r.records
    ]
    ratings = [[name, r["elo"], r["low"], r["high"], r["games"]] for name, r in report["ratings"].items()]
    results_head = "agent_a agent_b games wins_a wins_b win_rate_a win_rate_a_low win_rate_a_high "
    results_head += "mean_game_points_a mean_game_points_b net_game_points_a bummerls "
    results_head += "bummerl_wins_a bummerl_wins_b"
    games_head = "pair agent_a agent_b unit deal seat_a dealer winner game_points reason"
    tables = {
        "results.csv": (results_head, pairs),
        "games.csv": (games_head, games),
        "ratings.csv": ("agent elo low high games", ratings),
    }
    paths = [p]
    for name, (header, rows) in tables.items():
        paths.append(os.path.join(out_dir, name))
        with replace_atomically(paths[-1]) as temporary, open(temporary, "w", newline="") as f:
            csv.writer(f).writerows([header.split(), *rows])
    return paths + [plot_ratings(report["ratings"], os.path.join(out_dir, "ratings.png"))]


def write_records(report: dict, file: TextIO) -> int:
    """Write every game of a :func:`round_robin` report to ``file`` as a RULES §9 record, one JSON
    line each, pair by pair in game order (the order of ``games.csv``); returns the number of
    records."""
    rules = Rules.from_dict(report["rules"])
    records = [g.to_record(rules, report["variant"]) for r in report["_results"] for g in r.records]
    file.writelines(json.dumps(rec) + "\n" for rec in records)
    return len(records)


def plot_ratings(ratings: dict, path: str) -> str:
    """Each agent's Elo-scale rating with its 95% interval, best at the top (matplotlib, Agg
    backend)."""
    require("matplotlib", "agents.evaluation.arena")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    items = sorted(ratings.items(), key=lambda kv: kv[1]["elo"])
    fig = Figure(figsize=(7, 0.6 * len(items) + 1.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    elo = [r["elo"] for _, r in items]
    below = [e - r["low"] for e, (_, r) in zip(elo, items)]
    above = [r["high"] - e for e, (_, r) in zip(elo, items)]
    xerr = [below, above]
    ax.errorbar(elo, range(len(items)), xerr=xerr, fmt="o", capsize=4)
    ax.set_yticks(range(len(items)), [n for n, _ in items])
    ax.set_xlabel("pool Elo, centred on the pool mean (Bradley-Terry, 95% interval)")
    ax.set_title("Agent ratings relative to this pool")
    ax.grid(axis="x", alpha=0.3)
    with replace_atomically(path) as temporary:  # its name keeps the ending that picks the format
        fig.savefig(temporary, dpi=100, bbox_inches="tight")  # long names and the axis label fit
    return path


#: the command line's name in its messages
PROG = "python -m agents.evaluation.arena"
#: most worker processes from the command line
MAX_WORKERS = 256
#: the suffix of ``--save-records`` (JSON lines: what ``python -m schnapsen_env.replay`` reads as
#: many records)
RECORDS_SUFFIX = ".jsonl"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Round robin between agents.")
    agents_help = "agent specs, e.g. random heuristic pimc:samples=40 ppo vu:rdeep"
    ap.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=agents_help)
    odd_games = "any >= 1 with --no-duplicate"
    games_help = f"games per pair (Bummerls with --bummerl): {EVEN_GAMES}, {odd_games}"
    ap.add_argument("--games", type=whole_range(1), default=1000, help=games_help)
    ap.add_argument("--seed", type=whole_range(0), default=0, help="a whole number >= 0")
    ap.add_argument("--variant", default="schnapsen", choices=VARIANTS, help="rules preset")
    duplicate_help = "play every deal twice with seats swapped (default on)"
    ap.add_argument(
        "--duplicate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=duplicate_help,
    )
    bummerl_help = "play Bummerls (RULES §6) instead of single games"
    ap.add_argument("--bummerl", action="store_true", help=bummerl_help)
    workers_help = "processes (default: the CPUs this process may use; the same results for any number)"
    ap.add_argument("--workers", type=whole_range(1, MAX_WORKERS), default=None, help=workers_help)
    add_ray_argument(ap)
    ap.add_argument("--out", default=None, help="directory for results.json/csv and ratings.png")
    records_help = "write every game as a RULES §9 record, one JSON line each, in the order of "
    records_help += "games.csv (replay with python -m schnapsen_env.replay FILE.jsonl)"
    ap.add_argument("--save-records", default=None, metavar="FILE.jsonl", help=records_help)
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ap.add_argument("--traceback", action="store_true", help=TRACEBACK_HELP)
    return ap


#: ``--traceback``'s help (arena and ladder)
TRACEBACK_HELP = (
    "when an agent raises, print its traceback on stderr before the one-line error "
    f"(default: written to --out DIR/{TRACEBACK_FILE} when --out is given)"
)


def _check_writable(folder: str) -> None:
    """``OSError`` unless a file can be made in ``folder`` (checked before the games; nothing is
    left)."""
    with tempfile.TemporaryFile(dir=folder):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 0 when done; any error (a bad argument, an illegal move, an agent that
    raises, a dead worker, a file that cannot be written) is one line on stderr and exit status 2
    (``SystemExit``); Ctrl-C or SIGTERM one line and 130. Results are written after the games, each
    file replacing an earlier one whole."""
    ap = build_parser()
    args = ap.parse_args(argv)
    # checked here, with --duplicate, before any agent is made
    if args.duplicate and args.games % 2:
        expected = f"{EVEN_GAMES}, or any >= 1 with --no-duplicate"
        ap.error(f"argument --games: expected {expected}, got {args.games}")
    rules = Rules.preset(args.variant)
    try:
        if args.save_records is not None and not args.save_records.endswith(RECORDS_SUFFIX):
            raise ValueError(f"--save-records {args.save_records!r}: the name must end in {RECORDS_SUFFIX}")
        workers = local_workers(args.ray, args.workers)
        for spec in args.agents:  # every spec is checked before any game is played
            reason = make_agent(spec).cannot_play(rules)
            if reason:
                raise ValueError(f"--agents {spec}: {reason}")
        # the output places before the games: one the system refuses fails now, not after an hour
        if args.out is not None:
            os.makedirs(args.out, exist_ok=True)
            _check_writable(args.out)
        if args.save_records is not None:
            _check_writable(os.path.dirname(os.path.abspath(args.save_records)))
        if args.ray is not None:
            init_ray(args.ray)
        with sigterm_as_interrupt():
            report = round_robin(
                args.agents,
                args.games,
                args.seed,
                rules=rules,
                duplicate=args.duplicate,
                bummerl=args.bummerl,
                workers=workers,
                progress=not args.no_progress,
                variant=args.variant,
                ray=args.ray is not None,
            )
        print(format_table(report))
        for p in write_outputs(report, args.out) if args.out else []:
            print(f"wrote {p}")
        if args.save_records is not None:
            with (
                replace_atomically(args.save_records) as temporary,
                open(temporary, "w", encoding="utf-8") as file,
            ):
                count = write_records(report, file)
            print(f"wrote {count} records to {args.save_records}")
        sys.stdout.flush()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the worker pool is stopped on the way out
        print(f"{PROG}: interrupted: no results written", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error of ours
        silence(sys.stdout)
    except (ValueError, ImportError, OSError, ConnectionError, RuntimeError, WorkerError) as e:
        note = traceback_note(e, out=args.out, show=args.traceback)
        ap.exit(2, f"{ap.prog}: error: {one_line(e)}{note}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
