"""Testers: turn runs of a mechanism on neighbouring tables into a lower bound on epsilon.

Selection, then test (audit recipes section 2). For every candidate pair, a *selection* sample
is drawn on both tables and split in two halves: the first half fits a score (an estimate of the
log-likelihood ratio ``log P1(o) / P0(o)`` of an output ``o``), the second half chooses the pair,
the direction and the threshold of the event ``{score > tau}`` (or ``{score < tau}``) that gives
the largest bound. Only then is a fresh *test* sample drawn on the chosen pair, and the one
chosen event is evaluated there: one hypothesis, so the Clopper-Pearson bound at level alpha is
valid as it stands (``hypotheses = 1``).

Scores:

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

import math
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from ..errors import DPBanditsError
from ..pools import stop_pool
from .confidence import epsilon_estimate, epsilon_lower_bound, hoeffding_lower_bound
from .mechanism import Mechanism
from .pairs import Pair
from .result import AuditResult

__all__ = ["action_features", "event_audit", "exact_audit", "pair_privacy_loss", "SamplePlan"]

_WINDOW = 12          # rounds after the differing round whose actions enter the features
_THRESHOLDS = 64      # candidate thresholds per score and direction
_HISTOGRAM_MAX = 4096  # distinct outputs up to which the histogram score is used


def action_features(outputs: np.ndarray, step: int, K: int, window: int = _WINDOW) -> np.ndarray:
    """Features of action sequences after round ``step``: the one-hot actions of the next
    ``window`` rounds and the share of every arm over all later rounds. Real-valued outputs
    (white-box statistics, ndim 2 with float dtype) are returned as they are."""
    if outputs.dtype.kind == "f":
        return outputs.reshape(outputs.shape[0], -1)
    after = outputs[:, step:]
    n, rounds = after.shape[0], after.shape[1]
    if rounds == 0:
        return np.zeros((n, 1))
    onehot = np.zeros((n, rounds) + ((K,) if after.ndim == 2 else (K,)), dtype=np.float32)
    idx = np.arange(n)[:, None]
    if after.ndim == 2:
        onehot[idx, np.arange(rounds)[None, :], after] = 1.0
    else:  # super arms: (n, rounds, k) -> multi-hot over the K base arms
        for c in range(after.shape[2]):
            onehot[idx, np.arange(rounds)[None, :], after[:, :, c]] = 1.0
    shares = onehot.mean(axis=1)
    return np.concatenate([onehot[:, :window].reshape(n, -1), shares], axis=1)


# --- scores -----------------------------------------------------------------------------------

_WHOLE = "whole-sequence histogram"


def _whole(outputs: np.ndarray) -> np.ndarray:
    """Whole action sequences (every round, not only those after the differing one) as rows."""
    return outputs.reshape(outputs.shape[0], -1)


def _row_keys(F: np.ndarray) -> np.ndarray:
    F = np.ascontiguousarray(F)
    return F.view(np.dtype((np.void, F.dtype.itemsize * F.shape[1]))).ravel()


def _fit_histogram(F0: np.ndarray, F1: np.ndarray) -> Callable[[np.ndarray], np.ndarray] | None:
    keys0, keys1 = _row_keys(F0), _row_keys(F1)
    values, inverse = np.unique(np.concatenate([keys0, keys1]), return_inverse=True)
    if values.size > _HISTOGRAM_MAX:
        return None
    c0 = np.bincount(inverse[:keys0.size], minlength=values.size)
    c1 = np.bincount(inverse[keys0.size:], minlength=values.size)
    score = np.log((c1 + 0.5) / (keys1.size + 1.0)) - np.log((c0 + 0.5) / (keys0.size + 1.0))
    return _HistogramScore(dict(zip(values.tolist(), score.tolist())))


class _HistogramScore:
    """The plug-in log-ratio of a row's counts (0 for a row never seen in the fit)."""

    def __init__(self, table: dict) -> None:
        self.table = table

    def __call__(self, F: np.ndarray) -> np.ndarray:
        return np.array([self.table.get(k, 0.0) for k in _row_keys(F).tolist()])


class _WholeSequenceScore:
    """A histogram score over whole action sequences."""

    def __init__(self, histogram: _HistogramScore) -> None:
        self.histogram = histogram

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self.histogram(_whole(outputs))


class _LogisticScore:
    """The linear predictor of a fitted logistic model on standardised features."""

    def __init__(self, keep: np.ndarray, mean: np.ndarray, scale: np.ndarray,
                 coef: np.ndarray) -> None:
        self.keep, self.mean, self.scale, self.coef = keep, mean, scale, coef

    def __call__(self, X: np.ndarray) -> np.ndarray:
        Zx = (X[:, self.keep].astype(float) - self.mean) / self.scale
        return self.coef[0] + Zx @ self.coef[1:]


_RIDGE = 1.0
"""Ridge penalty (on the standardised coefficients, not the intercept) of the logistic score: it
keeps the fit finite when some feature pattern occurs on one table only (complete separation,
common for sparse one-hot actions), where an unpenalised fit runs to infinity."""


def _fit_logistic(F0: np.ndarray, F1: np.ndarray) -> Callable[[np.ndarray], np.ndarray] | None:
    """The linear predictor of a ridge-penalised logistic model of "from D1" on the features.

    Fitted by Newton's method with a backtracking line search on distinct feature rows with
    frequency weights; the penalty makes the objective strictly convex, so the fit always
    converges (25 steps at most; it stops when a step moves no coefficient by more than 1e-8).
    Any score is valid for the audit, whose bound comes from a separate test sample: the fit only
    decides how well the chosen event separates the tables.
    """
    F = np.concatenate([F0, F1]).astype(float)
    y = np.concatenate([np.zeros(len(F0)), np.ones(len(F1))])
    keep = F.std(axis=0) > 0
    if not keep.any():
        return None
    mean, scale = F[:, keep].mean(axis=0), F[:, keep].std(axis=0)
    Z = (F[:, keep] - mean) / scale
    rows, weights = np.unique(np.column_stack([Z, y]), axis=0, return_counts=True)
    coef = _newton_logistic(np.column_stack([np.ones(len(rows)), rows[:, :-1]]), rows[:, -1],
                            weights.astype(float))
    return None if coef is None else _LogisticScore(keep, mean, scale, coef)


def _newton_logistic(A: np.ndarray, y: np.ndarray, w: np.ndarray, steps: int = 25):
    """Coefficients minimising sum_i w_i [log(1 + e^{eta_i}) - y_i eta_i] + (ridge / 2) |b|^2,
    eta = A b (column 0 of A is the unpenalised intercept); None if the solve fails."""
    penalty = np.full(A.shape[1], _RIDGE)
    penalty[0] = 0.0

    def objective(b: np.ndarray) -> float:
        eta = A @ b
        return float(w @ (np.logaddexp(0.0, eta) - y * eta) + 0.5 * penalty @ (b * b))

    b = np.zeros(A.shape[1])
    current = objective(b)
    for _ in range(steps):
        p = 0.5 * (1.0 + np.tanh(0.5 * (A @ b)))          # the logistic function, overflow-free
        gradient = A.T @ (w * (p - y)) + penalty * b
        hessian = (A * (w * p * (1.0 - p))[:, None]).T @ A + np.diag(penalty)
        hessian[0, 0] += 1e-12 * max(1.0, float(w.sum()))  # an intercept the data never moves
        try:
            direction = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while t > 1e-6:
            trial = b - t * direction
            value = objective(trial)
            if value <= current:
                break
            t /= 2
        else:
            break
        moved = float(np.max(np.abs(trial - b)))
        b, current = trial, value
        if moved < 1e-8:
            break
    return b if np.all(np.isfinite(b)) else None


# --- events -----------------------------------------------------------------------------------

@dataclass
class _Event:
    score_name: str
    score: Callable[[np.ndarray], np.ndarray]
    threshold: float
    upper: bool          # event {score > threshold} (else {score < threshold})
    pair_index: int
    selection_bound: float
    selection_frequency: float = 0.0
    """The event's frequency on the table where it is more likely, in the selection sample's
    second half: an estimate, used only to size the test sample (:class:`SamplePlan`)."""

    def member(self, s: np.ndarray) -> np.ndarray:
        return s > self.threshold if self.upper else s < self.threshold

    def describe(self) -> str:
        side = ">" if self.upper else "<"
        return f"{self.score_name} score {side} {self.threshold:.6g}"


def _orient(k_in_d0: int, k_in_d1: int, n0: int, n1: int, upper: bool):
    """An event with larger probability under D1 (upper) or D0 (lower) as (k_big, n_big, k_small, n_small)."""
    return (k_in_d1, n1, k_in_d0, n0) if upper else (k_in_d0, n0, k_in_d1, n1)


def _best_threshold(s0: np.ndarray, s1: np.ndarray, alpha: float, delta: float):
    """The bound, threshold and direction whose event gives the largest bound on these scores,
    and the event's frequency on the table where it is more likely (0 when no event gives a
    positive bound)."""
    pooled = np.unique(np.concatenate([s0, s1]))
    if pooled.size > _THRESHOLDS:
        pooled = np.unique(np.quantile(pooled, np.linspace(0, 1, _THRESHOLDS)))
    cuts = np.concatenate([[pooled[0] - 1.0], (pooled[:-1] + pooled[1:]) / 2, [pooled[-1] + 1.0]])
    s0s, s1s = np.sort(s0), np.sort(s1)
    above0 = s0.size - np.searchsorted(s0s, cuts, side="right")
    above1 = s1.size - np.searchsorted(s1s, cuts, side="right")
    below0 = np.searchsorted(s0s, cuts, side="left")
    below1 = np.searchsorted(s1s, cuts, side="left")
    best = (0.0, float(cuts[-1]), True, 0.0)
    for upper, k0s, k1s in ((True, above0, above1), (False, below0, below1)):
        a = alpha / 2
        kb, nb, ks, ns = _orient(k0s, k1s, s0.size, s1.size, upper)
        lo = np.where(kb > 0, stats.beta.ppf(a, np.maximum(kb, 1), nb - kb + 1), 0.0)
        hi = np.where(ks < ns, stats.beta.ppf(1 - a, ks + 1, np.maximum(ns - ks, 1)), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds = np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300) / hi), 0.0)
        i = int(np.argmax(bounds))
        if bounds[i] > best[0]:
            best = (float(bounds[i]), float(cuts[i]), upper, float(kb[i]) / nb)
    return best


def _seeds(seed: int, count: int) -> list[int]:
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def _claim(mechanism: Mechanism) -> tuple[float | None, float, str]:
    claimed = mechanism.claimed
    if claimed is None:
        return None, 0.0, "row"
    return claimed.epsilon, claimed.delta, str(claimed.relation)


def _reads_outputs(score_name: str) -> bool:
    """Whether a score reads the raw outputs (exact, whole sequences) rather than the features."""
    return score_name.startswith("exact") or score_name == _WHOLE


def _fitted_scores(exact, pair: Pair, out0: np.ndarray, out1: np.ndarray, F0: np.ndarray,
                   F1: np.ndarray, half: int) -> list[tuple[str, Callable]]:
    """The scores fitted on the first half of one pair's selection sample: the exact
    log-likelihood ratio where the mechanism has one; otherwise the histogram (discrete outputs),
    the logistic model, and the histogram of whole action sequences (discrete outputs)."""
    if exact is not None:
        return [("exact log-likelihood-ratio", _ExactScore(exact, pair))]
    scorers: list[tuple[str, Callable]] = []
    discrete = out0.dtype.kind != "f"
    for name, fit in (("histogram", _fit_histogram), ("logistic", _fit_logistic)):
        if name == "histogram" and not discrete:
            continue
        score = fit(F0[:half], F1[:half])
        if score is not None:
            scorers.append((name, score))
    if discrete:                    # events over whole action sequences, round 1 on
        score = _fit_histogram(_whole(out0[:half]), _whole(out1[:half]))
        if score is not None:
            scorers.append((_WHOLE, _WholeSequenceScore(score)))
    return scorers


class _Never:
    """The score of the event that never occurs."""

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.zeros(len(outputs))


_NO_EVENT = _Event("none (no score could be fitted)", _Never(), 0.0, True, 0, 0.0)
"""The event chosen when no score could be fitted on any pair: it never occurs, so the test
counts 0 on both tables and the audit reports that it could not test."""


def _pair_event(mechanism: Mechanism, exact, index: int, pair: Pair, n_selection: int,
                seeds: tuple[int, int], alpha: float, claimed_delta: float):
    """One pair's part of step 1: its selection sample (n_selection runs a side), the scores
    fitted on the first half, and on the second half the score and threshold whose event gives
    the largest bound (the first fitted one on ties). Returns (event or None when no score could
    be fitted, the backends that ran). Depends only on its arguments, so it may run anywhere."""
    out0 = mechanism.sample(pair.D0, n_selection, seeds[0])
    out1 = mechanism.sample(pair.D1, n_selection, seeds[1])
    return (_fitted_event(exact, index, pair, out0, out1, mechanism.K, alpha, claimed_delta),
            set(getattr(mechanism, "backends_used", ())))


def _fitted_event(exact, index: int, pair: Pair, out0: np.ndarray, out1: np.ndarray, K: int,
                  alpha: float, claimed_delta: float) -> _Event | None:
    """The event chosen on one pair's selection sample (:func:`_pair_event`), from its outputs."""
    half = len(out0) // 2
    F0 = action_features(out0, pair.step, K)
    F1 = action_features(out1, pair.step, K)
    best = None
    for name, score in _fitted_scores(exact, pair, out0, out1, F0, F1, half):
        raw = _reads_outputs(name)
        source0 = out0[half:] if raw else F0[half:]
        source1 = out1[half:] if raw else F1[half:]
        bound, threshold, upper, frequency = _best_threshold(score(source0), score(source1),
                                                             alpha, claimed_delta)
        if best is None or bound > best.selection_bound:
            best = _Event(name, score, threshold, upper, index, bound, frequency)
    return best


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


def _select_event(mechanism: Mechanism, exact, pairs: list[Pair], n_selection: int,
                  seeds: list[int], alpha: float, claimed_delta: float,
                  progress: Callable[[str], None] | None, workers: _Workers,
                  overlap: bool = False) -> _Event:
    """Step 1: on each pair's selection sample, fit the scores on the first half and choose, on
    the second half, the pair, score and threshold whose event gives the largest bound (the
    earliest pair on ties). The pairs run side by side on ``workers`` (the same events); with
    ``overlap`` and one worker, each pair's fit runs beside the next pair's sample
    (:func:`_select_overlapped`, the same events)."""
    side_by_side = workers.count > 1 and len(pairs) > 1
    if overlap and not side_by_side:
        return _select_overlapped(mechanism, exact, pairs, n_selection, seeds, alpha,
                                  claimed_delta, progress)
    runner = workers.copy if side_by_side else mechanism     # one pair alone keeps its workers
    jobs = [(runner, exact, i, pair, n_selection, (seeds[2 * i], seeds[2 * i + 1]), alpha,
             claimed_delta) for i, pair in enumerate(pairs)]
    # side by side, every pair at once (each returns only its event); here, one after another
    batches = [jobs] if side_by_side else [[job] for job in jobs]
    best = _NO_EVENT
    for batch in batches:
        if progress:
            last = batch[-1][2]
            progress(f"selection: pair {last + 1}/{len(pairs)} ({pairs[last].description})"
                     if len(batch) == 1 else
                     f"selection: {len(batch)} pairs on {workers.count} workers")
        for event, used in workers.map(_pair_event, batch):
            getattr(mechanism, "backends_used", set()).update(used)
            if event is not None and (best is _NO_EVENT
                                      or event.selection_bound > best.selection_bound):
                best = event
    return best


def _select_overlapped(mechanism: Mechanism, exact, pairs: list[Pair], n_selection: int,
                       seeds: list[int], alpha: float, claimed_delta: float,
                       progress: Callable[[str], None] | None) -> _Event:
    """:func:`_select_event` one pair after another, each pair's fit in a thread while the next
    pair's runs are drawn: a mechanism that runs elsewhere (a candidate in its host process)
    leaves this process idle while it runs. The events are combined in the pairs' order, so the
    choice is the one made one step after the other."""
    from concurrent.futures import ThreadPoolExecutor

    fits = []
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="audit-fit")
    try:
        for i, pair in enumerate(pairs):
            if progress:
                progress(f"selection: pair {i + 1}/{len(pairs)} ({pair.description})")
            out0 = mechanism.sample(pair.D0, n_selection, seeds[2 * i])
            out1 = mechanism.sample(pair.D1, n_selection, seeds[2 * i + 1])
            fits.append(pool.submit(_fitted_event, exact, i, pair, out0, out1, mechanism.K,
                                    alpha, claimed_delta))
        best = _NO_EVENT
        for fit in fits:
            event = fit.result()
            if event is not None and (best is _NO_EVENT
                                      or event.selection_bound > best.selection_bound):
                best = event
        return best
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _score_chunk(event: _Event, outputs: np.ndarray, step: int, K: int) -> np.ndarray:
    """The event's score on some outputs (the features computed here where it reads them)."""
    if _reads_outputs(event.score_name):
        return event.score(outputs)
    return event.score(action_features(outputs, step, K))


def _test_scores(mechanism: Mechanism, event: _Event, pair: Pair, n_test: int,
                 seeds: tuple[int, int], workers: _Workers) -> tuple[np.ndarray, np.ndarray]:
    """Step 2: the chosen event's scores on a fresh test sample of n_test runs a side, scored in
    pieces on ``workers`` (each run's score depends on that run only)."""
    scores = []
    for table, side_seed in ((pair.D0, seeds[0]), (pair.D1, seeds[1])):
        outputs = mechanism.sample(table, n_test, side_seed)
        pieces = np.array_split(outputs, workers.count) if workers.count > 1 else [outputs]
        jobs = [(event, piece, pair.step, mechanism.K) for piece in pieces]
        scores.append(np.concatenate(workers.map(_score_chunk, jobs)))
    return scores[0], scores[1]


@dataclass(frozen=True)
class SamplePlan:
    """How the test sample is sized from its power need and read in looks (a sequential test).

    **Size.** The test sample is sized, before it is drawn, for the chosen event: the runs per
    side at which an event as frequent as the chosen one (its frequency on the table where it is
    more likely, in the selection sample's second half) with a privacy loss of ``violation``
    times the claimed epsilon would give a bound above the claim with probability at least
    ``power`` at the last look (:func:`~dpbandits.audit.confidence.runs_for_power`: exact
    binomial quantiles, no normal approximation). That size is kept within [``floor``, the
    caller's ``n_test``]; the caller's size is the most the audit draws. The selection sample is
    independent of the test sample, so a size chosen from it is fixed before the test sample
    exists.

    **Looks.** The planned sample is drawn in ``looks`` pieces, each look doubling the runs per
    side (n/4, n/2, n for three looks), and the same event is counted at each. Each look's
    Clopper-Pearson bound is taken at level alpha / looks (Bonferroni over the looks), so with
    probability at least 1 - alpha *every* look's bound is below the true epsilon: the bound
    reported, at whichever look the test stops and for any stopping rule, holds at confidence
    1 - alpha. The test stops early when the verdict is decided: a violation (the look's bound
    exceeds the claim), or no violation with this event (the look's upper confidence bound on
    the event's loss, at the same level, is at most the claim: more runs would only narrow the
    interval around a loss below the claim). A stop for the second reason cannot make a false
    violation more likely; it can miss a true one with probability at most alpha / looks.
    """

    looks: int = 3
    violation: float = 2.0
    """The loss the sample is sized to detect, as a multiple of the claim: 2, the loss of the
    printed variants in docs/errata.md (report-noisy-max under whole-vector change, the hybrid
    counters' item 3)."""
    power: float = 0.8
    floor: int = 1000

    def sizes(self, n: int) -> list[int]:
        """The cumulative runs per side at each look: halving back from n, at least 1 each."""
        return sorted({max(1, -(-n // 2 ** (self.looks - 1 - look))) for look in range(self.looks)})


def _planned_size(plan: SamplePlan, event: _Event, n_max: int, alpha: float,
                  claimed_eps: float | None, claimed_delta: float) -> tuple[int, int | None, str]:
    """The planned test sample (runs per side), the power need, and the sentence that says why."""
    from .confidence import detectable_loss, runs_for_power

    if claimed_eps is None:
        return n_max, None, f"{n_max} runs per side (no claim to size the sample against)"
    loss = plan.violation * claimed_eps
    frequency = event.selection_frequency
    need = runs_for_power(frequency, claimed_eps, loss, alpha, plan.looks, plan.power,
                          claimed_delta) if frequency > 0 else None
    floor = min(plan.floor, n_max)
    planned = n_max if need is None else min(n_max, max(floor, need))
    if frequency <= 0:
        why = (f"{planned} runs per side, the most allowed: the selection sample found no event "
               f"with a positive bound to size the sample from")
        return planned, need, why
    design = (f"an event as frequent as the chosen one (p = {frequency:.3g} on the table where "
              f"it is more likely, selection estimate) with a loss of {plan.violation:g} x the "
              f"claim ({loss:g})")
    if need is not None and need <= n_max:
        why = (f"{planned} runs per side from the power need: {design} gives a bound above the "
               f"claim with probability >= {plan.power:g} at {need} runs per side"
               + (f" (raised to the floor of {floor})" if need < floor else ""))
    else:
        at_cap = detectable_loss(frequency, n_max, claimed_eps, alpha, plan.looks, plan.power,
                                 claimed_delta)
        why = (f"{planned} runs per side, the most allowed, below the power need of {design} "
               f"({'more than 1e8' if need is None else need} runs per side); at {planned} a "
               + (f"loss of {at_cap:.3g} is detected with probability {plan.power:g}"
                  if math.isfinite(at_cap) else "violation by an event this rare is not "
                  "detectable at any loss"))
    return planned, need, why


def _sequential_test(mechanism: Mechanism, event: _Event, pair: Pair, plan: SamplePlan,
                     n_max: int, alpha: float, claimed_eps: float | None, claimed_delta: float,
                     seeds: tuple[int, int], workers: "_Workers",
                     progress: Callable[[str], None] | None):
    """Step 2 in looks (:class:`SamplePlan`): the event's scores on both tables, drawn look by
    look until the verdict is decided or the planned sample is spent. Returns the scores of
    every run drawn, the bound at the last look, and the facts for the result."""
    from .confidence import clopper_pearson_lower, clopper_pearson_upper

    planned, need, why = _planned_size(plan, event, n_max, alpha, claimed_eps, claimed_delta)
    sizes = plan.sizes(planned)
    looks = len(sizes)
    side_seeds = [np.random.SeedSequence(seed).spawn(looks) for seed in seeds]
    scores0, scores1 = [], []
    drawn, bound, stopped = 0, 0.0, "the planned sample was spent"
    for look, size in enumerate(sizes):
        if progress:
            progress(f"test: look {look + 1} of {looks}, {size} runs per side")
        look_seeds = tuple(int(side[look].generate_state(1)[0]) for side in side_seeds)
        s0, s1 = _test_scores(mechanism, event, pair, size - drawn, look_seeds, workers)
        scores0.append(s0)
        scores1.append(s1)
        drawn = size
        k0 = int(sum(event.member(s).sum() for s in scores0))
        k1 = int(sum(event.member(s).sum() for s in scores1))
        kb, nb, ks, ns = _orient(k0, k1, drawn, drawn, event.upper)
        bound = epsilon_lower_bound(kb, nb, ks, ns, alpha, looks, claimed_delta)
        if claimed_eps is None:
            continue
        if bound > claimed_eps * (1 + 1e-9):
            stopped = f"the bound {bound:.3f} exceeds the claim {claimed_eps:g}"
            break
        a = alpha / (2 * looks)
        big_hi, small_lo = clopper_pearson_upper(kb, nb, a), clopper_pearson_lower(ks, ns, a)
        if look < looks - 1 and small_lo > 0 and big_hi - claimed_delta <= small_lo * math.exp(claimed_eps):
            upper = math.log(max(big_hi - claimed_delta, 1e-300) / small_lo)
            stopped = (f"the event's loss is at most {upper:.3f} <= the claim {claimed_eps:g} "
                       f"(upper confidence bound at the same level): no violation with it")
            break
    note = (f"test sample: {why}; sequential: {looks} looks at {', '.join(map(str, sizes))} runs "
            f"per side, Clopper-Pearson at level alpha/{looks} at each (Bonferroni over the "
            f"looks: the bound holds at {100 * (1 - alpha):g}% at whichever look the test "
            f"stops); stopped at look {sizes.index(drawn) + 1} ({drawn} runs per side): {stopped}")
    facts = {"looks": looks, "look": sizes.index(drawn) + 1, "planned_n_test": planned,
             "max_n_test": n_max, "power_n_test": need}
    return np.concatenate(scores0), np.concatenate(scores1), bound, looks, note, facts


def event_audit(mechanism: Mechanism, pairs: list[Pair], *, n_selection: int = 20_000,
                n_test: int = 50_000, alpha: float = 0.05, seed: int = 0,
                progress: Callable[[str], None] | None = None,
                plan: SamplePlan | None = None) -> AuditResult:
    """Black-box audit: scores fitted and events chosen on a selection sample, one event tested.

    Returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with probability at least
    1 - alpha (Clopper-Pearson, one hypothesis on the test sample). With a ``plan``
    (:class:`SamplePlan`) ``n_test`` is the most the test draws: the sample is sized from its
    power need and read in looks, the bound then at level alpha / looks at each look
    (``hypotheses`` = looks), valid at 1 - alpha whichever look it stops at.
    """
    if not pairs:
        raise DPBanditsError("an audit needs at least one candidate pair")
    if n_selection // 2 < 10:
        raise DPBanditsError(f"n_selection must be at least 20, got {n_selection}")
    start = time.perf_counter()
    claimed_eps, claimed_delta, relation = _claim(mechanism)
    seeds = _seeds(seed, 2 * len(pairs) + 2)
    exact = mechanism.exact_model()
    notes: tuple[str, ...] = ()
    facts: dict = {}
    hypotheses = 1
    with _Workers(mechanism) as workers, (_OneBlasThread() if plan is not None else nullcontext()):
        best = _select_event(mechanism, exact, pairs, n_selection, seeds, alpha, claimed_delta,
                             progress, workers, overlap=plan is not None)
        pair = pairs[best.pair_index]
        if progress:
            progress(f"test: {best.describe()} on {pair.description}")
        if plan is None:
            s0, s1 = _test_scores(mechanism, best, pair, n_test, (seeds[-2], seeds[-1]), workers)
        else:
            s0, s1, _, hypotheses, note, facts = _sequential_test(
                mechanism, best, pair, plan, n_test, alpha, claimed_eps, claimed_delta,
                (seeds[-2], seeds[-1]), workers, progress)
            notes = (note,)
            n_test = len(s0)
    k0, k1 = int(best.member(s0).sum()), int(best.member(s1).sum())
    kb, nb, ks, ns = _orient(k0, k1, n_test, n_test, best.upper)
    bound = epsilon_lower_bound(kb, nb, ks, ns, alpha, hypotheses, claimed_delta)
    direction = "P1(S) vs P0(S)" if best.upper else "P0(S) vs P1(S)"
    certificate = exact_eps = None
    if exact is not None:
        certificate = float(max(np.max(s1), np.max(-s0)))
        exact_eps = pair_privacy_loss(exact, pair)
    return AuditResult(
        mechanism=mechanism.label, claimed_epsilon=claimed_eps, claimed_delta=claimed_delta,
        relation=relation, method="exact-score event" if exact is not None else "event",
        epsilon_lower_bound=bound, alpha=alpha, hypotheses=hypotheses, n_selection=n_selection,
        n_test=n_test, event=f"{best.describe()} ({direction})", pair=pair.to_dict(),
        counts={"in_S_D0": k0, "n_D0": n_test, "in_S_D1": k1, "n_D1": n_test,
                "candidate_pairs": len(pairs), **facts},
        seconds=time.perf_counter() - start, epsilon_estimate=epsilon_estimate(kb, nb, ks, ns),
        certificate=certificate, exact_epsilon=exact_eps, notes=notes,
        claim_status=getattr(getattr(mechanism, "claim", None), "status", ""))


# --- exact likelihoods --------------------------------------------------------------------------

class _ExactScore:
    """L(o) = log P1(o) - log P0(o) for trajectories o (large: more likely on D1)."""

    def __init__(self, model, pair: Pair) -> None:
        self.model, self.pair = model, pair

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            values = (self.model.log_probability(self.pair.D1.X, outputs)
                      - self.model.log_probability(self.pair.D0.X, outputs))
        return np.nan_to_num(values, nan=0.0)


def pair_privacy_loss(model, pair: Pair) -> float:
    """Exact privacy loss of a pair: max over epochs and actions of |log p0 - log p1|.

    Epochs use fresh noise, so a trajectory's likelihood ratio is the product of per-epoch ratios;
    one row changes one epoch's law, and the loss is that epoch's worst action.
    """
    if hasattr(model, "log_choice_laws"):      # exact at any epsilon (no underflow to 0)
        log_p0, log_p1 = model.log_choice_laws(pair.D0.X), model.log_choice_laws(pair.D1.X)
    else:
        with np.errstate(divide="ignore"):
            log_p0, log_p1 = np.log(model.choice_laws(pair.D0.X)), np.log(model.choice_laws(pair.D1.X))
    with np.errstate(invalid="ignore"):
        ratio = np.abs(log_p0 - log_p1)
    ratio = np.where(np.isneginf(log_p0) & np.isneginf(log_p1), 0.0, ratio)
    return float(np.max(ratio))


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
    score = _ExactScore(model, pair)
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

