"""The first stage of a validation: every argument checked once, before any work.

:func:`check_request` is the one place that checks what :func:`~dpbandits.validate.validate`
is asked (ALGO, epsilon, variant, parameters, environment, horizon, runs, seed, levels, the
audit's size and the backend) and builds the problem it describes (:class:`~dpbandits.validate.arms.Arms`
or :class:`~dpbandits.validate.bases.Bases`: K comes from the setting). The sizes checked are
the ones that will be used: the validation's tables, actions and pull counts
(:func:`dpbandits.limits.check_validation_size`) and the audit's horizon and samples
(:func:`dpbandits.limits.check_audit_size` at :func:`dpbandits.audit.against.planned_horizon`).
The stages after it trust the :class:`Request` it returns, and the reference's policies are built
from its :class:`~dpbandits.reference.registry.CheckedArguments` without checking them again; the
command line calls it before it loads the candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import limits
from ..errors import DPBanditsError, check_means, check_probability, check_seed
from .defaults import DEFAULT_AUDIT_SAMPLES, DEFAULT_HORIZON, DEFAULT_RUNS, MIN_RUNS

__all__ = ["Request", "check_request", "semi_bandit_matroid", "default_horizon", "dependence"]


@dataclass(frozen=True)
class Request:
    """A checked validation request; every field is trusted by the later stages."""

    against: str
    """ALGO's registered name."""
    cls: type
    epsilon: float | None
    """The audited claim's epsilon; None when ALGO is not private."""
    variant: str | None
    params: dict[str, Any]
    """ALGO's parameters (with ``matroid`` for a semi-bandit ALGO)."""
    problem: Any
    T: int
    runs: int
    seed: int
    alpha: float
    power: float
    audit_samples: int
    """Test runs per side of the privacy audit, 0 when it is skipped."""
    audit_horizon: int | None
    backend: str
    arguments: Any
    """ALGO's arguments at K and T, checked once
    (:class:`~dpbandits.reference.registry.CheckedArguments`): the reference's blocks trust them."""

    @property
    def K(self) -> int:
        """Arms (base arms for a semi-bandit ALGO) of the problem."""
        return self.problem.K

    @property
    def semi(self) -> bool:
        return self.cls.feedback == "semi"


def check_request(against: str, *, epsilon: float | None = None, variant: str | None = None,
                  params: dict[str, Any] | None = None, setting: str | None = None,
                  means: Any = None, horizon: int | None = None, runs: int = DEFAULT_RUNS,
                  seed: int = 0, alpha: float = 0.05, power: float = 0.8,
                  audit_samples: int | None = None, audit_horizon: int | None = None,
                  backend: str = "auto") -> Request:
    """Check every argument of :func:`~dpbandits.validate.validate` (same names and meaning) and
    build its problem; raise :class:`~dpbandits.errors.DPBanditsError` naming the first bad one.

    ``audit_samples`` is 0 (no audit) or in [:data:`~dpbandits.limits.MIN_SAMPLES`,
    :data:`~dpbandits.limits.MAX_SAMPLES`], as ``dpbandits audit --samples``; None is the
    default, :data:`~dpbandits.validate.defaults.DEFAULT_AUDIT_SAMPLES`. ``horizon`` None is
    :func:`default_horizon`.
    """
    from ..reference import get
    from ..reference.engine import check_backend
    from ..reference.registry import canonical, check_arguments

    check_backend(backend)
    against = canonical(against)
    cls = get(against)
    if cls.private:
        if epsilon is None:
            low, high = limits.EPSILON_RANGE
            raise DPBanditsError(f"{against} needs its privacy parameter: epsilon is required "
                                 f"(--epsilon on the command line), a number in "
                                 f"[{low:g}, {high:g}]")
        epsilon = limits.check_epsilon_range(epsilon, algorithm=against)
    else:
        epsilon = None
    names = [v.name for v in cls.variants]
    if variant is not None and variant not in names:
        raise DPBanditsError(f"unknown variant {variant!r} for {against}; choose one of {names}")
    if setting is not None and means is not None:
        raise DPBanditsError("give a setting or means, not both")
    if horizon is not None:
        horizon = limits.check_horizon(horizon, "horizon")
    runs = limits.check_runs(runs, "runs", minimum=MIN_RUNS)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if audit_samples is None:
        audit_samples = DEFAULT_AUDIT_SAMPLES
    if audit_samples != 0:
        audit_samples = limits.check_samples(audit_samples, "audit_samples")
    if audit_horizon is not None:
        audit_horizon = limits.check_horizon(audit_horizon, "audit_horizon")
    params = dict(params or {})
    if means is not None:
        means = check_means(means, "means")
        if means.min() == means.max():
            raise DPBanditsError(f"means are all equal ({means[0]:g}): the regret check needs an "
                                 f"arm worse than the best (a positive gap); give at least two "
                                 f"different means")
    problem = _problem(cls.feedback == "semi", setting, means, params)
    T = horizon if horizon is not None else default_horizon(against, problem.K, epsilon, variant,
                                                               params)
    limits.check_validation_size(runs, T, problem.K, minimum=MIN_RUNS)
    if epsilon is not None and audit_samples:
        from ..audit.against import planned_horizon

        audit_T, why = planned_horizon(against, problem.K, epsilon, params, audit_horizon)
        limits.check_audit_size(audit_samples, audit_T, problem.K, horizon=why)
    arguments = check_arguments(against, problem.K, epsilon=epsilon, variant=variant, T=T,
                                **params)
    return Request(against, cls, epsilon, variant, params, problem, T, runs, seed, alpha, power,
                   int(audit_samples), audit_horizon, backend, arguments)


def default_horizon(against: str, K: int, epsilon: float | None, variant: str | None,
                    params: dict[str, Any]) -> int:
    """:data:`~dpbandits.validate.defaults.DEFAULT_HORIZON`, unless ALGO's actions do not depend
    on the rewards within it (DP-SE at K = 5 releases nothing before round 8126): then twice
    the horizon from which they do (:func:`dpbandits.audit.against.audit_horizon`, a coupling
    search on 64 reference runs), so that the comparisons see data-dependent rounds."""
    from ..audit.against import audit_horizon, first_dependent_round

    if first_dependent_round(against, K, DEFAULT_HORIZON, epsilon, variant, params) is not None:
        return DEFAULT_HORIZON
    found_T, first = audit_horizon(against, K, epsilon, variant, params, start=DEFAULT_HORIZON)
    return DEFAULT_HORIZON if first is None else min(2 * found_T, limits.MAX_HORIZON)


def dependence(request: Request) -> dict[str, Any] | None:
    """None when ALGO's actions depend on the rewards within the request's horizon (some round
    could differ); otherwise why the behaviour check cannot fail for a data-dependent change,
    and the horizon from which it could (:func:`dpbandits.audit.against.audit_horizon`)."""
    from ..audit.against import audit_horizon, first_dependent_round

    args = (request.against, request.K, request.epsilon, request.variant, request.params)
    if first_dependent_round(request.against, request.K, request.T, *args[2:]) is not None:
        return None
    found_T, first = audit_horizon(*args, start=request.T)
    return {"reason": f"at T = {request.T} the reference's actions do not depend on the rewards "
                      f"(coupled runs on two tables played the same actions in every round)",
            "from_horizon": None if first is None else found_T,
            "first_dependent_round": first}


def _problem(semi: bool, setting: str | None, means: np.ndarray | None,
             params: dict[str, Any]) -> Any:
    from .arms import Arms
    from .bases import Bases

    return Bases.build(setting, means, params) if semi else Arms.build(setting, means)


def semi_bandit_matroid(setting: str | None, means: Any, params: dict[str, Any]) -> Any:
    """The matroid a semi-bandit candidate plays in :func:`~dpbandits.validate.validate` with
    this ``setting`` or ``means`` (default :data:`~dpbandits.validate.bases.DEFAULT_MATROID_SETTING`);
    ``params`` gets it as ``params["matroid"]``, as the validation does. Raises on a setting that
    is not a matroid setting or a matroid that is not the setting's."""
    from .bases import Bases

    return Bases.build(setting, means, params).matroid
