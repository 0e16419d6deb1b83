"""Where the accountant's bound is largest, as data: the rows whose loss is the bound, each with
the neighbouring pair of tables it names (the row that changes and the cells of it that the
costly releases or reads move with), the traced action sequence, and what costs the loss there:
each release's round, kind, scale, change and cost (its alignment), or the read or the noise
operation that leaks, with its line (:class:`Counterexample`, :func:`counterexamples`).

``Accounting.counterexamples`` holds them; the findings' strings say the same in words.
``dpbandits audit ALGO --from-accountant`` builds an audit pair from each
(:mod:`dpbandits.audit.from_accountant`; docs/accountant.md#from-a-finding-to-a-counterexample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .tracing import Trace

COUNTEREXAMPLES = 3
"""Rows the accountant names, the largest losses first (ties: the earliest rows)."""


@dataclass(frozen=True)
class Step:
    """One thing that costs a row's loss on a trace: a release that contains the row (its
    alignment: the statistic's change over the scale) or a leak of one of its cells."""

    round: int
    what: str
    """``release`` (a Laplace or other noisy value), ``argmax`` (report-noisy-max) or ``leak``."""
    cost: float
    scale: float = math.nan
    change: float = math.nan
    detail: str = ""
    """For a leak, the read and its line; for a release whose noise is not a declared law as
    drawn, what was done to the noise and where; else empty."""
    line: str = ""
    """For a release, its line (``file:line``); empty for a leak (its line is in ``detail``)."""

    def text(self) -> str:
        cost = "inf" if math.isinf(self.cost) else f"{self.cost:.4g}"
        if self.what == "leak":
            return f"at round {self.round} {self.detail} (cost {cost})"
        law = f"; its noise {self.detail}" if self.detail else ""
        at = f", {self.line}" if self.line else ""
        return (f"{self.what} at round {self.round}{at} (scale {self.scale:.4g}, change "
                f"{self.change:.4g}{law}; cost {cost})")


@dataclass(frozen=True)
class Counterexample:
    """A neighbouring pair of tables the accountant names: tables that differ in ``row``
    (round; 0 for a free round-0 row), the change running over the whole range [0, 1] of the
    cells ``cells`` (those the costly releases or reads move with), and on the trace whose loss
    for that row is ``loss``: its action sequence (``forced`` when the enumeration forced it),
    its noise seed, and the ``steps`` that cost the loss, in round order."""

    row: int
    cells: tuple[tuple[int, int], ...]
    loss: float
    steps: tuple[Step, ...]
    actions: tuple
    forced: bool
    seed: int
    K: int
    T: int

    @property
    def round(self) -> int:
        """The round of the costliest step (the first unbounded one, else the largest cost)."""
        return max(self.steps, key=lambda s: (s.cost, -s.round)).round if self.steps else self.row

    @property
    def leak(self) -> bool:
        """True when a read of an unreleased value (not a release's noise) costs the loss."""
        return any(s.what == "leak" for s in self.steps)

    @property
    def costliest(self) -> Step | None:
        """The step of :attr:`round`: what costs the most, with its line where it has one."""
        return max(self.steps, key=lambda s: (s.cost, -s.round)) if self.steps else None

    def summary(self) -> str:
        """One line: the row, its cells, the round and what costs the loss there (the read or
        the noise operation with its line, or the release with its scale), and the loss."""
        loss = "inf" if math.isinf(self.loss) else f"{self.loss:.4g}"
        step = self.costliest
        where = "" if step is None else f": {step.text()}"
        more = len(self.steps) - 1
        others = f" and {more} more step{'s' if more != 1 else ''}" if more > 0 else ""
        return (f"{self.where()}{where}{others}; the row's loss {loss}")

    def where(self) -> str:
        """``row r, cell x.., round t``: the pair of tables and the round, in short."""
        cells = " ".join(f"x{t},{a}" for t, a in self.cells) or "every probed cell"
        return (f"row {self.row}, cell{'s' if len(self.cells) != 1 else ''} {cells}, round "
                f"{self.round}")

    def text(self) -> str:
        cells = " ".join(f"x{t},{a}" for t, a in self.cells) or f"row {self.row}"
        loss = "inf" if math.isinf(self.loss) else f"{self.loss:.4g}"
        how = "forced action sequence" if self.forced else "action sequence"
        actions = " ".join(str(np.asarray(a).tolist()) for a in self.actions)
        steps = "; ".join(s.text() for s in self.steps)
        return (f"row {self.row} (cells {cells}), loss {loss} at round {self.round}: {steps}; "
                f"{how} {actions}, seed {self.seed}")


def _steps(tr: Trace, row: int, loss_of) -> list[Step]:
    out = []
    for release in tr.releases:
        s = release.sensitivity(row)
        if not np.any(s > 0):
            continue
        scale = float(np.asarray(release.scale, dtype=float).min())
        detail = release.law or ("" if release.fresh else "not fresh (no draw, or one used twice)")
        out.append(Step(release.step, "argmax" if release.kind == "argmax" else "release",
                        loss_of(release, row), scale, float(s.max()), detail, release.line))
    seen = set()
    for step, cells, what in tr.leak_sites:
        if any(t == row for t, _ in cells) and (step, what) not in seen:
            seen.add((step, what))
            out.append(Step(step, "leak", math.inf, detail=what))
    return sorted(out, key=lambda s: s.round)


def _cells(tr: Trace, row: int, steps: list[Step]) -> tuple[tuple[int, int], ...]:
    cells = {cell for release in tr.releases for c in release.coefficients for cell in c
             if cell[0] == row and cell[1] >= 0}
    cells |= {cell for cell in tr.leaks if cell[0] == row and cell[1] >= 0}
    return tuple(sorted(cells))


def counterexamples(traces: Iterable[Trace], per_row: dict[int, float], compose,
                    loss_of, losses_of, count: int = COUNTEREXAMPLES
                    ) -> tuple[Counterexample, ...]:
    """The ``count`` rows with the largest composed loss in ``per_row`` (ties: the earliest
    rows; rows that cost nothing are not named), each on the first trace that reaches its loss
    (natural trajectories before forced ones). ``compose`` composes a row's list of release
    losses (as :func:`~dpbandits.accountant.composition.account` does) and ``loss_of`` is
    :func:`~dpbandits.accountant.composition.release_loss`, ``losses_of`` its
    :func:`~dpbandits.accountant.composition.row_losses` (passed in: the composition stage
    imports this one)."""
    rows = sorted((r for r in per_row if per_row[r] > 0), key=lambda r: (-per_row[r], r))[:count]
    if not rows:
        return ()
    traces = sorted(traces, key=lambda tr: tr.forced)       # stable: natural traces first
    out = []
    for row in rows:
        for tr in traces:
            losses = losses_of(tr).get(row)
            if losses is None or not math.isclose(compose(losses), per_row[row], rel_tol=1e-9):
                continue
            steps = _steps(tr, row, loss_of)
            out.append(Counterexample(row, _cells(tr, row, steps), per_row[row], tuple(steps),
                                      tuple(np.asarray(a).tolist() for a in tr.actions),
                                      tr.forced, tr.seed, tr.K, tr.T))
            break
    return tuple(out)
