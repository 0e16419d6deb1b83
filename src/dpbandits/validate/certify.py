"""Certificates of the compiled kernels: each kernel validated against its reference algorithm.

A kernel of :mod:`dpbandits.compiled` is a second implementation of a reference algorithm. Its
certificate is :func:`dpbandits.validate.validate` with the kernel as the candidate (the
registered algorithm run through the engine on the compiled backend) and the reference algorithm,
run on the reference backend, as ALGO: the same two-sample comparisons on one fixed table and on
fresh tables, under Holm's correction at family-wise level ``alpha``, with the smallest effect
each comparison detects at the stated power. ``conforms`` means no comparison rejected; it is a
statement about the distributions, at that power, not a proof of equality. Bit-identity of the
trajectories, where a kernel has it, is checked separately in the tests.

A matroid kernel (OMM, CTS, DPUCB-MAT, DPTS-MAT) is certified the same way on the synthetic
matroid of Chandak, Hu & Hegde (2023), Sec. 5.1, Table 2 (:data:`CERTIFICATE_MATROID_SETTING`:
bases of rank 3 over 7 base arms): the comparisons are then the pulls of every base arm, the
super arm of given rounds and the regret against the best basis.

The privacy audit is not part of the certificate (``audit_samples = 0``): it would audit the
kernel's actions, which the behavioural comparisons already hold to the reference's.

:func:`planted` builds the negative control: the same kernel with one field of its state
replaced (a wrong epsilon, a wrong constant), played through the act/observe protocol as a
third-party candidate. Its certificate must come back ``differs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..audit.mechanism import RegistryMechanism
from ..reference.registry import AlgorithmSpec, canonical, get
from .core import ACTIONS, Validation, validate

__all__ = ["CERTIFICATE_MEANS", "CERTIFICATE_MATROID_SETTING", "CERTIFICATE_SIZE", "certificate_alpha", "certified", "certify", "planted", "certificate_row", "main"]

CERTIFICATE_MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)
"""Bernoulli means of the bandit and full-information certificates: setting 2 of Hu, Huang &
Mehta (Sec. 6), K = 5."""

CERTIFICATE_MATROID_SETTING = "chandak-synthetic"
"""The environment of the matroid certificates: Chandak, Hu & Hegde (2023), Sec. 5.1, Table 2
(a linear matroid of rank 3 over L = 7 base arms, independent Bernoulli weights)."""


def certified() -> list[tuple[str, str | None]]:
    """Every (algorithm, variant) with a kernel: bandit, full-information and matroid
    semi-bandit algorithms, every variant."""
    from ..compiled import KERNELS

    pairs = []
    for name in KERNELS:
        cls = get(name)
        variants = [v.name for v in cls.variants]
        pairs += [(name, variant if len(variants) > 1 else None) for variant in variants]
    return pairs


CERTIFICATE_SIZE = dict(horizon=500, runs=100, seed=2024)
"""The size of the published certificates (T, runs per sample, seed)."""


def certificate_alpha() -> float:
    """The level of each published certificate: 0.05 split over all of them (Bonferroni), so
    that with every kernel exact the chance of any false 'differs' among them is at most 5%."""
    return 0.05 / len(certified())


def certify(name: str, *, variant: str | None = None, epsilon: float = 1.0,
            params: dict[str, Any] | None = None, horizon: int = 1000, runs: int = 100,
            seed: int = 0, means=CERTIFICATE_MEANS, alpha: float = 0.05,
            candidate: Any = None) -> Validation:
    """Validate the compiled kernel of ``name`` (or ``candidate``) against the reference; a
    matroid algorithm on :data:`CERTIFICATE_MATROID_SETTING` (``means`` is then not used)."""
    name = canonical(name)
    private = get(name).private
    eps = epsilon if private else None
    params, K, where = _problem(name, params, means)
    horizon = certified_horizon(name, K, eps, variant, params, horizon)
    if candidate is None:
        candidate = RegistryMechanism(name, K, eps, variant, params, T=horizon,
                                      backend="compiled")
        candidate.label += " (compiled kernel)"
    return validate(candidate, name, epsilon=eps, variant=variant, params=params, **where,
                    horizon=horizon, runs=runs, seed=seed, alpha=alpha, audit_samples=0,
                    backend="reference", explain=False)


def certified_horizon(name: str, K: int, epsilon: float | None, variant: str | None,
                      params: dict[str, Any], horizon: int) -> int:
    """``horizon``, unless the reference's actions do not depend on the rewards within it (DP-SE
    at K = 5 releases nothing before round 8126): then twice the horizon from which they do, as
    :func:`~dpbandits.validate.loading.default_horizon` chooses, so that a certificate compares
    rounds in which a kernel's arithmetic could show (at T = 500 DP-SE's certificate compared
    round-robin only and could not fail)."""
    from ..audit.against import audit_horizon, first_dependent_round

    if first_dependent_round(name, K, horizon, epsilon, variant, params) is not None:
        return horizon
    found_T, first = audit_horizon(name, K, epsilon, variant, params, start=horizon)
    return horizon if first is None else 2 * found_T


def _problem(name: str, params: dict[str, Any] | None, means) -> tuple[dict[str, Any], int, dict]:
    """ALGO's parameters, its number of (base) arms and the environment ``validate`` is given:
    the Bernoulli ``means``, or for a matroid algorithm the matroid setting, whose matroid
    joins the parameters."""
    params = dict(params or {})
    if get(name).feedback != "semi":
        return params, len(means), {"means": means}
    from ..reference.matroid import matroid_setting

    environment = matroid_setting(CERTIFICATE_MATROID_SETTING)
    params.setdefault("matroid", environment.matroid)
    return params, environment.L, {"setting": CERTIFICATE_MATROID_SETTING}


def planted(name: str, overrides: dict[str, Any], *, variant: str | None = None,
            epsilon: float = 1.0, horizon: int = 1000, means=CERTIFICATE_MEANS,
            params: dict[str, Any] | None = None) -> RegistryMechanism:
    """The kernel of ``name`` with the fields ``overrides`` of its state replaced (for example
    ``{"epsilon": 2.0}``: the kernel's noise and confidence radius at the wrong epsilon), run
    through the engine on the compiled backend like the kernel it corrupts."""
    name = canonical(name)
    eps = epsilon if get(name).private else None
    params, K, _ = _problem(name, params, means)
    return _PlantedKernel(name, K, eps, variant, params, T=horizon,
                          backend="compiled", overrides=dict(overrides))


@dataclass(frozen=True)
class _PlantedSpec(AlgorithmSpec):
    """An algorithm's factory whose policies carry ``kernel_overrides`` for the compiled backend."""

    overrides: tuple[tuple[str, Any], ...] = ()

    def __call__(self, runs, rng):
        policy = super().__call__(runs, rng)
        policy.kernel_overrides = dict(self.overrides)
        return policy


@dataclass
class _PlantedKernel(RegistryMechanism):
    overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        changed = ", ".join(f"{key}={value!r}" for key, value in self.overrides.items())
        self.label = f"{self.name} kernel with {changed}"

    def _job(self, table, n):
        factory, source, T, n = super()._job(table, n)
        planted = _PlantedSpec(factory.name, factory.K, factory.epsilon, factory.variant,
                               factory.T, factory.params, tuple(sorted(self.overrides.items())))
        return planted, source, T, n


def certificate_row(result: Validation) -> dict[str, Any]:
    """What an algorithm's docs page shows of a certificate."""
    rejected = sum(c.rejected for c in result.comparisons)
    detectable = [c.detectable for c in result.comparisons if c.quantity not in ACTIONS]
    setup = result.setup
    return {"algorithm": setup.algorithm, "variant": setup.variant, "epsilon": setup.epsilon,
            "T": setup.T, "runs": setup.runs, "seed": setup.seed, "means": setup.means,
            "setting": CERTIFICATE_MATROID_SETTING if setup.super_arm_size else None,
            "comparisons": len(result.comparisons), "rejected": rejected,
            "alpha": setup.alpha, "power": setup.power,
            "largest_detectable_effect": max(detectable) if detectable else None,
            "verdict": result.behaviour}


def main(argv: list[str] | None = None) -> int:
    """``python -m dpbandits.validate.certify OUT.json``: every kernel's certificate, as JSON."""
    import json
    import sys

    from ..files import atomic_write

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m dpbandits.validate.certify OUT.json", file=sys.stderr)
        return 2
    rows = []
    for name, variant in certified():
        result = certify(name, variant=variant, alpha=certificate_alpha(), **CERTIFICATE_SIZE)
        rows.append(certificate_row(result))
        print(f"{name} [{variant or 'default'}]: {rows[-1]['verdict']}", file=sys.stderr)
    atomic_write(args[0], lambda handle: json.dump(rows, handle, indent=1))
    return 0 if all(row["verdict"] == "conforms" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
