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
  never more than the Laplace mechanism on all values, sum_i s_i / scale;
* a value released without a fresh draw (no noise, or a noise value used twice), a published
  value, a random draw's parameters or an action that moves with a cell: infinite;
* per row, the releases that contain it compose by basic composition (pure claims) or, for an
  (epsilon, delta) claim, by the better of basic and heterogeneous advanced composition at the
  claim's delta (Dwork, Rothblum and Vadhan 2010; Kairouz et al. 2015 for the heterogeneous form,
  docs/errata.md#td-advanced-composition); rows are disjoint inputs, so the worst row is the
  algorithm's epsilon (parallel composition), and the actions are post-processing of the releases.

The bound holds for the traced trajectory: given the actions, the coupling that shifts each noise
by its statistic's change maps the run on one table to the same actions on its neighbour, at the
cost above. Where the release structure depends on the data (which arm a reward enters, DP-SE's
eliminations, lazy epochs), the worst trajectory is not enumerated: :func:`traced_upper` reports
the maximum over the traced trajectories and names it so (:data:`STRUCTURE` says, per algorithm,
whether its release schedule is data-independent, in which case one trace covers every output).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from .errors import DPBanditsError
from .reference import noise
from .reference.noise import LockstepGenerator, Release, Tracer
from .reference.privacy import Guarantee, PrivacyClaim
from .reference.declarations import TraceSetting
from .reference.registry import Declared, canonical, declaration, get, make

__all__ = ["Trace", "Accounting", "Bracket", "trace", "release_loss", "row_losses", "account",
           "traced_upper", "bracket", "audit_bracket", "claim_bracket", "STRUCTURE",
           "TRACE_SETTINGS", "TRACE_K", "TRACE_T", "TRACE_SEEDS"]

TRACE_K = 3
"""Arms (base arms for matroids) of the default traces."""
TRACE_T = 32
"""Rounds of the default traces."""
TRACE_SEEDS = (0, 1, 2)
"""Seeds of the default traces (each seed draws its own reward table)."""

TRACE_SETTINGS: Mapping[str, dict[str, Any]] = Declared("trace_setting", TraceSetting.settings)
"""Trace settings that replace the defaults: each algorithm's ``trace_setting`` declaration, where
the default trace would reach no release (DP-SE's first epoch at K = 2 and beta = 1 ends at
round 710, so its releases are traced at T = 720)."""

_H = 0.5            # the probe: a cell of a table with entries in {0, 1/4, 1/2} is raised by 1/2
_TOLERANCE = 1e-9

STRUCTURE: Mapping[str, str] = Declared("release_structure")
"""Algorithms whose release schedule does not depend on the data (their ``release_structure``
declaration). For every other algorithm the schedule follows the actions, and the traced bound
is the maximum over the traced trajectories."""


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

    def guarantee(self) -> Guarantee:
        return Guarantee(self.epsilon, self.delta)

    def summary(self) -> str:
        head = f"traced upper bound eps <= {self.epsilon:.4g}"
        if self.delta:
            head += f" at delta = {self.delta:.3g}"
        return f"{head} ({self.theorem}; {self.assumption})"


def _table(rng: np.random.Generator, rows: int, K: int) -> np.ndarray:
    return rng.integers(0, 3, (rows, K)) / 4.0


def trace(name: str, *, epsilon: float = 1.0, K: int = TRACE_K, T: int = TRACE_T,
          variant: str | None = None, seed: int = 0, table: np.ndarray | None = None,
          policy_class: type | None = None, **params: Any) -> Trace:
    """Trace one trajectory of algorithm ``name`` on a reward table (default: entries in
    {0, 1/4, 1/2} drawn from ``seed``), probing every cell; ``policy_class`` replaces the
    registered class (a planted change, for tests)."""
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
    actions = []
    run = np.arange(R)
    with noise.tracing(tracer):
        if zero:
            tracer.step = 0
            policy.observe(0, None, tables[:, 0, :])
        for t in range(1, T + 1):
            tracer.step = t
            a = policy.act(t)
            tracer.acted(a)
            actions.append(np.asarray(a)[0].copy())
            x = tables[:, t - rows[0], :]
            if cls.feedback == "bandit":
                feedback = x[run, a]
            elif cls.feedback == "full":
                feedback = x
            else:
                feedback = np.take_along_axis(x, a, axis=1)
            policy.observe(t, a, feedback)
    return Trace(name, policy.variant, float(epsilon), K, T, dict(params), seed, rows,
                 tracer.releases, tracer.leaks, actions)


def release_loss(release: Release, row: int) -> float:
    """The privacy loss of one release for a change of ``row`` (rules in the module docstring)."""
    s = release.sensitivity(row)
    if not np.any(s > 0):
        return 0.0
    if not release.fresh:
        return math.inf
    scale = np.asarray(release.scale, dtype=float)
    if release.kind == "argmax":
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


def account(traces: Trace | Iterable[Trace], delta: float = 0.0) -> Accounting:
    """Compose traces row by row (basic, or the better of basic and advanced at ``delta``); the
    worst row over all traces is the bound."""
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
    name = traces[0].name
    if name in STRUCTURE:
        assumption = f"release schedule {STRUCTURE[name]}"
    else:
        assumption = (f"maximum over {len(traces)} traced trajectories: the release schedule "
                      "follows the actions, other trajectories are not enumerated")
    return Accounting(epsilon, delta if delta > 0 else 0.0, theorem, worst, per_row,
                      sum(len(t.releases) for t in traces), len(traces), assumption)


def traced_upper(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                 K: int | None = None, T: int | None = None,
                 seeds: Iterable[int] = TRACE_SEEDS, delta: float | None = None,
                 policy_class: type | None = None, **params: Any) -> Accounting:
    """The accountant's bound for algorithm ``name`` over traces on ``seeds``' tables; ``delta``
    defaults to the claim's (0 for pure claims). K, T and parameters not given come from
    :data:`TRACE_SETTINGS` or the defaults :data:`TRACE_K`, :data:`TRACE_T`."""
    name = canonical(name)
    preset = dict(TRACE_SETTINGS.get(name, {}))
    K = preset.pop("K", TRACE_K) if K is None else K
    T = preset.pop("T", TRACE_T) if T is None else T
    preset.pop("K", None)
    preset.pop("T", None)
    params = {**preset, **params}
    traces = [trace(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=s,
                    policy_class=policy_class, **params) for s in seeds]
    if delta is None:
        claim = _claim(name, epsilon, variant, K, T, params)
        delta = claim.claimed.delta if claim.claimed is not None else 0.0
    return account(traces, delta)


def _claim(name: str, epsilon: float, variant: str | None, K: int, T: int,
           params: dict[str, Any]) -> PrivacyClaim:
    return make(name, K, epsilon=epsilon, rng=0, variant=variant, T=T, **params).claim


@dataclass(frozen=True)
class Bracket:
    """[audit lower bound, exact value where known, traced upper bound] beside the claim."""

    claimed: Guarantee | None
    lower: float | None
    exact: float | None
    upper: float
    upper_delta: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def verdict(self) -> str:
        """``holds`` by the accountant (upper <= claim), ``refuted`` (lower > claim) or ``open``."""
        if self.claimed is None:
            return "non-private"
        eps = self.claimed.epsilon
        if self.upper <= eps * (1 + _TOLERANCE) and self.upper_delta <= self.claimed.delta:
            return "holds"
        if self.lower is not None and self.lower > eps:
            return "refuted"
        return "open"

    @property
    def gap(self) -> float:
        """upper - lower (the width of the bracket; the lower bound counts as 0 when absent)."""
        return self.upper - (self.lower or 0.0)

    def text(self) -> str:
        def fmt(x: float | None) -> str:
            return "-" if x is None else ("inf" if math.isinf(x) else f"{x:.3g}")
        words = {"holds": "claim holds by the accountant", "refuted": "claim refuted by the audit",
                 "open": f"open: audit <= claim < accountant, gap {fmt(self.gap)}",
                 "non-private": "non-private"}
        return f"[{fmt(self.lower)}, {fmt(self.exact)}, {fmt(self.upper)}] {words[self.verdict]}"


def bracket(claim: PrivacyClaim, upper: Accounting, lower: float | None = None,
            exact: float | None = None) -> Bracket:
    """The bracket of a claim from the accountant's bound and, where known, the audit's."""
    return Bracket(claim.claimed, lower, exact, upper.epsilon, upper.delta)


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
                   None if exact is None else float(exact), upper.epsilon, upper.delta)


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
