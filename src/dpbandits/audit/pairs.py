"""Neighbour search: candidate pairs of reward tables for an audit.

A :class:`Pair` is two tables that are neighbours under the claimed relation (one row replaced,
or one cell changed), with the round ``step`` that differs (0 for the free round-0 row of the
matroid algorithms). :func:`candidate_pairs` builds the candidates an audit screens on its
selection sample: a base table drawn from an environment; the steps that differ are the first
rounds, the rounds at which the algorithm releases something (epoch boundaries, where it declares
them) and the middle of the horizon; the changed row takes extreme values (one arm 1 and the
others 0 against the reverse; all 0 against all 1). :data:`KNOWN_PAIRS` holds the worked
worst cases that the algorithms declare (their ``known_pairs``), which are tried first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import DPBanditsError, check_positive_int
from ..reference.environments import Bernoulli, Table
from ..reference.neighbours import CELL, ROW, NeighbourRelation
from ..reference.registry import Declared

__all__ = ["Pair", "candidate_pairs", "KNOWN_PAIRS", "known_pairs"]


@dataclass(frozen=True, eq=False)
class Pair:
    """Two neighbouring tables D0 and D1 differing at round ``step`` (1-based; 0 = row 0)."""

    D0: Table
    D1: Table
    step: int
    description: str

    def __post_init__(self) -> None:
        if self.D0.X.shape != self.D1.X.shape:
            raise DPBanditsError("the two tables of a pair must have the same shape")
        rows = ROW.distance(self.D0.X, self.D1.X)
        zero_differs = (self.D0.X0 is not None and self.D1.X0 is not None
                        and not np.array_equal(self.D0.X0, self.D1.X0))
        if rows + zero_differs > 1:
            raise DPBanditsError("the two tables of a pair must differ in at most one row")

    @property
    def T(self) -> int:
        return self.D0.T

    @property
    def K(self) -> int:
        return self.D0.K

    def swapped(self) -> "Pair":
        return Pair(self.D1, self.D0, self.step, self.description + " (swapped)")

    def to_dict(self) -> dict:
        out = {"step": self.step, "description": self.description, "T": self.T, "K": self.K,
               "D0": self.D0.X.tolist(), "D1": self.D1.X.tolist()}
        if self.D0.X0 is not None:
            out["D0_row0"] = self.D0.X0.tolist()
            out["D1_row0"] = self.D1.X0.tolist()
        return out


def _replace(X: np.ndarray, step: int, row: np.ndarray) -> np.ndarray:
    Y = X.copy()
    Y[step - 1] = row
    return Y


def candidate_pairs(K: int, T: int, *, relation: NeighbourRelation = ROW,
                    means: np.ndarray | None = None, seed: int = 0,
                    boundaries: list[int] | tuple[int, ...] = (), max_pairs: int = 16,
                    row_zero: bool = False) -> list[Pair]:
    """Candidate neighbouring pairs for an algorithm with K arms and horizon T.

    The base table is drawn from independent Bernoulli arms with ``means`` (default evenly spaced
    from 0.9 down to 0.1) with ``seed``. ``boundaries`` are rounds after which the algorithm
    releases a statistic; the round that ends a release window is where a change is seen soonest.
    ``row_zero`` adds a free all-arms row 0 (both tables share it) for algorithms observing one.
    """
    K = check_positive_int(K, "K", minimum=2)
    T = check_positive_int(T, "T")
    means = np.linspace(0.9, 0.1, K) if means is None else np.asarray(means, dtype=float)
    rng = np.random.default_rng(seed)
    X = Bernoulli(means).table(T, rng)
    X0 = Bernoulli(means).table(1, rng)[0] if row_zero else None
    steps = []
    for s in [1, *boundaries, 2, 3, T // 2, T]:
        if 1 <= s <= T and s not in steps:
            steps.append(s)
    e0 = np.eye(K)[0]
    if relation == CELL:
        changes = [("arm 0 reward 1 vs 0", lambda row: _set(row, 0, 1.0), lambda row: _set(row, 0, 0.0)),
                   (f"arm {K - 1} reward 1 vs 0", lambda row: _set(row, K - 1, 1.0),
                    lambda row: _set(row, K - 1, 0.0))]
    else:
        changes = [("row e_0 vs 1 - e_0", lambda row: e0, lambda row: 1.0 - e0),
                   ("row all 1 vs all 0", lambda row: np.ones(K), lambda row: np.zeros(K)),
                   ("row 1 - e_0 vs e_0", lambda row: 1.0 - e0, lambda row: e0)]
    pairs = []
    for s in steps:
        for label, first, second in changes:
            D0 = Table(_replace(X, s, first(X[s - 1])), X0=X0)
            D1 = Table(_replace(X, s, second(X[s - 1])), X0=X0)
            pairs.append(Pair(D0, D1, s, f"round {s}: {label}"))
    if row_zero:
        pairs.insert(0, Pair(Table(X, X0=e0), Table(X, X0=1.0 - e0), 0, "row 0: e_0 vs 1 - e_0"))
    return pairs[:max_pairs]


def _set(row: np.ndarray, a: int, value: float) -> np.ndarray:
    out = row.copy()
    out[a] = value
    return out


# --- the worked worst cases (docs/errata.md) ----------------------------------------------------

def _known_builder(declared):
    def build(K: int, T: int) -> list[Pair]:
        return [Pair(Table(D0), Table(D1), step, description)
                for D0, D1, step, description in declared.build(K, T)]
    return build


KNOWN_PAIRS: Mapping[str, Callable[[int, int], list[Pair]]] = Declared("known_pairs", _known_builder)
"""Algorithm name -> builder of its known worst-case pairs for (K, T) (docs/errata.md): each
algorithm's ``known_pairs`` declaration, its tables wrapped into pairs."""

DEFAULT_ARMS: Mapping[str, int] = Declared("known_pairs", lambda declared: declared.arms)
"""Arms at which the known worst cases are stated (the audit's default K for these algorithms)."""


KNOWN_ROUNDS = 8
"""Rounds the known worst cases are built with at least: their tables write the rows they change
(rnm-ftnl-bq's rounds 2 and 3), so a shorter audit builds them at this length and keeps the
first T rows of those whose change falls within them."""


def known_pairs(name: str, K: int, T: int) -> list[Pair]:
    """The worked worst cases for algorithm ``name`` at horizon ``T`` (empty when none is known
    or none changes a round within T)."""
    builder = KNOWN_PAIRS.get(name)
    if builder is None:
        return []
    pairs = [p for p in builder(K, max(T, KNOWN_ROUNDS)) if p.step <= T]
    if T >= KNOWN_ROUNDS:
        return pairs
    return [Pair(Table(p.D0.X[:T], X0=p.D0.X0), Table(p.D1.X[:T], X0=p.D1.X0), p.step,
                 p.description) for p in pairs]
