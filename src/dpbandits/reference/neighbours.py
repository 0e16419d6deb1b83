"""Neighbour relations on reward tables, as code.

The private input of every algorithm is a reward table ``X`` of shape (T, K) with entries in
[0, 1]; row ``t - 1`` is the reward vector of round ``t`` (rounds are 1-based, as in the papers;
arms are 0-based indices).

* :data:`ROW` -- the papers' relation: two tables are neighbours when they differ in at most one
  row, and that whole reward vector may change arbitrarily (Hu et al. Definition 1; Tossou and
  Dimitrakakis Definition 2.1 read on a reward table, docs/errata.md#td-neighbours).
* :data:`CELL` -- a finer relation: the tables differ in at most one cell ``X[t, a]``.

``relation.distance(x, y)`` counts how many units (rows or cells) differ, so ``x`` and ``y`` are
neighbours exactly when the distance is at most 1. Every CELL neighbour is a ROW neighbour, so a
guarantee under ROW implies the same guarantee under CELL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DPBanditsError, check_positive_int, check_rewards, check_table

__all__ = ["NeighbourRelation", "ROW", "CELL", "relation", "replace_row", "change_cell"]


@dataclass(frozen=True)
class NeighbourRelation:
    """A neighbour relation on reward tables: ``"row"`` or ``"cell"``."""

    name: str

    def distance(self, x: np.ndarray, y: np.ndarray) -> int:
        """Number of rows (``row``) or cells (``cell``) in which ``x`` and ``y`` differ."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        if x.shape != y.shape or x.ndim != 2:
            raise DPBanditsError(f"tables must have the same (T, K) shape, got {x.shape} and {y.shape}")
        differs = ~((x == y) | (np.isnan(x) & np.isnan(y)))
        if self.name == "row":
            return int(differs.any(axis=1).sum())
        return int(differs.sum())

    def are_neighbours(self, x: np.ndarray, y: np.ndarray) -> bool:
        """True when ``x`` and ``y`` differ in at most one unit of this relation."""
        return self.distance(x, y) <= 1

    def implies(self, other: "NeighbourRelation") -> bool:
        """True when a guarantee under this relation also holds under ``other``."""
        return self.name == other.name or (self.name == "row" and other.name == "cell")

    def __str__(self) -> str:
        return self.name


ROW = NeighbourRelation("row")
CELL = NeighbourRelation("cell")


def relation(name: str) -> NeighbourRelation:
    """Look a relation up by name (``"row"`` or ``"cell"``)."""
    for known in (ROW, CELL):
        if name == known.name:
            return known
    raise DPBanditsError(f"unknown neighbour relation {name!r}; choose 'row' or 'cell'")


def replace_row(table: np.ndarray, t: int, row: np.ndarray) -> np.ndarray:
    """A ROW neighbour of ``table``: a copy with the reward vector of round ``t`` replaced."""
    x = check_table(table)
    t = check_positive_int(t, "t")
    if t > x.shape[0]:
        raise DPBanditsError(f"t must be a round in 1..{x.shape[0]}, got {t}")
    new_row = check_rewards(np.asarray(row, dtype=float), "row")
    if new_row.shape != (x.shape[1],):
        raise DPBanditsError(f"row must have shape ({x.shape[1]},), got {new_row.shape}")
    neighbour = x.copy()
    neighbour[t - 1] = new_row
    return neighbour


def change_cell(table: np.ndarray, t: int, arm: int, value: float) -> np.ndarray:
    """A CELL neighbour of ``table``: a copy with ``X[t, arm]`` set to ``value``."""
    x = check_table(table)
    t = check_positive_int(t, "t")
    if t > x.shape[0]:
        raise DPBanditsError(f"t must be a round in 1..{x.shape[0]}, got {t}")
    arm = check_positive_int(arm, "arm", minimum=0)
    if arm >= x.shape[1]:
        raise DPBanditsError(f"arm must be an index in 0..{x.shape[1] - 1}, got {arm}")
    neighbour = x.copy()
    neighbour[t - 1, arm] = float(check_rewards(np.asarray([value]), "value")[0])
    return neighbour
