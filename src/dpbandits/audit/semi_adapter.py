"""Matroid semi-bandit candidates: the act/observe protocol of
:class:`~dpbandits.audit.adapters.PolicyMechanism` with semi-bandit feedback on a matroid
(Chandak, Hu & Hegde, Sec. 2; docs/algorithms/dpucb-mat.md). The protocol is described in
:mod:`dpbandits.audit.adapters`; every basis the candidate plays is checked here."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError
from ..reference.environments import Table
from .adapters import PolicyMechanism, _call, _own_copy, _read_only, protocol_methods
from .isolation import DEFAULT_TIMEOUT
from .quoting import quoted

__all__ = ["SemiPolicyMechanism"]


class SemiPolicyMechanism(PolicyMechanism):
    """A single-run act/observe policy with semi-bandit feedback on a matroid, run ``n`` times.

    ``factory(rng) -> policy`` as for :class:`PolicyMechanism`; ``matroid`` is the
    :class:`~dpbandits.reference.matroid.Matroid` whose bases the policy plays (``K`` = its L
    base arms, k = its rank). Every table must carry the free row 0 (``table.X0``). The protocol
    (module docstring): ``observe(0, None, w0)``, then ``act(t)`` -> k base arms forming a basis,
    ``observe(t, arms, rewards)`` with the sorted basis and its weights in that order, both
    read-only (k,) arrays. ``sample`` returns the sorted bases, an int32 array of shape (n, T, k).
    A value that is not k distinct base arms or not a basis stops the run with a
    :class:`~dpbandits.errors.DPBanditsError` naming the run and the round.
    """

    def __init__(self, factory: Callable[[np.random.Generator], Any], matroid: Any,
                 claim_epsilon: float | None, *, workers: int = 1,
                 label: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 isolated: bool = True) -> None:
        from ..reference.matroid import Matroid

        if not isinstance(matroid, Matroid):
            raise DPBanditsError(f"matroid must be a Matroid (dpbandits.reference.matroid), "
                                 f"got {matroid!r}")
        self.matroid = matroid
        self.k = matroid.rank
        self._bases: dict[tuple[int, ...], bool] = {}
        super().__init__(factory, matroid.L, claim_epsilon, "semi", workers=workers, label=label,
                         timeout=timeout, isolated=isolated)

    feedback_models = ("semi",)

    def _rows(self, table: Table) -> np.ndarray:
        """Row 0 and rounds 1..T, shape (T + 1, L), read-only."""
        if table.X0 is None:
            raise DPBanditsError(f"{self.label} observes a row 0 before round 1 (the matroid "
                                 f"algorithms' w_0): the table needs X0")
        return _read_only(np.vstack([table.X0, table.X]))

    def _run_shape(self, X: np.ndarray) -> tuple[int, ...]:
        return (X.shape[0] - 1, self.k)

    def _run(self, X: np.ndarray, rng: np.random.Generator, i: int) -> np.ndarray:
        where = f"{self.label}: run {i}"
        T = X.shape[0] - 1
        progress = self._progress
        policy = _call(where, self.build_call, self._build, T, rng)
        act, observe = protocol_methods(policy, where,
                                        "act(t) -> basis and observe(t, arms, rewards)")
        bases = np.empty((T, self.k), dtype=np.int32)
        t, call = 0, "policy.observe(0, None, w0)"
        try:
            progress[1] = 1
            observe(0, None, _own_copy(X[0]))
            for t in range(1, T + 1):
                call = f"policy.act({t})"
                progress[1] = 2 * t
                arms = self._checked_basis(act(t), f"{where}: {call}")
                rewards = X[t, arms]        # fancy indexing: a fresh array of its own
                rewards.setflags(write=False)
                call = f"policy.observe({t}, ...)"
                progress[1] = 2 * t + 1
                observe(t, arms, rewards)
                bases[t - 1] = arms
        except DPBanditsError:
            raise
        except Exception as error:
            hint = (" (a matroid semi-bandit candidate observes the whole round-0 row first)"
                    if t == 0 else "")
            raise DPBanditsError(f"{where}: {call} raised {type(error).__name__}: "
                                 f"{quoted(error)}{hint}") from error
        return bases

    def _checked_basis(self, value: Any, where: str) -> np.ndarray:
        """k distinct base arms forming a basis, sorted, as a read-only int64 array."""
        try:
            arms = np.asarray(value)
        except Exception as error:
            raise DPBanditsError(f"{where} returned {value!r}, not a sequence of base arms: "
                                 f"{quoted(error)}") from error
        L, k = self.K, self.k
        if arms.shape != (k,):
            got = f"{value!r}" if arms.ndim == 0 else f"shape {arms.shape}"
            raise DPBanditsError(f"{where} must return k = {k} base arms (a basis), got {got}")
        if arms.dtype.kind not in "iu":
            raise DPBanditsError(f"{where} returned {arms.tolist()!r} of dtype {arms.dtype}; "
                                 f"base arms are integers in 0..{L - 1}")
        if arms.min() < 0 or arms.max() >= L:
            raise DPBanditsError(f"{where} returned base arms {arms.tolist()}, outside 0..{L - 1}")
        arms = np.sort(arms.astype(np.int64))
        key = tuple(arms.tolist())
        known = self._bases.get(key)
        if known is None:
            known = len(set(key)) == k and self.matroid.is_basis(key)
            self._bases[key] = known
        if not known:
            what = "repeats a base arm" if len(set(key)) < k else f"is not a basis of {self.matroid!r}"
            raise DPBanditsError(f"{where} returned the super arm {list(key)}, which {what}")
        arms.setflags(write=False)
        return arms

    def _check_received(self, actions: np.ndarray) -> None:
        super()._check_received(actions)
        for basis in np.unique(actions.reshape(-1, self.k), axis=0):
            self._checked_basis(basis, f"{self.label}: the host process")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(label={self.label!r}, matroid={self.matroid!r}, "
                f"claimed={self.claimed}, workers={self.workers})")
