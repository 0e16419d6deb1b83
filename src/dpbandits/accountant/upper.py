"""The traced upper bound: a proof at this size where every action sequence and {0, 1} table was
enumerated on every noise seed with an unmoved release schedule, otherwise an estimate from the
traces (:func:`traced_upper`; the statuses are defined in :mod:`dpbandits.accountant`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

import numpy as np

from ..errors import DPBanditsError
from ..reference.privacy import PrivacyClaim
from ..reference.registry import canonical, get, make
from . import coverage
from .composition import ESTIMATED_TABLES, PROOF, TABLES, UNIT_TABLES, Accounting, account
from .enumeration import PROOF_SEEDS, enumerate_traces, enumeration_size
from .tracing import (HELD_T, TRACE_K, TRACE_SEEDS, TRACE_SETTINGS, TRACE_T, Trace,
                      _held_sequences, trace)

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


def traced_upper(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                 K: int | None = None, T: int | None = None,
                 seeds: Iterable[int] = TRACE_SEEDS, delta: float | None = None,
                 policy_class: type | None = None, enumerate: bool = True,
                 params: dict[str, Any] | None = None, **more: Any) -> Accounting:
    """The accountant's bound for algorithm ``name``; ``delta`` defaults to the claim's (0 for
    pure claims). K, T and parameters not given come from :data:`TRACE_SETTINGS` or the
    defaults :data:`TRACE_K`, :data:`TRACE_T`.

    Where every action sequence times every {0, 1} table the policy can tell apart along it
    fits :data:`ENUMERATION_BUDGET` (and ``enumerate``), all are traced on each of
    :data:`PROOF_SEEDS`; if along each sequence the releases are the same on every table and
    seed, the bound is a :data:`PROOF` for every table with entries in {0, 1} at K and T.
    Otherwise it is an estimate from the traces on ``seeds``' tables, the held sequences
    (:func:`_held_sequences`) and, where enumerated, every sequence and table, and the findings
    say which sequence's schedule moved with which table or seed. The algorithm's parameters
    are ``params`` and the remaining keywords (``params`` for one named like an argument here,
    such as DP-UCB-INT's own ``delta``). At a size whose trace would not fit
    :data:`~dpbandits.accountant.tracing.TRACE_CELLS`, :class:`TooLargeToTrace` is raised."""
    name = canonical(name)
    params = {**(params or {}), **more}     # ``params`` may hold a parameter named delta
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
    cls = get(name) if policy_class is None else policy_class
    covered = coverage.Coverage(coverage.files_of(cls))
    with coverage.collecting(covered):
        enumerated = (_enumerated(name, params=params, **common) if enumerate else None)
        if enumerated is not None and not enumerated[1]:
            return _checked(account(enumerated[0], delta, status=PROOF, tables=enumerated[2]),
                            enumerated[0], covered)
        traces = [trace(name, seed=s, **common, **params) for s in seeds]
        if cls.feedback != "semi" and T <= HELD_T:
            for held in _held_sequences(K, T):
                try:
                    traces.append(trace(name, seed=0, actions=held, **common, **params))
                except (DPBanditsError, IndexError, ValueError):
                    pass            # a sequence the policy cannot follow
    if enumerated is None:
        return _checked(account(traces, delta), traces, covered)
    tables = f"{ESTIMATED_TABLES} and {enumerated[2]}"
    traces += enumerated[0]
    return _checked(account(traces, delta, tables=tables, findings=enumerated[1]), traces,
                    covered)


def _checked(accounting: Accounting, traces: list[Trace], covered: coverage.Coverage) -> Accounting:
    """The enumeration's bound as a proof only when the code was checked where it ran: every
    release's noise a declared law as drawn, every branch of the algorithm's code run under
    tracing; the table class is [0, 1] when no nonlinear map of a reward-derived value was met,
    else the enumerated {0, 1} tables (docs/accountant.md#what-a-proof-is)."""
    gaps = covered.gaps()
    laws = [f for tr in traces for f in tr.findings if "not a declared law as drawn" in f]
    nonlinear = list(dict.fromkeys(m for tr in traces for m in tr.nonlinear))
    reads = list(dict.fromkeys(f"the release schedule {r.split(': ', 1)[1]}"
                               for tr in traces for r in tr.schedule_reads))
    findings = ([f"branch never ran under tracing: {g}" for g in gaps] + laws + reads[:2]
                + [f"nonlinear: {m}: the statistic is not affine in the rewards; a proof "
                   f"covers the enumerated {{0, 1}} tables only" for m in nonlinear])
    tables = accounting.tables
    if accounting.proof and not nonlinear:
        tables = tables.replace(TABLES, UNIT_TABLES, 1)
    if accounting.proof and not reads:
        tables = tables.replace(f", {len(PROOF_SEEDS)} noise seeds)", ", every noise draw)")
    status = accounting.status
    if accounting.proof and (gaps or laws or reads):
        why = (f"{len(gaps)} branch{'es' if len(gaps) != 1 else ''} of the algorithm's code never "
               f"ran under tracing" if gaps else "a release's noise is not a declared law as drawn"
               if laws else "its release schedule reads released values: the noise is sampled "
               f"on {len(PROOF_SEEDS)} seeds, not every draw")
        status = f"estimate from {sum(tr.tables for tr in traces)} traces, not a proof ({why})"
    return replace(accounting, status=status, tables=tables,
                   findings=tuple(dict.fromkeys(findings + list(accounting.findings)))[:8])


def _claim(name: str, epsilon: float, variant: str | None, K: int, T: int,
           params: dict[str, Any]) -> PrivacyClaim:
    return make(name, K, epsilon=epsilon, rng=0, variant=variant, T=T, **params).claim
