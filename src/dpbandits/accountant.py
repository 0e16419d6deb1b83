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

* **proof at this size**: at small K and T (at most :data:`ENUMERATION_LIMIT` action sequences)
  :func:`traced_upper` enumerates every action sequence, forcing each one on the policy round by
  round, on two reward tables and two noise seeds; where the release schedule along every
  sequence is the same on both (it depends on the actions only, and the statistics' coefficients
  on the cells do not depend on the table), the maximum over the sequences bounds epsilon for
  every table with entries in [0, 1] at that K and T;
* **estimate from N traces, not a proof**: otherwise (larger sizes, or a schedule that moved with
  the table or the noise), the maximum over the traced trajectories: the natural ones on seeded
  tables and forced ones that hold one arm after a round-robin start.

Whether the release schedule depends on the data is derived, not declared: it is
``data-independent`` when the rounds, kinds, families, scales and sizes of the releases were the
same on every traced sequence and table (``Accounting.schedule``).
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from .errors import DPBanditsError
from .reference import noise
from .reference.noise import DivergedRuns, LockstepGenerator, Release, Tracer
from .reference.privacy import Guarantee, PrivacyClaim
from .reference.declarations import TraceSetting
from .reference.registry import Declared, canonical, declaration, get, make

__all__ = ["Trace", "Accounting", "Bracket", "trace", "enumerate_traces", "release_loss",
           "row_losses", "account", "traced_upper", "bracket", "audit_bracket", "claim_bracket",
           "STRUCTURE", "TRACE_SETTINGS", "TRACE_K", "TRACE_T", "TRACE_SEEDS", "PROOF_K", "PROOF_T",
           "ENUMERATION_LIMIT", "PROOF", "TABLES"]

TRACE_K = 3
"""Arms (base arms for matroids) of the default traces."""
TRACE_T = 32
"""Rounds of the default traces."""
TRACE_SEEDS = (0, 1, 2)
"""Seeds of the default traces (each seed draws its own reward table)."""

PROOF_K = 2
"""Arms of the traces on which ``dpbandits list`` enumerates every action sequence."""
PROOF_T = 6
"""Rounds of those traces."""
ENUMERATION_LIMIT = 256
"""Most action sequences enumerated (2^8, 3^5, 4^4); above it the bound is an estimate."""
HELD_T = 200
"""Longest horizon at which the held sequences are traced beside the seeded ones."""
PROOF = "proof at this size"
"""The status of a bound computed on every action sequence (module docstring)."""
TABLES = "any table in [0, 1] whose release schedule follows the actions alone (checked on 2 tables, 2 noise seeds)"
"""The table class of a proof at its size."""

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

    @property
    def proof(self) -> bool:
        """True when every action sequence was enumerated (a proof at this size)."""
        return self.status == PROOF

    @property
    def scope(self) -> str:
        """K, T and the table class the bound is stated for."""
        tables = TABLES if self.proof else "tables in [0, 1/2] from the trace seeds"
        return f"K = {self.K}, T = {self.T}, {tables}"

    def guarantee(self) -> Guarantee:
        return Guarantee(self.epsilon, self.delta)

    def summary(self) -> str:
        head = f"traced upper bound eps <= {self.epsilon:.4g}"
        if self.delta:
            head += f" at delta = {self.delta:.3g}"
        return f"{head} ({self.status} at {self.scope}; {self.theorem}; {self.assumption})"


def _table(rng: np.random.Generator, rows: int, K: int) -> np.ndarray:
    return rng.integers(0, 3, (rows, K)) / 4.0


class _Run:
    """One traced trajectory in progress: the policy on 1 + P lockstep runs, the tracer, the
    tables, and the actions so far. Copied (``copy.deepcopy``) where an enumeration branches."""

    def __init__(self, name: str, cls: type, policy: Any, tracer: Tracer, tables: np.ndarray,
                 rows: list[int], seed: int, params: dict[str, Any], epsilon: float, K: int,
                 T: int) -> None:
        self.name, self.cls, self.policy, self.tracer = name, cls, policy, tracer
        self.tables, self.rows, self.seed, self.params = tables, rows, seed, params
        self.epsilon, self.K, self.T = epsilon, K, T
        self.actions: list[np.ndarray] = []
        self.stopped = False
        self.forced = False

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
                if self.cls.feedback == "bandit":
                    feedback = x[np.arange(R), a]
                elif self.cls.feedback == "full":
                    feedback = x
                else:
                    feedback = np.take_along_axis(x, a, axis=1)
                self.policy.observe(t, a, feedback)
        except DivergedRuns as e:
            tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = True

    def round_zero(self) -> None:
        self.tracer.step = 0
        try:
            with noise.tracing(self.tracer):
                self.policy.observe(0, None, self.tables[:, 0, :])
        except DivergedRuns as e:
            self.tracer.leak_all(f"the lockstep runs diverged ({e})")
            self.stopped = True

    def result(self, variant: str) -> Trace:
        tr = self.tracer
        return Trace(self.name, variant, float(self.epsilon), self.K, self.T, dict(self.params),
                     self.seed, self.rows, list(tr.releases), set(tr.leaks), list(self.actions),
                     list(tr.findings), self.forced)


def _start(name: str, *, epsilon: float, K: int, T: int, variant: str | None, seed: int,
           table: np.ndarray | None, policy_class: type | None, params: dict[str, Any]) -> _Run:
    name = canonical(name)
    cls = get(name) if policy_class is None else policy_class
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    if table is None:
        table = _table(np.random.default_rng(seed), len(rows), K)
    table = np.asarray(table, dtype=float)
    if table.shape != (len(rows), K) or table.min() < 0 or table.max() > 1 - _H:
        raise DPBanditsError(f"table must have shape ({len(rows)}, {K}) with entries in "
                             f"[0, {1 - _H}]")
    cells = [(t, a) for t in rows for a in range(K)]
    R = 1 + len(cells)
    tables = np.broadcast_to(table, (R,) + table.shape).copy()
    for p, (t, a) in enumerate(cells, start=1):
        tables[p, t - rows[0], a] += _H
    tracer = Tracer(R, cells, _H)
    rng = LockstepGenerator(seed, R, tracer)
    if policy_class is None:
        policy = make(name, K, epsilon=epsilon, runs=R, rng=rng, variant=variant, T=T, **params)
    else:
        kwargs = dict(params, runs=R, rng=rng, variant=variant, epsilon=epsilon)
        if cls.needs_horizon:
            kwargs["T"] = T
        policy = cls(K, **kwargs)
    run = _Run(name, cls, policy, tracer, tables, rows, seed, dict(params), epsilon, K, T)
    if zero:
        run.round_zero()
    return run


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


def _sequences(run: _Run) -> int:
    return len(_choices(run)) ** run.T


def enumerate_traces(name: str, *, epsilon: float = 1.0, K: int = PROOF_K, T: int = PROOF_T,
                     variant: str | None = None, seed: int = 0, table: np.ndarray | None = None,
                     policy_class: type | None = None, limit: int = ENUMERATION_LIMIT,
                     **params: Any) -> list[Trace] | None:
    """One trace per action sequence of length T (each forced round by round), or None when
    there are more than ``limit`` sequences or the policy refuses (raises on) a forced action
    after its start (rounds 1..K, where the reference's policies pull each arm once and refuse
    the other sequences: those are left out and named in the first trace's findings)."""
    root = _start(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=seed, table=table,
                  policy_class=policy_class, params=params)
    if _sequences(root) > limit:
        return None
    out: list[Trace] = []
    options = _choices(root)
    refused, late = 0, 0
    for n, sequence in enumerate(itertools.product(range(len(options)), repeat=T)):
        run = root if n == 0 else _start(name, epsilon=epsilon, K=K, T=T, variant=variant,
                                         seed=seed, table=table, policy_class=policy_class,
                                         params=params)
        t = 0
        try:
            for t, i in enumerate(sequence, start=1):
                run.step(t, options[i])
        except (DPBanditsError, IndexError, ValueError):
            refused += 1        # a sequence the policy cannot follow
            late += t > len(options)
            continue
        out.append(run.result(run.policy.variant))
    if late or not out:
        return None             # refused after its start: the enumeration does not cover it
    if refused:
        out[0].findings.insert(0, f"{refused} of {len(options) ** T} action sequences refused by "
                                  f"the policy in its start (rounds 1..{len(options)}): left out")
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
            status: str | None = None) -> Accounting:
    """Compose traces row by row (basic, or the better of basic and advanced at ``delta``); the
    worst row over all traces is the bound. ``status`` defaults to an estimate from the traces
    (:func:`traced_upper` sets :data:`PROOF` when it enumerated every action sequence)."""
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
    if status is None:
        status = f"estimate from {len(traces)} traces, not a proof"
    if status == PROOF:
        assumption = (f"every one of {len(traces)} action sequences enumerated; release schedule "
                      f"{schedule}, the same on two tables and noise seeds")
    else:
        assumption = (f"maximum over {len(traces)} traced trajectories; release schedule "
                      f"{schedule} on them; other trajectories are not enumerated")
    findings = tuple(dict.fromkeys(f for tr in traces for f in tr.findings))
    return Accounting(epsilon, delta if delta > 0 else 0.0, theorem, worst, per_row,
                      sum(len(t.releases) for t in traces), len(traces), assumption,
                      traces[0].K, traces[0].T, status, schedule, findings[:5])


def _enumerated(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                policy_class: type | None, params: dict[str, Any]) -> tuple[list[Trace], bool] | None:
    """Every action sequence on two (table, seed) settings: (traces, whether their release
    schedules agreed sequence by sequence), or None when there are too many sequences."""
    first = enumerate_traces(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=0,
                             policy_class=policy_class, **params)
    if first is None:
        return None
    second = enumerate_traces(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=1,
                              policy_class=policy_class, **params)
    assert second is not None
    same = len(first) == len(second) and all(
        a.signature() == b.signature() for a, b in zip(first, second))
    return first + second, same


def traced_upper(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                 K: int | None = None, T: int | None = None,
                 seeds: Iterable[int] = TRACE_SEEDS, delta: float | None = None,
                 policy_class: type | None = None, enumerate: bool = True,
                 **params: Any) -> Accounting:
    """The accountant's bound for algorithm ``name``; ``delta`` defaults to the claim's (0 for
    pure claims). K, T and parameters not given come from :data:`TRACE_SETTINGS` or the
    defaults :data:`TRACE_K`, :data:`TRACE_T`.

    Where there are at most :data:`ENUMERATION_LIMIT` action sequences (and ``enumerate``), every
    one is traced on two tables and seeds; if their release schedules agree, the bound is a
    :data:`PROOF`. Otherwise it is an estimate from the traces on ``seeds``' tables, the held
    sequences (:func:`_held_sequences`) and, where enumerated, every sequence."""
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
    if enumerated is not None and enumerated[1]:
        return account(enumerated[0], delta, status=PROOF)
    traces = [trace(name, seed=s, **common, **params) for s in seeds]
    if (get(name) if policy_class is None else policy_class).feedback != "semi" and T <= HELD_T:
        for held in _held_sequences(K, T):
            try:
                traces.append(trace(name, seed=0, actions=held, **common, **params))
            except (DPBanditsError, IndexError, ValueError):
                pass            # a sequence the policy cannot follow
    if enumerated is not None:
        traces += enumerated[0]
    return account(traces, delta)


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
