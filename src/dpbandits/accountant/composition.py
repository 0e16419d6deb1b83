"""Composition stage: the privacy loss of each release for a change of one row, composed row by
row into the accountant's bound (:func:`release_loss`, :func:`row_losses`, :func:`account`,
:class:`Accounting`; the rules are in :mod:`dpbandits.accountant`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

import numpy as np

from ..errors import DPBanditsError
from ..reference.noise import Release
from ..reference.privacy import Guarantee
from .counterexample import Counterexample, counterexamples
from .tracing import Trace

PROOF = "proof at this size"
"""The status of a bound computed on every action sequence and {0, 1} table (the docstring of
:mod:`dpbandits.accountant`)."""
PER_ARM = "per-arm bound, not a proof"
"""The status of a bound at a size the enumeration cannot reach, when every check but the
dependence analysis passed: exact for every action sequence *if* the per-arm schedule lemma
holds, and the lemma is checked on the sequences traced, not derived from the code (where the
analysis derives it, the status is :data:`PROOF`; docs/accountant.md#proof-at-your-size)."""
TABLES = "every table with entries in {0, 1}"
"""The table class an enumeration covers (its scope adds what was enumerated)."""
UNIT_TABLES = "every table with entries in [0, 1]"
"""The table class of a proof whose statistics are affine in every reward: the enumerated
{0, 1} tables' coefficients hold on every table in [0, 1] (docs/accountant.md#what-a-proof-is)."""
ESTIMATED_TABLES = "tables in [0, 1/2] from the trace seeds"
"""The tables of an estimate."""


@dataclass
class Accounting:
    """The accountant's bound on one or more traces, stated on the whole action sequence."""

    epsilon: float
    delta: float
    theorem: str
    worst_row: int | None
    per_row: dict[int, float]
    releases: int
    traces: int
    assumption: str
    K: int = 0
    T: int = 0
    status: str = ""
    schedule: str = ""
    findings: tuple[str, ...] = ()
    tables: str = ESTIMATED_TABLES
    """The table class, with what was enumerated or traced."""
    counterexamples: tuple[Counterexample, ...] = ()
    """The rows whose loss is largest, as data: each names the pair of tables (the row and its
    cells), the action sequence, and the releases or reads that cost the loss there, with their
    rounds and lines (:mod:`.counterexample`)."""

    @property
    def proof(self) -> bool:
        """True when every action sequence was enumerated (a proof at this size)."""
        return self.status == PROOF

    @property
    def scope(self) -> str:
        """K, T and the table class the bound is stated for."""
        return f"K = {self.K}, T = {self.T}, {self.tables}"

    def guarantee(self) -> Guarantee:
        return Guarantee(self.epsilon, self.delta)

    def summary(self) -> str:
        head = f"traced upper bound eps <= {self.epsilon:.4g}"
        if self.delta:
            head += f" at delta = {self.delta:.3g}"
        return f"{head} ({self.status} at {self.scope}; {self.theorem}; {self.assumption})"


def exact_sum(terms: Iterable[float | Fraction]) -> float:
    """The exact sum of ``terms`` (floats or fractions, summed as :class:`fractions.Fraction`),
    as the nearest float: a floating-point sum's rounding (0.1 + 0.2 > 0.3) does not push a
    true claim's costs above it, and a bound compared with the claim by ``<=`` is above it as
    soon as the exact sum is half a unit in the last place above (1 + 1e-12 is above 1)."""
    total = Fraction(0)
    for x in terms:
        if isinstance(x, float) and math.isinf(x):
            return math.inf
        total += Fraction(x)
    return float(total)


def exact_ratio_sum(s: np.ndarray, scale: np.ndarray) -> float:
    """sum of s / scale over the values, exact, as the nearest float (:func:`exact_sum`)."""
    return exact_sum([_ratio_sum(s, scale)])


def _ratio_sum(s, scale) -> Fraction | float:
    """sum of s / scale over the values (s > 0), each ratio and the sum exact; infinite noise
    costs nothing, an infinite change or a scale that is not positive infinity."""
    s, scale = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(scale, dtype=float))
    total = Fraction(0)
    for a, b in zip(s.ravel().tolist(), scale.ravel().tolist()):
        if a == 0 or (math.isinf(b) and not math.isinf(a)):
            continue
        if math.isinf(a) or not b > 0:
            return math.inf
        total += Fraction(a) / Fraction(b)
    return total


def release_loss(release: Release, row: int) -> float:
    """The privacy loss of one release for a change of ``row`` (rules in the docstring of
    :mod:`dpbandits.accountant`)."""
    return _loss(release, release.sensitivity(row))


def _loss(release: Release, s: np.ndarray) -> float:
    """:func:`release_loss` for a row whose sensitivities in ``release`` are ``s`` (the nearest
    float to :func:`_exact_loss`)."""
    return float(_exact_loss(release, s))


def _exact_loss(release: Release, s: np.ndarray) -> Fraction | float:
    """The loss, exact for the floats the trace holds (sensitivities and scales), or inf."""
    if not (s > 0).any():
        return Fraction(0)
    if not release.fresh:
        return math.inf
    scale = np.asarray(release.scale, dtype=float)
    if release.law:
        return math.inf     # not a declared law as drawn: no bound is known
    if release.kind == "argmax" and not release.values_read:
        spread = _ratio_sum(2.0 * float(s.max()), float(scale.min()))
        if release.family == "laplace":
            return min(spread, _ratio_sum(s, scale))
        return spread
    if release.family != "laplace":
        return math.inf     # exponential or Gumbel noise on released values: unbounded ratio
    return _ratio_sum(s, scale)


def unbounded_release(release: Release) -> str:
    """Why a release that contains some row costs an unbounded loss, or '' (the reasons of
    :func:`release_loss`, for a finding)."""
    if not any(np.any(release.sensitivity(row) > 0) for row in release.rows()):
        return ""
    where = f"the {release.kind} release of round {release.step}"
    line = f" (the release at {release.line})" if release.line else ""
    if not release.fresh:
        return (f"{where} has no fresh declared draw (noise not drawn through "
                f"dpbandits.reference.noise, or a noise value used twice): its loss is "
                f"unbounded{line}")
    if release.law:
        return ""               # the trace's own finding names the operation and its line
    if release.kind == "argmax" and not release.values_read:
        return ""
    if release.family != "laplace":
        return (f"{where} adds {release.family} noise to released values: the ratio of its "
                f"densities is unbounded{line}")
    return ""


def row_losses(tr: Trace, exact: bool = False) -> dict[int, list[float]]:
    """For each row of the table, the loss of every release that contains it (leaks: inf).

    A leak or a release that names no row of the table (runs that differ where no cell was
    moved: randomness drawn outside the lockstep generator, or one run fed another's data) is a
    leak of every row: the runs no longer compare one table with its neighbour
    (docs/accountant.md#fail-closed). ``exact``: each loss exact (a :class:`fractions.Fraction`
    or inf, for :func:`exact_sum`), else the nearest float."""
    out: dict[int, list[float]] = {row: [] for row in tr.rows}
    for release in tr.releases:
        for row, s in release.sensitivities().items():
            loss = _exact_loss(release, s) if exact else _loss(release, s)
            if loss > 0:
                for r in ([row] if row in out else out):
                    out[r].append(loss)
    for row in {row for row, _ in tr.leaks}:
        for r in ([row] if row in out else out):
            out[r].append(math.inf)
    return out


def _compose(losses: list[float], delta: float) -> float:
    basic = exact_sum(losses)
    if delta <= 0 or not losses or math.isinf(basic):
        return basic
    e = np.asarray(losses, dtype=float)
    advanced = float((e * np.expm1(e)).sum() + math.sqrt(2.0 * math.log(1.0 / delta) * (e * e).sum()))
    return min(basic, advanced)


def _schedule(traces: list[Trace]) -> str:
    """``data-independent`` when every trace released at the same rounds, kinds, families, scales
    and sizes; otherwise ``follows the data``."""
    first = traces[0].schedule()
    if all(tr.schedule() == first for tr in traces[1:]):
        return "data-independent"
    return "follows the data"


def account(traces: Trace | Iterable[Trace], delta: float = 0.0, *,
            status: str | None = None, tables: str = ESTIMATED_TABLES,
            findings: Iterable[str] = ()) -> Accounting:
    """Compose traces row by row (basic, or the better of basic and advanced at ``delta``); the
    worst row over all traces is the bound. ``status`` defaults to an estimate from the traces
    (:func:`traced_upper` sets :data:`PROOF` when it enumerated every action sequence and
    table); ``tables`` is the table class of the scope, ``findings`` come before the traces'."""
    traces = [traces] if isinstance(traces, Trace) else list(traces)
    if not traces:
        raise DPBanditsError("account needs at least one trace")
    per_row: dict[int, float] = {}
    for tr in traces:
        for row, losses in row_losses(tr, exact=True).items():
            per_row[row] = max(per_row.get(row, 0.0), _compose(losses, delta))
    worst = max(per_row, key=lambda r: per_row[r]) if per_row else None
    epsilon = per_row[worst] if worst is not None else 0.0
    theorem = ("basic composition of each row's releases, parallel across rows" if delta <= 0 else
               "min of basic and heterogeneous advanced composition of each row's releases at "
               "delta, parallel across rows")
    schedule = _schedule(traces)
    n = sum(tr.tables for tr in traces)
    if status is None:
        status = f"estimate from {n} traces, not a proof"
    if status == PROOF:
        sequences = len({tr.sequence for tr in traces})
        assumption = (f"every one of {sequences} action sequences enumerated on every table with "
                      f"entries in {{0, 1}} it can see; release schedule {schedule}, and along "
                      f"each sequence the same on every table and noise seed")
    else:
        assumption = (f"maximum over {n} traced trajectories; release schedule "
                      f"{schedule} on them; other trajectories are not enumerated")
    unbounded = [why for tr in traces for release in tr.releases
                 if (why := unbounded_release(release))]
    findings = tuple(dict.fromkeys(list(findings) + unbounded[:1]
                                   + [f for tr in traces for f in tr.findings]))
    return Accounting(epsilon, delta if delta > 0 else 0.0, theorem, worst, per_row,
                      sum(len(t.releases) for t in traces), n, assumption,
                      traces[0].K, traces[0].T, status, schedule, findings[:5], tables,
                      counterexamples(traces, per_row, lambda losses: _compose(losses, delta),
                                      release_loss, row_losses))


def alignment(tr: Trace, row: int) -> list[tuple[int, str, float, float, float]]:
    """The randomness alignment of ``row`` on one trace: for every release that contains the
    row, (round released, kind, scale, |change of the statistic|, cost = change / scale, or the
    report-noisy-max rule's cost), in release order; their sum is the row's loss under basic
    composition (docs/accountant.md#what-a-proof-is)."""
    out = []
    for release in tr.releases:
        if row not in release.rows():
            continue
        s = release.sensitivity(row)
        if not np.any(s > 0):
            continue
        scale = float(np.asarray(release.scale, dtype=float).min())
        out.append((release.step, release.kind, scale, float(s.max()), release_loss(release, row)))
    return out
