"""Assertions for a user's own test suite: a privacy check or a conformance check in two lines.

::

    from dpbandits.testing import assert_private
    assert_private(MyDPSE, against="dp-se", epsilon=1)

``candidate`` is anything :func:`dpbandits.candidates.load` accepts: a class or factory (built
per run as ``OBJECT(K, T, epsilon, rng)``, ``OBJECT(problem, rng)`` or ``OBJECT(rng)``),
``MODULE:OBJECT`` or ``FILE.py:OBJECT``, a :class:`~dpbandits.candidates.Command`, or a mechanism.
Both functions use a fixed seed by default, so a test gives the same answer on every run, and
raise :class:`AssertionError` whose message is the verdict with its numbers and the false-alarm
probability; bad input raises :class:`~dpbandits.errors.DPBanditsError` as everywhere else.

* :func:`assert_private` audits the candidate against ALGO's claim at ``epsilon``
  (:func:`dpbandits.audit.against.audit_against`: ALGO's worst-case pairs and a horizon that
  reaches its first data-dependent output). It fails when the Clopper-Pearson lower bound on
  epsilon exceeds the claim: for a candidate that keeps the claim, this happens with probability
  at most ``alpha`` over the seed. It also fails when the audit could not test (the output never
  varied over the pair): a privacy test that saw nothing must not pass silently.
* :func:`assert_conforms` runs :func:`dpbandits.validate.validate` without the audit (unless
  ``audit=True``) and fails unless the behaviour conforms (Holm over every comparison at
  family-wise level ``alpha``: a candidate with the reference's output law fails with probability
  at most ``alpha``). ``outcome_only=True`` also accepts "conforms in outcome, differs in path".
  Its failure is at most ten lines: the first rejected comparisons and the ``dpbandits validate``
  command that prints them all.
"""

from __future__ import annotations

from typing import Any, Mapping

from .errors import DPBanditsError

__all__ = ["assert_private", "assert_conforms"]


def assert_private(candidate: Any, against: str, epsilon: float = 1.0, *, K: int | None = None,
                   params: Mapping[str, Any] | None = None, horizon: int | None = None,
                   samples: int | None = None, alpha: float = 0.05, seed: int = 0,
                   workers: int = 1):
    """Fail unless ``candidate`` is consistent with ALGO's privacy claim at ``epsilon``.

    ``K`` (default: the arms of ALGO's known worst cases, else 2), ``horizon`` (default: derived
    from the reference) and ``samples`` (test runs per side, default
    :data:`~dpbandits.audit.against.AGAINST_SAMPLES`) set the audit's size. Returns the
    :class:`~dpbandits.audit.result.AuditResult` when the check passes.

    The failure is three lines: the verdict with its numbers, the pair with its counts and seed,
    and the false-alarm probability; pytest shows the caller's line, not this function's code.
    """
    __tracebackhide__ = True
    from . import limits
    from .audit.against import AGAINST_SAMPLES, audit_against, could_not_test, planned_horizon
    from .audit.pairs import DEFAULT_ARMS
    from .candidates import load
    from .errors import check_probability, check_seed
    from .reference import get
    from .reference.registry import canonical

    against = canonical(against)
    cls = get(against)
    if not cls.private:
        raise DPBanditsError(f"{against} makes no privacy claim: there is nothing to assert")
    epsilon = limits.check_epsilon_range(epsilon, algorithm=against)
    K = DEFAULT_ARMS.get(against, 2) if K is None else limits.check_arms(K)
    horizon = None if horizon is None else limits.check_horizon(horizon)
    samples = AGAINST_SAMPLES if samples is None else limits.check_samples(samples)
    alpha, seed = check_probability(alpha, "alpha"), check_seed(seed)
    planned, why = planned_horizon(against, K, epsilon, dict(params or {}), horizon)
    limits.check_audit_size(samples, planned, K, horizon=why)
    mechanism = load(candidate, K=K, epsilon=epsilon, params=params, feedback=cls.feedback,
                     workers=workers, reference=against)
    result = audit_against(mechanism, against, epsilon=epsilon, params=dict(params or {}),
                           T=horizon, samples=samples, alpha=alpha, seed=seed)
    counts = result.counts
    where = (f"  pair: {result.pair['description']} (T = {result.pair['T']}, "
             f"K = {result.pair['K']}); event in {counts.get('in_S_D0')} of {counts.get('n_D0')} "
             f"runs on D0 and {counts.get('in_S_D1')} of {counts.get('n_D1')} on D1; seed {seed}")
    if result.verdict == "violation":
        raise AssertionError(
            f"privacy VIOLATION of {against}'s claim: {result.summary()}\n{where}\n  a candidate "
            f"that keeps the claim fails this check with probability at most alpha = {alpha:g}")
    reason = could_not_test(result)
    if reason is not None:
        raise AssertionError(f"privacy COULD NOT BE TESTED against {against}'s claim: "
                             f"{reason}\n{where}")
    return result


def assert_conforms(candidate: Any, against: str, epsilon: float | None = None, *,
                    params: Mapping[str, Any] | None = None, setting: str | None = None,
                    means: Any = None, horizon: int = 1000, runs: int = 200, seed: int = 0,
                    alpha: float = 0.05, audit: bool = False, outcome_only: bool = False,
                    backend: str = "auto"):
    """Fail unless ``candidate``'s behaviour conforms to ALGO's (and, with ``audit``, unless its
    privacy audit is consistent). Returns the :class:`~dpbandits.validate.Validation`.

    The failure is at most :data:`FAILURE_LINES` lines: the verdict, the first rejected
    comparisons, what the reference's documented alternatives showed, and the command that
    prints every comparison. A verdict that could not test (the reference's actions do not
    depend on the rewards at this horizon) fails too, naming the horizon from which it could.
    """
    __tracebackhide__ = True
    from .validate import validate
    from .validate.core import PATH_ONLY

    result = validate(candidate, against, epsilon=epsilon, params=dict(params or {}),
                      setting=setting, means=means, horizon=horizon, runs=runs, seed=seed,
                      alpha=alpha, audit_samples=_audit_samples() if audit else 0,
                      backend=backend)
    accepted = ("conforms", PATH_ONLY) if outcome_only else ("conforms",)
    failures = []
    if result.behaviour not in accepted:
        failures.append(f"behaviour {result.behaviour.upper()}")
    if audit and result.privacy in ("violation", "could not test"):
        failures.append(f"privacy {result.privacy.upper()}")
    if failures:
        lines = [f"{' and '.join(failures)} against {against} (seed {seed}; a candidate with the "
                 f"reference's output law fails the behaviour check with probability at most "
                 f"alpha = {alpha:g}, Holm over {len(result.comparisons)} comparisons)"]
        lines += result.short_summary(FAILURE_LINES - 2)
        lines.append("every comparison: " + _command(candidate, against, epsilon, params,
                                                     setting, means, horizon, runs, seed, alpha))
        raise AssertionError("\n".join(lines[:FAILURE_LINES]))
    return result


FAILURE_LINES = 10
"""Most lines of an :func:`assert_conforms` failure."""


def _audit_samples() -> int:
    from .validate.defaults import DEFAULT_AUDIT_SAMPLES

    return DEFAULT_AUDIT_SAMPLES


def _command(candidate: Any, against: str, epsilon, params, setting, means, horizon: int,
             runs: int, seed: int, alpha: float) -> str:
    """The ``dpbandits validate`` command that runs the same check and prints every comparison."""
    import shlex

    if isinstance(candidate, str):
        named = ["--python", candidate]
    elif hasattr(candidate, "__module__") and hasattr(candidate, "__qualname__") \
            and "<" not in candidate.__qualname__:
        named = ["--python", f"{candidate.__module__}:{candidate.__qualname__}"]
    else:
        named = ["--python", "MODULE:OBJECT"]
    words = ["dpbandits", "validate", *named, "--against", against]
    if epsilon is not None:
        words += ["--epsilon", f"{epsilon:g}"]
    if setting is not None:
        words += ["--setting", setting]
    if means is not None:
        words += ["--means", *[f"{float(m):g}" for m in means]]
    for key, value in dict(params or {}).items():
        words += ["--param", f"{key}={value}"]
    words += ["--horizon", str(horizon), "--runs", str(runs), "--seed", str(seed),
              "--alpha", f"{alpha:g}", "--audit-samples", "0"]
    return " ".join(shlex.quote(word) for word in words)
