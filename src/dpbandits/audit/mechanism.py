"""Mechanisms under test: anything that maps a fixed reward table to random action sequences.

An audit needs one operation from the mechanism: run it ``n`` times on a fixed table with fresh
internal randomness and return the ``n`` action sequences. :class:`Mechanism` is that interface;
:class:`RegistryMechanism` wraps a registered algorithm (batch-first, fast), and
:mod:`dpbandits.audit.adapters` and :mod:`dpbandits.audit.external` wrap third-party Python
policies, callables and external programs.

Seeding: ``sample(table, n, seed)`` must return the same array for the same arguments, and the
run ``i`` must be a function of ``(seed, i)`` only, so that results do not depend on how runs are
split over workers. Audits draw their selection and test samples with different seeds.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DPBanditsError, check_positive_int
from ..reference.environments import Table
from ..reference.neighbours import ROW, NeighbourRelation
from ..reference.privacy import Guarantee, PrivacyClaim
from ..reference.registry import canonical, get, make, spec
from ..reference.engine import simulate

__all__ = ["Mechanism", "RegistryMechanism", "as_table"]


def as_table(table: Table | np.ndarray) -> Table:
    """Accept a :class:`~dpbandits.reference.Table` or a (T, K) array of rewards in [0, 1]."""
    return table if isinstance(table, Table) else Table(np.asarray(table, dtype=float))


class Mechanism:
    """Interface of a mechanism under test.

    Attributes: ``K`` (arms; base arms for matroids), ``feedback`` (``bandit``, ``full`` or
    ``semi``), ``claimed`` (the :class:`Guarantee` to test, or None for a non-private algorithm),
    ``label`` (a short name for reports). ``sample(table, n, seed)`` returns an integer array of
    shape (n, T) (or (n, T, k) for super arms).
    """

    K: int
    feedback: str = "bandit"
    claimed: Guarantee | None = None
    label: str = "mechanism"

    def sample(self, table: Table, n: int, seed: int) -> np.ndarray:
        raise NotImplementedError

    def sample_many(self, requests: list[tuple[Table, int, int]]) -> list[np.ndarray]:
        """``sample`` for each (table, n, seed) request; mechanisms that can run requests in
        parallel override it. The outputs are those of ``sample``, whatever the parallelism."""
        return [self.sample(table, n, seed) for table, n, seed in requests]

    def parallelism(self) -> int:
        """How many ``sample`` requests are worth running at once (1: one after another)."""
        return 1

    def worker_copy(self) -> "Mechanism | None":
        """A copy that samples on one core and can be sent to a worker process or a Dask worker,
        so that an audit runs its pieces (a pair's selection, a share of the test sample's
        scores) side by side; None (the default) keeps every piece in the calling process."""
        return None

    def exact_model(self):
        """An object with ``choice_laws(table)`` and ``log_probability(table, actions)`` when the
        mechanism can compute its trajectory probabilities exactly; None otherwise."""
        return None

    def epoch_boundaries(self, T: int) -> list[int]:
        """Rounds after which the mechanism releases something (where pairs are most revealing);
        empty when unknown."""
        return []

    def white_box(self) -> Any:
        """The internal statistics the mechanism releases, for white-box audits; None if not exposed."""
        return None


def _sample_job(job: tuple) -> np.ndarray:
    """One sampling request, in a worker process or on a Dask worker."""
    factory, source, T, n, seed, backend = job
    return simulate(factory, source, T, runs=n, seed=seed, record_actions=True,
                    backend=backend).actions


@dataclass
class RegistryMechanism(Mechanism):
    """A registered algorithm and variant at a given epsilon, run through the engine."""

    name: str
    K: int
    epsilon: float | None = None
    variant: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    T: int | None = None
    workers: int = 1
    """Local worker processes for sampling; the engine's seeded blocks make results identical."""
    client: Any = None
    """A Dask client to sample on (optional); results are identical to a local run."""
    backend: str = "auto"
    """The engine's backend (``auto``, ``reference`` or ``compiled``); see
    :func:`dpbandits.reference.engine.simulate`."""

    def __post_init__(self) -> None:
        self.name = canonical(self.name)
        cls = get(self.name)
        self.K = check_positive_int(self.K, "K", minimum=2)
        self.feedback = cls.feedback
        self._policy = make(self.name, self.K, epsilon=self.epsilon, rng=0, variant=self.variant,
                            T=self.T or 1000, **self.params)
        self.variant = self._policy.variant
        # An algorithm whose guarantee depends on the horizon states the claim at the audited T.
        at_horizon = getattr(self._policy, "pure_claim", None)
        self.claim: PrivacyClaim = at_horizon(self.T or 1000) if at_horizon else self._policy.claim
        self.claimed = self.claim.claimed
        label = f"{self.name}[{self.variant}]" if len(cls.variants) > 1 else self.name
        self.label = label + "".join(f" {k}={v}" for k, v in sorted(self.params.items()))
        self.backends_used: set[str] = set()
        """The backends that actually ran this mechanism's samples (``auto`` resolves per call)."""

    @property
    def relation(self) -> NeighbourRelation:
        return self.claimed.relation if self.claimed else ROW

    def sample(self, table: Table, n: int, seed: int) -> np.ndarray:
        factory, source, T, n = self._job(table, n)
        result = simulate(factory, source, T, runs=n, seed=seed, record_actions=True,
                          workers=self.workers, client=self.client, backend=self.backend)
        self.backends_used.add(result.backend)
        return result.actions

    def sample_many(self, requests: list[tuple[Table, int, int]]) -> list[np.ndarray]:
        """Each request simulated in one piece, the requests spread over the worker processes
        or the Dask cluster; each output equals ``sample``'s (the engine's results do not depend
        on where its blocks run)."""
        jobs = [(*self._job(table, n), seed, self.backend) for table, n, seed in requests]
        if self.client is not None:
            futures = self.client.map(_sample_job, jobs, pure=False, retries=2)
            return self.client.gather(futures)
        if self.workers > 1 and len(jobs) > 1:
            from ..pools import process_pool

            with process_pool(min(self.workers, len(jobs))) as pool:
                return list(pool.map(_sample_job, jobs))
        return [_sample_job(job) for job in jobs]

    def parallelism(self) -> int:
        if self.client is not None:
            return max(1, len(self.client.scheduler_info().get("workers", {})))
        return self.workers

    def worker_copy(self) -> "RegistryMechanism":
        """This mechanism on one core, with no cluster (its samples are the same)."""
        local = copy.copy(self)
        local.workers, local.client, local.backends_used = 1, None, set()
        return local

    def _job(self, table: Table, n: int):
        table = as_table(table)
        if table.K != self.K:
            raise DPBanditsError(f"{self.label} has K = {self.K} arms but the table has {table.K}")
        factory = spec(self.name, self.K, epsilon=self.epsilon, variant=self.variant,
                       T=self.T or table.T, **self.params)
        source = table
        if self.feedback == "semi":      # super arms are bases of the policy's matroid
            from ..reference.matroid.environment import MatroidEnvironment
            source = MatroidEnvironment(self._policy.matroid, table)
        return factory, source, table.T, check_positive_int(n, "n")

    def exact_model(self):
        model = getattr(self._policy, "trajectory_model", None)
        return model() if model is not None else None

    def epoch_boundaries(self, T: int) -> list[int]:
        boundaries = getattr(self._policy, "release_rounds", None)
        if boundaries is not None:
            return [t for t in boundaries(T) if 1 <= t <= T]
        if self.exact_model() is not None:          # doubling epochs end at 2^(e+1) - 1
            return [(1 << (e + 1)) - 1 for e in range(T.bit_length()) if (1 << (e + 1)) - 1 <= T]
        return []
