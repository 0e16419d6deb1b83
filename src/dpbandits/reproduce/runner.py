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
from .claims import Cells, Verdict, judge
from .experiment import SIZES, Experiment, Line
from .experiments import get_experiment
from .page import page, plot, write_csv

CELL_FORMAT = 2
"""Part of every cell's key: cells written by an older layout are simulated again."""


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
                per_run=result.pseudo_regret.tolist())
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
                   folders: Callable[[str], Path] | None = None) -> list[Reproduction]:
    """Run (or resume) the experiments ``names`` at ``size``; each writes its CSV, PNG and page
    into ``folders(name)`` (default ``out/NAME``), and all share the cell folder ``out/cells``.

    ``workers`` processes simulate cells in parallel (largest first); a Dask ``client`` runs each
    cell's blocks on the cluster instead. Neither changes a number."""
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
    _run_jobs(sorted(missing.values(), key=lambda j: -j.cost), workers, client, say, owner, seconds)
    results = []
    for e, setting, jobs in plans:
        folder = folder_of(e.name)
        folder.mkdir(parents=True, exist_ok=True)
        data = {}
        for job in jobs:
            cell = _load_cell(job.path, job.key)
            if cell is None:
                raise DPBanditsError(f"cell {job.path.name} was not written; run again to resume")
            data[(job.line.label, job.epsilon)] = cell
        results.append(_conclude(e, setting, data, size, seed, folder, seconds[e.name]))
    return results


def _run_jobs(jobs: list[_Job], workers: int, client, say, owner: dict, seconds: dict) -> None:
    def done(job: _Job, took: float, i: int) -> None:
        seconds[owner[job.path]] += took
        say(f"[{i}/{len(jobs)}] {owner[job.path]}: {job.line.label}, epsilon = {job.epsilon:g} "
            f"(T = {job.key['T']}, {job.key['runs']} runs) in {took:.1f} s")

    if workers == 1 or client is not None or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            done(job, _simulate_cell(job, client), i + 1)
        return
    with process_pool(min(workers, len(jobs))) as pool:
        futures = {pool.submit(_simulate_cell, job): job for job in jobs}
        for i, future in enumerate(as_completed(futures)):
            done(futures[future], future.result(), i + 1)


def _conclude(e: Experiment, setting: str, data: dict, size: str, seed: int, folder: Path,
              seconds: float) -> Reproduction:
    epsilons = tuple(dict.fromkeys(eps for _, eps in data))
    cells = Cells(data, replace(e, epsilons=epsilons, setting=setting))
    def judged(claims) -> list[Verdict]:
        return judge([(c.text, [(r.text, r.check(cells)) for r in c.readings]) for c in claims])

    verdicts = judged([c for c in e.claims if not c.ours])
    checks = [replace(v, ours=True) for v in judged([c for c in e.claims if c.ours])]
    below = size != "full" or epsilons != e.epsilons
    text = page(e, cells, verdicts, checks, size, setting, seed)
    paths = [write_csv(folder / f"{e.name}.csv", cells), plot(folder / f"{e.name}.png", cells)]
    write_atomically(folder / f"{e.name}.md", text)
    paths.append(folder / f"{e.name}.md")
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
