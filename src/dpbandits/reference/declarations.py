"""What an algorithm declares for the machinery that runs, audits and accounts for it.

Everything the project knows about one algorithm, other than its paper's bounds and experiments,
sits beside its pseudocode: the algorithm's class carries these declarations as class attributes
(``None`` where it has none), and the generic machinery reads them through the registry
(:func:`dpbandits.reference.registry.declaration`) without naming any algorithm.

=========================  ==============================  =======================================
class attribute            type                            read by
=========================  ==============================  =======================================
``kernel``                 the compiled kernel's module     the compiled backend's dispatch
``audit_design``           an :class:`AuditDesign`          ``dpbandits.audit.design``
``known_pairs``            :class:`KnownPairs`              ``dpbandits.audit.pairs``
``audit_preset``           :class:`AuditPreset`             the audit runner and the accountant
``white_box_statistic``    attribute path, or               the white-box audit
                           :class:`Declined`
``release_structure``      text                             the accountant
``trace_setting``          :class:`TraceSetting`            the accountant
``parameter_domains``      parameter -> :class:`~dpbandits  the registry, ``--param`` and
                           .reference.domains.Domain`       ``dpbandits list``
=========================  ==============================  =======================================

A declaration that one algorithm of a family has and another lacks is either declared or
:class:`Declined` with the reason (the tests hold every family to this).

The audit designs build their tables as numpy arrays; the audit wraps them into neighbouring
pairs (the reference does not import the audit). docs/audit-design.md explains each design.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from ..errors import DPBanditsError, check_positive_int

__all__ = ["TablePair", "AuditDesign", "HybridItem", "LazyEpoch", "TreeTies", "FirstElimination",
           "KnownPairs", "AuditPreset", "TraceSetting", "Declined", "DECLARATIONS"]

DECLARATIONS = ("kernel", "audit_design", "known_pairs", "audit_preset", "white_box_statistic",
                "release_structure", "trace_setting", "parameter_domains")
"""The class attributes of the table above."""


class TablePair(NamedTuple):
    """Two reward tables (T, K) that differ in the row of round ``step``, and what they are."""

    D0: np.ndarray
    D1: np.ndarray
    step: int
    description: str


@dataclass(frozen=True)
class Declined:
    """An algorithm states that it has no such declaration, and why (a family's other members
    have one)."""

    reason: str


def _row_pair(X: np.ndarray, step: int, description: str) -> TablePair:
    """``X`` with the row of round ``step`` all 1, against the same table with it all 0."""
    X = X.copy()
    X[step - 1] = 1.0
    Y = X.copy()
    Y[step - 1] = 0.0
    return TablePair(X, Y, step, description)


@dataclass(frozen=True, kw_only=True)
class AuditDesign:
    """Designed neighbouring pairs of an algorithm: where it releases a statistic that a single
    reward moves most, and the horizons at which the audit reads it.

    ``why`` says why those rounds; ``arms`` is the audit's default K for the algorithm.
    """

    why: str
    arms: int = 2

    def release_horizon(self, K: int, epsilon: float, params: dict[str, Any]) -> int:
        """The horizon at which an audit reaches the first data-dependent releases."""
        raise NotImplementedError

    def designed_horizon(self, K: int, epsilon: float, params: dict[str, Any]) -> int | None:
        """The horizon of the designed pairs when none is given (None: no pair fits)."""
        return self.release_horizon(K, epsilon, params)

    def tables(self, K: int, epsilon: float, T: int | None, params: dict[str, Any],
               deviations: bool = False) -> list[TablePair]:
        """The designed pairs' tables at horizon ``T`` (None: :meth:`designed_horizon`); a
        ``T`` too short for the design gives none. ``deviations`` adds the pairs that catch a
        known deviation of an implementation from the reference."""
        raise NotImplementedError

    def selection(self, samples: int) -> int:
        """Selection runs per side and designed pair for an audit of ``samples`` test runs per
        side: the sample the generic candidates would share, since a few designed pairs
        replace many generic ones and whole-sequence events need it to rank sequences."""
        return samples


@dataclass(frozen=True, kw_only=True)
class HybridItem(AuditDesign):
    """Hybrid-counter UCBs: the rounds ``steps`` whose reward is the counter item that loses
    most, changed at the extremes (the whole row 1 vs 0, so whichever arm is pulled sees it) on a
    constant table (0 or 1); the horizon keeps ``after`` rounds after the last of them, which
    read both released nodes."""

    steps: tuple[int, ...]
    after: int

    def release_horizon(self, K, epsilon, params):
        return max(self.steps) + self.after

    def tables(self, K, epsilon, T, params, deviations=False):
        T = check_positive_int(T or self.release_horizon(K, epsilon, params), "T")
        pairs = []
        for step in self.steps:
            if step > T:
                continue
            for base in (0.0, 1.0):
                pairs.append(_row_pair(np.full((T, K), base), step,
                                       f"designed: rewards {base:g}, round {step} row all 1 vs "
                                       f"all 0"))
        return pairs


@dataclass(frozen=True, kw_only=True)
class LazyEpoch(AuditDesign):
    """Lazy-epoch algorithms, which release each epoch sum once: arms 1..K-1 pay ``others`` on
    every round, arm 0 pays each value of ``arm0`` (one pair per value and designed round); the
    pair changes the row of a designed round from all 1 to all 0. ``horizon`` None: K + 6 (the
    winner of round K + 1 plays its epoch 1, released after round K + 2, and the audit keeps the
    4 rounds after it); the first release is read at round K + 1."""

    steps: tuple[int, ...]
    arm0: tuple[float, ...]
    others: float
    horizon: int | None = None

    def release_horizon(self, K, epsilon, params):
        return K + 1

    def designed_horizon(self, K, epsilon, params):
        return K + 6 if self.horizon is None else self.horizon

    def tables(self, K, epsilon, T, params, deviations=False):
        T = check_positive_int(T or self.designed_horizon(K, epsilon, params), "T")
        pairs, others = [], "arm 1 pays" if K == 2 else f"arms 1..{K - 1} pay"
        for step, arm0 in ((s, a) for s in self.steps for a in self.arm0):
            if T <= max(K, step):        # nothing reads the release
                continue
            X = np.full((T, K), self.others)
            X[:, 0] = arm0
            pairs.append(_row_pair(X, step, f"designed: arm 0 pays {arm0:g}, {others} "
                                            f"{self.others:g}, round {step} row all 1 vs all 0"))
        return pairs


@dataclass(frozen=True, kw_only=True)
class TreeTies(AuditDesign):
    """Tree-counter UCBs whose confidence relaxation leaves the noise a say only at equal pull
    counts: every cell pays ``base``; the pair changes the row of a designed round from all 1 to
    all 0. The horizon is ``cycles`` K rounds; round K + 1 first reads every arm's tree."""

    steps: tuple[int, ...]
    base: float
    cycles: int

    def release_horizon(self, K, epsilon, params):
        return K + 1

    def designed_horizon(self, K, epsilon, params):
        return self.cycles * K

    def tables(self, K, epsilon, T, params, deviations=False):
        T = check_positive_int(T or self.designed_horizon(K, epsilon, params), "T")
        pairs = []
        for step in self.steps:
            if T <= K + step:            # no tie reads the changed leaf
                continue
            pairs.append(_row_pair(np.full((T, K), self.base), step,
                                   f"designed: rewards {self.base:g}, round {step} row all 1 vs "
                                   f"all 0 (arm 0's leaf 1, read at equal counts)"))
        return pairs


@dataclass(frozen=True, kw_only=True)
class FirstElimination(AuditDesign):
    """Successive elimination with synchronised epochs, which releases nothing before its first
    epoch ends: its first elimination balanced on its noise.

    Arm 0 pays 1 always; the last arm pays 1 on a share of its first epoch's pulls that puts the
    gap between the two released means ``offset`` noise scales 1/(eps R_1) below the
    elimination threshold (one pair per offset of ``offsets``); the other arms pay 0 (eliminated
    at once). The pair changes the row of round K R_1, the epoch's last pull (of the last arm),
    from all 1 to all 0: a change of 1/R_1 in its mean. The horizon keeps two rounds after the
    release: the second shows whether the last arm was eliminated (round K R_1 + 1 pulls arm 0
    either way).

    With ``deviations``, a last pair puts the exact gap on the threshold: at or below it on D0,
    above it on D1 (the share of ones is ceil(R_1 (1 - threshold))). A faithful algorithm
    eliminates with nearly the same probability on both; one whose first elimination reads the
    exact means eliminates on D1 and keeps on D0, always.

    ``epoch_length(e, n_active, epsilon, beta[, rounding])`` and ``threshold(e, n_active, R,
    epsilon, beta)`` are the algorithm's schedule. ``params`` may set ``beta`` (default 1/T) and
    ``rounding``; an ``order`` other than round-robin has no design. The selection sample is a
    quarter of the test sample, at least ``min_selection``: the runs are long.
    """

    offsets: tuple[float, ...]
    epoch_length: Callable[..., Any]
    threshold: Callable[..., Any]
    min_selection: int = 2000

    def selection(self, samples):
        return max(self.min_selection, samples // 4)

    def release_horizon(self, K, epsilon, params):
        """K R_1 + 1, the round after the first epoch's release, with R_1 at beta = 1/T (the
        default), solved for the smallest T that reaches it."""
        T = K + 1
        for _ in range(64):      # T = K R_1(beta = 1/T) + 1 has a fixed point: R_1 grows as ln T
            beta = params.get("beta", 1.0 / T)
            needed = K * int(self.epoch_length(1, K, epsilon, beta)) + 1
            if needed <= T:
                return T
            T = needed
        raise DPBanditsError("the first release horizon did not settle")  # pragma: no cover

    def designed_horizon(self, K, epsilon, params):
        """The first horizon that holds two rounds after the first release,
        T >= K R_1(beta = 1/T) + 2."""
        pairs = self.tables(K, epsilon, None, params)
        return pairs[0].D0.shape[0] if pairs else None

    def tables(self, K, epsilon, T, params, deviations=False):
        params = dict(params or {})
        if params.get("order", "round-robin") != "round-robin":
            return []
        rounding = params.get("rounding", "ceil")

        def beta_at(T: int) -> float:
            return params.get("beta") or 1.0 / T

        if T is None:   # two rounds after the release must fit: T >= K R_1(1/T) + 2 (round K R_1
            T = self.release_horizon(K, epsilon, params) + 1  # + 1 pulls arm 0 whether or not
            while K * int(self.epoch_length(1, K, epsilon, beta_at(T), rounding)) + 2 > T:
                T += 1                                        # the last arm was eliminated)
        beta = beta_at(T)
        R1 = int(self.epoch_length(1, K, epsilon, beta, rounding))
        last = K * R1                       # the epoch's last pull, of arm K - 1 (round-robin)
        if last + 2 > T:
            return []
        threshold = float(self.threshold(1, K, R1, epsilon, beta))
        pairs = []
        for offset in (*self.offsets, *((None,) if deviations else ())):
            if offset is None:              # on the threshold: kept on D0, eliminated on D1
                ones = math.ceil(R1 * (1.0 - threshold))
            else:
                ones = int(round(R1 * (1.0 - (threshold - offset / (epsilon * R1)))))
            if not 1 <= ones <= R1:
                continue
            X = np.zeros((T, K))
            X[:, 0] = 1.0
            pulls = np.arange(K, last + 1, K) - 1      # rows of the last arm's pulls in epoch 1
            X[pulls[:ones - 1], K - 1] = 1.0
            where = ("exact gap on the threshold" if offset is None
                     else f"gap {offset} noise scales below the threshold")
            pairs.append(_row_pair(X, last, f"designed: first elimination, {where}, round "
                                            f"{last} row all 1 vs all 0"))
        return pairs


@dataclass(frozen=True, kw_only=True)
class KnownPairs:
    """The worked worst cases of an algorithm: ``build(K, T)`` returns their tables; ``arms`` is
    the K at which they are stated (the audit's default K); ``source`` the erratum that works
    them out (docs/errata.md)."""

    build: Callable[[int, int], list[TablePair]]
    arms: int
    source: str


@dataclass(frozen=True, kw_only=True)
class AuditPreset:
    """Settings under which ``dpbandits audit --all`` audits an algorithm instead of the common
    ones (each None: the common one), and why."""

    why: str
    epsilon: float | None = None
    params: dict[str, Any] | None = None
    T: int | None = None
    samples: int | None = None

    def settings(self) -> dict[str, Any]:
        """The settings that are set, as the audit runner's keyword arguments."""
        return {key: value for key, value in (("epsilon", self.epsilon), ("params", self.params),
                                              ("T", self.T), ("samples", self.samples))
                if value is not None}


@dataclass(frozen=True, kw_only=True)
class TraceSetting:
    """The accountant's trace setting of an algorithm, replacing the default arms, rounds and
    parameters, and why."""

    why: str
    K: int | None = None
    T: int | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> dict[str, Any]:
        """``K``, ``T`` (where set) and the parameters, as one dict."""
        out: dict[str, Any] = {key: value for key, value in (("K", self.K), ("T", self.T))
                               if value is not None}
        return {**out, **self.params}
