"""Tracing stage: one trajectory of a registered algorithm with the noise source in tracing mode
(:class:`Trace`, :func:`trace`), the forced action sequences and the held ones, and the default
trace settings (the accountant's reference text is in :mod:`dpbandits.accountant`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ..errors import DPBanditsError
from ..reference import noise, sight
from ..reference.noise import DivergedRuns, LockstepGenerator, Release, Tracer
from ..reference.declarations import TraceSetting
from ..reference.registry import Declared, canonical, get, make
from . import coverage
from .lockstep import _H, _TableGenerator, _TableTracer

TRACE_K = 3
"""Arms (base arms for matroids) of the default traces."""
TRACE_T = 32
"""Rounds of the default traces."""
TRACE_SEEDS = (0, 1, 2)
"""Seeds of the default traces (each seed draws its own reward table)."""
TRACE_CELLS = 60_000_000
"""Most table cells one trace holds across its lockstep runs (1 + P runs of the table, one per
probed cell: about K^2 T^2; 480 MB of floats). DP-SE's audit setting, K = 2, T = 2740, holds 30
million; larger sizes raise :class:`TooLargeToTrace`."""


class TooLargeToTrace(DPBanditsError):
    """The lockstep trace at this size would not fit :data:`TRACE_CELLS`: the accountant gives
    no bound here."""


HELD_T = 200
"""Longest horizon at which the held sequences are traced beside the seeded ones."""

TRACE_SETTINGS: Mapping[str, dict[str, Any]] = Declared("trace_setting", TraceSetting.settings)
"""Trace settings that replace the defaults: each algorithm's ``trace_setting`` declaration, where
the default trace would reach no release (DP-SE's first epoch at K = 2 and beta = 1 ends at
round 710, so its releases are traced at T = 720)."""

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
    nonlinear: tuple[str, ...] = ()
    """Nonlinear maps of reward-derived values the trace met, with their lines."""
    schedule_reads: tuple[str, ...] = ()
    """Reads of released values that can steer the release schedule (the noise probe's: in
    ``observe``, or anywhere when the policy releases while it acts)."""
    leak_sites: tuple[tuple[int, tuple[tuple[int, int], ...], str], ...] = ()
    """(round, cells, what) of each leak found on this trace (the facts of its findings)."""

    def schedule(self) -> tuple:
        """Rounds, kinds, families, scales and sizes of the releases (not the cells they cover)."""
        return tuple((r.step, r.kind, r.family, tuple(np.round(r.scale, 12).tolist()))
                     for r in self.releases)

    def signature(self) -> tuple:
        """The releases with the cells they cover and the leaks: equal on two tables when the
        statistics' coefficients do not depend on the table."""
        return (tuple(r.signature() for r in self.releases), tuple(sorted(self.leaks)))


def _table(rng: np.random.Generator, rows: int, K: int) -> np.ndarray:
    return rng.integers(0, 3, (rows, K)) / 4.0


class _Start:
    """The fingerprints of the state outside the policy object at the start of a traced run
    (:class:`~dpbandits.reference.sight.Outside`), shared by the run's copies (an enumeration's
    branches). At the end of each trace the policy's own code's module globals and class
    attributes and what the policy holds are compared; every root (the other modules' globals
    too) at the end of the 1st, 2nd, 4th, 8th, ... trace of the run. Once a change is found,
    the later traces of the same run report it without fingerprinting again."""

    def __init__(self, policy: Any) -> None:
        self.outside = sight.Outside(policy)
        self.prints = self.outside.snapshot()
        self.found: list[str] = []
        self.ends = 0

    def __deepcopy__(self, memo) -> "_Start":
        return self

    def changed(self, policy: Any) -> list[str]:
        """What differs from the start in ``policy``'s outside state (the first change found
        in any copy of the run, once found)."""
        if not self.found:
            self.ends += 1
            self.outside.policy = policy        # the same roots; this copy's own objects
            near = self.ends & (self.ends - 1) != 0     # every root at a power of two
            after = self.outside.snapshot(near)
            self.found = sight.Outside.changed({k: self.prints.get(k) for k in after}, after)
        return self.found


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
        self.outside: _Start | None = None

    def reveal(self, cells: list[tuple[int, int]]) -> None:
        """The next seen cells of an enumeration's tree: table g's value of the j-th seen cell is
        bit j of g, its probe moves it to the other end of [0, 1] (+1 from 0, -1 from 1)."""
        tracer = self.tracer
        assert isinstance(tracer, _TableTracer)
        runs = self.tables.reshape((tracer.groups, tracer.size) + self.tables.shape[1:])
        for t, a in cells:
            j, r = self.revealed, t - self.rows[0]
            bit = self.bits[:, j]
            h = np.where(bit > 0, -1.0, 1.0)      # the whole range: to the other end
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
            with noise.tracing(tracer), np.errstate(all="ignore"), coverage.recording():
                noise.watch(self.policy)
                tracer.phase = "act"
                a = np.asarray(self.policy.act(t))
                tracer.phase = "observe"
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
                noise.watch(self.policy)
                self.policy.observe(t, a, np.asarray(feedback).view(noise.Watched))
        except DivergedRuns as e:
            tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = self.diverged = True

    def round_zero(self) -> None:
        self.tracer.step = 0
        try:
            with noise.tracing(self.tracer), coverage.recording():
                noise.watch(self.policy)
                self.policy.observe(0, None, np.asarray(self.tables[:, 0, :]).view(noise.Watched))
        except DivergedRuns as e:
            self.tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = self.diverged = True

    def result(self, variant: str, describe: Callable[[int], str] = str) -> Trace:
        """The trace; ``describe`` names a table by its group, where the schedule moved."""
        tr = self.tracer
        groups = getattr(tr, "groups", 1)
        moved = tuple(dict.fromkeys(f"{what} moved with the table ({describe(g)})"
                                    for g, what in getattr(tr, "moved", ())))
        if self.outside is not None:
            changed = self.outside.changed(self.policy)
            if changed:     # the runs compare this policy's state only: not a proof
                moved += (f"state outside the policy object changed during the trace: "
                          f"{', '.join(changed[:3])}{' and more' if len(changed) > 3 else ''} "
                          f"(the analysis does not follow it: docs/accountant.md#fail-closed)",)
        return Trace(self.name, variant, float(self.epsilon), self.K, self.T, dict(self.params),
                     self.seed, self.rows, list(tr.releases), set(tr.leaks), list(self.actions),
                     list(tr.findings), self.forced, groups, moved,
                     nonlinear=tuple(tr.nonlinear_maps),
                     schedule_reads=tuple(note for phase, note in tr.noise_reads
                                          if phase == "observe" or tr.released_in_act),
                     leak_sites=tuple(tr.leak_sites))



def build_policy(name: str, cls: type, policy_class: type | None, *, K: int, T: int, runs: int,
                 rng: Any, variant: str | None, epsilon: float, params: dict[str, Any]) -> Any:
    """The traced policy: the registered algorithm ``name``, or ``policy_class`` (given T when
    it needs the horizon), built for ``runs`` runs on the tracing generator ``rng``."""
    if policy_class is None:
        policy = make(name, K, epsilon=epsilon, runs=runs, rng=rng, variant=variant, T=T,
                      **params)
    else:
        kwargs = dict(params, runs=runs, rng=rng, variant=variant, epsilon=epsilon)
        if cls.needs_horizon:
            kwargs["T"] = T
        policy = cls(K, **kwargs)
    tracer = getattr(rng, "tracer", None)
    for held in sight.own_generators(policy, rng):
        if tracer is not None:      # a finding of the trace: the bound is then an estimate
            tracer.findings.append(f"round 0: {sight.OUTSIDE_DRAW} (a random generator held "
                                   f"by the policy beside the one it was given: {held}): not "
                                   f"a declared law as drawn, nor coupled across the "
                                   f"neighbouring runs")
    return policy

def _begin(name: str, *, epsilon: float, K: int, T: int, variant: str | None, seed: int,
           policy_class: type | None, params: dict[str, Any],
           tables: Any, cells: list[tuple[int, int]] | None = None, slots: int = 0) -> _Run:
    """A traced run of ``name`` on ``tables``: None (one table with entries in {0, 1/4, 1/2}
    drawn from ``seed``, probed at +1/2), one table with entries in [0, 1/2] (probed at +1/2),
    or a stack (G, rows, K) of tables with entries in {0, 1} (each probed across the whole
    range, +1 from 0 and -1 from 1, so that a probe is the largest change of a cell). ``cells`` are the probed cells (default
    every cell; an enumeration probes only the cells the policy sees). With ``slots`` = V > 0,
    the 2^V tables whose V seen cells take every value in {0, 1}, the cells not yet known: each
    is given by :meth:`_Run.reveal` in the round the policy sees it (an enumeration's tree)."""
    name = canonical(name)
    cls = get(name) if policy_class is None else policy_class
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    if slots:
        cells = [(-1, -1)] * slots + [noise.NOISE_PROBE]
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
            if (t, a) == noise.NOISE_PROBE:
                h[:, p] = 1.0           # its table is its group's: the value is not used
            elif a >= 0:
                h[:, p] = np.where(tables[:, t - rows[0], a] > 0.5, -1.0, 1.0)
    G, S = tables.shape[0], 1 + len(cells)
    held = G * S * tables.shape[1] * tables.shape[2]
    if held > TRACE_CELLS:
        raise TooLargeToTrace(f"a trace of {name} at K = {K}, T = {T} would hold {held:.3g} table "
                              f"cells across its {G * S} lockstep runs (at most {TRACE_CELLS:.0e})")
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
    policy = build_policy(name, cls, policy_class, K=K, T=T, runs=R, rng=rng, variant=variant,
                          epsilon=epsilon, params=params)
    run = _Run(name, cls, policy, tracer, runs, rows, seed, dict(params), epsilon, K, T)
    if slots:
        run.bits = ((np.arange(2 ** slots)[:, None] >> np.arange(slots)[None, :]) & 1).astype(float)
        if zero:
            run.reveal([(0, a) for a in range(K)])
    if zero:
        run.round_zero()
    run.outside = _Start(policy)
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


def _held_sequences(K: int, T: int) -> list[list[int]]:
    """Round-robin over the arms for m K rounds (m = 0, 1, 2, 4, ...), then one arm held: the
    trajectories on which a data-dependent schedule re-releases an idle arm most often."""
    out, m = [], 0
    while m * K <= T:
        for a in range(K):
            out.append([t % K for t in range(m * K)] + [a] * (T - m * K))
        m = 1 if m == 0 else 2 * m
    return out
