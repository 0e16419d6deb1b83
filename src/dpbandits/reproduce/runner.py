"""Running experiments: every (curve, epsilon) cell simulated once, in parallel, reused on a re-run.

A cell is one simulation: a curve of an experiment at one epsilon, horizon, number of runs and
seed. It is written atomically to the cell folder, named by a hash of everything that produced it
(not by the experiment, so experiments that plot the same curve share it: Hu et al.'s Figs. 1-4
and 9 are cells of their Fig. 5). An interrupted reproduction, run again, reuses finished cells.
Cells are independent simulations, each seeded by the experiment's seed, so ``workers`` processes
running them in any order give the same numbers as one.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import DPBanditsError, check_positive_int
from ..pools import process_pool
from ..files import write_atomically
from .claims import (CONTRADICTED, DEPENDS, INCONCLUSIVE, SEEDS, SUPPORTED, Cells, Page, Tested,
                     Verdict)
from .experiment import SIZES, Claim, Experiment, Line
from .experiments import get_experiment
from .page import page, page_json, plot, write_csv

CELL_FORMAT = 3
"""Part of every cell's key: cells written by an older layout are simulated again (3: each run's
final realised regret kept beside its pseudo-regret curve)."""


@dataclass
class Reproduction:
    """What one reproduction wrote and concluded."""

    experiment: str
    size: str
    page: str
    paths: list[Path]
    claims: list[Verdict] = field(default_factory=list)
    """The verdicts of the paper's claims."""
    checks: list[Verdict] = field(default_factory=list)
    """The verdicts of our own checks (bounds, baselines): not claims of the paper."""
    seconds: float = 0.0
    """Simulation time of the cells this experiment computed (cells reused or computed for an
    earlier experiment of the same call count zero)."""
    below_paper: bool = False
    """Whether it ran below the paper's size (horizon, runs or epsilon grid)."""


def epsilons_at(experiment: Experiment, size: str) -> tuple[float, ...]:
    points = experiment.reduced_points.get(size)
    if points is None:
        return experiment.epsilons
    every = np.linspace(0, len(experiment.epsilons) - 1, points).round().astype(int)
    return tuple(experiment.epsilons[i] for i in every)


def _setting(experiment: Experiment, movielens: str | None) -> str:
    if experiment.setting == "chandak-movielens-standin" and movielens:
        return "chandak-movielens"
    return experiment.setting


def _source(setting: str, movielens: str | None):
    from ..reference import get_setting
    from ..reference.matroid.data import MATROID_SETTINGS, matroid_setting

    if setting == "chandak-movielens":
        return matroid_setting(setting, path=movielens)
    if setting in MATROID_SETTINGS:
        return matroid_setting(setting)
    return get_setting(setting).environment()


def _factory(line: Line, source, eps: float, T: int):
    from ..reference import get, spec
    from ..reference.bandit.dp_ucb_int import input_epsilon

    cls = get(line.algorithm)
    params = dict(line.params)
    if cls.feedback == "semi":
        params["matroid"] = source.matroid
    epsilon = None
    if cls.private:
        epsilon = input_epsilon(eps, 1.1, math.exp(-10)) if line.epsilon_rule == "corollary-3.2" else eps
    return spec(line.algorithm, source.K, epsilon=epsilon, variant=line.variant, T=T, **params)


@dataclass(frozen=True)
class _Job:
    key: dict
    path: Path
    line: Line
    epsilon: float
    movielens: str | None
    backend: str

    @property
    def cost(self) -> int:
        return self.key["T"] * self.key["runs"]


def _job(experiment: Experiment, line: Line, eps: float, T: int, runs: int, seed: int,
         setting: str, folder: Path, movielens: str | None, backend: str) -> _Job:
    from ..reference import get

    key = dict(format=CELL_FORMAT, line=line.label, algorithm=line.algorithm, epsilon=eps, T=T,
               runs=runs, seed=seed, setting=setting, params=[list(p) for p in line.params],
               variant=line.variant or get(line.algorithm).default_variant, rule=line.epsilon_rule,
               final_basis=experiment.final_basis)
    key = json.loads(json.dumps(key))
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    return _Job(key, folder / f"{line.label}-{eps:g}-{digest}.json", line, eps, movielens, backend)


def _simulate_cell(job: _Job, client=None) -> float:
    """Simulate one cell and write it; returns the seconds it took."""
    from ..reference import simulate

    start = time.perf_counter()
    key = job.key
    source = _source(key["setting"], job.movielens)
    result = simulate(_factory(job.line, source, job.epsilon, key["T"]), source, key["T"],
                      runs=key["runs"], seed=key["seed"], client=client,
                      record_actions=key["final_basis"], backend=job.backend)
    low, high = result.confidence_band()
    cell = dict(key=key, t=result.checkpoints.tolist(), mean=result.mean_curve().tolist(),
                low=low.tolist(), high=high.tolist(), runs=key["runs"], backend=result.backend,
                optimal=float(getattr(source, "optimal_value", np.max(source.means))),
                per_run=result.pseudo_regret.tolist(),
                realised_final=result.realised_regret[:, -1].tolist())
    if key["final_basis"]:
        cell["final_basis"] = [sorted(int(a) for a in np.atleast_1d(row)) for row in result.actions[:, -1]]
        cell["optimal_basis"] = sorted(int(a) for a in source.optimal_basis)
    cell["seconds"] = round(time.perf_counter() - start, 3)
    write_atomically(job.path, json.dumps(cell))
    return cell["seconds"]


def _load_cell(path: Path, key: dict) -> dict | None:
    try:
        cell = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return cell if isinstance(cell, dict) and cell.get("key") == key and "per_run" in cell else None


def reproduce_many(names: Sequence[str], out: str | Path, *, size: str = "default", seed: int = 0,
                   workers: int = 1, backend: str = "auto", client=None, movielens: str | None = None,
                   progress: Callable[[str], None] | None = None,
                   folders: Callable[[str], Path] | None = None,
                   reseed: bool = True) -> list[Reproduction]:
    """Run (or resume) the experiments ``names`` at ``size``; each writes its CSV, PNG and page
    into ``folders(name)`` (default ``out/NAME``), and all share the cell folder ``out/cells``.

    ``workers`` processes simulate cells in parallel (largest first); a Dask ``client`` runs each
    cell's blocks on the cluster instead. Neither changes a number. A decided verdict near its
    flip point runs again on seeds 0-4 (:func:`_reseed`); with ``reseed=False`` it is not run
    again and counts as ``inconclusive at this size``, saying so (the report's default budget)."""
    from ..reference.engine import check_backend

    check_backend(backend)
    workers = check_positive_int(workers, "workers")
    seed = check_positive_int(seed, "seed", minimum=0)
    if size not in SIZES:
        raise DPBanditsError(f"unknown size {size!r}; sizes are {', '.join(SIZES)}")
    experiments = [get_experiment(name) for name in names]
    say = progress or (lambda message: None)
    out = Path(out)
    folder_of = folders or (lambda name: out / name)
    cell_dir = out / "cells"
    cell_dir.mkdir(parents=True, exist_ok=True)
    plans, missing, owner = [], {}, {}
    for e in experiments:
        T, runs = e.sizes[size]
        setting = _setting(e, movielens)
        jobs = [_job(e, line, eps, T, runs, seed, setting, cell_dir, movielens, backend)
                for line in e.lines for eps in epsilons_at(e, size)]
        plans.append((e, setting, jobs))
        for job in jobs:
            if job.path not in missing and _load_cell(job.path, job.key) is None:
                missing[job.path] = job
                owner[job.path] = e.name
    seconds = {e.name: 0.0 for e in experiments}
    results: dict[str, Reproduction] = {}
    judged: list = [None] * len(plans)

    def write(k: int) -> None:
        (e, setting, _), (cells, verdicts, checks, _, _) = plans[k], judged[k]
        folder = folder_of(e.name)
        folder.mkdir(parents=True, exist_ok=True)
        results[e.name] = _write(e, cells, verdicts, checks, size, seed, setting, folder,
                                 seconds[e.name])

    def ready(k: int) -> None:
        """Experiment ``k``'s cells are all written: judge it now, while other cells simulate
        (and without re-runs on other seeds, write its page now too)."""
        e, setting, jobs = plans[k]
        data = {}
        for job in jobs:
            cell = _load_cell(job.path, job.key)
            if cell is None:
                raise DPBanditsError(f"cell {job.path.name} was not written; run again to resume")
            data[(job.line.label, job.epsilon)] = cell
        judged[k] = _judge(e, setting, data)
        if not reseed:
            _not_reseeded([judged[k]], _near_claims([judged[k]], seed))
            write(k)

    remaining = {k: {job.path for job in jobs if job.path in missing}
                 for k, (_, _, jobs) in enumerate(plans)}

    def finished(job: _Job) -> None:
        for k, paths in remaining.items():
            if job.path in paths:
                paths.discard(job.path)
                if not paths:
                    ready(k)

    for k in [k for k, paths in remaining.items() if not paths]:
        ready(k)
    _run_jobs(sorted(missing.values(), key=lambda j: -j.cost), workers, client, say, owner, seconds,
              finished=finished)
    wanted, jobs, owner = _near(judged, seed, cell_dir, movielens, backend)
    written = set(results)
    waiting = {k for k, _ in wanted}
    # the pages no re-run touches are written while the re-run cells simulate
    _run_jobs(sorted(jobs.values(), key=lambda j: -j.cost), workers, client, say, owner, seconds,
              meanwhile=lambda: [write(k) for k in range(len(plans))
                                 if k not in waiting and plans[k][0].name not in written])
    _reseed(judged, wanted, cell_dir, movielens, backend)
    for k in sorted(waiting):
        write(k)
    return [results[e.name] for e, _, _ in plans]


def _run_jobs(jobs: list[_Job], workers: int, client, say, owner: dict, seconds: dict,
              meanwhile: Callable[[], Any] | None = None,
              finished: Callable[[_Job], Any] | None = None) -> None:
    """Simulate ``jobs`` (largest first); ``meanwhile`` runs in this process while the workers
    simulate (or before, on one worker); ``finished(job)`` runs here as each job ends."""
    def done(job: _Job, took: float, i: int) -> None:
        seconds[owner[job.path]] += took
        say(f"[{i}/{len(jobs)}] {owner[job.path]}: {job.line.label}, epsilon = {job.epsilon:g} "
            f"(T = {job.key['T']}, {job.key['runs']} runs) in {took:.1f} s")
        if finished is not None:
            finished(job)

    if workers == 1 or client is not None or len(jobs) <= 1:
        if meanwhile is not None:
            meanwhile()
        for i, job in enumerate(jobs):
            done(job, _simulate_cell(job, client), i + 1)
        return
    with process_pool(min(workers, len(jobs))) as pool:
        futures = {pool.submit(_simulate_cell, job): job for job in jobs}
        if meanwhile is not None:
            meanwhile()
        for i, future in enumerate(as_completed(futures)):
            done(futures[future], future.result(), i + 1)


def _page(claims: list[Claim], cells: Cells) -> tuple[Page, list[set]]:
    """The claims judged together, and the cells each claim's readings read."""
    def tested(r) -> Tested:
        at = (lambda m, r=r: r.build(m)(cells)) if r.build is not None else None
        return Tested(r.text, r.check(cells), r.margin, at, r.low)

    judged, used = [], []
    for c in claims:
        cells.data.used = set()
        judged.append((c.text, [tested(r) for r in c.readings]))
        used.append(set(cells.data.used))
    return Page(judged), used


def _judge(e: Experiment, setting: str, data: dict):
    """The page's cells, its claims' and our checks' verdicts, and what a re-run on other seeds
    needs: the paper's claims' :class:`Page` and the cells each claim read."""
    epsilons = tuple(dict.fromkeys(eps for _, eps in data))
    cells = Cells(data, replace(e, epsilons=epsilons, setting=setting))
    page_, used = _page([c for c in e.claims if not c.ours], cells)
    verdicts = page_.verdicts()
    checks = [replace(v, ours=True) for v in _page([c for c in e.claims if c.ours], cells)[0].verdicts()]
    return cells, verdicts, checks, page_, used


NEAR = (SUPPORTED, CONTRADICTED, DEPENDS)


def _near(judged: list, seed: int, cell_dir: Path, movielens, backend: str):
    """The decided claims near their flip point ((page, claim) pairs) and the cells their re-run
    on the other seeds of :data:`~dpbandits.reproduce.claims.SEEDS` needs (only the cells each
    claim reads; shared between claims and pages; none when the run's own seed is not the first
    of them, for another seed is itself one of the replicates)."""
    wanted = _near_claims(judged, seed)
    jobs, owner = {}, {}
    for k, i in wanted:
        for s in SEEDS[1:]:
            for job in _seed_jobs(judged[k], i, s, cell_dir, movielens, backend):
                if job.path not in jobs and _load_cell(job.path, job.key) is None:
                    jobs[job.path] = job
                    owner[job.path] = judged[k][0].experiment.name
    return wanted, jobs, owner


def _near_claims(judged: list, seed: int) -> list[tuple[int, int]]:
    """The decided claims of ``judged`` near their flip point: (page, claim) pairs."""
    return [(k, i) for k, (_, verdicts, _, _, _) in enumerate(judged) for i, v in enumerate(verdicts)
            if seed == SEEDS[0] and v.verdict in NEAR and v.flip is not None and v.flip.near()]


def _seed_jobs(page: tuple, i: int, s: int, cell_dir: Path, movielens, backend: str) -> list[_Job]:
    cells, used = page[0], page[4][i]
    e = cells.experiment
    lines = {line.label: line for line in e.lines}
    return [_job(e, lines[label], eps, cells.horizon, cells.runs, s, e.setting, cell_dir, movielens,
                 backend) for label, eps in sorted(used)]


def _reseed(judged: list, wanted: list, cell_dir: Path, movielens, backend: str) -> None:
    """Each claim of ``wanted`` judged again on the other seeds (its readings' outcomes on that
    seed's cells, every other test of its page as at the first seed); its verdict over the seeds
    is :func:`across_seeds`'s."""
    for k, i in wanted:
        cells, verdicts, _, page_, _ = judged[k]
        e = cells.experiment
        claim = [c for c in get_experiment(e.name).claims if not c.ours][i]
        seen = [(SEEDS[0], verdicts[i].verdict)]
        for s in SEEDS[1:]:
            data = {}
            for job in _seed_jobs(judged[k], i, s, cell_dir, movielens, backend):
                cell = _load_cell(job.path, job.key)
                if cell is None:
                    raise DPBanditsError(f"cell {job.path.name} was not written; run again to resume")
                data[(job.line.label, job.epsilon)] = cell
            other = Cells(data, e)
            seen.append((s, page_.verdict_with(i, [r.check(other) for r in claim.readings])))
        verdict, said = across_seeds(seen)
        v = verdicts[i]
        verdicts[i] = replace(v, verdict=verdict, seeds=tuple(seen),
                              evidence=f"near its flip point, run on {len(seen)} seeds: {said}; at "
                                       f"seed {SEEDS[0]}: {v.evidence}")


def across_seeds(seen: Sequence[tuple[int, str]]) -> tuple[str, str]:
    """A claim's verdict over seeds, from its ``(seed, verdict)`` on each: ``inconclusive at this
    size`` only when the seeds where it is decided disagree (e.g. supported on some, contradicted
    on others); decided the same way on every seed where it is decided, that verdict. With the
    count of seeds in words ('contradicted on 4 of 5 seeds (0, 1, 2, 4); undecided on 1 (3:
    inconclusive at this size)')."""
    decided = [(s, x) for s, x in seen if x in NEAR]
    undecided = [(s, x) for s, x in seen if x not in NEAR]
    ways = list(dict.fromkeys(x for _, x in decided))
    parts = [f"{x} on {sum(y == x for _, y in decided)} of {len(seen)} seeds ("
             + ", ".join(str(s) for s, y in decided if y == x) + ")" for x in ways]
    if undecided:
        parts.append(f"undecided on {len(undecided)} (" + ", ".join(f"{s}: {x}" for s, x in undecided) + ")")
    said = "; ".join(parts)
    if len(ways) == 1:
        return ways[0], said
    return INCONCLUSIVE, said + (": its decided verdicts change with the seed" if ways else "")


def _not_reseeded(judged: list, wanted: list) -> None:
    """Decided verdicts near their flip point, not run again on the other seeds: inconclusive,
    with the command that runs them."""
    for k, i in wanted:
        cells, verdicts = judged[k][0], judged[k][1]
        v = verdicts[i]
        verdicts[i] = replace(v, verdict=INCONCLUSIVE, evidence=(
            f"{v.verdict} at seed {SEEDS[0]}, but near its flip point ({v.flip.text()}) and not "
            f"run again on seeds {SEEDS[1]}-{SEEDS[-1]} in this run; `dpbandits reproduce "
            f"{cells.experiment.name} --full` runs them; at seed {SEEDS[0]}: {v.evidence}"))


def _write(e: Experiment, cells: Cells, verdicts: list[Verdict], checks: list[Verdict], size: str,
           seed: int, setting: str, folder: Path, seconds: float) -> Reproduction:
    below = size != "full" or cells.experiment.epsilons != e.epsilons
    text = page(e, cells, verdicts, checks, size, setting, seed)
    paths = [write_csv(folder / f"{e.name}.csv", cells), plot(folder / f"{e.name}.png", cells)]
    write_atomically(folder / f"{e.name}.md", text)
    paths.append(folder / f"{e.name}.md")
    write_atomically(folder / f"{e.name}.json", page_json(e, cells, verdicts, checks, size, seed))
    paths.append(folder / f"{e.name}.json")
    return Reproduction(e.name, size, text, paths, verdicts, checks, round(seconds, 1), below)


def reproduce(name: str, out: str | Path, *, size: str = "default", seed: int = 0, workers: int = 1,
              backend: str = "auto", client=None, movielens: str | None = None,
              progress: Callable[[str], None] | None = None) -> Reproduction:
    """Run (or resume) experiment ``name`` at ``size`` and write its CSV, PNG and Markdown page
    into ``out`` (cells in ``out/cells``). ``size="full"`` is the paper's horizon, repetitions and
    epsilon grid."""
    return reproduce_many([name], out, size=size, seed=seed, workers=workers, backend=backend,
                          client=client, movielens=movielens, progress=progress,
                          folders=lambda _: Path(out))[0]
