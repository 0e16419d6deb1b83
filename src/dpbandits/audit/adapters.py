"""Black-box adapters: third-party Python code as a mechanism under test.

Three shapes of user code are accepted, each for a single run:

* :class:`PolicyMechanism` wraps an object following the act/observe protocol of
  :mod:`dpbandits.reference.policy` for one run: ``factory(rng) -> policy``, then for rounds
  t = 1..T ``policy.act(t)`` returns the arm (an int or a length-1 integer array) and
  ``policy.observe(t, action, feedback)`` receives the pulled arm's reward as a float (``bandit``)
  or the whole row as a read-only (K,) array (``full``). The policy sees round t's rewards only
  after it has acted in round t.
* :class:`~dpbandits.audit.semi_adapter.SemiPolicyMechanism` wraps the same single-run protocol with matroid semi-bandit
  feedback (Chandak, Hu & Hegde, Sec. 2; docs/algorithms/dpucb-mat.md): the policy first gets the
  free round-0 row, ``policy.observe(0, None, w0)`` with w0 the read-only (L,) row of every base
  arm's weight, then for t = 1..T ``policy.act(t)`` returns k distinct base arms (any integer
  sequence or array), which must be a basis of the given matroid, and ``policy.observe(t, arms,
  rewards)`` receives ``arms``, the basis sorted in increasing order as a read-only (k,) integer
  array, and ``rewards``, their weights in that order, a read-only (k,) float array. The output
  of ``sample`` is (n, T, k): every run's bases, sorted.
* :class:`CallableMechanism` wraps ``fn(table, rng) -> actions``: the whole read-only (T, K) table
  and a generator in, the T actions out. Nothing stops ``fn`` from reading rewards before acting;
  that is the author's responsibility (the audit tests the action sequence either way).

Isolation: by default (``isolated=True``, on POSIX) the user code runs in host processes of its
own (:mod:`dpbandits.audit.isolation`; docs/audit-protocol.md#isolation), each serving whole blocks
of runs on its own copy of the table: it cannot change the auditor's state or another run's
input, and its exceptions, exits, crashes, output and time (``timeout`` seconds per call) are
confined to it and reported as a :class:`~dpbandits.errors.DPBanditsError`. ``isolated=False``
runs it in the calling process, one run after another (for debugging; the code can then change
anything in that process).

Protocols: what a factory builds for a run may follow any protocol of
:mod:`dpbandits.audit.protocols` (act/observe, SMPyBandits' ``choice``/``getReward``, a MABWiser
``MAB`` or learning policy, ``step(last_reward, last_arm)``); it is driven through act/observe.

Seeding: run ``i`` of ``sample(table, n, seed)`` gets the generator built from the ``i``-th child
of ``SeedSequence(seed)`` (:func:`run_seeds`), and before the run NumPy's and Python's global
generators are seeded from that child too (:func:`dpbandits.audit.protocols.seed_globals`), so a
result depends only on ``(seed, i)`` and never on ``workers`` or the chunking, for code that
draws from either. Code whose draws come from elsewhere (an unseeded or module-level generator)
or that keeps state between runs breaks this: ``sample`` runs the first runs of its first calls
again (:data:`REPLAYED_RUNS`, :data:`REPLAYED_CALLS`) in a process that has served other runs, and
a run that does not repeat stops the work with a :class:`~dpbandits.errors.DPBanditsError`
naming it, instead of mixing runs that depend on the process they ran in. Leaks that leave the
replayed runs unchanged are not detected.

Every output is checked (shape, integer type, range 0..K-1, NaN; for a semi-bandit policy,
that the base arms are distinct and form a basis of the matroid) and every exception raised by
user code is turned into a :class:`~dpbandits.errors.DPBanditsError` naming the run, the round,
the exception's type and its message (the exception object itself stays in the host).
"""

from __future__ import annotations

import math
import random
import weakref
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int, check_seed
from ..reference.environments import Table
from ..reference.privacy import Guarantee
from .isolation import AVAILABLE, DEFAULT_TIMEOUT, Hosts, check_timeout, quoted
from .mechanism import Mechanism, as_table
from .outputs import _checked_action, _checked_sequence
from .protocols import adapt, global_seeds, numpy_global, seed_globals

__all__ = ["PolicyMechanism", "CallableMechanism", "run_seeds", "claimed_guarantee",
           "checked_sample_arguments"]

FEEDBACK_MODELS = ("bandit", "full")

CHUNKS_PER_WORKER = 4
"""Blocks of runs handed to each host process when ``workers > 1`` (load balance only; results
never depend on it)."""

LOADING = -1
"""The run index of the progress word while the candidate is loaded and checked."""

GENERATOR_BLOCK = 256
"""Runs whose generators are made together, before the first of them runs: the same generators,
made one after another rather than between runs (about 15 us less per run of a quick
candidate, measured at T = 16)."""

REPLAYED_RUNS = 4
"""Runs of a ``sample`` call run a second time to check that they repeat (module docstring)."""

REPLAYED_CALLS = 4
"""``sample`` calls of a mechanism whose first runs are run a second time (the cost stays a few
runs per mechanism, also when every call is a single run on a fresh table)."""


def run_seeds(seed: int, n: int) -> list[np.random.SeedSequence]:
    """The seed of every run: run ``i`` gets the ``i``-th child of ``SeedSequence(seed)``."""
    return np.random.SeedSequence(seed).spawn(n)


class _SeedRange:
    """Runs ``first`` .. ``first + count - 1`` of :func:`run_seeds` (``seed``), made where they
    are used: child ``i`` of ``SeedSequence(seed)`` is ``SeedSequence(seed, spawn_key=(i,))``, so
    a block of runs crosses to its host as three integers, not one pickled sequence per run."""

    def __init__(self, seed: int, first: int, count: int) -> None:
        self.seed, self.first, self.count = int(seed), int(first), max(0, int(count))

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        for i in range(self.first, self.first + self.count):
            yield np.random.SeedSequence(self.seed, spawn_key=(i,))

    def __getitem__(self, index: slice) -> "_SeedRange":
        start, stop, step = index.indices(self.count)
        assert step == 1, index
        return _SeedRange(self.seed, self.first + start, max(0, stop - start))

    def global_seeds(self) -> tuple[list[list[int]], list[int]]:
        """The seeds of NumPy's and Python's global generators for these runs, as
        :func:`~dpbandits.audit.protocols.seed_globals` derives them, computed for all the runs
        at once (:func:`~dpbandits.audit.protocols.global_seeds`): the same values, without
        building two seed sequences per run."""
        return global_seeds(self.seed, self.first, self.count)


def claimed_guarantee(claim_epsilon: float | None) -> Guarantee | None:
    """The pure-DP guarantee a black box claims (whole-row neighbours), or None if non-private."""
    if claim_epsilon is None:
        return None
    return Guarantee(check_epsilon(claim_epsilon, "claim_epsilon"))


def checked_sample_arguments(table: Table | np.ndarray, n: int, seed: int, K: int,
                             label: str) -> tuple[Table, int, int]:
    """Check the arguments of ``sample`` once for every kind of black box."""
    table = as_table(table)
    if table.K != K:
        raise DPBanditsError(f"{label} has K = {K} arms but the table has {table.K}")
    return table, check_positive_int(n, "n"), check_seed(seed)


def _checked_feedback_model(feedback: str, models: tuple[str, ...] = FEEDBACK_MODELS) -> str:
    if feedback not in models:
        raise DPBanditsError(f"feedback must be one of {models}, got {feedback!r}")
    return feedback


def _read_only(X: np.ndarray) -> np.ndarray:
    """A private read-only copy: user code can neither alter the table nor pass notes between runs."""
    X = np.array(X, dtype=float)
    X.setflags(write=False)
    return X


class _PythonMechanism(Mechanism):
    """Shared plumbing: argument checks, per-run seeds, blocks of runs in host processes."""

    feedback_models: tuple[str, ...] = FEEDBACK_MODELS
    """The feedback models the adapter can deliver."""

    _draws_numpy_global = False
    """Whether a run of this candidate, in this process, has drawn from NumPy's global generator
    (then every later run is seeded before it runs; until then it is only watched)."""

    def __init__(self, K: int, claim_epsilon: float | None, feedback: str, workers: int,
                 label: str, timeout: float = DEFAULT_TIMEOUT, isolated: bool = True) -> None:
        self.K = check_positive_int(K, "K", minimum=2)
        self.claimed = claimed_guarantee(claim_epsilon)
        self.feedback = _checked_feedback_model(feedback, self.feedback_models)
        self.workers = check_positive_int(workers, "workers")
        self.label = str(label)
        self.timeout = check_timeout(timeout)
        """Seconds allowed for each call into the user code (isolated runs only)."""
        self.isolated = bool(isolated) and AVAILABLE
        """Whether the user code runs in host processes of its own (module docstring)."""
        self._replayed = 0
        self._start_hosts()

    def _start_hosts(self) -> None:
        self._progress = memoryview(bytearray(16)).cast("q")   # [run, step]; a host's is shared
        self._hosts: Hosts | None = Hosts(self.workers, self.timeout)
        weakref.finalize(self, self._hosts.close)

    def close(self) -> None:
        """Stop the host processes now (they are also stopped when the mechanism is garbage
        collected and when the interpreter exits); a later ``sample`` starts new ones."""
        if self._hosts is not None:
            self._hosts.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for name in ("_hosts", "_progress", "_rows_made"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._start_hosts()

    def sample(self, table: Table | np.ndarray, n: int, seed: int) -> np.ndarray:
        """``n`` independent runs on ``table``: an int32 array of shape (n, T), arms in 0..K-1
        ((n, T, k) bases for a semi-bandit policy)."""
        table, n, seed = checked_sample_arguments(table, n, seed, self.K, self.label)
        X = self._rows(table)
        actions = self._runs(X, _SeedRange(seed, 0, n))
        if self._replayed < REPLAYED_CALLS:
            self._replayed += 1
            self._check_repeats(X, seed, actions[:REPLAYED_RUNS])
        return actions

    def sample_from(self, table: Table | np.ndarray, first: int, n: int, seed: int) -> np.ndarray:
        """Runs ``first`` .. ``first + n - 1`` of ``sample(table, first + n, seed)``, without
        running the first ``first`` again: a selection sample extended (the runs depend only on
        ``(seed, run)``, so the two calls together give ``sample``'s runs)."""
        table, n, seed = checked_sample_arguments(table, n, seed, self.K, self.label)
        return self._runs(self._rows(table), _SeedRange(seed, int(first), n))

    def _runs(self, X: np.ndarray, seeds: "_SeedRange") -> np.ndarray:
        """The runs of ``seeds`` on the rows ``X``, in host processes (:meth:`_batch`) or here."""
        if not self.isolated:
            return self._run_chunk(X, 0, seeds)
        return self._batch([(X, seeds)])[0]

    def sample_many(self, requests: list[tuple[Table | np.ndarray, int, int]]) -> list[np.ndarray]:
        """``sample`` for each (table, n, seed) request, sent to the hosts together: one message
        per block of runs (:meth:`_batch`) instead of one round trip per request, which is what
        many small requests cost (validate's runs on fresh tables: hundreds of one-run
        requests). Each output equals ``sample``'s; the first calls' first runs are run again
        and compared, as ``sample`` does (in one more message after the requests)."""
        return self.sample_many_from([(table, 0, n, seed) for table, n, seed in requests])

    def sample_many_from(self, requests: list[tuple[Table | np.ndarray, int, int, int]]
                         ) -> list[np.ndarray]:
        """For each (table, first, n, seed) request, runs ``first`` .. ``first + n - 1`` of
        ``sample(table, first + n, seed)`` (``sample_from``'s runs; ``sample``'s when ``first``
        is 0), all sent to the hosts together as in :meth:`sample_many`. A request from run 0
        counts as a ``sample`` call for the replayed runs."""
        checked = []
        for table, first, n, seed in requests:
            table, n, seed = checked_sample_arguments(table, n, seed, self.K, self.label)
            checked.append((table, check_positive_int(first, "first", minimum=0), n, seed))
        if not self.isolated or len(checked) < 2:
            return [self.sample(table, n, seed) if first == 0 else
                    self.sample_from(table, first, n, seed) for table, first, n, seed in checked]
        rows = [self._rows(table) for table, _, _, _ in checked]
        outputs = self._batch([(X, _SeedRange(seed, first, n))
                               for X, (_, first, n, seed) in zip(rows, checked)])
        replayed = []
        for X, (_, first, _, seed), actions in zip(rows, checked, outputs):
            if self._replayed >= REPLAYED_CALLS:
                break
            if first == 0:
                self._replayed += 1
                replayed.append((X, seed, actions[:REPLAYED_RUNS]))
        if replayed:
            again = self._batch([(X, _SeedRange(seed, 0, len(first)))
                                 for X, seed, first in replayed])
            for (_, _, first), repeated in zip(replayed, again):
                self._compare_repeats(first, repeated)
        return outputs

    def _batch(self, pieces: list[tuple[np.ndarray, "_SeedRange"]]) -> list[np.ndarray]:
        """The runs of every ``(rows, seeds)`` piece (one per sample asked for), in order, in as
        few messages as the hosts need: one with one host; with ``workers`` hosts, about
        ``workers`` x :data:`CHUNKS_PER_WORKER` messages of equal run-rounds (a piece longer than
        that is split). A message holds parts, each a block of one piece's runs (the rows as
        bytes, its first run, its seeds, the piece's index); the host numbers a message's runs
        one after another in its progress word, so the time limit per call holds as for a
        single block. The outputs do not depend on the split."""
        total = sum(len(seeds) * X.shape[0] for X, seeds in pieces)
        target = total if self.workers == 1 else \
            max(1, math.ceil(total / (self.workers * CHUNKS_PER_WORKER)))
        shapes = [self._run_shape(X) for X, _ in pieces]
        messages: list[list[tuple]] = [[]]
        filled = 0
        for k, (X, seeds) in enumerate(pieces):
            data = np.ascontiguousarray(X, dtype=float).tobytes()
            size = max(1, target // X.shape[0])
            for start in range(0, len(seeds), size):
                if filled >= target:
                    messages.append([])
                    filled = 0
                part = seeds[start:start + size]
                messages[-1].append((data, X.shape, start, part, k))
                filled += len(part) * X.shape[0]
        requests = [(("batch", parts, len(pieces)),
                     (sum(len(part[3]) * math.prod(shapes[part[4]]) for part in parts),))
                    for parts in messages if parts]
        blocks: list[list[np.ndarray]] = [[] for _ in pieces]
        for (message, _), flat in zip(requests, self._hosts_or_new().map(self, requests)):
            used = 0
            for _, _, _, part, k in message[1]:
                size = len(part) * math.prod(shapes[k])
                blocks[k].append(flat[used:used + size].reshape((len(part),) + shapes[k]))
                used += size
        actions = [np.concatenate(piece) if piece else np.empty((0,) + shapes[k], dtype=np.int32)
                   for k, piece in enumerate(blocks)]
        for block in actions:
            self._check_received(block)
        return actions

    def _check_repeats(self, X: np.ndarray, seed: int, first: np.ndarray) -> None:
        """Run the first runs again (their seeds afresh, in a process that has served other
        runs) and stop with an error naming the first run that does not repeat."""
        self._compare_repeats(first, self._runs(X, _SeedRange(seed, 0, len(first))))

    def _compare_repeats(self, first: np.ndarray, again: np.ndarray) -> None:
        """Stop with an error naming the first of ``first`` that ``again`` does not repeat."""
        differ = (again != first).reshape(len(first), -1)
        if not differ.any():
            return
        run = int(np.flatnonzero(differ.any(axis=1))[0])
        t = int(np.flatnonzero(differ[run])[0]) // int(np.prod(first.shape[2:], dtype=int)) + 1
        raise DPBanditsError(
            f"{self.label}: run {run} did not repeat (the same seed and table gave other actions "
            f"from round {t} on when it ran again): some of its random draws come neither from "
            f"the generator it is given nor from NumPy's or Python's global generator (both "
            f"seeded for every run), or it keeps state from one run to the next, so its results "
            f"would change between identical runs and with --workers; draw every random number "
            f"from the run's generator (docs/audit-protocol.md#randomness)")

    def check(self) -> None:
        """Load the user code and check it where it runs (a host, or here when not isolated)."""
        if self.isolated:
            self._hosts_or_new().map(self, [(("check",), None)])
        else:
            self._check_here()

    def _hosts_or_new(self) -> Hosts:
        if self._hosts is None:         # pragma: no cover  (only inside a host)
            raise DPBanditsError(f"{self.label}: a host process cannot start hosts")
        return self._hosts

    # ---- in the host (or here, when not isolated) --------------------------------------------

    def _serve(self, request: tuple) -> np.ndarray | None:
        """The answer to one request from the auditor (runs in the host)."""
        if request[0] == "check":
            self._check_here()
            return None
        # A batch (_batch): its parts' runs numbered one after another, one array per table, over
        # immutable bytes (the user code cannot make it writeable again).
        blocks, base, tables = [], 0, {}
        for data, shape, start, seeds, _ in request[1]:
            X = tables.get(id(data))
            if X is None:
                X = tables[id(data)] = np.frombuffer(data, dtype=float).reshape(shape)
            blocks.append(self._run_chunk(X, start, seeds, base).reshape(-1))
            base += len(seeds)
        return np.concatenate(blocks)

    def _check_here(self) -> None:
        """Load and check the user code (nothing to do for an object given already)."""
        self._progress[0], self._progress[1] = LOADING, 0

    def _rows(self, table: Table) -> np.ndarray:
        """The read-only rows every run reads: the table's rounds 1..T."""
        return _read_only(table.X)

    def _run_shape(self, X: np.ndarray) -> tuple[int, ...]:
        """The shape of one run's output: (T,) actions."""
        return (X.shape[0],)

    def _run_chunk(self, X: np.ndarray, start: int, seeds: Any,
                   base: int | None = None) -> np.ndarray:
        """Runs ``start`` .. of ``seeds`` on ``X``; the progress word counts them from ``base``
        (a batch's numbering, :meth:`_batch`), from ``start`` by default."""
        numbered = start if base is None else base
        actions = np.empty((len(seeds),) + self._run_shape(X), dtype=np.int32)
        # The global generators are seeded for every run, then given back as they were (this
        # may be the caller's own process when not isolated).
        numpy_state, python_state = np.random.get_state(), random.getstate()
        bulk = seeds.global_seeds() if isinstance(seeds, _SeedRange) else None
        # NumPy's global generator: seeded for the block's first run, then only watched until a
        # run draws from it (protocols.NumpyGlobal); from then on seeded for every run.
        watch = numpy_global() if bulk is not None and not self._draws_numpy_global else None
        lazy = watch is not None and watch.usable and len(seeds) > 0
        if lazy:
            np.random.seed(bulk[0][0])          # type: ignore[index]
            untouched = watch.snapshot()        # type: ignore[union-attr]
        sequences = list(seeds)
        generators: list[np.random.Generator] = []
        try:
            for offset, run_seed in enumerate(sequences):
                if offset % GENERATOR_BLOCK == 0:   # the next runs' generators, made together
                    generators = [np.random.default_rng(sequence) for sequence in
                                  sequences[offset:offset + GENERATOR_BLOCK]]
                self._progress[0], self._progress[1] = numbered + offset, 0
                if bulk is None:
                    seed_globals(run_seed)
                else:                           # the same seeds, derived for the whole block
                    if not lazy:
                        np.random.seed(bulk[0][offset])
                    random.seed(bulk[1][offset])
                output = self._run(X, generators[offset % GENERATOR_BLOCK], start + offset)
                if lazy and watch.moved(untouched):         # type: ignore[union-attr]
                    lazy, self._draws_numpy_global = False, True
                    if offset > 0:      # it drew from the first run's state: run it seeded
                        self._progress[0], self._progress[1] = numbered + offset, 0
                        np.random.seed(bulk[0][offset])      # type: ignore[index]
                        random.seed(bulk[1][offset])         # type: ignore[index]
                        output = self._run(X, np.random.default_rng(run_seed), start + offset)
                actions[offset] = output
        finally:
            np.random.set_state(numpy_state)
            random.setstate(python_state)
        return actions

    def _run(self, X: np.ndarray, rng: np.random.Generator, i: int) -> np.ndarray:
        raise NotImplementedError

    # ---- in the auditor ----------------------------------------------------------------------

    def _check_received(self, actions: np.ndarray) -> None:
        """Check a host's actions again: its end of the connection is the user code's too."""
        if actions.size and (actions.min() < 0 or actions.max() >= self.K):
            raise DPBanditsError(f"{self.label}: the host process sent arms outside "
                                 f"0..{self.K - 1}")

    def _progress_range(self, request: tuple) -> tuple[int, int, int] | None:
        """The calls a request makes, as progress words: runs [first, end), steps [0, end)
        (None: a request that only loads and checks the user code)."""
        if request[0] != "batch":
            return None
        parts = request[1]
        return 0, sum(len(part[3]) for part in parts), max(2 * part[1][0] + 2 for part in parts)

    def _call_name(self, run: int, step: int, request: tuple | None = None) -> str:
        """The call into the user code that the progress word [run, step] names (in the
        ``request`` the host was serving: a batch numbers its runs one after another)."""
        if run == LOADING:
            return {0: "loading the candidate",
                    1: "building the candidate for a two-round problem",
                    2: "looking up the candidate's act and observe"}.get(step, "loading the candidate")
        if request is not None and request[0] == "batch":
            base, (_, parts, requests) = 0, request
            for _, _, start, seeds, k in parts:
                if run < base + len(seeds):
                    run = start + run - base
                    if requests > 1:
                        return (f"run {run} of request {k + 1} (requests sent together): "
                                f"{self._step_name(step)}")
                    break
                base += len(seeds)
        return f"run {run}: {self._step_name(step)}"

    def _step_name(self, step: int) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(label={self.label!r}, K={self.K}, "
                f"claimed={self.claimed}, feedback={self.feedback!r}, workers={self.workers})")


class PolicyMechanism(_PythonMechanism):
    """A single-run act/observe policy built by ``factory(rng)``, run ``n`` times.

    ``K``: arms. ``claim_epsilon``: the epsilon the code claims (epsilon-DP of the action sequence
    under whole-row neighbours), or None for a non-private policy. ``feedback``: ``bandit`` (the
    policy observes the pulled arm's reward, a float) or ``full`` (the whole row, a read-only (K,)
    array). ``workers``: host processes that run blocks of runs side by side (forked, so the
    factory need not be picklable); the result is identical. ``timeout``: seconds for each call
    into the policy (building it, each ``act`` and ``observe``). ``isolated``: module docstring.
    """

    def __init__(self, factory: Callable[[np.random.Generator], Any], K: int,
                 claim_epsilon: float | None, feedback: str = "bandit", *, workers: int = 1,
                 label: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 isolated: bool = True) -> None:
        if not callable(factory):
            raise DPBanditsError(f"factory must be callable (rng -> policy), got {factory!r}")
        self.factory = factory
        super().__init__(K, claim_epsilon, feedback, workers,
                         label or f"policy {_name_of(factory)}", timeout, isolated)

    build_call = "factory(rng)"
    """How error messages name the call that builds a run's policy."""

    def _build(self, T: int, rng: np.random.Generator) -> Any:
        """The policy of one run of T rounds."""
        return self.factory(rng)

    def _row_lists(self, X: np.ndarray) -> list[list[float]]:
        """The rows of ``X`` as Python floats, made once per block of runs: a run is handed one
        float at a time, which it cannot change (floats are immutable), never the lists."""
        made = self.__dict__.get("_rows_made")
        if made is None or made[0] is not X:
            made = self.__dict__["_rows_made"] = (X, X.tolist())
        return made[1]

    def _step_name(self, step: int) -> str:
        if step == 0:
            return self.build_call
        t, observing = divmod(step, 2)
        if t == 0:
            return "policy.observe(0, None, w0)"
        return f"policy.observe({t}, ...)" if observing else f"policy.act({t})"

    def _run(self, X: np.ndarray, rng: np.random.Generator, i: int) -> np.ndarray:
        where = f"{self.label}: run {i}"
        T, K = X.shape
        progress = self._progress
        policy = _call(where, self.build_call, self._build, T, rng)
        try:
            policy = adapt(policy, K, self.feedback, rng, self.label)
        except DPBanditsError:
            raise
        except Exception as error:     # the candidate's startGame(), a MAB's constructor
            raise DPBanditsError(f"{where}: starting the run ({type(policy).__name__}) raised "
                                 f"{type(error).__name__}: {quoted(error)}") from error
        act, observe = protocol_methods(policy, where)
        act_call = getattr(policy, "act_call", "policy.act")
        observe_call = getattr(policy, "observe_call", "policy.observe")
        # Each round's feedback is rows[t - 1][arm]: the pulled arm's reward from the run's row
        # lists (bandit), or a fresh read-only copy of the whole row, the same for every arm
        # (full information).
        rows = ([[_own_copy(row)] * K for row in X] if self.feedback == "full" else
                self._row_lists(X))
        actions: list[int] = []
        append = actions.append
        t, step = 0, 0          # step: the progress word's step, even in act, odd in observe
        # One try around the whole loop: the per-round cost is the candidate's own, plus a type
        # and range check that a plain int passes at once (everything else takes the slow path).
        try:
            for t, row in enumerate(rows, 1):
                step = 2 * t
                progress[1] = step
                value = act(t)
                if type(value) is not int or not 0 <= value < K:
                    value = self._slow_action(value, where, act_call, t)
                step += 1
                progress[1] = step
                observe(t, value, row[value])
                append(value)
        except DPBanditsError:
            raise
        except Exception as error:
            acting = step % 2 == 0
            if act_call == "policy.act":
                call = f"policy.act({t})" if acting else f"policy.observe({t}, ...)"
            else:
                call = f"{act_call if acting else observe_call} in round {t}"
            raise DPBanditsError(f"{where}: {call} raised {type(error).__name__}: {quoted(error)}") from error
        return np.asarray(actions, dtype=np.int32)


    def _slow_action(self, value: Any, where: str, act_call: str, t: int) -> int:
        """An action that is not a plain int in range: checked, with the call named."""
        return _checked_action(value, self.K, f"{where}: {act_call} in round {t}"
                               if act_call != "policy.act" else f"{where}: policy.act({t})")


class CallableMechanism(_PythonMechanism):
    """A function ``fn(table, rng) -> actions`` mapping the (T, K) table to T actions, run ``n`` times.

    ``table`` is a read-only float array; ``rng`` is the run's ``numpy.random.Generator``. The
    result must be a sequence of T integers in 0..K-1. ``feedback`` only records what the function
    is meant to use (for the audit's choice of pairs); it cannot be enforced.
    """

    def __init__(self, fn: Callable[[np.ndarray, np.random.Generator], Any], K: int,
                 claim_epsilon: float | None, feedback: str = "bandit", *, workers: int = 1,
                 label: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 isolated: bool = True) -> None:
        if not callable(fn):
            raise DPBanditsError(f"fn must be callable (table, rng -> actions), got {fn!r}")
        self.fn = fn
        super().__init__(K, claim_epsilon, feedback, workers, label or f"function {_name_of(fn)}",
                         timeout, isolated)

    def _step_name(self, step: int) -> str:
        return "fn(table, rng)"

    def _run(self, X: np.ndarray, rng: np.random.Generator, i: int) -> np.ndarray:
        where = f"{self.label}: run {i}"
        self._progress[1] = 1
        output = _call(where, "fn(table, rng)", self.fn, _own_copy(X), rng)
        return _checked_sequence(output, X.shape[0], self.K, where)


def _own_copy(X: np.ndarray) -> np.ndarray:
    """A fresh read-only copy of ``X``: user code that makes it writeable again and overwrites
    it changes its own copy only, never the table another round or run reads."""
    X = X.copy()
    X.setflags(write=False)
    return X


def _name_of(obj: Any) -> str:
    """A short name for user code, read without trusting it."""
    try:
        return str(getattr(obj, "__name__", None) or type(obj).__name__)
    except Exception:
        return type(obj).__name__


def protocol_methods(policy: Any, where: str,
                     needs: str = "act(t) -> arm and observe(t, arm, feedback)",
                     ) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The policy's act and observe methods; a missing one, or a lookup that raises, is one
    clear error naming what a candidate needs."""
    methods = []
    for name in ("act", "observe"):
        try:
            method = getattr(policy, name, None)
        except Exception as error:
            raise DPBanditsError(f"{where}: looking up {name}() of the object it builds raised "
                                 f"{type(error).__name__}: {quoted(error)}") from error
        if not callable(method):
            raise DPBanditsError(f"{where}: the object it builds ({type(policy).__name__}) has no "
                                 f"{name}() method; a candidate needs {needs}")
        methods.append(method)
    return methods[0], methods[1]


def _call(where: str, what: str, function: Callable[..., Any], *args: Any) -> Any:
    """Call user code; any exception becomes a DPBanditsError naming the run and the call."""
    try:
        return function(*args)
    except Exception as error:
        raise DPBanditsError(f"{where}: {what} raised {type(error).__name__}: {quoted(error)}") from error
