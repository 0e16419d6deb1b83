"""Testers: turn runs of a mechanism on neighbouring tables into a lower bound on epsilon.

Selection, then test (audit recipes section 2). For every candidate pair, a *selection* sample
is drawn on both tables and split in two halves: the first half fits a score (an estimate of the
log-likelihood ratio ``log P1(o) / P0(o)`` of an output ``o``), the second half chooses the pair,
the direction and the threshold of the event ``{score > tau}`` (or ``{score < tau}``) that gives
the largest bound. Only then is a fresh *test* sample drawn on the chosen pair, and the one
chosen event is evaluated there: one hypothesis, so the Clopper-Pearson bound at level alpha is
valid as it stands (``hypotheses = 1``).

The distinguishers (features, scores, events) are in :mod:`~dpbandits.audit.scores`, the test
sample and its looks in :mod:`~dpbandits.audit.sequential`; this module runs the stages:
:func:`event_audit` (selection, test, result) and :func:`exact_audit`. Scores:

* ``histogram``: the plug-in log-ratio of the counts of each distinct output (features of the
  actions after the differing round), for outputs with few distinct values;
* ``whole-sequence histogram``: the same over whole action sequences, from round 1 (the action
  of the differing round says which arm's statistic the changed reward entered; an event over
  the joint pattern of actions at the rounds that read two released nodes can show both nodes'
  loss);
* ``logistic``: the linear predictor of a ridge-penalised logistic model (Newton's method,
  frequency weights on distinct feature rows) on features of the output;
* ``exact``: the exact log-likelihood ratio, for mechanisms whose trajectory probabilities are
  computable (the report-noisy-max family). Pairs are then ranked by their exact privacy loss
  with no sample at all, and every observed output also yields a *certificate*.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError
from ..pools import stop_pool
from .confidence import (epsilon_estimate, epsilon_lower_bound, hoeffding_lower_bound,
                         max_attainable_bound)
from .mechanism import Mechanism
from .pairs import Pair
from .result import AuditResult
from .selection import Screening, leading, stop_reason
from .scores import (NO_EVENT, Event, ExactScore, action_features, fitted_event, orient,
                     pair_privacy_loss)
from .drawing import drawn_together
from .sequential import SamplePlan, Tested, draw_test_scores, sequential_test

__all__ = ["action_features", "event_audit", "event_stages", "event_result", "exact_audit",
           "pair_privacy_loss", "SamplePlan", "Screening", "Selection", "EventStages"]


def _seeds(seed: int, count: int) -> list[int]:
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def _claim(mechanism: Mechanism) -> tuple[float | None, float, str]:
    claimed = mechanism.claimed
    if claimed is None:
        return None, 0.0, "row"
    return claimed.epsilon, claimed.delta, str(claimed.relation)


def _pair_event(mechanism: Mechanism, exact, index: int, pair: Pair, n_selection: int,
                seeds: tuple[int, int], alpha: float, claimed_delta: float):
    """One pair's part of step 1: its selection sample (n_selection runs a side), the scores
    fitted on the first half, and on the second half the score and threshold whose event gives
    the largest bound (the first fitted one on ties). Returns (event or None when no score could
    be fitted, the backends that ran). Depends only on its arguments, so it may run anywhere."""
    out0 = mechanism.sample(pair.D0, n_selection, seeds[0])
    out1 = mechanism.sample(pair.D1, n_selection, seeds[1])
    return (fitted_event(exact, index, pair, out0, out1, mechanism.K, alpha, claimed_delta),
            set(getattr(mechanism, "backends_used", ())))



class _OneBlasThread:
    """Within the block, the OpenBLAS that NumPy loaded runs its routines on one thread (the
    number it had is set back after). The scores' fits multiply small matrices many times; on
    a loaded machine OpenBLAS's threads wait for cores and the fits of one audit took 5.7 s
    instead of 0.05 s (18 pairs, a load of 8 on 2 cores). Nothing is changed where the library
    or its thread-count routines are not found (another BLAS, not Linux)."""

    _routines: tuple | None = None

    @classmethod
    def _found(cls) -> tuple:
        """(get, set) of the loaded OpenBLAS's thread count, or () when not found."""
        if cls._routines is None:
            cls._routines = ()
            try:
                import ctypes

                with open("/proc/self/maps") as maps:
                    paths = sorted({line.split()[-1] for line in maps
                                    if "openblas" in line.lower() and ".so" in line})
                for path in paths:
                    library = ctypes.CDLL(path)
                    for prefix, suffix in (("scipy_openblas", "64_"), ("openblas", "64_"),
                                           ("scipy_openblas", ""), ("openblas", "")):
                        get = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                        put = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                        if get is not None and put is not None:
                            cls._routines = (get, put)
                            return cls._routines
            except (OSError, AttributeError, ValueError, IndexError):
                cls._routines = ()
        return cls._routines

    def __enter__(self) -> "_OneBlasThread":
        routines = self._found()
        self._before = routines[0]() if routines else None
        if routines and self._before != 1:
            routines[1](1)
        return self

    def __exit__(self, *exc) -> None:
        routines = self._found()
        if routines and self._before is not None and self._before != 1:
            routines[1](self._before)


class _Workers:
    """Where an audit's pieces run: here, on local worker processes or on a Dask cluster.

    Only a mechanism that offers a one-core copy of itself (:meth:`Mechanism.worker_copy`) is
    spread; the others run here and take their parallelism inside ``sample``. ``map`` returns
    the results in the order of its jobs, wherever they ran.
    """

    def __init__(self, mechanism: Mechanism) -> None:
        wanted = getattr(mechanism, "parallelism", lambda: 1)()     # any object with ``sample``
        self.copy = getattr(mechanism, "worker_copy", lambda: None)() if wanted > 1 else None
        self.client = getattr(mechanism, "client", None) if self.copy is not None else None
        self.count = wanted if self.copy is not None else 1
        self._pool = None

    def __enter__(self) -> "_Workers":
        return self

    def __exit__(self, kind, *exc) -> None:
        if self._pool is not None:
            if kind is None:
                self._pool.shutdown(cancel_futures=True)
            else:                     # an interrupt or an error: end the workers now
                stop_pool(self._pool)

    def map(self, function: Callable, jobs: list[tuple]) -> list:
        if self.copy is None or len(jobs) < 2:
            return [function(*job) for job in jobs]
        if self.client is not None:
            futures = [self.client.submit(function, *job, pure=False, retries=2) for job in jobs]
            return self.client.gather(futures)
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.count)
        return [future.result() for future in [self._pool.submit(function, *job) for job in jobs]]


def _pair_events(mechanism: Mechanism, exact, pairs: list[Pair], indices: list[int], n: int,
                 seeds: list[int], alpha: float, claimed_delta: float,
                 progress: Callable[[str], None] | None, workers: _Workers,
                 overlap: bool = False, stage: str = "selection",
                 kept: dict | None = None) -> list[Event | None]:
    """Step 1 on the pairs ``indices``: each pair's event fitted on the first half of its
    selection sample (``n`` runs per side) and chosen on the second, in the order of
    ``indices`` (None for a pair where no score could be fitted). The pairs run side by side on
    ``workers`` (the same events); with ``overlap`` and one worker, each pair's fit runs beside
    the next pair's sample (:func:`_events_overlapped`, the same events; ``kept``: its
    outputs already drawn, extended there)."""
    side_by_side = workers.count > 1 and len(indices) > 1
    if overlap and not side_by_side:
        return _events_overlapped(mechanism, exact, pairs, indices, n, seeds, alpha,
                                  claimed_delta, progress, stage, kept)
    runner = workers.copy if side_by_side else mechanism     # one pair alone keeps its workers
    jobs = [(runner, exact, i, pairs[i], n, (seeds[2 * i], seeds[2 * i + 1]), alpha,
             claimed_delta) for i in indices]
    # side by side, every pair at once (each returns only its event); here, one after another
    batches = [jobs] if side_by_side else [[job] for job in jobs]
    events: list[Event | None] = []
    for batch in batches:
        if progress:
            last = batch[-1][2]
            progress(f"{stage}: pair {last + 1}/{len(pairs)} ({pairs[last].description})"
                     if len(batch) == 1 else
                     f"{stage}: {len(batch)} pairs on {workers.count} workers")
        for event, used in workers.map(_pair_event, batch):
            getattr(mechanism, "backends_used", set()).update(used)
            events.append(event)
    return events


def _best(events: list[Event | None]) -> Event:
    """The event with the largest selection bound (the earliest on ties); :data:`NO_EVENT` when
    none could be fitted."""
    best = NO_EVENT
    for event in events:
        if event is not None and (best is NO_EVENT or event.selection_bound > best.selection_bound):
            best = event
    return best


RUN_ROUNDS_SENT_TOGETHER = 100_000
"""Run-rounds of the pairs' samples sent in one go to a mechanism that takes many requests at
once (``sample_many_from``: a Python candidate in its host process; :func:`_events_overlapped`):
pairs are added to a group until their samples reach this many rounds in all (18 pairs of 500
runs per side at T = 16: groups of 7, 7 and 4; one pair per group at T = 8000). The host then
runs a group without waiting for this process between two samples, and the fits of one group
run beside the next group's runs. Results never depend on it; progress is reported per group."""


def _events_overlapped(mechanism: Mechanism, exact, pairs: list[Pair], indices: list[int],
                       n: int, seeds: list[int], alpha: float, claimed_delta: float,
                       progress: Callable[[str], None] | None, stage: str,
                       kept: dict | None = None) -> list[Event | None]:
    """:func:`_pair_events` group after group, each group's fits in a thread while the next
    group's runs are drawn: a mechanism that runs elsewhere (a candidate in its host process)
    leaves this process idle while it runs. A group is one pair, or
    pairs up to :data:`RUN_ROUNDS_SENT_TOGETHER` rounds of runs for a mechanism that takes many
    requests at once (their two samples per pair sent in one go). The events are returned in the pairs' order, so the
    choice is the one made one step after the other. ``kept`` maps a pair to the outputs it
    had already drawn from the same seeds (its screening), which are extended, not drawn again;
    the pairs' outputs drawn here are put there."""
    from concurrent.futures import ThreadPoolExecutor

    together = callable(getattr(mechanism, "sample_many_from", None))
    groups: list[list[int]] = []
    rounds = 0
    for i in indices:
        if not groups or not together or rounds >= RUN_ROUNDS_SENT_TOGETHER:
            groups.append([])
            rounds = 0
        groups[-1].append(i)
        before = (kept or {}).get(i, (None, None))
        rounds += sum(pairs[i].T * (n - (len(had) if had is not None and len(had) < n else 0))
                      for had in before)
    fits = []
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="audit-fit")
    try:
        for group in groups:
            if progress:
                progress(f"{stage}: pair {group[0] + 1}/{len(pairs)} ({pairs[group[0]].description})"
                         if len(group) == 1 else
                         f"{stage}: pairs {', '.join(str(i + 1) for i in group)} of {len(pairs)}")
            requests, group_seeds = [], []
            for i in group:
                before = (kept or {}).get(i, (None, None))
                requests += [(pairs[i].D0, n, before[0]), (pairs[i].D1, n, before[1])]
                group_seeds += [seeds[2 * i], seeds[2 * i + 1]]
            outputs = drawn_together(mechanism, requests, group_seeds)
            for k, i in enumerate(group):
                out0, out1 = outputs[2 * k], outputs[2 * k + 1]
                if kept is not None:
                    kept[i] = (out0, out1)
                fits.append(pool.submit(fitted_event, exact, i, pairs[i], out0, out1,
                                        mechanism.K, alpha, claimed_delta))
        return [fit.result() for fit in fits]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _select(mechanism: Mechanism, exact, pairs: list[Pair], n_selection: int, seeds: list[int],
            alpha: float, claimed: tuple[float | None, float], progress, workers: _Workers,
            overlap: bool, screening: Screening | None, attainable: float | None,
            violation: float = 2.0) -> "Selection":
    """Step 1: the selection stage, on every pair at ``n_selection`` runs per side, or in two
    stages with a ``screening`` (:mod:`~dpbandits.audit.selection`)."""
    claimed_eps, claimed_delta = claimed
    everything = list(range(len(pairs)))
    screen = screening.screen_size(n_selection, len(pairs)) if screening is not None else None
    if screen is None:
        best = _best(_pair_events(mechanism, exact, pairs, everything, n_selection, seeds, alpha,
                                  claimed_delta, progress, workers, overlap))
        return Selection(event=best, pair=pairs[best.pair_index], pairs=len(pairs),
                         n_selection=n_selection)
    assert screening is not None
    kept: dict = {}
    screened = _pair_events(mechanism, exact, pairs, everything, screen, seeds, alpha,
                            claimed_delta, progress, workers, overlap,
                            stage=f"selection (screening, {screen} runs per side)", kept=kept)
    leaders = leading(screened, screening.leaders)
    kept = {i: kept[i] for i in leaders if i in kept}
    stopped = stop_reason(_best(screened), claimed_eps, attainable, violation)
    if stopped:
        best, leaders, size = _best(screened), [], screen
    else:
        full = _pair_events(mechanism, exact, pairs, leaders, n_selection, seeds, alpha,
                            claimed_delta, progress, workers, overlap,
                            stage=f"selection (a leading pair, {n_selection} runs per side)",
                            kept=kept)
        best, size = _best(full), n_selection
    spent = len(pairs) * screen + len(leaders) * (n_selection - screen)
    bounds = ", ".join(f"{i + 1} ({screened[i].selection_bound:.3f})" if screened[i] is not None
                       else f"{i + 1} (no event)" for i in leading(screened, screening.leaders))
    note = (f"selection sample: {screen} runs per side on each of the {len(pairs)} candidate "
            f"pairs (screening), "
            + (f"then {n_selection} per side on the {len(leaders)} with the largest screening "
               f"bounds (pairs {bounds}; their first {screen} the screening's), the event "
               f"chosen among theirs" if not stopped else
               f"and no more: {stopped}")
            + f"; {spent} selection runs per side in all instead of {len(pairs) * n_selection} at "
            f"{n_selection} on every pair. The selection only chooses the pair and the event: "
            f"the bound comes from the test sample, drawn apart, so this moves no level")
    return Selection(event=best, pair=pairs[best.pair_index], pairs=len(pairs),
                     n_selection=size, screened=screen, leaders=tuple(leaders), spent=spent,
                     notes=(note,))


@dataclass(frozen=True, kw_only=True)
class Selection:
    """The selection stage's result: the chosen event and the pair it was chosen on, among
    ``pairs`` candidate pairs of ``n_selection`` runs per side each, or, with a screening
    (:mod:`~dpbandits.audit.selection`), of ``screened`` runs per side each and ``n_selection``
    on the leading pairs."""

    event: Event
    pair: Pair
    pairs: int
    n_selection: int
    """Runs per side of the chosen pair's selection sample."""
    screened: int = 0
    """Runs per side of every pair's screening (0: no screening, every pair had
    ``n_selection``)."""
    leaders: tuple[int, ...] = ()
    """The pairs carried from the screening to the full sample (empty: none, or no screening)."""
    spent: int = 0
    """Selection runs per side over every pair (0: ``pairs`` x ``n_selection``)."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class EventStages:
    """The stages of an event audit, before its result: the selection, the test, the exact model
    (None for a black box), the claim and the level, and the engine backends that ran."""

    selection: Selection
    tested: Tested
    exact: Any
    claimed: tuple[float | None, float, str]
    alpha: float
    backends: tuple[str, ...]
    label: str
    claim_status: str
    started: float


def event_audit(mechanism: Mechanism, pairs: list[Pair], *, n_selection: int = 20_000,
                n_test: int = 50_000, alpha: float = 0.05, seed: int = 0,
                progress: Callable[[str], None] | None = None,
                plan: SamplePlan | None = None,
                screening: Screening | None = None) -> AuditResult:
    """Black-box audit: scores fitted and events chosen on a selection sample, one event tested.

    Returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with probability at least
    1 - alpha (Clopper-Pearson, one hypothesis on the test sample). With a ``plan``
    (:class:`SamplePlan`) ``n_test`` is the most the test draws: the sample is sized from its
    power need and read in looks, the bound then at level alpha / looks at each look
    (``hypotheses`` = looks), valid at 1 - alpha whichever look it stops at. A ``screening``
    spends the selection sample in two stages (:mod:`~dpbandits.audit.selection`); the test and
    its level are the same. The stages are :func:`event_stages`, the result :func:`event_result`.
    """
    return event_result(event_stages(mechanism, pairs, n_selection=n_selection, n_test=n_test,
                                     alpha=alpha, seed=seed, progress=progress, plan=plan,
                                     screening=screening))


def event_stages(mechanism: Mechanism, pairs: list[Pair], *, n_selection: int = 20_000,
                 n_test: int = 50_000, alpha: float = 0.05, seed: int = 0,
                 progress: Callable[[str], None] | None = None,
                 plan: SamplePlan | None = None,
                 screening: Screening | None = None) -> EventStages:
    """The selection and the test of :func:`event_audit` (same arguments), each stage's result.
    With a ``screening`` (:class:`~dpbandits.audit.selection.Screening`) the selection sample is
    spent in two stages: every pair screened on a quarter of it, the leading pairs given all
    of it."""
    if not pairs:
        raise DPBanditsError("an audit needs at least one candidate pair")
    if n_selection // 2 < 10:
        raise DPBanditsError(f"n_selection must be at least 20, got {n_selection}")
    started = time.perf_counter()
    claimed_eps, claimed_delta, relation = _claim(mechanism)
    seeds = _seeds(seed, 2 * len(pairs) + 2)
    exact = mechanism.exact_model()
    with _Workers(mechanism) as workers, (_OneBlasThread() if plan is not None else nullcontext()):
        attainable = None
        if screening is not None and claimed_eps is not None:
            looks = plan.looks if plan is not None else 1
            attainable = max_attainable_bound(n_test, alpha, looks)
        selection = _select(mechanism, exact, pairs, n_selection, seeds, alpha,
                            (claimed_eps, claimed_delta), progress, workers, plan is not None,
                            screening, attainable, plan.violation if plan is not None else 2.0)
        best = selection.event
        if progress:
            progress(f"test: {best.describe()} on {selection.pair.description}")
        if plan is None:
            s0, s1 = draw_test_scores(mechanism, best, selection.pair, n_test,
                                      (seeds[-2], seeds[-1]), workers)
            tested = Tested(scores0=s0, scores1=s1)
        else:
            tested = sequential_test(mechanism, best, selection.pair, plan, n_test, alpha,
                                     claimed_eps, claimed_delta, (seeds[-2], seeds[-1]), workers,
                                     progress)
    return EventStages(selection=selection, tested=tested, exact=exact,
                       claimed=(claimed_eps, claimed_delta, relation), alpha=alpha,
                       backends=tuple(sorted(getattr(mechanism, "backends_used", ()))),
                       label=mechanism.label,
                       claim_status=getattr(getattr(mechanism, "claim", None), "status", ""),
                       started=started)


def event_result(stages: EventStages, *, notes: tuple[str, ...] = (),
                 counts: dict | None = None, backend: str = "") -> AuditResult:
    """The result of an event audit, built once from its stages: the bound on the test sample
    at level alpha over the test's hypotheses, the estimate, and for an exact model the
    certificate and the pair's exact loss. ``notes`` come before the test's, ``counts`` after
    the test's counts; ``backend`` is the engine's backend to record (empty: none)."""
    selection, tested = stages.selection, stages.tested
    best, pair, n_test = selection.event, selection.pair, tested.n
    claimed_eps, claimed_delta, relation = stages.claimed
    k0, k1 = tested.counts(best)
    kb, nb, ks, ns = orient(k0, k1, n_test, n_test, best.upper)
    bound = epsilon_lower_bound(kb, nb, ks, ns, stages.alpha, tested.hypotheses, claimed_delta)
    direction = "P1(S) vs P0(S)" if best.upper else "P0(S) vs P1(S)"
    certificate = exact_eps = None
    if stages.exact is not None:
        certificate = float(max(np.max(tested.scores1), np.max(-tested.scores0)))
        exact_eps = pair_privacy_loss(stages.exact, pair)
    return AuditResult(
        mechanism=stages.label, claimed_epsilon=claimed_eps, claimed_delta=claimed_delta,
        relation=relation, method="exact-score event" if stages.exact is not None else "event",
        epsilon_lower_bound=bound, alpha=stages.alpha, hypotheses=tested.hypotheses,
        n_selection=selection.n_selection, n_test=n_test,
        event=f"{best.describe()} ({direction})", pair=pair.to_dict(),
        counts={"in_S_D0": k0, "n_D0": n_test, "in_S_D1": k1, "n_D1": n_test,
                "candidate_pairs": selection.pairs, **tested.facts,
                **({"screened_runs": selection.screened, "leading_pairs": len(selection.leaders),
                    "selection_runs": selection.spent} if selection.screened else {}),
                **(counts or {})},
        seconds=time.perf_counter() - stages.started,
        epsilon_estimate=epsilon_estimate(kb, nb, ks, ns), certificate=certificate,
        exact_epsilon=exact_eps, notes=tuple(notes) + selection.notes + tested.notes,
        claim_status=stages.claim_status, backend=backend)


def exact_audit(mechanism: Mechanism, pairs: list[Pair], *, n: int = 20_000, alpha: float = 0.05,
                seed: int = 0) -> AuditResult:
    """Exact-likelihood audit: the pair with the largest exact loss, certificates from samples.

    The pair is chosen by computation (no sample). On ``n`` runs per side the certificate is the
    largest |L(o)| observed; the delta lower bound at the claimed epsilon is a Hoeffding bound on
    E[max(0, 1 - exp(eps - L(o)))] at alpha / 2 per direction.
    """
    model = mechanism.exact_model()
    if model is None:
        raise DPBanditsError(f"{mechanism.label} does not expose exact trajectory probabilities")
    start = time.perf_counter()
    claimed_eps, claimed_delta, relation = _claim(mechanism)
    losses = [pair_privacy_loss(model, p) for p in pairs]
    i = int(np.argmax(losses))
    pair = pairs[i]
    s0_seed, s1_seed = _seeds(seed, 2)
    score = ExactScore(model, pair)
    L1 = score(mechanism.sample(pair.D1, n, s1_seed))     # log P1/P0 on D1's outputs
    L0 = -score(mechanism.sample(pair.D0, n, s0_seed))    # log P0/P1 on D0's outputs
    certificate = float(max(L0.max(), L1.max()))
    delta_lb = None
    if claimed_eps is not None:
        with np.errstate(over="ignore"):
            terms = [np.maximum(0.0, 1.0 - np.exp(claimed_eps - L)) for L in (L0, L1)]
        delta_lb = max(hoeffding_lower_bound(float(t.mean()), n, alpha / 2) for t in terms)
    return AuditResult(
        mechanism=mechanism.label, claimed_epsilon=claimed_eps, claimed_delta=claimed_delta,
        relation=relation, method="exact", epsilon_lower_bound=0.0, alpha=alpha, hypotheses=2,
        n_selection=0, n_test=n, event="every observed trajectory (exact likelihood ratio)",
        pair=pair.to_dict(), counts={"n_D0": n, "n_D1": n, "candidate_pairs": len(pairs)},
        seconds=time.perf_counter() - start, certificate=certificate, exact_epsilon=losses[i],
        delta_lower_bound=delta_lb,
        claim_status=getattr(getattr(mechanism, "claim", None), "status", ""))

