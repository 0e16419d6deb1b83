"""The traced upper bound: a proof at this size where every action sequence and {0, 1} table was
enumerated on every noise seed with an unmoved release schedule, otherwise an estimate from the
traces, and beyond the enumeration, at any K, the bound by the per-arm schedule
(:func:`traced_upper`; the statuses are defined in :mod:`dpbandits.accountant`)."""

from __future__ import annotations

import inspect
import math
import os
from dataclasses import dataclass, replace
from typing import Any, Iterable

import numpy as np

from ..errors import DPBanditsError
from ..limits import check_arms, check_epsilon_range, check_horizon
from ..reference.privacy import PrivacyClaim
from ..reference.registry import canonical, get, make
from . import coverage
from .composition import (ESTIMATED_TABLES, PER_ARM, PROOF, TABLES, UNIT_TABLES, Accounting,
                          account)
from .composition import row_losses
from .enumeration import ENUMERATION_BUDGET, PROOF_SEEDS, enumerate_traces, enumeration_size
from .tracing import (HELD_T, TRACE_K, TRACE_SEEDS, TRACE_SETTINGS, TRACE_T, TooLargeToTrace,
                      Trace, _held_sequences, build_policy, trace)

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
    defaults :data:`TRACE_K`, :data:`TRACE_T`; epsilon, K and T are checked first
    (:func:`check_size`).

    Where every action sequence times every {0, 1} table the policy can tell apart along it
    fits :data:`ENUMERATION_BUDGET` (and ``enumerate``), all are traced on each of
    :data:`PROOF_SEEDS`; if along each sequence the releases are the same on every table and
    seed, the bound is a :data:`PROOF` for every table with entries in {0, 1} at K and T.
    Otherwise it is an estimate from the traces on ``seeds``' tables, the held sequences
    (:func:`_held_sequences`) and, where enumerated, every sequence and table, and the findings
    say which sequence's schedule moved with which table or seed. The algorithm's parameters
    are ``params`` and the remaining keywords (``params`` for one named like an argument here,
    such as DP-UCB-INT's own ``delta``). A bandit with a pure claim beyond the enumeration
    gets the bound by the per-arm schedule where it applies, at any K (:func:`_at_size`).
    At a size whose trace would not fit
    :data:`~dpbandits.accountant.tracing.TRACE_CELLS`, :class:`TooLargeToTrace` is raised."""
    name = canonical(name)
    params = {**(params or {}), **more}     # ``params`` may hold a parameter named delta
    preset = dict(TRACE_SETTINGS.get(name, {}))
    K = preset.pop("K", TRACE_K) if K is None else K
    T = preset.pop("T", TRACE_T) if T is None else T
    preset.pop("K", None)
    preset.pop("T", None)
    epsilon, K, T = check_size(name, epsilon=epsilon, K=K, T=T)
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
            found = NotAtSize(f"the linear forms could not run this code ({type(e).__name__}: "
                              f"{e})")
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


def check_size(name: str, *, epsilon: Any, K: Any, T: Any) -> tuple[float, int, int]:
    """epsilon, K and T checked once, at the accountant's door: a one-line
    :class:`~dpbandits.errors.DPBanditsError` naming the argument and its range."""
    return (check_epsilon_range(epsilon, algorithm=name), check_arms(K, "K"),
            check_horizon(T, "T"))


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


SMALL_KS = (2, 3)
"""The K of the enumerations that check the size-T mode at a K where none fits
(docs/accountant.md#any-k)."""


@dataclass(frozen=True)
class NotAtSize:
    """Why the size-T mode does not apply (the caller's bound is used, with this reason)."""

    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class _Small:
    """The cross-checks at one small size: the enumeration's bound, the linear forms' run with
    the dependence analysis on every enumerated sequence, the starts the policy accepts and the
    lines of the algorithm's code that ran under the analysis."""

    K: int
    T: int
    accounting: Accounting
    run: Any
    covered: coverage.Coverage
    starts: list[tuple[int, ...]]

    def at(self, K: int) -> str:
        """The small size as the findings name it (its T alone at the user's own K)."""
        return f"T = {self.T}" if self.K == K else f"K = {self.K}, T = {self.T}"


def _lines(covered: coverage.Coverage) -> set[tuple[str, int]]:
    return {(key[0], to) for key, arcs in covered.arcs.items() for _, to in arcs if to > 0}


def takes_horizon(cls: type) -> bool:
    """Whether the policy class takes the horizon T (``needs_horizon``, or a constructor
    argument named ``T`` or ``horizon``): then a proof at T is at T exactly; otherwise it
    covers every T' <= T by the prefix argument (docs/accountant.md#every-shorter-horizon)."""
    accepted = inspect.signature(cls.__init__).parameters
    return bool(getattr(cls, "needs_horizon", False)) or "T" in accepted or "horizon" in accepted


def horizons(cls: type) -> str:
    """The horizons a proof at T covers, as the scope says it."""
    return ("at T exactly (the policy takes T)" if takes_horizon(cls) else
            "every T' <= T (the policy takes no T)")


def _small_checks(name: str, *, K: int, epsilon: float, variant: str | None,
                  policy_class: type | None, params: dict[str, Any]) -> _Small | NotAtSize:
    """The enumeration at K and its small T, and the linear forms with the dependence analysis
    on every enumerated sequence, their costs checked cell by cell against the lockstep runs'."""
    from . import size as sized

    Ts = small_size(name, K=K, variant=variant, policy_class=policy_class, params=params)
    if Ts is None:
        return NotAtSize(f"no enumeration at K = {K} within {ENUMERATION_BUDGET} (sequence, "
                         f"table) pairs leaves two rounds after the start")
    early = _forms_follow(name, epsilon=epsilon, variant=variant, K=K, T=Ts,
                          policy_class=policy_class, params=params)
    if early is not None:
        return early
    small = traced_small(name, epsilon=epsilon, variant=variant, K=K, T=Ts,
                         policy_class=policy_class, params=params)
    if small is None:
        return NotAtSize(f"the enumeration at K = {K}, T = {Ts} does not apply (a refused "
                         f"sequence)")
    accounting, traces = small
    first = sorted((tr for tr in traces if tr.seed == PROOF_SEEDS[0]), key=lambda tr: tr.sequence)
    all_arms = [np.array([int(np.asarray(a).reshape(-1)[0]) for a in tr.actions]) for tr in first]
    seen = {tuple(arms.tolist()) for arms in all_arms}
    starts = sorted({key[:K] for key in seen})
    holds = {st + (a,) * (Ts - K): a for st in starts for a in range(K)}
    if not all(key in seen for key in holds):
        return NotAtSize(f"the policy refuses a sequence that holds one arm after its start at "
                         f"K = {K}, T = {Ts}")
    sequences, lockstep = [], []
    for tr, arms in zip(first, all_arms):
        key = tuple(arms.tolist())
        label = (sized.hold_label(key[:K], holds[key]) if key in holds
                 else "sequence " + " ".join(map(str, key)))
        sequences.append((label, arms))
        per_row = {row: sum(v) for row, v in row_losses(tr).items()}
        lockstep.append(np.array([per_row.get(t, 0.0) for t in range(1, Ts + 1)]))
    cls = get(name) if policy_class is None else policy_class
    covered = coverage.Coverage(coverage.files_of(cls))
    run = sized.symbolic_run(name, K=K, T=Ts, sequences=sequences, derive=True, covered=covered,
                             epsilon=epsilon, variant=variant, params=params,
                             policy_class=policy_class)
    got, want = run.cost[:, 1:], np.stack(lockstep)
    agree = sized._close(got, want)
    if run.problems():
        return NotAtSize(f"the linear forms' checks at K = {K}, T = {Ts} found: "
                         f"{run.problems()[0]}")
    if not agree.all():
        s, t = (int(v[0]) for v in np.nonzero(~agree))
        return NotAtSize(_unfollowed(sequences[s][0], K, Ts, t, int(sequences[s][1][t]),
                                     got[s, t], want[s, t]))
    return _Small(K, Ts, accounting, run, covered, starts)


def _unfollowed(label: str, K: int, T: int, t: int, arm: int, got: float, want: float) -> str:
    return (f"the linear forms do not follow this code: on {label} at K = {K}, T = {T}, cell "
            f"x{t + 1},{arm} costs {got:.4g} by the forms and {want:.4g} by the lockstep runs "
            f"(a value moved where the forms are not followed, such as np.asarray; "
            f"docs/accountant.md#what-the-tracer-cannot-see)")


_CONFIGURATION = (int, float, str, bool, type(None), np.integer, np.floating)
"""The values an instance attribute that ``act`` reads in the start may hold (its configuration,
as it was built)."""


def _fixed_start(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                 policy_class: type | None, params: dict[str, Any]
                 ) -> tuple[int, ...] | NotAtSize:
    """The actions of rounds 1..K when the policy fixes them: in those rounds ``act`` reads no
    instance attribute but its configuration (Python scalars that still hold the values they
    held when the policy was built: no array, no generator, no draw), checked on every read
    of two runs that observe rewards drawn at random, both runs taking the same action
    (docs/accountant.md#any-k); else why not."""
    cls = get(name) if policy_class is None else policy_class
    policy = build_policy(name, cls, policy_class, K=K, T=T, runs=2,
                          rng=np.random.default_rng(0), variant=variant, epsilon=epsilon,
                          params=params)
    state = object.__getattribute__(policy, "__dict__")
    built = {k: v for k, v in state.items() if isinstance(v, _CONFIGURATION)}
    reads: list[str] = []
    base = type(policy)

    def getattribute(self: Any, attr: str) -> Any:
        if reads and (attr == "__dict__" or attr in state):
            reads.append(attr)
        return base.__getattribute__(self, attr)

    policy.__class__ = type(base.__name__, (base,), {"__getattribute__": getattribute})
    rewards = np.random.default_rng(1)
    start = []
    try:
        for t in range(1, K + 1):
            reads[:] = ["act"]
            actions = np.asarray(policy.act(t)).reshape(-1)
            reads[:], read = [], reads[1:]
            moved = [r for r in read if r not in built or state.get(r) is not built[r]
                     and state.get(r) != built[r]]
            if moved:
                return NotAtSize(f"the start is not fixed at K = {K}: act at round {t} reads "
                                 f"self.{moved[0]}, which is not its configuration as built "
                                 f"(the per-arm schedule at a K beyond the enumeration needs "
                                 f"the actions of rounds 1..K fixed)")
            if actions.shape != (2,) or actions[0] != actions[1]:
                return NotAtSize(f"the start is not fixed at K = {K}: act at round {t} gives "
                                 f"{actions.tolist()} on two runs")
            start.append(int(actions[0]))
            policy.observe(t, actions, rewards.random(2))
    except (DPBanditsError, IndexError, ValueError, TypeError) as e:
        return NotAtSize(f"the start could not be run at K = {K} ({type(e).__name__}: {e})")
    finally:
        policy.__class__ = base
    return tuple(start)


def _at_size(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
             policy_class: type | None, params: dict[str, Any]) -> Accounting | NotAtSize:
    """The bound at a size the enumeration cannot reach, by the per-arm schedule
    (docs/accountant.md#proof-at-your-size): a :data:`PROOF` when the enumerations at the
    small sizes (the largest T at K within the budget; at a K where none fits, K = 2 and 3,
    docs/accountant.md#any-k) are proofs over [0, 1] tables and every noise draw, the linear
    forms give every enumerated sequence's cell costs exactly as the lockstep runs do, the
    per-arm lemma in the form the dependence analysis
    (:class:`~dpbandits.reference.locality.Locality`) derives (stream, or round where some
    state is updated in every slot) holds on every enumerated sequence and on the sequences
    traced at this size, the checks of the code found nothing at this size, the analysis
    found nothing at any size with every branch of the code run both ways under it at the
    small sizes, and, for an algorithm that takes no T, the bound is at least each small
    size's (and never when one is infinite); a :data:`PER_ARM` bound (exact for every action
    sequence given the lemma, not a proof) when all but the analysis holds; an estimate
    naming what failed otherwise. Why the size-T mode does not apply, when it does not (no
    small size, or the linear forms disagree with the lockstep runs: the caller's bound is
    used, with that finding)."""
    from . import size as sized

    common = dict(epsilon=epsilon, variant=variant, params=params, policy_class=policy_class)
    own = small_size(name, K=K, variant=variant, policy_class=policy_class, params=params)
    smalls: list[_Small] = []
    for k in (K,) if own is not None else [k for k in SMALL_KS if k < K]:
        small = _small_checks(name, K=k, **common)
        if isinstance(small, NotAtSize):
            return small
        smalls.append(small)
    if not smalls:
        return NotAtSize(f"no enumeration at K = {K} within {ENUMERATION_BUDGET} (sequence, "
                         f"table) pairs leaves two rounds after the start")
    cls = get(name) if policy_class is None else policy_class
    covered = None
    if own is None:
        start = _fixed_start(name, K=K, T=T, **common)
        if isinstance(start, NotAtSize):
            return start
        starts = [start]
        early = _forms_follow(name, K=K, T=min(T, K + 6), start=start, **common)
        if early is not None:
            return early
        covered = coverage.Coverage(coverage.files_of(cls))
    else:
        starts = smalls[0].starts
    at_size = sized.symbolic_run(name, K=K, T=T, sequences=sized.size_sequences(K, T, starts),
                                 derive=True, covered=covered, **common)
    findings, reasons, underived = _size_checks(at_size, smalls, K, T, cls, covered)
    if not findings and not underived:      # fail closed: the alignment replayed at this size
        from .replay import replay
        findings += replay(name, K=K, T=T, bound=sized.bound(at_size)[0], **common)
        reasons += ["the alignment replayed on sampled neighbouring pairs fails"] if findings else []
    return _stated(at_size, smalls, K, T, cls, findings, reasons, underived,
                   None if own is not None else starts[0])


def _size_checks(at_size: Any, smalls: list[_Small], K: int, T: int, cls: type,
                 covered: coverage.Coverage | None) -> tuple[list[str], list[str], list[str]]:
    """What stops a proof at size T: (findings that make the bound an estimate, the reasons its
    status names, what the dependence analysis did not derive)."""
    from . import size as sized

    form, why = sized.lemma(at_size)
    eps = sized.bound(at_size)[0]
    findings = at_size.problems()
    reasons = [f"the checks of the code at T = {T} found {len(findings)} "
               f"problem{'s' if len(findings) != 1 else ''}"] if findings else []
    underived: list[str] = []
    for small in smalls:
        at = small.at(K)
        form_small, why_small = sized.lemma(small.run)
        if form_small is None:
            findings += [f"at {at}: {w}" for w in why_small]
            reasons.append(f"the per-arm schedule fails at {at}")
        if form is None or form != form_small:
            fails = ([f"at T = {T}: {w}" for w in why] or
                     [f"at T = {T}: the per-arm schedule holds in the {form} form, at {at} in "
                      f"the {form_small} form"])
            findings += [f for f in fails if f not in findings]
            reason = f"the per-arm schedule fails at T = {T}"
            reasons += [] if reason in reasons else [reason]
        accounting = small.accounting
        if not accounting.proof or UNIT_TABLES not in accounting.tables \
                or "every noise draw" not in accounting.tables:
            findings.insert(0, f"at {at}: not a proof over [0, 1] tables and every noise draw "
                               f"({accounting.status}; {accounting.tables})")
            reasons.insert(0, f"the enumeration at {at} is not a proof over [0, 1] tables and "
                              f"every noise draw")
            findings += [f"at {at}: {f}" for f in accounting.findings]
        below = _below_small(eps, small, K, T, cls)
        findings += below
        reasons[:0] = ["the bound is below a small size's"] if below else []
        underived += ([f"at {at}: branch never ran in the dependence analysis: {g}"
                       for g in small.covered.gaps()]
                      + [f"at {at}: {f}" for f in small.run.locality or []])
    underived += [f"at T = {T}: {f}" for f in at_size.locality or []]
    underived += [f"the analysis derives the {s.run.derived_form} form at {s.at(K)} and the "
                  f"{at_size.derived_form} form at T = {T}" for s in smalls
                  if s.run.derived_form != at_size.derived_form]
    if covered is not None:
        underived += _unseen_lines(covered, smalls, K, T)
    derived = at_size.derived_form
    if derived is None or any(sized.check_lemma(r, derived) is not None
                              for r in [s.run for s in smalls] + [at_size]):
        underived.append(f"the lemma in the {derived} form the analysis derives fails on a "
                         f"traced sequence" if derived else "the analysis derives no form")
    return findings, reasons, underived


def _stated(at_size: Any, smalls: list[_Small], K: int, T: int, cls: type, findings: list[str],
            reasons: list[str], underived: list[str], start: tuple[int, ...] | None
            ) -> Accounting:
    """The bound at size T with its status, scope and assumption: a proof, a per-arm bound or
    an estimate (``start``: the fixed start, at a K beyond the enumeration)."""
    from . import size as sized

    eps, (row, _) = sized.bound(at_size)
    form, derived = sized.lemma(at_size)[0], at_size.derived_form
    n_small, n_size = sum(len(s.run.labels) for s in smalls), len(at_size.labels)
    small_at = " and ".join(s.at(K) for s in smalls)
    if not findings and not underived:
        status = PROOF
        holds = len(sized._holds(at_size.labels, at_size.sequences, K))
        how = ("after round {K} each observation reads and writes only its arm's slot, the "
               "round only in constant comparisons, the schedule from counts" if derived ==
               "stream" else "in every round every arm's counters take one item, its own "
               "reward when played and no reward otherwise, by a schedule of their counts "
               "that reads no action, no released value and no draw").format(K=K)
        sequences = "every action sequence" + ("" if start is None else
                    f" (its start {' '.join(map(str, start))} is fixed: act reads only t and its "
                    f"configuration in rounds 1..{K})")
        checked = (f"{small_at} and T = {T}" if start is None else
                   f"{', '.join(s.at(K) for s in smalls)} and K = {K}, T = {T}")
        tables = (f"{sequences}, {horizons(cls)}, {UNIT_TABLES}, every noise draw (per-arm "
                  f"schedule derived from the code{', round form' if derived == 'round' else ''}"
                  f": {how}; every line run at {checked} checked)")
        cell = ("its position in that arm's stream with the arm's count" if derived == "stream"
                else "its round")
        assumption = (f"each cell's cost is a function of its arm, the start and {cell} (the "
                      f"per-arm schedule lemma, {derived} form, derived from the code by the "
                      f"dependence analysis: docs/accountant.md#proof-at-your-size), and costs "
                      f"only accumulate, so the largest cost of a cell on the {holds} sequences "
                      f"that hold one arm bounds every sequence; noise laws and information "
                      f"flow checked on every line that ran at every size, every branch run "
                      f"both ways at {small_at}")
    elif not findings:
        status = (f"{PER_ARM} (a proof at {small_at} by enumeration; at this size a bound for "
                  f"every action sequence given the per-arm schedule lemma, which is checked on "
                  f"{n_small + n_size} sequences, not derived from the code: {underived[0]})")
        tables = (f"{UNIT_TABLES} (every action sequence given the per-arm schedule, {form} "
                  f"form: checked on {n_small} action sequences at {small_at} and {n_size} at "
                  f"this size; every noise draw)")
        position = ("position in that arm's stream (with the arm's count)" if form == "stream"
                    else "round")
        assumption = (f"each cell's cost is a function of its arm and its {position} (the "
                      f"per-arm schedule lemma, checked on every action sequence at {small_at}, "
                      f"where the bound is a proof by enumeration, and on {n_size} sequences at "
                      f"T = {T}); the largest cost of a cell on the sequences that hold one arm "
                      f"bounds every sequence; noise laws and information flow checked on every "
                      f"line that ran at every size, every branch run at {small_at}")
        findings = underived
    else:
        eps = max([eps, float(np.max(at_size.cost[:, 1:]))]
                  + [s.accounting.epsilon for s in smalls])
        row = None
        status = (f"estimate from the per-arm schedule at this size, not a proof "
                  f"({'; '.join(reasons[:2]) or findings[0][:100]})")
        tables = (f"tables with entries in [0, 1] on {n_size} traced action sequences "
                  f"(the per-arm schedule did not hold or a check failed)")
        assumption = (f"maximum over the cells of {n_size} action sequences traced at T = "
                      f"{T} with linear forms and the bounds at {small_at}; other sequences "
                      f"are not covered")
        findings = findings + underived
    rows = at_size.cost[:, 1:].max(axis=0)
    per_row = ({t + 1: float(c) for t, c in enumerate(rows) if c > 0} if T <= PER_ROW_T
               else {row: eps} if row is not None else {})
    return Accounting(eps, 0.0, "basic composition of each row's releases, parallel across "
                      "rows", row, per_row, at_size.releases, n_small + n_size, assumption, K, T,
                      status, "per-arm", tuple(_merged(findings)[:8]), tables)


def _merged(findings: list[str]) -> list[str]:
    """The findings with one line for a finding made at several small sizes
    (``at K = 2, T = 8 and K = 3, T = 5: ...``), in the order of their first appearance."""
    out: list[Any] = []
    first: dict[str, int] = {}
    for f in findings:
        at, sep, what = f.partition(": ")
        if not (sep and at.startswith("at K = ")):
            out.append(f)
        elif what in first:
            out[first[what]][0].append(at[3:])
        else:
            first[what] = len(out)
            out.append(([at[3:]], what))
    return [f if isinstance(f, str) else f"at {' and '.join(f[0])}: {f[1]}" for f in out]


def _below_small(eps: float, small: _Small, K: int, T: int, cls: type) -> list[str]:
    """The cross-check of the size-T bound against a small size's (docs/accountant.md#any-k):
    a finding when the small size's bound is infinite, or, for an algorithm that takes no T,
    above the size-T bound."""
    low = small.accounting.epsilon
    if math.isinf(low) and not math.isinf(eps):
        return [f"below the small size's bound: infinite at {small.at(K)}, {eps:.6g} at "
                f"K = {K}, T = {T} (never a proof at size T)"]
    if not takes_horizon(cls) and eps < low - _BELOW * (1.0 + low):
        return [f"below the small size's bound: {low:.6g} at {small.at(K)}, {eps:.6g} at "
                f"K = {K}, T = {T} (for an algorithm that takes no T the bound at T cannot be "
                f"below a shorter run's; the size-T analysis missed a cost)"]
    return []


_BELOW = 1e-9
"""Relative rounding allowed between the size-T bound and a small size's before the first is
called below the second (the same tolerance as the forms against the lockstep costs)."""


def _unseen_lines(covered: coverage.Coverage, smalls: list[_Small], K: int, T: int) -> list[str]:
    """Lines of the algorithm's code that ran at K, T but at no small size, where every branch
    had to run both ways under the analysis."""
    seen = set().union(*(_lines(s.covered) for s in smalls))
    new = sorted(_lines(covered) - seen)
    return [f"at K = {K}, T = {T}: {os.path.basename(f)}:{line} ran, which ran at no enumerated "
            f"size ({', '.join(s.at(K) for s in smalls)})" for f, line in new[:3]]


def _forms_follow(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
                  policy_class: type | None, params: dict[str, Any],
                  start: tuple[int, ...] | None = None) -> NotAtSize | None:
    """A quick first cross-check (before the enumeration, or at a K beyond it): on the
    sequences that hold one arm after ``start`` (default 0..K-1) and on round-robin, each cell's
    cost by the linear forms against the lockstep trace's; why they differ, or None."""
    from . import size as sized

    start = list(range(K)) if start is None else list(start)
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
    return NotAtSize(_unfollowed(sequences[s][0], K, T, t, int(sequences[s][1][t]), got[s, t],
                                 want[s, t]))


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
