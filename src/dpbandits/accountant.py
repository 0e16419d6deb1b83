"""Privacy accounted from the code: an upper bound on epsilon traced from what the reference does.

The audit bounds epsilon from below; this module bounds it from above, from the reference
algorithm's own noise draws (docs/accountant.md). :func:`trace` runs one trajectory of a
registered algorithm with the noise source in tracing mode (:mod:`dpbandits.reference.noise`):
every release is recorded with its distribution, its scale and, for each value, the coefficient
of every cell (round, arm) of the reward table in the statistic it perturbs. :func:`account`
composes the trace under the neighbour relation of the claims (``ROW``: one row of the table is
replaced, every cell moving by at most 1):

* a Laplace release of values with sensitivities s_i to a row costs sum_i s_i / scale_i
  (the Laplace mechanism; Dwork and Roth, Theorem 3.6);
* an argmax release (report-noisy-max) whose utilities move by at most s_i costs
  2 max_i s_i / scale for Laplace, exponential and Gumbel noise alike (one utility may go up while
  another goes down: docs/errata.md#rnm-laplace, docs/errata.md#ww-exponential), and for Laplace
  never more than the Laplace mechanism on all values, sum_i s_i / scale; an argmax release
  whose noisy values the algorithm read beyond their argmax is a release of the values;
* a value released without a fresh draw (no noise, or a noise value used twice), a published
  value, a random draw's parameters or an action that moves with a cell: infinite;
* per row, the releases that contain it compose by basic composition (pure claims) or, for an
  (epsilon, delta) claim, by the better of basic and heterogeneous advanced composition at the
  claim's delta (Dwork, Rothblum and Vadhan 2010; Kairouz et al. 2015 for the heterogeneous form,
  docs/errata.md#td-advanced-composition); rows are disjoint inputs, so the worst row is the
  algorithm's epsilon (parallel composition), and the actions are post-processing of the releases.

The bound holds for the traced trajectory: given the actions, the coupling that shifts each noise
by its statistic's change maps the run on one table to the same actions on its neighbour, at the
cost above. So the algorithm's epsilon is the maximum of that cost over every output it can
produce, and the accountant says which of two things it computed:

* **proof at this size**, for every table with entries in {0, 1} at that K and T: where the
  action sequences times the {0, 1} tables the policy can tell apart along each fit
  :data:`ENUMERATION_BUDGET` (up to K = 2, T = 8 for a bandit; ``dpbandits list`` proves at
  K = 2 and the largest T within :data:`PROOF_BUDGET`, :func:`proof_size`: T = 6 for a bandit,
  4 for full information, 5 for the matroid policies on their rank-1 matroid),
  :func:`traced_upper` forces every action sequence on the policy round by round and runs it
  on every such table, on each of the :data:`PROOF_SEEDS` noise seeds. What reaches the
  policy is what :meth:`_Run.step` and :meth:`_Run.round_zero` feed it: the pulled arm's reward (``feedback == "bandit"``:
  ``x[t, a_t]`` only), the whole row (full information), the chosen set's cells and, for the
  matroid policies, round 0's row (semi-bandit). Along a sequence a_1..a_T a bandit therefore
  sees only x_t = table[t, a_t], and the 2^T reward sequences stand for every {0, 1} table
  (64 x 64 at K = 2, T = 6); the other kinds enumerate the cells they see. Each seen cell is
  probed by +1/2 from 0 and -1/2 from 1, so the two ends of a one-cell change probe the same
  table; when the coefficients are the same at both ends, a statistic computed from the
  rewards and the actions moves by exactly its coefficient along that change (one that also
  reads earlier released values is taken to be affine in each cell given them, as in every
  trace). The status is a proof when, along each sequence, the releases (rounds, kinds,
  families, scales, the cells each value covers and their coefficients, freshness) are the
  same on every table and seed (a leak on any table costs infinity, so leaks are pooled); the
  maximum over every (sequence, table, seed) then bounds epsilon for every pair of neighbouring
  tables with entries in {0, 1}. The noise values are
  sampled on the seeds, not enumerated: a schedule that moved with noise values only other
  seeds draw would be missed, and the proof is stated given that the schedule along each
  sequence did not move on the seeds. Tables with other entries are not covered. The
  sequences are traced as a tree (a prefix once, copied where sequences branch) with a
  sequence's tables in the runs of one policy (:class:`_TableTracer`);
* **estimate from N traces, not a proof**: otherwise (larger sizes, a refused sequence after
  the policy's start, or a schedule that moved with the table or the noise seed, which the
  findings name: the sequence, the seed and the table), the maximum over the traced
  trajectories: the natural ones on seeded tables, forced ones that hold one arm after a
  round-robin start and, where enumerated, every sequence and {0, 1} table.

Whether the release schedule depends on the data is derived, not declared: it is
``data-independent`` when the rounds, kinds, families, scales and sizes of the releases were the
same on every traced sequence and table (``Accounting.schedule``).
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from .errors import DPBanditsError
from .reference import noise
from .reference.noise import ArgmaxOnly, DivergedRuns, LockstepGenerator, Release, Tracer
from .reference.privacy import Guarantee, PrivacyClaim
from .reference.declarations import TraceSetting
from .reference.registry import Declared, canonical, declaration, get, make

__all__ = ["Trace", "Accounting", "Bracket", "trace", "enumerate_traces", "release_loss",
           "row_losses", "account", "traced_upper", "bracket", "audit_bracket", "claim_bracket",
           "STRUCTURE", "TRACE_SETTINGS", "TRACE_K", "TRACE_T", "TRACE_SEEDS", "PROOF_K", "PROOF_T",
           "ENUMERATION_BUDGET", "PROOF_BUDGET", "PROOF_SEEDS", "PROOF", "TABLES",
           "enumeration_size", "proof_size"]

TRACE_K = 3
"""Arms (base arms for matroids) of the default traces."""
TRACE_T = 32
"""Rounds of the default traces."""
TRACE_SEEDS = (0, 1, 2)
"""Seeds of the default traces (each seed draws its own reward table)."""

PROOF_K = 2
"""Arms (base arms for matroids) at which ``dpbandits list`` proves its bounds."""
PROOF_T = 6
"""Rounds of a bandit's proof at :data:`PROOF_K` (the largest T within :data:`PROOF_BUDGET`:
2^6 action sequences x 2^6 reward sequences); :func:`proof_size` gives every feedback kind's."""
ENUMERATION_BUDGET = 65536
"""Most (action sequence, {0, 1} table the policy can tell apart) pairs :func:`traced_upper`
enumerates per noise seed, each one traced trajectory; above it the bound is an estimate. It
admits a bandit at K = 2, T = 8 (256 x 256: Anytime-Lazy-UCB's audit setting, about 1 s a
seed)."""
PROOF_BUDGET = 4096
"""The budget of :func:`proof_size`, the size ``dpbandits list`` proves at: at K = 2 it admits
T = 6 for a bandit (64 x 64), T = 4 for full information (16 x 256) and T = 5 for a rank-1
matroid that observes round 0 (32 x 128)."""
PROOF_SEEDS = (0, 1)
"""Noise seeds of an enumeration: the noise values are sampled on these seeds, not enumerated."""
HELD_T = 200
"""Longest horizon at which the held sequences are traced beside the seeded ones."""
PROOF = "proof at this size"
"""The status of a bound computed on every action sequence and {0, 1} table (module docstring)."""
TABLES = "every table with entries in {0, 1}"
"""The table class of a proof at its size (its scope adds what was enumerated)."""
ESTIMATED_TABLES = "tables in [0, 1/2] from the trace seeds"
"""The tables of an estimate."""

TRACE_SETTINGS: Mapping[str, dict[str, Any]] = Declared("trace_setting", TraceSetting.settings)
"""Trace settings that replace the defaults: each algorithm's ``trace_setting`` declaration, where
the default trace would reach no release (DP-SE's first epoch at K = 2 and beta = 1 ends at
round 710, so its releases are traced at T = 720)."""

_H = 0.5            # the probe: a cell of a table with entries in {0, 1/4, 1/2} is raised by 1/2
_TOLERANCE = 1e-9

STRUCTURE: Mapping[str, str] = Declared("release_structure")
"""What algorithms declare of their release schedule (``release_structure``): documentation
only. The accountant derives the schedule from the traces (``Accounting.schedule``); the tests
hold each declaration to the derived schedule."""


@dataclass
class Trace:
    """One traced trajectory: what was released and which cells it read."""

    name: str
    variant: str
    epsilon: float
    K: int
    T: int
    params: dict[str, Any]
    seed: int
    rows: list[int]
    releases: list[Release]
    leaks: set[tuple[int, int]]
    actions: list[np.ndarray]
    findings: list[str] = field(default_factory=list)
    forced: bool = False
    tables: int = 1
    """How many reward tables the trace ran on at once (:func:`enumerate_traces`)."""
    moved: tuple[str, ...] = ()
    """Where the release schedule moved with the table: the round, what moved, the table."""
    sequence: tuple[int, ...] = ()
    """The forced action sequence (indices of :func:`_choices`), where one was enumerated."""

    def schedule(self) -> tuple:
        """Rounds, kinds, families, scales and sizes of the releases (not the cells they cover)."""
        return tuple((r.step, r.kind, r.family, tuple(np.round(r.scale, 12).tolist()))
                     for r in self.releases)

    def signature(self) -> tuple:
        """The releases with the cells they cover and the leaks: equal on two tables when the
        statistics' coefficients do not depend on the table."""
        return (tuple(r.signature() for r in self.releases), tuple(sorted(self.leaks)))


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


def _table(rng: np.random.Generator, rows: int, K: int) -> np.ndarray:
    return rng.integers(0, 3, (rows, K)) / 4.0


class _TableTracer(Tracer):
    """A :class:`~dpbandits.reference.noise.Tracer` for G reward tables traced at once: the runs
    are G groups of 1 + P (group g: its table, then that table with each probed cell moved by
    ``h[g, p]``, +1/2 from 0 and -1/2 from 1), every group drawing the same noise values. Within
    a group everything is checked as in a one-table trace; across groups, whatever the release
    schedule is made of (which values are released, their scales, each value's coefficients on
    the cells, the noise itself) must be the same, else the schedule moved with the table, which
    is recorded in ``moved`` with the group it moved in."""

    def __init__(self, groups: int, cells: list[tuple[int, int]], h: np.ndarray) -> None:
        super().__init__(groups * (1 + len(cells)), list(cells), _H)
        self.groups, self.size = groups, 1 + len(cells)
        self.h_table = np.asarray(h, dtype=float).reshape(groups, len(cells), 1)
        self.moved: list[tuple[int, str]] = []

    def _grouped(self, a) -> np.ndarray:
        return np.asarray(a, dtype=float).reshape(self.groups, self.size, -1)

    def _leak_in_groups(self, differs: np.ndarray, what: str) -> None:
        """``differs`` (G, 1 + P): the probe runs whose value differs from their group's table."""
        self._leak_where(np.concatenate([[False], differs[:, 1:].any(axis=0)]), what)

    def _move(self, groups: np.ndarray, what: str) -> None:
        """The first group (table) in ``groups`` where the schedule moved, with what moved."""
        g = int(np.flatnonzero(groups)[0])
        self.moved.append((g, f"round {self.step}: {what}"))

    def leak_all(self, what: str) -> None:
        self._leak_where(np.ones(self.size, bool), what)

    def drawn(self, z: np.ndarray, family: str, scale) -> None:
        per_value = self._grouped(np.broadcast_to(np.asarray(scale, dtype=float), np.shape(z)))
        if np.any(per_value[:, 0] != per_value[0, 0]):
            self._move(np.any(per_value[:, 0] != per_value[0, 0], axis=1), "a noise scale")
        super().drawn(z, family, scale)

    def released(self, value, noise, kind: str):
        vb, nb = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(noise, dtype=float))
        v, nz = self._grouped(vb), self._grouped(nb)
        noise_moves = np.any(nz != nz[:, :1], axis=2)
        self._leak_in_groups(noise_moves, "noise that differs across runs")
        if np.any(nz[:, 0] != nz[0, 0]):
            self._move(np.any(nz[:, 0] != nz[0, 0], axis=1), "the noise values")
        fresh, family, scale, taken = self._match(nz[0, 0])
        fresh = fresh and not noise_moves.any()
        self._used.update(taken)
        diff = (v[:, 1:] - v[:, :1]) / self.h_table            # (G, P, m): each probe's change
        moves = np.any(np.abs(diff - diff[0]) > _TOLERANCE, axis=(1, 2))
        if moves.any():
            self._move(moves, "the coefficients of a released statistic")
            coefficient = np.abs(diff).max(axis=0)             # the largest over the tables
        else:
            coefficient = diff[0]
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[2])]
        for p, i in zip(*np.nonzero(coefficient)):
            coefficients[i][self.cells[p]] = float(coefficient[p, i])
        record = Release(family, scale, kind, coefficients, fresh, self.step)
        self.releases.append(record)
        out = np.broadcast_to((v[:, 0] + nz[:, 0])[:, None, :], v.shape)
        out = out.reshape(np.shape(vb)).copy()
        if kind == "argmax":
            out = out.view(ArgmaxOnly)
            out._release = record
        return out

    def published(self, value) -> None:
        v = self._grouped(value)
        self._leak_in_groups(np.any(v != v[:, :1], axis=2),
                             "a published value that differs across runs")

    def decided(self, index) -> None:
        v = self._grouped(index)
        same = (v == v[:, :1]) | (np.isnan(v) & np.isnan(v[:, :1]))
        self._leak_in_groups(~np.all(same, axis=2), "a decision's input that differs across runs")

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        b, xs = self._grouped(bits), self._grouped(x)
        return (b[:, :1] + (xs - xs[:, :1])).reshape(np.shape(bits))

    def acted(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(self.groups, self.size, -1)
        self._leak_in_groups(np.any(a != a[:, :1], axis=2), "an action that differs across runs")


class _TableGenerator(LockstepGenerator):
    """A :class:`~dpbandits.reference.noise.LockstepGenerator` for a :class:`_TableTracer`: every
    run draws group 0's random numbers, except a draw whose parameters differ between groups (a
    Beta posterior on each table's released statistics), drawn once per group."""

    def __init__(self, seed: int, tracer: _TableTracer) -> None:
        super().__init__(seed, tracer.runs, tracer)
        self.groups, self.size = tracer.groups, tracer.size

    def _first(self, param, n: int):
        p = np.asarray(param, dtype=float)
        if p.ndim == 0:
            return float(p)
        p = np.broadcast_to(p, (n * self.runs,) if p.ndim == 1 else p.shape)
        p = p.reshape(self.groups, self.size, -1)
        self.tracer._leak_in_groups(np.any(p != p[:, :1], axis=2),
                                    "a draw whose parameters differ across runs")
        return p[0, 0] if np.all(p[:, 0] == p[0, 0]) else p[:, 0]

    def __deepcopy__(self, memo):
        out = _TableGenerator.__new__(_TableGenerator)
        np.random.Generator.__init__(out, np.random.PCG64())
        out.bit_generator.state = self.bit_generator.state
        out.runs, out.groups, out.size = self.runs, self.groups, self.size
        memo[id(self)] = out
        out.tracer = copy.deepcopy(self.tracer, memo)
        return out

    def _spread(self, values: np.ndarray, size) -> np.ndarray:
        values = np.asarray(values)
        if values.ndim < 2:
            return self._tiled(values, size)
        return np.repeat(values[:, None, :], self.size, axis=1).reshape(size)

    def _per_group(self, *params, m: int) -> tuple:
        if all(np.ndim(p) < 2 for p in params):
            return params
        return tuple(np.broadcast_to(p, (self.groups, m)) for p in params)

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.laplace(self, 0.0, b, np.shape(b) or m), size)

    def exponential(self, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.exponential(self, b, np.shape(b) or m), size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.gumbel(self, 0.0, b, np.shape(b) or m), size)

    def beta(self, a, b, size=None):  # type: ignore[override]
        shape = np.shape(a) if size is None else size
        m = self._share(shape)
        pa, pb = self._per_group(self._first(a, m), self._first(b, m), m=m)
        if np.ndim(pa) < 2:
            return self._tiled(np.random.Generator.beta(self, pa, pb), shape)
        return self._spread(np.random.Generator.beta(self, pa, pb), shape)


class _Run:
    """One traced trajectory in progress: the policy on G groups of 1 + P lockstep runs (one
    group per reward table), the tracer, the tables, and the actions so far."""

    def __init__(self, name: str, cls: type, policy: Any, tracer: Tracer, tables: np.ndarray,
                 rows: list[int], seed: int, params: dict[str, Any], epsilon: float, K: int,
                 T: int) -> None:
        self.name, self.cls, self.policy, self.tracer = name, cls, policy, tracer
        self.tables, self.rows, self.seed, self.params = tables, rows, seed, params
        self.epsilon, self.K, self.T = epsilon, K, T
        self.actions: list[np.ndarray] = []
        self.stopped = False
        self.forced = False
        self.diverged = False
        self.bits = np.zeros((1, 0))     # an enumeration's tree: each table's value per seen cell
        self.revealed = 0

    def reveal(self, cells: list[tuple[int, int]]) -> None:
        """The next seen cells of an enumeration's tree: table g's value of the j-th seen cell is
        bit j of g, its probe moves it by +1/2 from 0 and -1/2 from 1."""
        tracer = self.tracer
        assert isinstance(tracer, _TableTracer)
        runs = self.tables.reshape((tracer.groups, tracer.size) + self.tables.shape[1:])
        for t, a in cells:
            j, r = self.revealed, t - self.rows[0]
            bit = self.bits[:, j]
            h = np.where(bit > 0, -_H, _H)
            runs[:, :, r, a] = bit[:, None]
            runs[:, j + 1, r, a] += h
            tracer.cells[j] = (t, a)
            tracer.h_table[:, j, 0] = h
            self.revealed += 1

    def step(self, t: int, forced: np.ndarray | None = None) -> None:
        """Round t: the policy acts (its own choice is checked across the runs), the action (or
        ``forced``, one run's action) is played and observed. Runs that diverge in draw size
        are a finding: every probed cell leaks and the trajectory stops."""
        if self.stopped:
            return
        tracer, R = self.tracer, self.tables.shape[0]
        tracer.step = t
        try:
            with noise.tracing(tracer), np.errstate(all="ignore"):
                a = np.asarray(self.policy.act(t))
                tracer.acted(a)
                if forced is not None:
                    self.forced = True
                    a = np.broadcast_to(np.asarray(forced), (R,) + np.shape(forced)).copy()
                self.actions.append(np.asarray(a)[0].copy())
                x = self.tables[:, t - self.rows[0], :]
                # what reaches the policy: the pulled arm's reward, the row, or the chosen set's
                if self.cls.feedback == "bandit":
                    feedback = x[np.arange(R), a]
                elif self.cls.feedback == "full":
                    feedback = x
                else:
                    feedback = np.take_along_axis(x, a, axis=1)
                self.policy.observe(t, a, feedback)
        except DivergedRuns as e:
            tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = self.diverged = True

    def round_zero(self) -> None:
        self.tracer.step = 0
        try:
            with noise.tracing(self.tracer):
                self.policy.observe(0, None, self.tables[:, 0, :])
        except DivergedRuns as e:
            self.tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = self.diverged = True

    def result(self, variant: str, describe: Callable[[int], str] = str) -> Trace:
        """The trace; ``describe`` names a table by its group, where the schedule moved."""
        tr = self.tracer
        groups = getattr(tr, "groups", 1)
        moved = tuple(dict.fromkeys(f"{what} moved with the table ({describe(g)})"
                                    for g, what in getattr(tr, "moved", ())))
        return Trace(self.name, variant, float(self.epsilon), self.K, self.T, dict(self.params),
                     self.seed, self.rows, list(tr.releases), set(tr.leaks), list(self.actions),
                     list(tr.findings), self.forced, groups, moved)


def _begin(name: str, *, epsilon: float, K: int, T: int, variant: str | None, seed: int,
           policy_class: type | None, params: dict[str, Any],
           tables: Any, cells: list[tuple[int, int]] | None = None, slots: int = 0) -> _Run:
    """A traced run of ``name`` on ``tables``: None (one table with entries in {0, 1/4, 1/2}
    drawn from ``seed``, probed at +1/2), one table with entries in [0, 1/2] (probed at +1/2),
    or a stack (G, rows, K) of tables with entries in {0, 1} (each probed at +1/2 from 0 and
    -1/2 from 1, so that every probe stays in [0, 1]). ``cells`` are the probed cells (default
    every cell; an enumeration probes only the cells the policy sees). With ``slots`` = V > 0,
    the 2^V tables whose V seen cells take every value in {0, 1}, the cells not yet known: each
    is given by :meth:`_Run.reveal` in the round the policy sees it (an enumeration's tree)."""
    name = canonical(name)
    cls = get(name) if policy_class is None else policy_class
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    if slots:
        cells = [(-1, -1)] * slots
        tables = np.zeros((2 ** slots, len(rows), K))
    if cells is None:
        cells = [(t, a) for t in rows for a in range(K)]
    if tables is None:
        tables = _table(np.random.default_rng(seed), len(rows), K)
    tables = np.asarray(tables, dtype=float)
    if tables.ndim == 2:
        if tables.shape != (len(rows), K) or tables.min() < 0 or tables.max() > 1 - _H:
            raise DPBanditsError(f"table must have shape ({len(rows)}, {K}) with entries in "
                                 f"[0, {1 - _H}]")
        h = np.full((1, len(cells)), _H)
        tables = tables[None]
    else:
        h = np.full((tables.shape[0], len(cells)), _H)
        for p, (t, a) in enumerate(cells):
            if a >= 0:
                h[:, p] = np.where(tables[:, t - rows[0], a] > 0.5, -_H, _H)
    G, S = tables.shape[0], 1 + len(cells)
    runs = np.broadcast_to(tables[:, None], (G, S) + tables.shape[1:]).copy()
    for p, (t, a) in enumerate(cells, start=1):
        if a >= 0:
            runs[:, p, t - rows[0], a] += h[:, p - 1]
    runs = runs.reshape((G * S,) + tables.shape[1:])
    if G == 1 and np.all(h == _H):
        tracer: Tracer = Tracer(S, cells, _H)
        rng: LockstepGenerator = LockstepGenerator(seed, S, tracer)
    else:
        tracer = _TableTracer(G, cells, h)
        rng = _TableGenerator(seed, tracer)
    R = G * S
    if policy_class is None:
        policy = make(name, K, epsilon=epsilon, runs=R, rng=rng, variant=variant, T=T, **params)
    else:
        kwargs = dict(params, runs=R, rng=rng, variant=variant, epsilon=epsilon)
        if cls.needs_horizon:
            kwargs["T"] = T
        policy = cls(K, **kwargs)
    run = _Run(name, cls, policy, tracer, runs, rows, seed, dict(params), epsilon, K, T)
    if slots:
        run.bits = ((np.arange(2 ** slots)[:, None] >> np.arange(slots)[None, :]) & 1).astype(float)
        if zero:
            run.reveal([(0, a) for a in range(K)])
    if zero:
        run.round_zero()
    return run


def _start(name: str, *, epsilon: float, K: int, T: int, variant: str | None, seed: int,
           table: np.ndarray | None, policy_class: type | None, params: dict[str, Any]) -> _Run:
    return _begin(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=seed,
                  policy_class=policy_class, params=params, tables=table)


def trace(name: str, *, epsilon: float = 1.0, K: int = TRACE_K, T: int = TRACE_T,
          variant: str | None = None, seed: int = 0, table: np.ndarray | None = None,
          policy_class: type | None = None, actions: Iterable[Any] | None = None,
          **params: Any) -> Trace:
    """Trace one trajectory of algorithm ``name`` on a reward table (default: entries in
    {0, 1/4, 1/2} drawn from ``seed``), probing every cell; ``policy_class`` replaces the
    registered class (a planted change, for tests); ``actions`` forces one action per round
    (an arm, or a basis for semi-bandit feedback) instead of the policy's own."""
    run = _start(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=seed, table=table,
                 policy_class=policy_class, params=params)
    forced = None if actions is None else list(actions)
    for t in range(1, T + 1):
        run.step(t, None if forced is None else np.asarray(forced[t - 1]))
    return run.result(run.policy.variant)


def _choices(run: _Run) -> list[np.ndarray]:
    """The actions an enumeration forces at one round: every arm, or every basis."""
    if run.cls.feedback != "semi":
        return [np.asarray(a) for a in range(run.K)]
    matroid = run.policy.matroid
    return [np.asarray(S) for S in itertools.combinations(range(run.K), matroid.rank)
            if matroid.is_basis(S)]


def _seen(cls: type, t: int, option: np.ndarray, K: int) -> list[tuple[int, int]]:
    """The cells whose rewards reach the policy in round t (the accountant feeds them in
    :meth:`_Run.step`): the pulled arm's (bandit), the row (full information), the chosen
    set's (semi-bandit)."""
    if cls.feedback == "full":
        return [(t, a) for a in range(K)]
    return [(t, int(a)) for a in np.atleast_1d(option)]


def _visible(cls: type, rows: list[int], K: int, options: list[np.ndarray],
             sequence: tuple[int, ...]) -> list[tuple[int, int]]:
    """The cells whose rewards reach the policy along ``sequence``: round 0's row where the
    policy observes it (:meth:`_Run.round_zero`), then each round's (:func:`_seen`)."""
    out = [(0, a) for a in range(K)] if rows[0] == 0 else []
    for t, i in enumerate(sequence, start=1):
        out += _seen(cls, t, options[i], K)
    return out


def _binary_tables(rows: list[int], K: int, cells: list[tuple[int, int]]) -> np.ndarray:
    """Every table with entries in {0, 1} on ``cells`` and 0 elsewhere: (2^len(cells), rows, K)."""
    n = len(cells)
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    tables = np.zeros((2 ** n, len(rows), K))
    for j, (t, a) in enumerate(cells):
        tables[:, t - rows[0], a] = bits[:, j]
    return tables


def _describe(table: np.ndarray, cells: list[tuple[int, int]], rows: list[int]) -> str:
    return "rewards " + " ".join(f"x{t},{a}={int(table[t - rows[0], a])}" for t, a in cells)


def enumeration_size(name: str, *, K: int, T: int, variant: str | None = None,
                     policy_class: type | None = None, **params: Any) -> tuple[int, int]:
    """(action sequences, {0, 1} tables the policy can tell apart along each) at K and T."""
    run = _begin(name, epsilon=1.0, K=K, T=1, variant=variant, seed=0,
                 policy_class=policy_class, params=params, tables=None)
    cls, options = run.cls, _choices(run)
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    visible = len(_visible(cls, rows, K, options, (0,) * T))
    return len(options) ** T, 2 ** visible


def enumerate_traces(name: str, *, epsilon: float = 1.0, K: int = PROOF_K, T: int = PROOF_T,
                     variant: str | None = None, seed: int = 0,
                     policy_class: type | None = None, budget: int = ENUMERATION_BUDGET,
                     **params: Any) -> list[Trace] | None:
    """One trace per action sequence of length T (forced round by round), each run at once on
    every table with entries in {0, 1} on the V cells the policy sees along it (0 elsewhere: the
    policy cannot tell the other cells apart), 2^V tables in the runs of one policy; None when
    the sequences times the tables exceed ``budget`` or the policy refuses (raises on) a forced
    action after its start (rounds 1..K, where the reference's policies pull each arm once and
    refuse the other sequences: those are left out and named in the first trace's findings).

    The sequences are traced as a tree: a prefix is traced once and copied where the sequences
    branch (``copy.deepcopy`` of the policy, its generator and the tracer), and each round's
    seen cells are given their values in that round (:meth:`_Run.reveal`). A trace's ``moved``
    names the rounds and the table where its release schedule moved with the table."""
    common = dict(epsilon=epsilon, K=K, T=T, variant=variant, seed=seed,
                  policy_class=policy_class, params=params)
    sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                         policy_class=policy_class, **params)
    if sequences * tables > budget:
        return None
    root = _begin(name, **common, tables=None, slots=int(math.log2(tables)))
    cls, options = root.cls, _choices(root)
    out: list[Trace] = []
    refused, searched = 0, 0

    def describe(run: _Run) -> Callable[[int], str]:
        cells = list(run.tracer.cells)
        return lambda g: "rewards " + " ".join(
            f"x{t},{a}={int(run.bits[g, j])}" for j, (t, a) in enumerate(cells))

    def grow(run: _Run, prefix: tuple[int, ...]) -> None:
        nonlocal refused, searched
        t = len(prefix) + 1
        if run.diverged or t > T:
            for rest in itertools.product(range(len(options)), repeat=T - len(prefix)):
                sequence = prefix + rest
                if run.diverged:
                    searched += 1
                    found = _table_by_table(name, common, cls, options, sequence,
                                            search=searched <= _SEARCHED)
                else:
                    found = [run.result(run.policy.variant, describe(run))]
                for tr in found:
                    tr.sequence, tr.actions = sequence, [options[i] for i in sequence]
                out.extend(found)
            return
        for i, option in enumerate(options):
            child = _branch(run, prefix, replay) if i < len(options) - 1 else run
            try:
                child.reveal(_seen(cls, t, option, K))
                child.step(t, option)
            except (DPBanditsError, IndexError, ValueError):
                refused += len(options) ** (T - t)   # sequences the policy cannot follow
                if t > len(options):
                    raise _Late() from None
                continue
            grow(child, prefix + (i,))

    def replay(prefix: tuple[int, ...]) -> _Run:
        run = _begin(name, **common, tables=None, slots=root.bits.shape[1])
        for t, i in enumerate(prefix, start=1):
            run.reveal(_seen(cls, t, options[i], K))
            run.step(t, options[i])
        return run

    try:
        grow(root, ())
    except _Late:
        return None             # refused after its start: the enumeration does not cover it
    if not out:
        return None             # every sequence refused
    out.sort(key=lambda tr: tr.sequence)
    if refused:
        out[0].findings.insert(0, f"{refused} of {len(options) ** T} action sequences refused by "
                                  f"the policy in its start (rounds 1..{len(options)}): left out")
    if searched > _SEARCHED:
        out[0].findings.insert(0, f"{searched - _SEARCHED} more action sequences whose tables' "
                                  f"draw sizes diverged: traced on their first table only")
    return out


def _branch(run: _Run, prefix: tuple[int, ...], replay: Callable[[tuple[int, ...]], _Run]) -> _Run:
    """A copy of ``run`` to branch on; a policy whose state cannot be copied (a Python generator
    of public release points) is traced again along ``prefix``."""
    try:
        return copy.deepcopy(run)
    except TypeError:
        return replay(prefix)


class _Late(Exception):
    """A forced action refused after the policy's start."""


_SEARCHED = 4
"""Sequences whose tables' runs diverged that an enumeration traces table by table to name the
table (the others, once the bound is an estimate anyway, on their first table only)."""


def _table_by_table(name: str, common: dict[str, Any], cls: type, options: list[np.ndarray],
                    sequence: tuple[int, ...], search: bool = True) -> list[Trace]:
    """One action sequence whose tables' runs diverged in draw size (the lockstep cannot tell a
    divergence between two tables from one between a table and its probe), traced table by
    table up to the first table whose releases differ from table 0's, which is named (without
    ``search``, on table 0 only)."""
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, common["T"] + 1))
    cells = _visible(cls, rows, common["K"], options, sequence)
    tables = _binary_tables(rows, common["K"], cells)
    out: list[Trace] = []
    for g in range(tables.shape[0] if search else 1):
        run = _begin(name, **common, tables=tables[g:g + 1], cells=cells)
        try:
            for t, i in enumerate(sequence, start=1):
                run.step(t, options[i])
        except (DPBanditsError, IndexError, ValueError) as e:
            run.tracer.leak_all(f"the policy refused the sequence on this table ({e})")
            run.diverged = True
        out.append(run.result(run.policy.variant))
        if out[-1].signature() != out[0].signature():
            moved, first = _describe(tables[g], cells, rows), _describe(tables[0], cells, rows)
            out[-1].moved = (f"the releases moved with the table ({moved}; with {first} they "
                             f"differ)",)
            break
    return out


def _held_sequences(K: int, T: int) -> list[list[int]]:
    """Round-robin over the arms for m K rounds (m = 0, 1, 2, 4, ...), then one arm held: the
    trajectories on which a data-dependent schedule re-releases an idle arm most often."""
    out, m = [], 0
    while m * K <= T:
        for a in range(K):
            out.append([t % K for t in range(m * K)] + [a] * (T - m * K))
        m = 1 if m == 0 else 2 * m
    return out


def release_loss(release: Release, row: int) -> float:
    """The privacy loss of one release for a change of ``row`` (rules in the module docstring)."""
    s = release.sensitivity(row)
    if not np.any(s > 0):
        return 0.0
    if not release.fresh:
        return math.inf
    scale = np.asarray(release.scale, dtype=float)
    if release.kind == "argmax" and not release.values_read:
        spread = 2.0 * float(s.max()) / float(scale.min())
        if release.family == "laplace":
            return min(spread, float((s / scale).sum()))
        return spread
    if release.family != "laplace":
        return math.inf     # exponential or Gumbel noise on released values: unbounded ratio
    return float((s / scale).sum())


def row_losses(tr: Trace) -> dict[int, list[float]]:
    """For each row of the table, the loss of every release that contains it (leaks: inf)."""
    out: dict[int, list[float]] = {row: [] for row in tr.rows}
    for release in tr.releases:
        for row in release.rows():
            loss = release_loss(release, row)
            if loss > 0:
                out[row].append(loss)
    for row, _ in tr.leaks:
        out[row].append(math.inf)
    return out


def _compose(losses: list[float], delta: float) -> float:
    basic = float(sum(losses))
    if delta <= 0 or not losses or math.isinf(basic):
        return basic
    e = np.asarray(losses)
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
        for row, losses in row_losses(tr).items():
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
    findings = tuple(dict.fromkeys(list(findings) + [f for tr in traces for f in tr.findings]))
    return Accounting(epsilon, delta if delta > 0 else 0.0, theorem, worst, per_row,
                      sum(len(t.releases) for t in traces), n, assumption,
                      traces[0].K, traces[0].T, status, schedule, findings[:5], tables)


_SEEN = {"bandit": "reward sequences", "full": "tables", "semi": "observed reward patterns"}
"""What a proof enumerates per action sequence, by feedback kind: what the policy can see."""


def _actions(tr: Trace) -> str:
    return " ".join(str(np.asarray(a).tolist()) for a in tr.actions)


def _enumerated(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                policy_class: type | None, params: dict[str, Any],
                seeds: Iterable[int] = PROOF_SEEDS) -> tuple[list[Trace], list[str], str] | None:
    """Every action sequence on every {0, 1} table it can tell apart, on each noise seed:
    (traces, where the schedule moved along a sequence with the table or the seed, the scope's
    table class), or None when the enumeration exceeds the budget or a sequence is refused
    after the policy's start."""
    seeds = list(seeds)
    per_seed: list[list[Trace]] = []
    for seed in seeds:
        traces = enumerate_traces(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=seed,
                                  policy_class=policy_class, **params)
        if traces is None:
            return None
        per_seed.append(traces)
    moved = [f"sequence {_actions(tr)}, seed {tr.seed}: {m}" for traces in per_seed
             for tr in traces for m in tr.moved]
    first = {}
    for tr in per_seed[0]:
        first.setdefault(tr.sequence, tr)
    for traces in per_seed[1:]:
        for tr in traces:
            zero = first.get(tr.sequence)
            if zero is not None and zero.signature() != tr.signature():
                moved.append(f"sequence {_actions(tr)}: the releases moved with the noise seed "
                             f"(seed {zero.seed} and seed {tr.seed} differ)")
                first.pop(tr.sequence)          # one finding per sequence
    sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                         policy_class=policy_class, **params)
    cls = get(name) if policy_class is None else policy_class
    done = len({tr.sequence for tr in per_seed[0]})
    counted = f"{done} of {sequences}" if done < sequences else f"{sequences}"
    table_class = (f"{TABLES} ({counted} action sequences x {tables} {_SEEN[cls.feedback]}, "
                   f"{len(seeds)} noise seeds)")
    return [tr for traces in per_seed for tr in traces], moved, table_class


def proof_size(name: str, *, K: int = PROOF_K, variant: str | None = None,
               policy_class: type | None = None, budget: int = PROOF_BUDGET,
               **params: Any) -> tuple[int, int] | None:
    """(K, T) of the proof ``dpbandits list`` prints for algorithm ``name``: the largest T whose
    enumeration at K fits ``budget`` (T = 6 for a bandit at K = 2, 4 for full information, 5
    for the matroid policies on their default rank-1 matroid), or None when not even T = 1
    fits."""
    best = None
    for T in range(1, 32):
        sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                             policy_class=policy_class, **params)
        if sequences * tables > budget:
            break
        best = (K, T)
    return best


def traced_upper(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                 K: int | None = None, T: int | None = None,
                 seeds: Iterable[int] = TRACE_SEEDS, delta: float | None = None,
                 policy_class: type | None = None, enumerate: bool = True,
                 **params: Any) -> Accounting:
    """The accountant's bound for algorithm ``name``; ``delta`` defaults to the claim's (0 for
    pure claims). K, T and parameters not given come from :data:`TRACE_SETTINGS` or the
    defaults :data:`TRACE_K`, :data:`TRACE_T`.

    Where every action sequence times every {0, 1} table the policy can tell apart along it
    fits :data:`ENUMERATION_BUDGET` (and ``enumerate``), all are traced on each of
    :data:`PROOF_SEEDS`; if along each sequence the releases are the same on every table and
    seed, the bound is a :data:`PROOF` for every table with entries in {0, 1} at K and T.
    Otherwise it is an estimate from the traces on ``seeds``' tables, the held sequences
    (:func:`_held_sequences`) and, where enumerated, every sequence and table, and the findings
    say which sequence's schedule moved with which table or seed."""
    name = canonical(name)
    preset = dict(TRACE_SETTINGS.get(name, {}))
    K = preset.pop("K", TRACE_K) if K is None else K
    T = preset.pop("T", TRACE_T) if T is None else T
    preset.pop("K", None)
    preset.pop("T", None)
    params = {**preset, **params}
    if delta is None:
        claim = _claim(name, epsilon, variant, K, T, params)
        delta = claim.claimed.delta if claim.claimed is not None else 0.0
    common = dict(epsilon=epsilon, variant=variant, K=K, T=T, policy_class=policy_class)
    enumerated = (_enumerated(name, params=params, **common) if enumerate else None)
    if enumerated is not None and not enumerated[1]:
        return account(enumerated[0], delta, status=PROOF, tables=enumerated[2])
    traces = [trace(name, seed=s, **common, **params) for s in seeds]
    if (get(name) if policy_class is None else policy_class).feedback != "semi" and T <= HELD_T:
        for held in _held_sequences(K, T):
            try:
                traces.append(trace(name, seed=0, actions=held, **common, **params))
            except (DPBanditsError, IndexError, ValueError):
                pass            # a sequence the policy cannot follow
    if enumerated is None:
        return account(traces, delta)
    tables = f"{ESTIMATED_TABLES} and {enumerated[2]}"
    return account(traces + enumerated[0], delta, tables=tables, findings=enumerated[1])


def _claim(name: str, epsilon: float, variant: str | None, K: int, T: int,
           params: dict[str, Any]) -> PrivacyClaim:
    return make(name, K, epsilon=epsilon, rng=0, variant=variant, T=T, **params).claim


@dataclass(frozen=True)
class Bracket:
    """[audit lower bound, exact value where known, traced upper bound] beside the claim, with the
    upper bound's status (:data:`PROOF` or an estimate) and scope (K, T, table class)."""

    claimed: Guarantee | None
    lower: float | None
    exact: float | None
    upper: float
    upper_delta: float = 0.0
    notes: tuple[str, ...] = field(default=())
    status: str = PROOF
    scope: str = ""

    @property
    def verdict(self) -> str:
        """``refuted`` (the audit's lower bound or the exact value exceeds the claim), ``holds``
        (upper <= claim, a proof at the bracket's size), ``consistent`` (upper <= claim, an
        estimate: consistent with the accountant) or ``open``."""
        if self.claimed is None:
            return "non-private"
        eps = self.claimed.epsilon
        if (self.lower is not None and self.lower > eps) or (
                self.exact is not None and self.exact > eps * (1 + _TOLERANCE)):
            return "refuted"
        if self.upper <= eps * (1 + _TOLERANCE) and self.upper_delta <= self.claimed.delta:
            return "holds" if self.status == PROOF else "consistent"
        return "open"

    @property
    def gap(self) -> float:
        """upper - lower (the width of the bracket; the lower bound counts as 0 when absent)."""
        return self.upper - (self.lower or 0.0)

    def text(self) -> str:
        def fmt(x: float | None) -> str:
            return "-" if x is None else ("inf" if math.isinf(x) else f"{x:.3g}")
        by = ("the exact value" if self.exact is not None and self.exact > (self.claimed.epsilon
              if self.claimed else math.inf) * (1 + _TOLERANCE) and not (
              self.lower is not None and self.claimed and self.lower > self.claimed.epsilon)
              else "the audit")
        words = {"holds": "claim holds by the accountant",
                 "consistent": "claim consistent with the accountant",
                 "refuted": f"claim refuted by {by}",
                 "open": f"open: audit <= claim < accountant, gap {fmt(self.gap)}",
                 "non-private": "non-private"}
        where = f" ({self.status}: {self.scope})" if self.scope and self.verdict != "non-private" else ""
        return f"[{fmt(self.lower)}, {fmt(self.exact)}, {fmt(self.upper)}] {words[self.verdict]}{where}"


def bracket(claim: PrivacyClaim, upper: Accounting, lower: float | None = None,
            exact: float | None = None) -> Bracket:
    """The bracket of a claim from the accountant's bound and, where known, the audit's."""
    return Bracket(claim.claimed, lower, exact, upper.epsilon, upper.delta,
                   status=upper.status, scope=upper.scope)


def _parse_label(label: str) -> tuple[str, str | None, dict[str, Any]]:
    """(name, variant, params) of an audit label such as ``dp-ucb-int[corrected] v=1.5``; words
    without ``=`` (a white-box audit's ``white-box mu_tilde``) are not parameters."""
    head, *tokens = label.split(" ")
    name, _, rest = head.partition("[")
    params: dict[str, Any] = {}
    for token in tokens:
        key, is_param, value = token.partition("=")
        if not is_param:
            continue
        try:
            params[key] = int(value)
        except ValueError:
            try:
                params[key] = float(value)
            except ValueError:
                params[key] = value
    return name, (rest.rstrip("]") or None), params


def audit_bracket(result: dict, epsilon: float | None = None,
                  seeds: Iterable[int] = TRACE_SEEDS) -> Bracket | None:
    """The bracket of one audit result (``AuditResult.to_dict()``, a row of audit-claims.json):
    the audit's lower bound and exact value, and the accountant's bound traced at the audit's
    algorithm, variant, parameters, K and T. ``epsilon`` is the algorithm's input (default: the
    claimed epsilon). None for mechanisms that are not registered algorithms or make no claim."""
    from .reference.registry import ALGORITHMS

    name, variant, params = _parse_label(result["mechanism"])
    if name not in ALGORITHMS or result.get("claimed_epsilon") is None:
        return None
    epsilon = float(result["claimed_epsilon"]) if epsilon is None else float(epsilon)
    K, T = int(result["pair"]["K"]), int(result["pair"]["T"])
    delta = float(result.get("claimed_delta") or 0.0)
    upper = traced_upper(name, epsilon=epsilon, variant=variant, K=K, T=T, seeds=seeds,
                         delta=delta, **params)
    claimed = Guarantee(float(result["claimed_epsilon"]), delta)
    exact = result.get("exact_epsilon")
    return Bracket(claimed, float(result["epsilon_lower_bound"]),
                   None if exact is None else float(exact), upper.epsilon, upper.delta,
                   status=upper.status, scope=upper.scope)


def claim_bracket(name: str, variant: str | None = None,
                  audit: str = "docs/data/audit-claims.json") -> Bracket | None:
    """The bracket of algorithm ``name``'s variant from the audit results file ``audit`` (the
    row of that variant; its preset epsilon where the audit used one)."""
    import json
    from pathlib import Path

    cls = get(name)
    variant = cls.default_variant if variant is None else variant
    for row in json.loads(Path(audit).read_text()):
        row_name, row_variant, _ = _parse_label(row["mechanism"])
        if row_name == canonical(name) and (row_variant or cls.default_variant) == variant:
            preset = declaration(row_name, "audit_preset")
            return audit_bracket(row, preset.epsilon if preset is not None else None)
    raise DPBanditsError(f"no audit result for {name} [{variant}] in {audit}")
