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
from .composition import (ESTIMATED_TABLES, PER_ARM, PROOF, TABLES, UNIT_TABLES, Accounting,
                          account)
from .composition import row_losses
from .enumeration import ENUMERATION_BUDGET, PROOF_SEEDS, enumerate_traces, enumeration_size
from .tracing import (HELD_T, TRACE_K, TRACE_SEEDS, TRACE_SETTINGS, TRACE_T, TooLargeToTrace,
                      Trace, _held_sequences, trace)

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
    unused = None
    if enumerate and cls.feedback == "bandit" and delta <= 0 and not _fits(name, common, params):
        try:
            found = _at_size(name, params=params, **common)
        except (DPBanditsError, TypeError, ValueError, IndexError, AttributeError,
                RuntimeError) as e:     # code the linear forms cannot run (named, not a crash)
            found = f"the linear forms could not run this code ({type(e).__name__}: {e})"
        if isinstance(found, Accounting):
            return found
        unused = f"the per-arm schedule was not used: {found}"
    try:
        out = _traced(name, delta=delta, seeds=seeds, params=params, cls=cls,
                      enumerate=enumerate, **common)
    except TooLargeToTrace as e:
        raise TooLargeToTrace(f"{e}; {unused}" if unused else str(e)) from None
    if unused:
        out = replace(out, findings=(unused,) + tuple(out.findings)[:7])
    return out


def _traced(name: str, *, delta: float, seeds: Iterable[int], params: dict[str, Any],
            cls: type, enumerate: bool, epsilon: float, variant: str | None, K: int, T: int,
            policy_class: type | None) -> Accounting:
    """The lockstep bound: the enumeration's where it fits, else the estimate from traces."""
    common = dict(epsilon=epsilon, variant=variant, K=K, T=T, policy_class=policy_class)
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
    tracing, no interval bound below an enumerated change; the table class is [0, 1] when every
    nonlinear map of a reward-derived value that the enumeration met has an interval rule
    (docs/accountant.md#how-sensitivities-are-bounded), else the enumerated {0, 1} tables, and
    the scope names the first map without one (docs/accountant.md#what-a-proof-is)."""
    gaps = covered.gaps()
    laws = [f for tr in traces for f in tr.findings if "not a declared law as drawn" in f]
    defects = list(dict.fromkeys(f for tr in traces for f in tr.findings if ": defect: " in f))
    unruled = list(dict.fromkeys(m for tr in traces if tr.sequence for m in tr.nonlinear))
    other = [m for m in dict.fromkeys(m for tr in traces if not tr.sequence for m in tr.nonlinear)
             if m not in unruled]
    bounded = list(dict.fromkeys(w for tr in traces for r in tr.releases for w in r.bounded))
    reads = list(dict.fromkeys(f"the release schedule {r.split(': ', 1)[1]}"
                               for tr in traces for r in tr.schedule_reads))
    findings = (defects + [f"branch never ran under tracing: {g}" for g in gaps] + laws
                + reads[:2]
                + [f"no interval rule: {m}: its change over [0, 1] is not bounded; a proof "
                   f"covers the enumerated {{0, 1}} tables only" for m in unruled]
                + [f"nonlinear: {m}: the statistic is not affine in the rewards; a proof "
                   f"covers the enumerated {{0, 1}} tables only" for m in other])
    tables = accounting.tables
    if accounting.proof and not unruled and not other:
        tables = tables.replace(TABLES, UNIT_TABLES, 1)
    elif accounting.proof:
        tables = tables.replace(f"{TABLES} (", f"{TABLES} (not [0, 1]: "
                                f"{(unruled + other)[0]} has no interval rule; ", 1)
    if accounting.proof and not reads:
        tables = tables.replace(f", {len(PROOF_SEEDS)} noise seeds)", ", every noise draw)")
    status = accounting.status
    if accounting.proof and (gaps or laws or reads or defects):
        why = ("an interval bound is below an enumerated change: a defect of the accountant"
               if defects else
               f"{len(gaps)} branch{'es' if len(gaps) != 1 else ''} of the algorithm's code never "
               f"ran under tracing" if gaps else "a release's noise is not a declared law as drawn"
               if laws else "its release schedule reads released values: the noise is sampled "
               f"on {len(PROOF_SEEDS)} seeds, not every draw")
        status = f"estimate from {sum(tr.tables for tr in traces)} traces, not a proof ({why})"
    assumption = accounting.assumption
    if bounded:
        assumption += (f"; the changes of the statistics through {'; '.join(bounded[:3])} "
                       f"bounded by interval arithmetic over [0, 1] (each checked against the "
                       f"enumerated changes)")
    return replace(accounting, status=status, tables=tables, assumption=assumption,
                   findings=tuple(dict.fromkeys(findings + list(accounting.findings)))[:8])


def _claim(name: str, epsilon: float, variant: str | None, K: int, T: int,
           params: dict[str, Any]) -> PrivacyClaim:
    return make(name, K, epsilon=epsilon, rng=0, variant=variant, T=T, **params).claim


PER_ROW_T = 100_000
"""Largest T at which a bound by the per-arm schedule lists every row's cost in ``per_row``
(the largest over the traced sequences); above it, the worst row only."""


def _fits(name: str, common: dict[str, Any], params: dict[str, Any]) -> bool:
    """Whether the enumeration at K and T fits :data:`ENUMERATION_BUDGET`."""
    sequences, tables = enumeration_size(name, K=common["K"], T=common["T"],
                                         variant=common["variant"],
                                         policy_class=common["policy_class"], **params)
    return sequences * tables <= ENUMERATION_BUDGET


def small_size(name: str, *, K: int, variant: str | None, policy_class: type | None,
               params: dict[str, Any]) -> int | None:
    """The T of the enumeration that checks the per-arm lemma at K: two rounds or more after
    the start (rounds 1..K); at K = 2 the largest T that fits :data:`ENUMERATION_BUDGET`
    (T = 8), at K >= 3 T = K + 2 where it fits (K = 3: T = 5; the enumeration's time grows
    fast with K, and K = 4 does not fit); else None."""
    best = None
    for T in range(K + 2, 64 if K <= 2 else K + 3):
        sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                             policy_class=policy_class, **params)
        if sequences * tables > ENUMERATION_BUDGET:
            break
        best = T
    return best


def _at_size(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
             policy_class: type | None, params: dict[str, Any]) -> Accounting | str:
    """The bound at a size the enumeration cannot reach, by the per-arm schedule
    (docs/accountant.md#proof-at-your-size): a :data:`PROOF` when the enumeration at the
    small size (the largest T at K within the budget) is a proof over [0, 1] tables and every
    noise draw, the linear forms give every enumerated sequence's cell costs exactly as the
    lockstep runs do, the per-arm lemma in the form the dependence analysis
    (:class:`~dpbandits.reference.locality.Locality`) derives (stream, or round where some
    state is updated in every slot) holds on every enumerated sequence and on the sequences
    traced at this size, the checks of the code found nothing at this size, and the analysis
    found nothing at either size with every branch of the code run both ways under it at the
    small size; a
    :data:`PER_ARM` bound (exact for every action sequence given the lemma, not a proof) when
    all but the analysis holds; an estimate naming what failed otherwise. Why the size-T mode
    does not apply, when it does not (no small size, or the linear forms disagree with the
    lockstep runs: the caller's bound is used, with that finding)."""
    from . import size as sized

    Ts = small_size(name, K=K, variant=variant, policy_class=policy_class, params=params)
    if Ts is None:
        return (f"no enumeration at K = {K} within {ENUMERATION_BUDGET} (sequence, table) "
                f"pairs leaves two rounds after the start")
    early = _forms_follow(name, epsilon=epsilon, variant=variant, K=K, T=Ts,
                          policy_class=policy_class, params=params)
    if early is not None:
        return early
    small = traced_small(name, epsilon=epsilon, variant=variant, K=K, T=Ts,
                         policy_class=policy_class, params=params)
    if small is None:
        return f"the enumeration at K = {K}, T = {Ts} does not apply (a refused sequence)"
    accounting, traces = small
    first = [tr for tr in traces if tr.seed == PROOF_SEEDS[0]]
    sequences = []
    lockstep = []
    all_arms = [np.array([int(np.asarray(a).reshape(-1)[0]) for a in tr.actions])
                for tr in sorted(first, key=lambda tr: tr.sequence)]
    seen = {tuple(arms.tolist()) for arms in all_arms}
    starts = sorted({key[:K] for key in seen})
    holds = {st + (a,) * (Ts - K): a for st in starts for a in range(K)}
    if not all(key in seen for key in holds):
        return f"the policy refuses a sequence that holds one arm after its start at T = {Ts}"
    for tr, arms in zip(sorted(first, key=lambda tr: tr.sequence), all_arms):
        key = tuple(arms.tolist())
        label = (sized.hold_label(key[:K], holds[key]) if key in holds
                 else "sequence " + " ".join(map(str, key)))
        sequences.append((label, arms))
        per_row = {row: sum(v) for row, v in row_losses(tr).items()}
        lockstep.append(np.array([per_row.get(t, 0.0) for t in range(1, Ts + 1)]))
    common = dict(epsilon=epsilon, variant=variant, params=params, policy_class=policy_class)
    cls = get(name) if policy_class is None else policy_class
    covered = coverage.Coverage(coverage.files_of(cls))
    at_small = sized.symbolic_run(name, K=K, T=Ts, sequences=sequences, derive=True,
                                  covered=covered, **common)
    got = at_small.cost[:, 1:]
    want = np.stack(lockstep)
    agree = sized._close(got, want)
    if at_small.problems():
        return (f"the linear forms' checks at T = {Ts} found: {at_small.problems()[0]}")
    if not agree.all():
        s, t = (int(v[0]) for v in np.nonzero(~agree))
        return (f"the linear forms do not follow this code: on {sequences[s][0]} at T = {Ts}, "
                f"cell x{t + 1},{int(sequences[s][1][t])} costs {got[s, t]:.4g} by the forms "
                f"and {want[s, t]:.4g} by the lockstep runs (a value moved where the forms "
                f"are not followed, such as np.asarray; docs/accountant.md#what-the-tracer-"
                f"cannot-see)")
    at_size = sized.symbolic_run(name, K=K, T=T, sequences=sized.size_sequences(K, T, starts),
                                 derive=True, **common)
    form_small, why_small = sized.lemma(at_small)
    form, why = sized.lemma(at_size)
    eps, (row, _) = sized.bound(at_size)
    findings = at_size.problems()
    reasons = [f"the checks of the code at T = {T} found {len(findings)} "
               f"problem{'s' if len(findings) != 1 else ''}"] if findings else []
    if form_small is None:
        findings += [f"at T = {Ts}: {w}" for w in why_small]
        reasons.append(f"the per-arm schedule fails at T = {Ts}")
    if form is None or form != form_small:
        findings += [f"at T = {T}: {w}" for w in why]
        reasons.append(f"the per-arm schedule fails at T = {T}")
    n_small, n_size = len(sequences), len(at_size.labels)
    if not accounting.proof or UNIT_TABLES not in accounting.tables \
            or "every noise draw" not in accounting.tables:
        findings.insert(0, f"at T = {Ts}: not a proof over [0, 1] tables and every noise draw "
                           f"({accounting.status}; {accounting.tables})")
        reasons.insert(0, f"the enumeration at T = {Ts} is not a proof over [0, 1] tables and "
                          f"every noise draw")
        findings += [f"at T = {Ts}: {f}" for f in accounting.findings]
    underived = ([f"at T = {Ts}: branch never ran in the dependence analysis: {g}"
                  for g in covered.gaps()]
                 + [f"at T = {Ts}: {f}" for f in at_small.locality or []]
                 + [f"at T = {T}: {f}" for f in at_size.locality or []])
    derived = at_size.derived_form
    if derived != at_small.derived_form:
        underived.append(f"the analysis derives the {at_small.derived_form} form at T = {Ts} "
                         f"and the {derived} form at T = {T}")
    derived_holds = (derived is not None and sized.check_lemma(at_small, derived) is None
                     and sized.check_lemma(at_size, derived) is None)
    worst = float(np.max(at_size.cost[:, 1:]))
    # --- fail closed: the alignment replayed on sampled neighbouring pairs at this size ---
    if not findings and not underived and derived_holds:
        from .replay import replay
        findings += replay(name, epsilon=epsilon, variant=variant, K=K, T=T,
                           policy_class=policy_class, params=params, bound=eps)
    # --- end of the replay's call ---
    if not findings and not underived and derived_holds:
        status = PROOF
        holds = len(sized._holds(at_size.labels, at_size.sequences, K))
        how = ("after round {K} each observation reads and writes only its arm's slot, the "
               "round only in constant comparisons, the schedule from counts" if derived ==
               "stream" else "in every round every arm's counters take one item, its own "
               "reward when played and no reward otherwise, by a schedule of their counts "
               "that reads no action, no released value and no draw").format(K=K)
        tables = (f"every action sequence, {UNIT_TABLES}, every noise draw (per-arm schedule "
                  f"derived from the code{', round form' if derived == 'round' else ''}: {how}; "
                  f"every line run at T = {Ts} and T = {T} checked)")
        cell = ("its position in that arm's stream with the arm's count" if derived == "stream"
                else "its round")
        assumption = (f"each cell's cost is a function of its arm, the start and {cell} (the "
                      f"per-arm schedule lemma, {derived} form, derived from the code by the "
                      f"dependence analysis: docs/accountant.md#proof-at-your-size), and costs "
                      f"only accumulate, so the largest cost of a cell on the {holds} sequences "
                      f"that hold one arm bounds every sequence; noise laws and information "
                      f"flow checked on every line that ran at both sizes, every branch run "
                      f"both ways at T = {Ts}")
    elif not findings:
        status = (f"{PER_ARM} (a proof at T = {Ts} by enumeration; at this size a bound for every "
                  f"action sequence given the per-arm schedule lemma, which is checked on "
                  f"{n_small + n_size} sequences, not derived from the code: "
                  f"{underived[0] if underived else 'the lemma holds in the ' + str(form) + ' form, the analysis derives the ' + str(derived) + ' form'})")
        tables = (f"{UNIT_TABLES} (every action sequence given the per-arm schedule, {form} "
                  f"form: checked on {n_small} action sequences at T = {Ts} and {n_size} at "
                  f"this size; every noise draw)")
        assumption = (f"each cell's cost is a function of its arm and its "
                      f"{'position in that arm' + chr(39) + 's stream (with the arm' + chr(39) + 's count)' if form == 'stream' else 'round'}"
                      f" (the per-arm schedule lemma, checked on every action sequence at "
                      f"T = {Ts}, where the bound is a proof by enumeration, and on {n_size} "
                      f"sequences at T = {T}); the largest cost of a cell on the sequences "
                      f"that hold one arm bounds every sequence; noise laws and information "
                      f"flow checked on every line that ran at both sizes, every branch run "
                      f"at T = {Ts}")
        findings = underived
    else:
        eps = max(eps, worst)
        row = None
        status = (f"estimate from the per-arm schedule at this size, not a proof "
                  f"({'; '.join(reasons[:2]) or findings[0][:100]})")
        tables = (f"tables with entries in [0, 1] on {n_size} traced action sequences "
                  f"(the per-arm schedule did not hold or a check failed)")
        assumption = (f"maximum over the cells of {n_size} action sequences traced at T = "
                      f"{T} with linear forms; other sequences are not covered")
        findings += underived
    rows = at_size.cost[:, 1:].max(axis=0)
    per_row = ({t + 1: float(c) for t, c in enumerate(rows) if c > 0} if T <= PER_ROW_T
               else {row: eps} if row is not None else {})
    return Accounting(eps, 0.0, "basic composition of each row's releases, parallel across "
                      "rows", row, per_row,
                      at_size.releases, n_small + n_size, assumption, K, T, status,
                      "per-arm", tuple(findings[:8]), tables)


def _forms_follow(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                  policy_class: type | None, params: dict[str, Any]) -> str | None:
    """A quick first cross-check (before the enumeration): on the sequences that hold one arm
    after the start 0..K-1 and on round-robin, each cell's cost by the linear forms against
    the lockstep trace's; why they differ, or None (the enumeration's cross-check follows)."""
    from . import size as sized

    start = list(range(K))
    sequences = [(sized.hold_label(tuple(start), a), np.array(start + [a] * (T - K)))
                 for a in range(K)]
    sequences.append(("round-robin", np.array(start + [t % K for t in range(T - K)])))
    want = []
    try:
        for _, arms in sequences:
            tr = trace(name, epsilon=epsilon, K=K, T=T, variant=variant, seed=0,
                       policy_class=policy_class, actions=arms.tolist(), **params)
            per_row = {row: sum(v) for row, v in row_losses(tr).items()}
            want.append([per_row.get(t, 0.0) for t in range(1, T + 1)])
    except (DPBanditsError, IndexError, ValueError):
        return None             # a sequence the policy refuses: the enumeration decides
    run = sized.symbolic_run(name, epsilon=epsilon, K=K, T=T, variant=variant, params=params,
                             policy_class=policy_class, sequences=sequences)
    got, want = run.cost[:, 1:], np.array(want)
    agree = sized._close(got, want)
    if agree.all():
        return None
    s, t = (int(v[0]) for v in np.nonzero(~agree))
    return (f"the linear forms do not follow this code: on {sequences[s][0]} at T = {T}, cell "
            f"x{t + 1},{int(sequences[s][1][t])} costs {got[s, t]:.4g} by the forms and "
            f"{want[s, t]:.4g} by the lockstep runs (a value moved where the forms are not "
            f"followed, such as np.asarray; docs/accountant.md#what-the-tracer-cannot-see)")


def traced_small(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                 policy_class: type | None, params: dict[str, Any]
                 ) -> tuple[Accounting, list[Trace]] | None:
    """The enumeration's bound at K and T (a proof or an estimate, as :func:`traced_upper`
    gives it) with its traces; None when the enumeration does not apply."""
    common = dict(epsilon=epsilon, variant=variant, K=K, T=T, policy_class=policy_class)
    cls = get(name) if policy_class is None else policy_class
    covered = coverage.Coverage(coverage.files_of(cls))
    with coverage.collecting(covered):
        enumerated = _enumerated(name, params=params, **common)
    if enumerated is None:
        return None
    traces, moved, table_class = enumerated
    status = PROOF if not moved else None
    accounting = account(traces, 0.0, status=status, tables=table_class, findings=moved)
    return _checked(accounting, traces, covered), traces
