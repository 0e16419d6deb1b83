"""The simulation engine: R independent runs of a policy against a reward source.

The engine drives a batch-first policy through ``act``/``observe`` for rounds t = 1..T and
records, at a set of checkpoints, each run's

* pseudo-regret  ``sum_{s<=t} (mu_star - mu_{a_s})``  (the quantity the papers bound), and
* realised regret ``sum_{s<=t} (mu_star - r_s)``, with ``r_s`` the reward obtained,

plus the final pull counts and, on request, the whole action sequences (the audit needs them for
short horizons). Nothing of shape (R, T) is held unless ``record_actions`` is set.

**Feedback models** (the policy's ``feedback`` attribute): ``bandit`` (an action is one arm; the
policy sees its reward), ``full`` (one arm; the policy sees the whole row) and ``semi`` (an action
is a super arm, an (R, k) array of base arms; the policy sees their rewards, in the same order).
For ``semi`` the source must state its ``optimal_value`` (the best expected return of a super arm,
e.g. a max-weight basis of a matroid) and regret is ``optimal_value - sum of the chosen means``.
A policy with ``observes_round_zero`` set gets one free observation of the whole row 0 before
round 1 (``observe(0, None, row)``), as the matroid algorithms' initialisation prescribes.

**Seeding.** The ``runs`` are split into blocks of :data:`RUNS_PER_BLOCK` runs. Block ``b`` gets the
``b``-th child of ``SeedSequence(seed)``, which it splits once more into a stream for the rewards
and a stream for the policy. A result therefore depends only on ``seed`` (and the block size,
a constant of the package), never on how many workers ran the blocks or in what order they
finished: the rewards of a block are the same whatever algorithm runs on them.

**Backends.** ``backend="reference"`` runs the policies of this package as written;
``"compiled"`` runs the same policy objects through their numba kernels
(:mod:`dpbandits.compiled`), which draw the same random numbers in the same order, so a block's
result is the same on either backend wherever a kernel's arithmetic matches the reference's (each
kernel says where it does not); ``"auto"`` (the default) takes the compiled backend for long runs,
where the reference pays Python's cost on every round, and the reference otherwise. The backend
that ran is recorded in :attr:`SimulationResult.backend`. The engine does not import the compiled
package (the reference is the source of truth and does not depend on its fast twin): the package
above hands it over with :func:`register_backend`, to be loaded on the first simulation that asks
for it (``import dpbandits`` does so for every caller).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from ..errors import DPBanditsError, check_positive_int, check_seed
from ..pools import process_pool
from .environments import Bernoulli, BetaArms, Deterministic, RewardSource, Table, as_source
from .policy import Policy, PolicyBase

__all__ = ["RUNS_PER_BLOCK", "BACKENDS", "PolicyFactory", "SimulationResult", "simulate",
           "default_checkpoints", "choose_backend", "check_backend", "Backend", "register_backend"]

RUNS_PER_BLOCK = 4096
"""Runs per seeded block. Part of the meaning of a seed: changing it changes results."""

BACKENDS = ("auto", "reference", "compiled")
"""The engine's backends (see the module docstring)."""

AUTO_COMPILED_FROM_T = 5000
"""``auto`` runs the compiled backend from this horizon on: below it a run of the reference costs
milliseconds per run and the compiled kernel's load (about 0.3 s from the disk cache) dominates."""


class Backend(Protocol):
    """A second implementation of the round loop (the compiled kernels): it says why it cannot
    run a policy on a source, or runs one seeded block and returns what the reference block
    returns (regret at the checkpoints, pulls, actions)."""

    def unsupported(self, policy: Policy, source: RewardSource) -> str | None: ...

    def run_block(self, policy: Policy, source: RewardSource, T: int,
                  env_rng: np.random.Generator, checkpoints: np.ndarray, record_actions: bool,
                  progress: Callable[[int], None] | None = None) -> tuple: ...


_BACKEND_LOADERS: dict[str, Callable[[], Backend]] = {}


def register_backend(name: str, load: Callable[[], Backend]) -> None:
    """Hand the engine backend ``name`` (one of :data:`BACKENDS` other than ``auto`` and
    ``reference``): ``load()`` returns it, and is called only when a simulation asks for it."""
    if name not in BACKENDS or name in ("auto", "reference"):
        raise DPBanditsError(f"a registered backend is one of {BACKENDS[2:]}, got {name!r}")
    _BACKEND_LOADERS[name] = load


def _backend(name: str) -> Backend | None:
    load = _BACKEND_LOADERS.get(name)
    return None if load is None else load()


class PolicyFactory(Protocol):
    """Builds a policy for ``runs`` runs from a generator (picklable for worker processes)."""

    def __call__(self, runs: int, rng: np.random.Generator) -> Policy: ...


@dataclass(frozen=True)
class SimulationResult:
    """Regret at checkpoints for every run, final pull counts, and optionally the actions."""

    checkpoints: np.ndarray
    pseudo_regret: np.ndarray
    realised_regret: np.ndarray
    pulls: np.ndarray
    actions: np.ndarray | None
    seed: int
    horizon: int
    means: np.ndarray = field(repr=False)
    backend: str = "reference"
    """The backend that ran the simulation: ``reference`` or ``compiled``."""

    @property
    def runs(self) -> int:
        return int(self.pseudo_regret.shape[0])

    def mean_curve(self, kind: str = "pseudo") -> np.ndarray:
        """Mean regret over runs at each checkpoint (``kind`` is ``pseudo`` or ``realised``)."""
        return self._curve(kind).mean(axis=0)

    def confidence_band(self, kind: str = "pseudo", level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Two-sided Student-t confidence interval for the mean regret at each checkpoint.

        Bounds E[regret(t)] at confidence ``level`` for each checkpoint separately (no correction
        across checkpoints); with one run the band is undefined (NaN). ``level`` must lie in
        (0, 1): anything else is a :class:`~dpbandits.errors.DPBanditsError`, never a NaN band.
        """
        if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
            raise DPBanditsError(f"level must be a confidence level in (0, 1), got {level!r}")
        from scipy.special import stdtrit   # the t quantile (what scipy.stats.t.ppf calls)

        values = self._curve(kind)
        R = values.shape[0]
        mean = values.mean(axis=0)
        if R < 2:
            nan = np.full_like(mean, np.nan)
            return nan, nan
        half = stdtrit(R - 1, 0.5 + level / 2) * values.std(axis=0, ddof=1) / math.sqrt(R)
        return mean - half, mean + half

    def final(self, kind: str = "pseudo", level: float = 0.95) -> tuple[float, float, float]:
        """Mean final regret and its two-sided ``level`` Student-t confidence interval."""
        low, high = self.confidence_band(kind, level)
        return float(self.mean_curve(kind)[-1]), float(low[-1]), float(high[-1])

    def _curve(self, kind: str) -> np.ndarray:
        if kind == "pseudo":
            return self.pseudo_regret
        if kind == "realised":
            return self.realised_regret
        raise DPBanditsError(f"kind must be 'pseudo' or 'realised', got {kind!r}")


def default_checkpoints(T: int, n: int = 60) -> np.ndarray:
    """About ``n`` rounds spread evenly and geometrically over 1..T, always ending at T."""
    linear = np.linspace(1, T, n // 2)
    geometric = np.geomspace(1, T, n - n // 2)
    return np.unique(np.concatenate([linear, geometric, [T]]).round().astype(np.int64))


def simulate(factory: PolicyFactory, source: RewardSource | np.ndarray | str, T: int,
             runs: int = 1, seed: int = 0, *, checkpoints: np.ndarray | None = None,
             record_actions: bool = False, workers: int = 1, client=None,
             progress: Callable[[int], None] | None = None,
             backend: str = "auto") -> SimulationResult:
    """Simulate ``runs`` independent runs of the policy built by ``factory`` for T rounds.

    ``source`` is a stochastic environment (fresh rewards per run), a fixed (T, K) table shared by
    every run, or a setting name. ``progress`` is called with the number of run-rounds done since
    its last call. ``workers > 1`` runs blocks in that many processes; ``client`` (a
    ``dask.distributed.Client``) runs them on a Dask cluster, retrying a block whose worker dies.
    The result is identical in every case: each block is seeded by its own child of the seed.
    ``backend`` is ``auto``, ``reference`` or ``compiled`` (see the module docstring); asking for
    ``compiled`` where no kernel applies is an error that says why.
    """
    T = check_positive_int(T, "T")
    runs = check_positive_int(runs, "runs")
    workers = check_positive_int(workers, "workers")
    seed = check_seed(seed)
    source = as_source(source)
    if isinstance(source, Table) and source.T < T:
        raise DPBanditsError(f"T = {T} exceeds the table's horizon {source.T}")
    cps = default_checkpoints(T) if checkpoints is None else _check_checkpoints(checkpoints, T)
    backend = choose_backend(factory, source, T, backend)
    sizes = [min(RUNS_PER_BLOCK, runs - start) for start in range(0, runs, RUNS_PER_BLOCK)]
    children = np.random.SeedSequence(seed).spawn(len(sizes))
    jobs = [(factory, source, T, size, child, cps, record_actions, backend)
            for size, child in zip(sizes, children)]
    if client is not None:
        futures = client.map(_run_job, jobs, retries=2, pure=False)
        parts = []
        for future, size in zip(futures, sizes):       # collected in block order as they finish
            parts.append(future.result())
            if progress is not None:
                progress(size * T)
    elif workers == 1 or len(jobs) == 1:
        parts = [_run_block(*job, progress=progress) for job in jobs]
    else:
        with process_pool(min(workers, len(jobs))) as pool:
            futures = [pool.submit(_run_block, *job) for job in jobs]
            parts = []
            for future, size in zip(futures, sizes):
                parts.append(future.result())
                if progress is not None:
                    progress(size * T)
    return SimulationResult(
        checkpoints=cps,
        pseudo_regret=np.concatenate([p[0] for p in parts]),
        realised_regret=np.concatenate([p[1] for p in parts]),
        pulls=np.concatenate([p[2] for p in parts]),
        actions=np.concatenate([p[3] for p in parts]) if record_actions else None,
        seed=seed, horizon=T, means=source.means.copy(), backend=backend,
    )


def check_backend(backend: str) -> str:
    """``backend`` if it names one of :data:`BACKENDS`, else the error naming them."""
    if backend not in BACKENDS:
        raise DPBanditsError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return backend


def choose_backend(factory: PolicyFactory, source: RewardSource, T: int, backend: str = "auto") -> str:
    """The backend that ``simulate`` runs: ``reference`` or ``compiled``.

    ``compiled`` is checked here, before any work, on a policy built for one run: it fails with
    the reason when the algorithm has no kernel or the source is one a kernel cannot draw from.
    """
    if check_backend(backend) == "reference" or (backend == "auto" and T < AUTO_COMPILED_FROM_T):
        return "reference"
    from .registry import AlgorithmSpec
    compiled = _backend("compiled")
    if compiled is None:
        reason = "no compiled backend is registered (import dpbandits registers it)"
    elif not isinstance(factory, AlgorithmSpec):
        reason = "only the registered algorithms (built by dpbandits.reference.spec) have kernels"
    else:
        reason = compiled.unsupported(factory(1, np.random.default_rng(0)), source)
    if reason is None:
        return "compiled"
    if backend == "compiled":
        raise DPBanditsError(f"the compiled backend cannot run this simulation: {reason}")
    return "reference"


def _check_checkpoints(checkpoints: np.ndarray, T: int) -> np.ndarray:
    cps = np.unique(np.asarray(checkpoints, dtype=np.int64))
    if cps.size == 0 or cps[0] < 1 or cps[-1] > T:
        raise DPBanditsError(f"checkpoints must be rounds in 1..{T}")
    return cps


def _run_job(job: tuple) -> tuple:
    """One block, as a picklable job for a process pool or a Dask worker."""
    return _run_block(*job)


def _run_block(factory: PolicyFactory, source: RewardSource, T: int, runs: int,
               seed_seq: np.random.SeedSequence, checkpoints: np.ndarray, record_actions: bool,
               backend: str = "reference", progress: Callable[[int], None] | None = None):
    """One seeded block: build the policy, then play T rounds on the chosen backend."""
    env_seq, policy_seq = seed_seq.spawn(2)
    env_rng = np.random.default_rng(env_seq)
    policy = _block_policy(factory, source, runs, np.random.default_rng(policy_seq))
    if backend == "compiled":
        compiled: Any = _backend("compiled")
        return compiled.run_block(policy, source, T, env_rng, checkpoints, record_actions, progress)
    return _play(policy, source, T, env_rng, checkpoints, record_actions, progress)


def _block_policy(factory: PolicyFactory, source: RewardSource, runs: int,
                  rng: np.random.Generator) -> Policy:
    """The block's policy, checked against the block; reference policies skip feedback checks."""
    policy = factory(runs, rng)
    if policy.runs != runs:
        raise DPBanditsError(f"the factory built a policy for {policy.runs} runs, expected {runs}")
    if policy.K != source.K:
        raise DPBanditsError(f"the policy has K = {policy.K} arms but the rewards have K = {source.K}")
    # Reference policies are trusted to act within 0..K-1 (the contract tests check it) and are
    # told that the engine's rewards are already validated; anything else is checked every round.
    if isinstance(policy, PolicyBase) and isinstance(source, (Bernoulli, BetaArms, Deterministic, Table)):
        policy.validate_feedback = False
    return policy


class _Ledger:
    """What a block records: regret so far, pull counts, checkpoints and (optionally) actions."""

    def __init__(self, policy: Policy, source: RewardSource, T: int, checkpoints: np.ndarray,
                 record_actions: bool) -> None:
        runs, self.mode = policy.runs, policy.feedback
        self.rows = np.arange(runs)
        if self.mode == "semi":
            self.best = getattr(source, "optimal_value", None)
            if self.best is None:
                raise DPBanditsError("a semi-bandit policy needs a source with an optimal_value "
                                     "(for example a matroid environment)")
            self.means = source.means
            width = getattr(policy, "super_arm_size", None)
            shape = (runs, T, width) if width else None
        else:
            self.gaps, self.mu_star = source.gaps, source.mu_star
            shape = (runs, T)
        if record_actions and shape is None:
            raise DPBanditsError("recording super arms needs the policy's super_arm_size")
        self.pseudo = np.zeros(runs)
        self.realised = np.zeros(runs)
        self.pulls = np.zeros((runs, source.K), dtype=np.int64)
        self.checkpoints = checkpoints
        self.pseudo_at = np.empty((runs, checkpoints.size))
        self.realised_at = np.empty((runs, checkpoints.size))
        self.actions_seen = np.empty(shape, dtype=np.int32) if record_actions else None
        self.cp_index = 0

    def book(self, t: int, actions: np.ndarray, obtained: np.ndarray) -> None:
        rows = self.rows
        if self.mode == "semi":
            self.pseudo += self.best - self.means[actions].sum(axis=1)
            self.realised += self.best - obtained
            self.pulls[rows[:, None], actions] += 1
        else:
            self.pseudo += self.gaps[actions]
            self.realised += self.mu_star - obtained
            self.pulls[rows, actions] += 1
        if self.actions_seen is not None:
            self.actions_seen[:, t - 1] = actions
        if self.cp_index < self.checkpoints.size and t == self.checkpoints[self.cp_index]:
            self.pseudo_at[:, self.cp_index] = self.pseudo
            self.realised_at[:, self.cp_index] = self.realised
            self.cp_index += 1

    def outputs(self) -> tuple:
        return self.pseudo_at, self.realised_at, self.pulls, self.actions_seen


def _feedback(policy: Policy, source: RewardSource, env_rng: np.random.Generator, t: int,
              actions: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Round t's feedback for the policy and the reward each run obtained."""
    mode = policy.feedback
    if mode == "full":
        feedback = source.rows(env_rng, t, policy.runs)
        return feedback, feedback[rows, actions]
    if mode == "semi":
        feedback = source.rows(env_rng, t, policy.runs)[rows[:, None], actions]
        return feedback, feedback.sum(axis=1)
    obtained = source.rewards(env_rng, t, actions)
    return obtained, obtained


def _play(policy: Policy, source: RewardSource, T: int, env_rng: np.random.Generator,
          checkpoints: np.ndarray, record_actions: bool,
          progress: Callable[[int], None] | None = None) -> tuple:
    """Rounds 1..T of the reference backend: act, draw the feedback, observe, book."""
    ledger = _Ledger(policy, source, T, checkpoints, record_actions)
    trusted = isinstance(policy, PolicyBase)
    report_every = max(1, T // 100)
    if getattr(policy, "observes_round_zero", False):
        policy.observe(0, None, source.rows(env_rng, 0, policy.runs))
    for t in range(1, T + 1):
        actions = policy.act(t)
        if not trusted:
            actions = _checked_actions(actions, policy.runs, source.K, t, policy.feedback)
        feedback, obtained = _feedback(policy, source, env_rng, t, actions, ledger.rows)
        policy.observe(t, actions, feedback)
        ledger.book(t, actions, obtained)
        if progress is not None and (t % report_every == 0 or t == T):
            progress(policy.runs * (report_every if t % report_every == 0 else T % report_every))
    return ledger.outputs()


def _checked_actions(actions: np.ndarray, runs: int, K: int, t: int, mode: str = "bandit") -> np.ndarray:
    if mode == "semi":
        if (not isinstance(actions, np.ndarray) or actions.ndim != 2 or actions.shape[0] != runs
                or actions.dtype.kind not in "iu"):
            raise DPBanditsError(f"act({t}) must return an integer array of shape ({runs}, k), "
                                 f"got {actions!r}")
        if runs and np.any(np.diff(np.sort(actions, axis=1), axis=1) == 0):
            raise DPBanditsError(f"act({t}) returned a super arm with a repeated base arm")
    elif not isinstance(actions, np.ndarray) or actions.shape != (runs,) or actions.dtype.kind not in "iu":
        raise DPBanditsError(f"act({t}) must return an integer array of shape ({runs},), got {actions!r}")
    if runs and (actions.min() < 0 or actions.max() >= K):
        raise DPBanditsError(f"act({t}) returned an arm outside 0..{K - 1}")
    return actions
