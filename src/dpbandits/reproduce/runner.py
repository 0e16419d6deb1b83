"""Running an experiment: cells simulated once, written atomically, reused on a re-run."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError
from ..files import write_atomically
from .claims import Cells, Verdict
from .experiment import SIZES, Experiment, Line
from .page import _page, _plot, _write_csv
from .papers import get_experiment

# -- running --------------------------------------------------------------------------------------

@dataclass
class Reproduction:
    """What one reproduction wrote and concluded."""

    experiment: str
    size: str
    page: str
    paths: list[Path]
    claims: list[Verdict] = field(default_factory=list)


def _epsilons(experiment: Experiment, size: str) -> tuple[float, ...]:
    points = experiment.reduced_points.get(size)
    if points is None:
        return experiment.epsilons
    every = np.linspace(0, len(experiment.epsilons) - 1, points).round().astype(int)
    return tuple(experiment.epsilons[i] for i in every)


def _source(experiment: Experiment, movielens: str | None):
    from ..reference import get_setting
    from ..reference.matroid.data import MATROID_SETTINGS, matroid_setting

    if experiment.setting in MATROID_SETTINGS:
        if experiment.name == "chandak2023-table3" and movielens:
            return matroid_setting("chandak-movielens", path=movielens), "chandak-movielens"
        return matroid_setting(experiment.setting), experiment.setting
    return get_setting(experiment.setting).environment(), experiment.setting


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


def reproduce(name: str, out: str | Path, *, size: str = "default", seed: int = 0, workers: int = 1,
              backend: str = "auto",
              client=None, movielens: str | None = None,
              progress: Callable[[str], None] | None = None) -> Reproduction:
    """Run (or resume) experiment ``name`` at ``size`` and write its CSV, PNG and Markdown page."""
    from ..reference import simulate

    from ..reference.engine import check_backend

    check_backend(backend)
    experiment = get_experiment(name)
    if size not in SIZES:
        raise DPBanditsError(f"unknown size {size!r}; sizes are {', '.join(SIZES)}")
    T, runs = experiment.sizes[size]
    say = progress or (lambda message: None)
    out = Path(out)
    (out / "cells").mkdir(parents=True, exist_ok=True)
    source, setting_used = _source(experiment, movielens)
    epsilons = _epsilons(experiment, size)
    data: dict[tuple[str, float], dict[str, Any]] = {}
    for i, line in enumerate(experiment.lines):
        for eps in epsilons:
            from ..reference import get

            variant = line.variant or get(line.algorithm).default_variant
            key = dict(experiment=name, line=line.label, epsilon=eps, T=T, runs=runs, seed=seed,
                       setting=setting_used, params=[list(p) for p in line.params],
                       variant=variant, rule=line.epsilon_rule)
            path = out / "cells" / f"{line.label}-{eps:g}.json"
            cell = _load_cell(path, key)
            if cell is None:
                say(f"{name}: {line.label}, epsilon = {eps:g} (T = {T}, {runs} runs)")
                result = simulate(_factory(line, source, eps, T), source, T, runs=runs, seed=seed,
                                  workers=workers, client=client, record_actions=False,
                                  backend=backend)
                low, high = result.confidence_band()
                cell = dict(key=key, t=result.checkpoints.tolist(), mean=result.mean_curve().tolist(),
                            low=low.tolist(), high=high.tolist(), runs=runs,
                            backend=result.backend,
                            optimal=float(getattr(source, "optimal_value", np.max(source.means))))
                write_atomically(path, json.dumps(cell))
            data[(line.label, eps)] = cell
    cells = Cells(data, replace(experiment, epsilons=epsilons))
    verdicts = []
    for claim in experiment.claims:
        try:
            verdict, evidence = claim.check(cells)
        except (ValueError, ZeroDivisionError) as error:
            verdict, evidence = "not testable", f"could not be evaluated: {error}"
        verdicts.append(Verdict(claim.text, verdict, evidence))
    paths = [_write_csv(out / f"{name}.csv", cells), _plot(out / f"{name}.png", cells)]
    page = _page(experiment, cells, verdicts, size, setting_used, seed)
    write_atomically(out / f"{name}.md", page)
    paths.append(out / f"{name}.md")
    return Reproduction(name, size, page, paths, verdicts)


def _load_cell(path: Path, key: dict) -> dict | None:
    try:
        cell = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return cell if cell.get("key") == json.loads(json.dumps(key)) else None


