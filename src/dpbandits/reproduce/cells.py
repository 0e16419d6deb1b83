"""The simulated cells a claim's check reads: each (curve, epsilon) of an experiment, its regret
curve summary and every run's regret at every checkpoint (:class:`Cells`).

A check (:mod:`~dpbandits.reproduce.checks`) reads per-run values from here and turns them into
an :class:`~dpbandits.reproduce.outcome.Outcome`; the cells remember which of them were read, so
that a verdict near its flip point can be run again on other seeds with only those cells
(:mod:`~dpbandits.reproduce.runner`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .experiment import Experiment

__all__ = ["Cells"]


class Cells:
    """The simulated cells of one experiment: (label, epsilon) -> curve summary and per-run values.

    A cell holds ``t`` (checkpoints), ``mean``, ``low``, ``high`` (mean and 95% band at each
    checkpoint), ``runs``, ``optimal`` and ``per_run``: one list per run of its regret at every
    checkpoint, and ``realised_final``: each run's realised regret at the horizon, sum_t (mu* -
    r_t) over the rewards it obtained (:mod:`dpbandits.reference.engine`)."""

    def __init__(self, data: dict[tuple[str, float], dict[str, Any]], experiment: Experiment):
        self.data, self.experiment = _Recorded(data), experiment
        self.cache: dict = {}
        """Values a check computes once whatever its margin (e.g. a fitted exponent)."""

    @property
    def used(self) -> set[tuple[str, float]]:
        """The (label, epsilon) cells read so far (to run a claim again on other seeds)."""
        return self.data.used

    def _arrays(self, label: str, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        d = self.data[(label, epsilon)]
        key = ("arrays", label, epsilon)
        if key not in self.cache:
            self.cache[key] = (np.asarray(d["t"], dtype=float), np.asarray(d["per_run"], dtype=float))
        return self.cache[key]

    def per_run(self, label: str, epsilon: float, fraction: float = 1.0) -> np.ndarray:
        """Each run's regret at the checkpoint nearest to ``fraction`` of the horizon."""
        t, runs = self._arrays(label, epsilon)
        return runs[:, int(np.argmin(np.abs(t - fraction * t[-1])))]

    def curves(self, label: str, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """The checkpoints and every run's regret at each, shape (runs, checkpoints)."""
        return self._arrays(label, epsilon)

    def finals(self, label: str, epsilon: float, regret: str = "pseudo") -> np.ndarray:
        """Each run's regret at the horizon: pseudo-regret (the plotted curves' quantity) or, with
        ``regret="realised"``, realised regret."""
        if regret == "realised":
            return np.asarray(self.data[(label, epsilon)]["realised_final"], dtype=float)
        return self.per_run(label, epsilon, 1.0)

    def mean(self, label: str, epsilon: float, fraction: float = 1.0) -> float:
        return float(self.per_run(label, epsilon, fraction).mean())

    def optimal(self, label: str, epsilon: float) -> float:
        """The optimal expected per-round return (the best super arm's, or the best arm's mean)."""
        return float(self.data[(label, epsilon)]["optimal"])

    @property
    def horizon(self) -> int:
        return int(next(iter(self.data.values()))["t"][-1])

    @property
    def runs(self) -> int:
        return int(next(iter(self.data.values()))["runs"])


class _Recorded(dict):
    """A dict that remembers which keys were read."""

    def __init__(self, *args):
        super().__init__(*args)
        self.used: set = set()

    def __getitem__(self, key):
        self.used.add(key)
        return super().__getitem__(key)
