"""Distinguishers: the scores, features and events that tell the two tables of a pair apart.

On one pair's selection sample (:func:`fitted_event`, called by the selection stage of
:func:`dpbandits.audit.testers.event_audit`) the scores are fitted on the first half, and on the
second half the score, direction and threshold of the event ``{score > tau}`` (or
``{score < tau}``) that gives the largest bound are chosen. Scores:

* ``histogram``: the plug-in log-ratio of the counts of each distinct output (features of the
  actions after the differing round), for outputs with few distinct values;
* ``whole-sequence histogram``: the same over whole action sequences, from round 1 (the action
  of the differing round says which arm's statistic the changed reward entered; an event over
  the joint pattern of actions at the rounds that read two released nodes can show both nodes'
  loss);
* ``logistic``: the linear predictor of a ridge-penalised logistic model (Newton's method,
  frequency weights on distinct feature rows) on features of the output;
* ``exact``: the exact log-likelihood ratio (:class:`ExactScore`), for mechanisms whose
  trajectory probabilities are computable (the report-noisy-max family); a pair's exact privacy
  loss is :func:`pair_privacy_loss`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from .pairs import Pair

__all__ = ["action_features", "Event", "NO_EVENT", "orient", "fitted_event", "reads_outputs",
           "ExactScore", "pair_privacy_loss"]

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


_DIGITS = 9
"""Decimals kept of the logistic model's coefficients and scores. Their last bits depend on the
BLAS kernel the machine selects (OpenBLAS picks one per processor: with
``OPENBLAS_CORETYPE=Nehalem`` one screening bound of a validation moved from 0.602 to 0.615),
and an event's threshold sits between two scores, so equal outputs, or outputs whose scores are
equal but summed in another order, must get equal scores on every machine. A value within
10^-15 of a rounding boundary could still round apart on two machines."""


class _LogisticScore:
    """The linear predictor of a fitted logistic model on standardised features, rounded to
    :data:`_DIGITS` decimals (the same on every machine)."""

    def __init__(self, keep: np.ndarray, mean: np.ndarray, scale: np.ndarray,
                 coef: np.ndarray) -> None:
        self.keep, self.mean, self.scale = keep, mean, scale
        self.coef = np.round(coef, _DIGITS)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        Zx = (X[:, self.keep].astype(float) - self.mean) / self.scale
        return np.round(self.coef[0] + Zx @ self.coef[1:], _DIGITS)


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
class Event:
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


def orient(k_in_d0: int, k_in_d1: int, n0: int, n1: int, upper: bool):
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
        kb, nb, ks, ns = orient(k0s, k1s, s0.size, s1.size, upper)
        lo = np.where(kb > 0, stats.beta.ppf(a, np.maximum(kb, 1), nb - kb + 1), 0.0)
        hi = np.where(ks < ns, stats.beta.ppf(1 - a, ks + 1, np.maximum(ns - ks, 1)), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds = np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300) / hi), 0.0)
        i = int(np.argmax(bounds))
        if bounds[i] > best[0]:
            best = (float(bounds[i]), float(cuts[i]), upper, float(kb[i]) / nb)
    return best


def reads_outputs(score_name: str) -> bool:
    """Whether a score reads the raw outputs (exact, whole sequences) rather than the features."""
    return score_name.startswith("exact") or score_name == _WHOLE


def _fitted_scores(exact, pair: Pair, out0: np.ndarray, out1: np.ndarray, F0: np.ndarray,
                   F1: np.ndarray, half: int) -> list[tuple[str, Callable]]:
    """The scores fitted on the first half of one pair's selection sample: the exact
    log-likelihood ratio where the mechanism has one; otherwise the histogram (discrete outputs),
    the logistic model, and the histogram of whole action sequences (discrete outputs)."""
    if exact is not None:
        return [("exact log-likelihood-ratio", ExactScore(exact, pair))]
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


NO_EVENT = Event("none (no score could be fitted)", _Never(), 0.0, True, 0, 0.0)
"""The event chosen when no score could be fitted on any pair: it never occurs, so the test
counts 0 on both tables and the audit reports that it could not test."""


def fitted_event(exact, index: int, pair: Pair, out0: np.ndarray, out1: np.ndarray, K: int,
                  alpha: float, claimed_delta: float) -> Event | None:
    """The event chosen on one pair's selection sample (:func:`_pair_event`), from its outputs."""
    half = len(out0) // 2
    F0 = action_features(out0, pair.step, K)
    F1 = action_features(out1, pair.step, K)
    best = None
    for name, score in _fitted_scores(exact, pair, out0, out1, F0, F1, half):
        raw = reads_outputs(name)
        source0 = out0[half:] if raw else F0[half:]
        source1 = out1[half:] if raw else F1[half:]
        bound, threshold, upper, frequency = _best_threshold(score(source0), score(source1),
                                                             alpha, claimed_delta)
        if best is None or bound > best.selection_bound:
            best = Event(name, score, threshold, upper, index, bound, frequency)
    return best



# --- exact likelihoods --------------------------------------------------------------------------

class ExactScore:
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

