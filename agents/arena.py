"""Matches between agents: pairs, round robins, duplicate deals, confidence intervals, ratings.

Programmatic use::

    from agents.arena import play_pair
    r = play_pair("heuristic", "random", games=200, seed=7)       # duplicate deals by default
    r.wins, r.win_rate_ci, r.mean_game_points, r.to_dict()

Command line (a round robin; writes ``DIR/results.json``, ``results.csv``, ``games.csv``,
``ratings.csv`` and ``ratings.png``; ``--save-records FILE.jsonl`` writes every game as a RULES §9
record, one line each in the order of ``games.csv``)::

    python -m agents.arena --agents random heuristic pimc:samples=40 --games 2000 --seed 7 \\
        --duplicate --workers 2 --out runs/arena
    python -m agents.arena --agents random heuristic --games 2000 --seed 7 --ray [ADDRESS]

``--ray`` spreads the games over a Ray cluster (``ray.init(address=ADDRESS)``; without ADDRESS the
cluster this machine runs, or a new local one): the chunks of units that ``--workers`` hands to
processes become Ray tasks (one CPU each, about 8 per CPU of the cluster), merged in order as the
local path does, so the results are the same. Ray is imported only then (``pip install
"schnapsen-env[rllib]"``); every node needs schnapsen-env installed, and agent specs that name files
need paths that exist on every node.

Reproducibility: game ``g`` of pair ``k`` is dealt from ``random.Random(f"{seed}/{k}/{deal}")``
where ``deal = g // 2`` with ``duplicate`` (games ``2d`` and ``2d+1`` share deck and dealer and
the agents exchange seats: agent A sits in seat ``g % 2``), else ``deal = g`` (A's seat still
alternates). Before each game both agents are ``reset`` with seeds derived the same way, so
results do not depend on ``workers`` or on how games are split into chunks.
With ``bummerl=True`` the unit is a Bummerl (RULES §6, :mod:`schnapsen_env.match`) instead
of a game: ``games`` then counts Bummerls; all their games feed the game statistics.
A unit is played through :class:`schnapsen_env.learner.LearnerGame` (the episode core shared
with the environments and training: dealing, the Bummerl's next games, its end), agent A's
seat as the learner's; every game is played to its end (a game decided before A's first
decision counts as any other), and a Bummerl's points (1, or 2 for a Schneider-Bummerl) are
its winner's reward of :func:`schnapsen_env.learner.outcome_rewards`.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import random
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from schnapsen_env import seeding
from schnapsen_env.cards import brief_repr
from schnapsen_env.cli_io import Once, output_file_problem, say, silence, whole_number
from schnapsen_env.engine import GameState, validate_seed
from schnapsen_env.learner import EPISODE_OVER, LearnerGame
from schnapsen_env.rulebook import NO_TRICK_GAME_POINTS as MOST_GAME_POINTS
from schnapsen_env.rules import VARIANTS, Rules

from . import _shown, make_agent
from .base import Agent
from .stats import PRIOR_WINS, bradley_terry_ratings, mean_interval, wilson_interval

AgentLike = str | Agent
#: largest number of units (games or Bummerls) a worker plays per task
MAX_CHUNK = 50
#: chunks per worker, so the progress bar moves and the load spreads
CHUNKS_PER_WORKER = 8


def derive_seed(seed: int, *name) -> int:
    """A 63-bit seed of stream ``name`` of ``seed`` (:func:`schnapsen_env.seeding.derive_seed`)."""
    return seeding.derive_seed(seed, *name)


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
    """The result of :func:`play_pair`, from agent A's and agent B's view.

    ``wins`` = [W_A, W_B] games won; ``mean_game_points`` = [P_A, P_B]: game points
    (1..3) won per game, the loser scoring 0; ``win_rate_ci``: Wilson 95% interval of
    A's win rate; ``game_points_ci``: [[low, high] for A, [low, high] for B] (Wilson score
    interval of a mean bounded by 0..3, :func:`agents.stats.mean_interval`). With Bummerl play:
    ``bummerls``, ``bummerl_wins`` and ``bummerl_win_rate_ci`` (A's Bummerl win rate).
    """

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

    @property
    def win_rate(self) -> float:
        """A's share of games won."""
        return self.wins[0] / self.games

    def to_dict(self) -> dict:
        """JSON-ready summary (per-game records left out)."""
        d = {
            "agents": list(self.agents),
            "games": self.games,
            "wins": list(self.wins),
            "win_rate": self.win_rate,
            "win_rate_ci": list(self.win_rate_ci),
            "mean_game_points": list(self.mean_game_points),
            "game_points_ci": [list(ci) for ci in self.game_points_ci],
            "net_game_points": self.net_game_points,
            "net_game_points_ci": list(self.net_game_points_ci),
            "variant": self.variant,
            "rules": self.rules,
            "seed": self.seed,
            "pair_index": self.pair_index,
            "duplicate": self.duplicate,
        }
        if self.bummerls is not None:
            d.update(
                bummerls=self.bummerls,
                bummerl_wins=list(self.bummerl_wins),
                bummerl_points=list(self.bummerl_points),
                bummerl_win_rate=self.bummerl_wins[0] / self.bummerls,
                bummerl_win_rate_ci=list(self.bummerl_win_rate_ci),
            )
        return d


# ----------------------------------------------------------------- playing
def play_game(state: GameState, seats: Sequence[Agent]) -> GameState:
    """Play ``state`` to the end with ``seats[p]`` acting for player ``p``; returns ``state``.

    Raises ``ValueError`` naming the agent if it returns an illegal action.
    """
    while not state.is_terminal:
        state.apply(_agent_action(state, seats))
    return state


def _agent_action(state: GameState, seats: Sequence[Agent]) -> int:
    """The action of the agent to act in ``state``; ``ValueError`` naming it for an illegal one."""
    p = state.current_player
    info = state.information_set(p)
    action = seats[p].act(info)
    if action not in info.legal_actions:
        raise ValueError(
            f"agent {seats[p].name!r} returned illegal action {action!r}; legal were {list(info.legal_actions)}"
        )
    return action


def _play_units(
    agent_a: Agent,
    agent_b: Agent,
    rules: Rules,
    seed: int,
    pair_index: int,
    units: range,
    duplicate: bool,
    bummerl: bool,
) -> list:
    """Play units ``units`` of a pair; returns ``[(records, bummerl_winner_or_None, value), ...]``.

    Each unit is one episode of a :class:`~schnapsen_env.learner.LearnerGame` (agent A's seat
    as the learner's) dealt from :func:`deal_rng`: a game is ``GameState.from_seed(rules,
    rng=rng)``, a Bummerl ``Bummerl.from_seed(rules, rng)`` and its games ``new_game(rng)``.
    ``value``: the Bummerl winner's reward of ``outcome_rewards`` (1 or 2; 0 for a game unit).
    """
    core = LearnerGame(rules, "bummerl" if bummerl else "game")  # illegal actions raise (checked before)
    out = []
    for u in units:
        deal = u // 2 if duplicate else u
        seat_a = u % 2
        seats = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
        agent_a.reset(derive_seed(seed, pair_index, u, "A"))
        agent_b.reset(derive_seed(seed, pair_index, u, "B"))
        core.start(deal_rng(seed, pair_index, deal), seat=seat_a)
        records = []
        while True:
            state = core.state
            if not core.apply(_agent_action(state, seats)):
                continue
            o = state.outcome
            records.append(
                GameRecord(
                    u,
                    deal,
                    seat_a,
                    state.dealer,
                    int(o.winner != seat_a),
                    o.game_points,
                    o.reason,
                    state.deck,
                    tuple(a for _, a in state.history),
                )
            )
            if core.end_game() == EPISODE_OVER:
                break
        if bummerl:
            out.append((records, int(core.winner != seat_a), core.rewards[core.winner]))
        else:
            out.append((records, None, 0))
    return out


def _init_worker() -> None:
    """Worker processes run one thread each (numpy/torch), so workers do not oversubscribe cores."""
    import os

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the pool, one line


def _chunk_task(args) -> list:
    spec_a, spec_b, rules_dict, seed, pair_index, start, stop, duplicate, bummerl = args
    a, b = make_agent(spec_a), make_agent(spec_b)
    return _play_units(a, b, Rules.from_dict(rules_dict), seed, pair_index, range(start, stop), duplicate, bummerl)


def _import_ray():
    """The ``ray`` module, or ``ImportError`` saying how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(RAY_INSTALL_HINT) from e
    return ray


def init_ray(address: str | None = None):
    """Connect to the Ray cluster at ``address`` (None: the one this machine runs, else a new local
    instance), quietly; returns the ``ray`` module. Does nothing when Ray is already initialized."""
    ray = _import_ray()
    if not ray.is_initialized():
        import logging

        ray.init(
            address=address or None, include_dashboard=False, logging_level=logging.WARNING, configure_logging=True
        )
    return ray


def _ray_chunks(tasks: list, bar) -> list:
    """Run the chunk tasks of :func:`play_pair` as Ray tasks (one CPU each); their results in task order."""
    import importlib

    ray = init_ray()
    # the function of the imported module (under `python -m agents.arena` this file is __main__,
    # which Ray would pickle by value); each task builds its agents from the spec strings
    chunk_task = ray.remote(num_cpus=1)(importlib.import_module("agents.arena")._chunk_task)
    refs = [chunk_task.remote(t) for t in tasks]
    index = {ref: i for i, ref in enumerate(refs)}
    done: list = [None] * len(refs)
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                done[index[ref]] = chunk = ray.get(ref)
                if bar is not None:
                    bar.update(len(chunk))
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise
    return [unit for chunk in done for unit in chunk]


def _as_agent(x: AgentLike, which: str) -> Agent:
    if isinstance(x, Agent):
        return x
    if isinstance(x, str):
        return make_agent(x)
    raise ValueError(f"agent {which} must be a spec string or an Agent instance, got {type(x).__name__}")


def play_pair(
    a: AgentLike,
    b: AgentLike,
    games: int,
    seed: int,
    rules: Rules | None = None,
    duplicate: bool = True,
    bummerl: bool = False,
    workers: int = 1,
    progress: bool = False,
    pair_index: int = 0,
    variant: str | None = None,
    ray: bool = False,
) -> PairResult:
    """Play ``games`` games (Bummerls with ``bummerl=True``) between agents ``a`` and ``b``.

    ``a``/``b``: spec strings (see :func:`agents.make_agent`) or :class:`Agent`
    instances (instances only with ``workers=1``). ``rules`` defaults to
    ``Rules.preset("schnapsen")``; ``duplicate`` plays each deal twice with seats
    swapped; ``workers > 1`` uses that many processes (same results as 1).
    ``pair_index`` enters the deal seeds (the round robin numbers its pairs).
    ``ray=True`` plays the chunks as Ray tasks (:func:`init_ray` connects first if needed; spec
    strings only; same results as local). Raises ``ValueError`` for games < 1, an odd ``games``
    with ``duplicate``, workers < 1, instances with workers > 1 or Ray, flags that are not bools,
    ``rules`` other than the preset ``variant`` names, or a bad spec;
    ``ImportError`` for ``ray=True`` without Ray.
    """
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    seed = validate_seed(seed, required=True)
    if duplicate and games % 2:
        raise ValueError(
            f"games must be even with duplicate=True (every deal is played twice, seats swapped), got {games}"
        )
    if type(workers) is not int or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    for name, flag in (("duplicate", duplicate), ("bummerl", bummerl), ("progress", progress), ("ray", ray)):
        if type(flag) is not bool:
            raise ValueError(f"{name} must be True or False, got {brief_repr(flag)}")
    if type(pair_index) is not int or pair_index < 0:
        raise ValueError(f"pair_index must be an int >= 0, got {brief_repr(pair_index)}")
    if variant is not None and (not isinstance(variant, str) or variant not in VARIANTS):
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)} or None, got {brief_repr(variant)}")
    if variant is not None and isinstance(rules, Rules) and rules != Rules.preset(variant):
        raise ValueError(
            f"rules are not the {variant!r} preset that variant names (it labels the result): give "
            "variant=None with other rules"
        )
    if (workers > 1 or ray) and not (isinstance(a, str) and isinstance(b, str)):
        raise ValueError(
            "agents given as instances can only play with workers=1 and without Ray; pass spec strings instead"
        )
    if rules is None:
        rules = Rules.preset(variant or "schnapsen")
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules object or None, got {type(rules).__name__}")
    agent_a, agent_b = _as_agent(a, "a"), _as_agent(b, "b")  # validates specs before any worker starts
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=games,
            desc=f"{agent_a.name} vs {agent_b.name}",
            unit="bummerl" if bummerl else "game",
            leave=False,
            file=sys.stderr,
        )
    results: list = []
    if ray:
        cpus = max(1, int(init_ray().cluster_resources().get("CPU", 1)))
        step = max(1, min(MAX_CHUNK, -(-games // (cpus * CHUNKS_PER_WORKER))))
        results = _ray_chunks(
            [
                (a, b, rules.to_dict(), seed, pair_index, s, min(games, s + step), duplicate, bummerl)
                for s in range(0, games, step)
            ],
            bar,
        )
    elif workers == 1:
        step = MAX_CHUNK
        for start in range(0, games, step):
            stop = min(games, start + step)
            results.extend(
                _play_units(agent_a, agent_b, rules, seed, pair_index, range(start, stop), duplicate, bummerl)
            )
            if bar is not None:
                bar.update(stop - start)
    else:
        import multiprocessing as mp

        step = max(1, min(MAX_CHUNK, -(-games // (workers * CHUNKS_PER_WORKER))))
        tasks = [
            (a, b, rules.to_dict(), seed, pair_index, s, min(games, s + step), duplicate, bummerl)
            for s in range(0, games, step)
        ]
        # spawn, not fork: a forked child of a process whose torch/OpenMP thread pool is
        # running can deadlock (seen with ppo agents); each worker uses one thread
        with mp.get_context("spawn").Pool(workers, initializer=_init_worker) as pool:
            for chunk in pool.imap(_chunk_task, tasks):  # imap keeps the order of the tasks
                results.extend(chunk)
                if bar is not None:
                    bar.update(len(chunk))
    if bar is not None:
        bar.close()
    return summarize(agent_a.name, agent_b.name, results, rules, seed, pair_index, duplicate, bummerl, variant=variant)


def summarize(
    name_a: str,
    name_b: str,
    results: list,
    rules: Rules,
    seed: int,
    pair_index: int,
    duplicate: bool,
    bummerl: bool,
    variant: str | None = None,
) -> PairResult:
    """Build a :class:`PairResult` from the per-unit results of :func:`_play_units`."""
    records = [r for recs, _, _ in results for r in recs]
    n = len(records)
    wins = [sum(1 for r in records if r.winner == 0), sum(1 for r in records if r.winner == 1)]
    pts = [[r.game_points if r.winner == who else 0 for r in records] for who in (0, 1)]
    cis = [mean_interval(p, 0, MOST_GAME_POINTS) for p in pts]
    net = mean_interval([x - y for x, y in zip(*pts)], -MOST_GAME_POINTS, MOST_GAME_POINTS)
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
    )
    if bummerl:
        nb = len(results)
        bw = [sum(1 for _, w, _ in results if w == who) for who in (0, 1)]
        res.bummerls = nb
        res.bummerl_wins = bw
        res.bummerl_points = [sum(v for _, w, v in results if w == who) for who in (0, 1)]
        res.bummerl_win_rate_ci = wilson_interval(bw[0], nb)
    return res


def _variant_of(rules: Rules) -> str:
    for v in VARIANTS:
        if Rules.preset(v) == rules:
            return v
    return "custom"


# ------------------------------------------------------------- round robin
def round_robin(
    specs: Sequence[str],
    games: int,
    seed: int,
    rules: Rules | None = None,
    duplicate: bool = True,
    bummerl: bool = False,
    workers: int = 1,
    progress: bool = False,
    variant: str | None = None,
    ray: bool = False,
) -> dict:
    """Every pair of ``specs`` (in ``itertools.combinations`` order, numbered 0, 1, ...) plays
    :func:`play_pair`; returns ``{"pairs": [PairResult.to_dict()...], "ratings": {...}, ...}``
    and the PairResults under ``"_results"``. Ratings: :func:`agents.stats.bradley_terry_ratings`
    fitted to all games jointly (Elo scale). Raises ``ValueError`` for fewer than two or
    repeated specs, and for ``specs`` that is not a list or tuple of spec strings."""
    if not isinstance(specs, (list, tuple)) or not all(isinstance(x, str) for x in specs):
        raise ValueError(
            f"specs must be a list or tuple of agent spec strings (the ratings are keyed by them), "
            f"got {brief_repr(specs)}"
        )
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {list(specs)}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"agent specs must be distinct, got {list(specs)}")
    results = []
    for k, (sa, sb) in enumerate(itertools.combinations(specs, 2)):
        results.append(
            play_pair(
                sa,
                sb,
                games,
                seed,
                rules=rules,
                duplicate=duplicate,
                bummerl=bummerl,
                workers=workers,
                progress=progress,
                pair_index=k,
                variant=variant,
                ray=ray,
            )
        )
    games_order = [(r.agents[rec.winner], r.agents[1 - rec.winner]) for r in results for rec in r.records]
    ratings = bradley_terry_ratings(list(specs), games_order)
    return {
        "seed": seed,
        "games_per_pair": games,
        "duplicate": duplicate,
        "bummerl": bummerl,
        "variant": results[0].variant,
        "rules": results[0].rules,
        "rating_model": f"Bradley-Terry over all games (choix) with {PRIOR_WINS:g} virtual win each way per pair, "
        "Elo scale centred on 0, 95% normal-approximation interval",
        "pairs": [r.to_dict() for r in results],
        "ratings": ratings,
        "_results": results,
    }


def format_table(report: dict) -> str:
    """The round robin as a plain-text table."""
    lines = []
    head = f"{'agent A':<24} {'agent B':<24} {'games':>6} {'A wins':>22} {'A pts/game':>20} {'B pts/game':>20}"
    if report["bummerl"]:
        head += f" {'A Bummerl wins':>22}"
    lines.append(head)
    for p in report["pairs"]:
        lo, hi = p["win_rate_ci"]
        (alo, ahi), (blo, bhi) = p["game_points_ci"]
        ma, mb = p["mean_game_points"]
        line = (
            f"{p['agents'][0]:<24} {p['agents'][1]:<24} {p['games']:>6} "
            f"{p['win_rate']:>7.1%} [{lo:.1%}, {hi:.1%}] {ma:>6.2f} [{alo:.2f}, {ahi:.2f}] "
            f"{mb:>6.2f} [{blo:.2f}, {bhi:.2f}]"
        )
        if report["bummerl"]:
            blo2, bhi2 = p["bummerl_win_rate_ci"]
            line += f" {p['bummerl_win_rate']:>7.1%} [{blo2:.1%}, {bhi2:.1%}] of {p['bummerls']}"
        lines.append(line)
    lines.append("")
    lines.append(f"ratings ({report['rating_model']}):")
    for name, r in sorted(report["ratings"].items(), key=lambda kv: -kv[1]["elo"]):
        lines.append(f"  {name:<24} {r['elo']:+7.1f}  [{r['low']:+.1f}, {r['high']:+.1f}]  ({r['games']} games)")
    return "\n".join(lines)


#: the suffix of ``--save-records`` (JSON lines: what ``python -m schnapsen_env.replay`` reads as many records)
RECORDS_SUFFIX = ".jsonl"


def write_outputs(report: dict, out_dir: str) -> list[str]:
    """Write results.json, results.csv, games.csv, ratings.csv and ratings.png to ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    public = {k: v for k, v in report.items() if not k.startswith("_")}
    p = os.path.join(out_dir, "results.json")
    with open(p, "w") as f:
        json.dump(public, f, indent=2)
    paths.append(p)
    p = os.path.join(out_dir, "results.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "agent_a",
                "agent_b",
                "games",
                "wins_a",
                "wins_b",
                "win_rate_a",
                "win_rate_a_low",
                "win_rate_a_high",
                "mean_game_points_a",
                "mean_game_points_b",
                "net_game_points_a",
                "bummerls",
                "bummerl_wins_a",
                "bummerl_wins_b",
            ]
        )
        for q in report["pairs"]:
            w.writerow(
                [
                    *q["agents"],
                    q["games"],
                    *q["wins"],
                    q["win_rate"],
                    *q["win_rate_ci"],
                    *q["mean_game_points"],
                    q["net_game_points"],
                    q.get("bummerls", ""),
                    *(q.get("bummerl_wins") or ["", ""]),
                ]
            )
    paths.append(p)
    p = os.path.join(out_dir, "games.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["pair", "agent_a", "agent_b", "unit", "deal", "seat_a", "dealer", "winner", "game_points", "reason"]
        )
        for r in report.get("_results", []):
            for g in r.records:
                w.writerow(
                    [
                        r.pair_index,
                        *r.agents,
                        g.unit,
                        g.deal,
                        g.seat_a,
                        g.dealer,
                        r.agents[g.winner],
                        g.game_points,
                        g.reason,
                    ]
                )
    paths.append(p)
    p = os.path.join(out_dir, "ratings.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "elo", "low", "high", "games"])
        for name, r in report["ratings"].items():
            w.writerow([name, r["elo"], r["low"], r["high"], r["games"]])
    paths.append(p)
    paths.append(plot_ratings(report["ratings"], os.path.join(out_dir, "ratings.png")))
    return paths


def write_records(report: dict, path: str) -> int:
    """Write every game of a :func:`round_robin` report as a RULES §9 record, one JSON line each,
    pair by pair in game order (the order of ``games.csv``); returns the number of records."""
    rules = Rules.from_dict(report["rules"])
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for r in report["_results"]:
            for g in r.records:
                f.write(json.dumps(g.to_record(rules, report["variant"])) + "\n")
                n += 1
    return n


def plot_ratings(ratings: dict, path: str) -> str:
    """Each agent's Elo-scale rating with its 95% interval (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = sorted(ratings.items(), key=lambda kv: kv[1]["elo"])
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(items) + 1.5))
    ys = range(len(items))
    elo = [r["elo"] for _, r in items]
    xerr = [[e - r["low"] for e, (_, r) in zip(elo, items)], [r["high"] - e for e, (_, r) in zip(elo, items)]]
    ax.errorbar(elo, list(ys), xerr=xerr, fmt="o", capsize=4)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([n for n, _ in items])
    ax.set_xlabel("Bradley-Terry rating, Elo scale (95% interval)")
    ax.set_title("Agent ratings")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# --------------------------------------------------------------------- CLI
class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (no usage block) and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m agents.arena", description="Round robin between agents.")
    ap.add_argument(
        "--agents",
        action=Once,
        nargs="+",
        required=True,
        metavar="SPEC",
        help="agent specs, e.g. random heuristic pimc:samples=40 ppo vu:rdeep",
    )
    ap.add_argument(
        "--games",
        action=Once,
        type=whole_number,
        default=1000,
        help=f"games per pair (Bummerls with --bummerl), 1..{MAX_GAMES}",
    )
    ap.add_argument("--seed", action=Once, type=whole_number, default=0, help="a whole number >= 0")
    ap.add_argument("--variant", action=Once, default="schnapsen", help=f"rules preset: {', '.join(VARIANTS)}")
    ap.add_argument(
        "--duplicate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="play every deal twice with seats swapped (default on)",
    )
    ap.add_argument("--bummerl", action="store_true", help="play Bummerls (RULES §6) instead of single games")
    ap.add_argument(
        "--workers",
        action=Once,
        type=whole_number,
        default=1,
        help=f"processes, 1..{MAX_WORKERS} (results are the same for any number)",
    )
    ap.add_argument(
        "--ray",
        action=Once,
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks on the cluster at ADDRESS (none: this machine's cluster "
        "or a new local one); same results; needs pip install 'schnapsen-env[rllib]'",
    )
    ap.add_argument("--out", action=Once, default=None, help="directory for results.json/csv and ratings.png")
    ap.add_argument(
        "--save-records",
        action=Once,
        default=None,
        metavar="FILE.jsonl",
        help="write every game as a RULES §9 record, one JSON line each, in the order of games.csv "
        "(replay with python -m schnapsen_env.replay FILE.jsonl)",
    )
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 0 when done; any error is one line on stderr and exit code 2 (``SystemExit``)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 1 <= args.games <= MAX_GAMES:
        ap.error(f"--games must be >= 1 and <= {MAX_GAMES} (limit MAX_GAMES), got {args.games}")
    if args.duplicate and args.games % 2:
        ap.error(
            f"--games must be even with duplicate deals (each deal is played twice, seats swapped), "
            f"got {args.games}: give an even number or --no-duplicate"
        )
    if not 1 <= args.workers <= MAX_WORKERS:
        ap.error(f"--workers must be >= 1 and <= {MAX_WORKERS} (limit MAX_WORKERS), got {args.workers}")
    if args.seed < 0:
        ap.error(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.variant not in VARIANTS:
        ap.error(f"unknown variant {args.variant!r}: allowed {', '.join(VARIANTS)}")
    if args.ray is not None:
        if args.workers != 1:
            ap.error("--workers is for local processes: with --ray the cluster's CPUs play the games")
        try:
            _import_ray()
        except ImportError:
            ap.error(f"--ray: {RAY_INSTALL_HINT}")
    if len(args.agents) < 2:
        ap.error("--agents needs at least two specs")
    if len(set(args.agents)) != len(args.agents):
        ap.error(f"--agents must be distinct, got {args.agents}")
    for spec in args.agents:
        try:
            agent = make_agent(spec)
        except (ValueError, ImportError, OSError) as e:
            # make_agent's messages mostly name the spec already ("bad agent spec '...': ..."); say it once
            ap.error(str(e) if _shown(spec) in str(e) else f"bad agent spec {_shown(spec)}: {e}")
        reason = agent.cannot_play(Rules.preset(args.variant))
        if reason:
            ap.error(f"--agents {spec}: {reason}")
    if args.out is not None:
        problem = out_dir_problem(args.out)
        if problem:
            ap.error(f"--out {args.out!r}: {problem}")
        try:  # made before the games: a place the system refuses (/proc/x) fails now, not after an hour of play
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            ap.error(f"--out {args.out!r}: cannot create it: {e.strerror or type(e).__name__}")
    if args.save_records is not None:
        # a .jsonl name: replay reads it, and it is none of the files --out writes
        problem = output_file_problem(args.save_records, (RECORDS_SUFFIX,))
        if problem:
            ap.error(f"--save-records {args.save_records!r}: {problem}")
    if args.ray is not None:
        try:
            init_ray(args.ray)  # Ray retries an address where nothing answers (Ctrl-C stops it)
        except KeyboardInterrupt:
            say("python -m agents.arena: interrupted while connecting to Ray: nothing played")
            return 130
        except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, ValueError, RuntimeError, ...
            ap.error(f"--ray {args.ray or '(local)'}: cannot start or reach Ray: {type(e).__name__}: {e}")
    try:
        report = round_robin(
            args.agents,
            args.games,
            args.seed,
            rules=Rules.preset(args.variant),
            duplicate=args.duplicate,
            bummerl=args.bummerl,
            workers=args.workers,
            progress=not args.no_progress,
            variant=args.variant,
            ray=args.ray is not None,
        )
    except KeyboardInterrupt:  # Ctrl-C: the worker pool is torn down by its context manager
        say("python -m agents.arena: interrupted before the games were done: nothing written")
        return 130
    try:
        print(format_table(report))
        if args.out:
            for p in write_outputs(report, args.out):
                print(f"wrote {p}")
        if args.save_records is not None:
            try:
                n = write_records(report, args.save_records)
            except OSError as e:
                ap.error(f"--save-records {args.save_records!r}: cannot write: {e.strerror or e}")
            print(f"wrote {n} records to {args.save_records}")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error of ours
        silence(sys.stdout)
    except OSError as e:  # disk full, or the directory changed while the games were played
        where = f" {e.filename!r}" if e.filename is not None else ""
        ap.error(f"--out {args.out!r}: cannot write{where}: {e.strerror or e}")
    return 0


#: most games (or Bummerls) per pair from the command line
MAX_GAMES = 10**7
#: most worker processes from the command line
MAX_WORKERS = 256
#: what --ray (or ray=True) without Ray says
RAY_INSTALL_HINT = (
    "Ray is not installed: pip install 'schnapsen-env[rllib]' (or pip install -e '.[rllib]' from a clone)"
)
#: longest --out path (bytes, absolute), leaving room for the file names written into it (Linux PATH_MAX 4096)
MAX_OUT_PATH = 4096 - 64


def one_line(text) -> str:
    return " ".join(str(text).splitlines())


def _stat_or_none(path: str) -> os.stat_result | None:
    """``os.stat(path)``, None if nothing is there; ``OSError`` for a path the system refuses."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def out_dir_problem(out: str) -> str | None:
    """Why ``out`` cannot be the output directory (checked before any game), or None."""

    if not out.strip():
        return "empty path: give a directory"
    if "\0" in out:
        return "the path contains a NUL character"
    path = os.path.abspath(out)
    try:
        size = len(os.fsencode(path))
    except UnicodeError:
        return "the path has characters the file system cannot encode"
    if size > MAX_OUT_PATH:
        return f"path too long: at most {MAX_OUT_PATH} bytes as an absolute path (limit MAX_OUT_PATH)"
    try:
        st = _stat_or_none(path)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            return "is an existing file, not a directory"
        parent, pst = path, st
        while pst is None:
            parent = os.path.dirname(parent)
            pst = _stat_or_none(parent)
    except OSError as e:
        return f"cannot use it: {e.strerror or type(e).__name__}"
    if not stat.S_ISDIR(pst.st_mode):
        return f"cannot create it: {parent!r} is a file, not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write into {parent!r} (permission denied)"
    return None


if __name__ == "__main__":
    sys.exit(main())
