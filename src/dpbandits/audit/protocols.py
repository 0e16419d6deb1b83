"""The bandit protocols of the Python ecosystem, recognised by shape and driven as act/observe.

A Python candidate (:mod:`dpbandits.candidates`) is built once per run; the object it returns is
recognised by the methods it has, in this order, and driven through the single-run act/observe
protocol of :mod:`dpbandits.audit.adapters` with no code from the user
(docs/audit-protocol.md#python-protocols):

* **act/observe** (``act(t)`` and ``observe(t, arm, feedback)``): used as it is. With full
  information (``feedback="full"``) an ``observe`` that takes two arguments gets ``(t, row)``.
* **SMPyBandits-style policies** (``choice()`` and ``getReward(arm, reward)``, optionally
  ``startGame()``): ``startGame()`` once before round 1, then ``choice()`` in every round and
  ``getReward(arm, reward)`` with the pulled arm's reward. Bandit feedback only.
* **MABWiser** ``MAB`` objects (``fit``, ``predict`` and ``partial_fit``; not contextual): MABWiser
  predicts only after a ``fit``. A MAB that predicts from its own draws after an empty fit
  (Thompson sampling: its arms' expectations differ with no data) is run from a cold start as
  MABWiser runs it: ``fit([], [])``, then ``predict()`` and ``partial_fit([arm], [reward])`` from
  round 1. MABWiser's UCB1 scores an arm it has never seen at 0, so for a MAB whose expectations
  are all equal with no data, rounds 1..K pull the MAB's arms once each in their order, then
  ``fit(arms, rewards)`` on those K pulls; from round K + 1 on, ``predict()`` chooses and
  ``partial_fit([arm], [reward])`` observes. The arms are the MAB's ``arms`` in order (arm i of the table is ``arms[i]``). A
  MABWiser *learning policy* (``LearningPolicy.UCB1(alpha=1)``, ...) becomes, per run, a
  ``MAB(arms=[0, ..., K-1], learning_policy, seed=...)`` with the run's integer seed
  (:func:`derived_seed`). Bandit feedback only.
* **step-style solvers** (``step(last_reward, last_arm) -> next arm``): round 1 calls
  ``step(None, None)``, round t calls ``step(reward of round t-1, arm of round t-1)``; the last
  round's reward is never delivered (there is no round T + 1). Bandit feedback only.

Randomness: a run's generator is the candidate's only source, except that NumPy's and Python's
global generators (``np.random.*``, ``random.*``) are seeded from the run's seed before every run
(:func:`seed_globals`), and a constructor parameter named ``seed`` gets an integer derived from
it (:func:`derived_seed`), so code that draws from either still depends on the run's seed only.
"""

from __future__ import annotations

import inspect
import random
from typing import Any

import numpy as np

from ..errors import DPBanditsError
from .isolation import quoted

__all__ = ["adapt", "seed_globals", "seed_states", "global_seeds", "derived_seed",
           "is_learning_policy", "PROTOCOLS"]

PROTOCOLS = ("act(t) / observe(t, arm, feedback)", "choice() / getReward(arm, reward) "
             "(SMPyBandits)", "fit / predict / partial_fit (a MABWiser MAB or learning policy)",
             "step(last_reward, last_arm) -> arm")
"""The shapes a candidate's run object may have, as messages name them."""

NUMPY_GLOBAL, PYTHON_GLOBAL, CONSTRUCTOR_SEED = 0x6470_0001, 0x6470_0002, 0x6470_0003
"""Spawn-key words that derive the global generators' seeds and a constructor's integer seed
from a run's seed sequence (never equal to a run index: runs are spawned 0, 1, 2, ...)."""


def _derived(sequence: np.random.SeedSequence, word: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(sequence.entropy,
                                  spawn_key=tuple(sequence.spawn_key) + (word,),
                                  pool_size=sequence.pool_size)


def seed_globals(sequence: np.random.SeedSequence) -> None:
    """Seed NumPy's global generator (``np.random.seed``) and Python's (``random.seed``) from a
    run's seed sequence: each from a child of its own, so neither repeats the run's generator."""
    np.random.seed(_derived(sequence, NUMPY_GLOBAL).generate_state(4))
    random.seed(int(_derived(sequence, PYTHON_GLOBAL).generate_state(2, np.uint64)[0]))


_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
"""The constants of NumPy's ``SeedSequence`` (O'Neill's seed_seq hash), for :func:`seed_states`."""


def _words(value: int) -> list[int]:
    """An integer as NumPy's ``SeedSequence`` reads it: its 32-bit words, least significant
    first ([0] for 0)."""
    out = []
    while value > 0:
        out.append(value & 0xFFFFFFFF)
        value >>= 32
    return out or [0]


def seed_states(entropy: int, first: int, count: int, word: int | None = None,
                n_words: int = 4) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=(i,) or (i, word)).generate_state(n_words)`` for runs
    ``i = first .. first + count - 1``, as a (count, n_words) uint32 array computed for all runs
    at once: the same hash, vectorised over the run index (``tests/audit/test_adapters.py``
    checks it word for word against NumPy). Child i of ``SeedSequence(entropy)`` is the run's
    sequence, so ``word=None`` gives the runs' own states and :data:`NUMPY_GLOBAL`,
    :data:`PYTHON_GLOBAL` those of :func:`seed_globals`."""
    pool_size = 4
    if first < 0 or first + count > 2 ** 32:
        raise DPBanditsError(f"runs {first}..{first + count - 1} are outside 0..2^32 - 1")
    run = _words(int(entropy))
    run += [0] * (pool_size - len(run))            # a spawned sequence pads its entropy
    columns = [np.full(count, w, dtype=np.uint32) for w in run]
    columns.append(np.arange(first, first + count, dtype=np.uint64).astype(np.uint32))
    if word is not None:
        columns += [np.full(count, w, dtype=np.uint32) for w in _words(word)]
    constant = [_INIT_A]

    def hashmix(value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint32(constant[0])
        constant[0] = (constant[0] * _MULT_A) & 0xFFFFFFFF
        value = value * np.uint32(constant[0])
        return value ^ (value >> np.uint32(16))

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        return result ^ (result >> np.uint32(16))

    with np.errstate(over="ignore"):
        pool = [hashmix(columns[k]) for k in range(pool_size)]
        for source in range(pool_size):
            for target in range(pool_size):
                if source != target:
                    pool[target] = mix(pool[target], hashmix(pool[source]))
        for source in range(pool_size, len(columns)):
            for target in range(pool_size):
                pool[target] = mix(pool[target], hashmix(columns[source]))
        out = np.empty((count, n_words), dtype=np.uint32)
        constant_b = _INIT_B
        for k in range(n_words):
            value = pool[k % pool_size] ^ np.uint32(constant_b)
            constant_b = (constant_b * _MULT_B) & 0xFFFFFFFF
            value = value * np.uint32(constant_b)
            out[:, k] = value ^ (value >> np.uint32(16))
    return out


def global_seeds(entropy: int, first: int, count: int) -> tuple[list[list[int]], list[int]]:
    """What :func:`seed_globals` seeds NumPy's and Python's global generators with, for runs
    ``first .. first + count - 1`` of ``SeedSequence(entropy)``, computed for all of them at
    once: (NumPy's four words per run, Python's integer per run)."""
    numpy_words = seed_states(entropy, first, count, NUMPY_GLOBAL, 4).tolist()
    python = seed_states(entropy, first, count, PYTHON_GLOBAL, 2)
    python_ints = (python[:, 0].astype(np.uint64) | (python[:, 1].astype(np.uint64) << np.uint64(32)))
    return numpy_words, python_ints.tolist()


class NumpyGlobal:
    """Whether runs draw from NumPy's global generator (``np.random.*``), read from its state.

    Seeding it (``np.random.seed`` with four words) costs about 10 us, as much as a short run of
    a quick candidate, and most candidates never draw from it. A run that draws from it moves
    its state: every draw advances the position in the key or regenerates the whole key (and a
    cached Gaussian exists only after such a draw). So the state is seeded for the first run of
    a block and then only looked at: while it has not moved, no run has drawn from it, and each
    run's actions are those it would give with the state seeded for it. The state is read in
    place through the bit generator's ``ctypes`` interface (its 624 key words, then the
    position), which is checked against ``bit_generator.state`` once; where that check fails,
    or the global generator is not NumPy's MT19937, :attr:`usable` is False and every run is
    seeded."""

    def __init__(self) -> None:
        self.usable = False
        self._generator = None
        self._words: np.ndarray | None = None
        try:
            import ctypes

            generator = np.random.mtrand._rand._bit_generator
            if type(generator) is not np.random.MT19937:
                return
            words = np.frombuffer((ctypes.c_uint32 * 625).from_address(
                generator.ctypes.state_address), dtype=np.uint32)
            before = np.random.get_state()
            try:
                np.random.seed([0x6470, 1, 2, 3])
                np.random.random(700)            # past one regeneration of the key
                state = generator.state["state"]
                same = (np.array_equal(words[:624], state["key"])
                        and int(words[624]) == int(state["pos"]))
            finally:
                np.random.set_state(before)
        except Exception:                       # no ctypes, another layout: seed every run
            return
        self._generator, self._words, self.usable = generator, words, same

    def snapshot(self) -> bytes:
        """The global generator's state now."""
        assert self._words is not None
        return self._words.tobytes()

    def moved(self, snapshot: bytes) -> bool:
        """Whether anything drew from (or replaced, or reseeded) the global generator since
        ``snapshot``."""
        return (np.random.mtrand._rand._bit_generator is not self._generator
                or self._words.tobytes() != snapshot)          # type: ignore[union-attr]


_NUMPY_GLOBAL: list[NumpyGlobal] = []


def numpy_global() -> NumpyGlobal:
    """The :class:`NumpyGlobal` of this process (made once)."""
    if not _NUMPY_GLOBAL:
        _NUMPY_GLOBAL.append(NumpyGlobal())
    return _NUMPY_GLOBAL[0]


def derived_seed(rng: np.random.Generator) -> int:
    """An integer seed in [0, 2^32) for a constructor that takes ``seed``: a function of the run's
    seed sequence (the generator's), drawn without consuming the generator."""
    sequence = getattr(rng.bit_generator, "seed_seq", None)
    if not isinstance(sequence, np.random.SeedSequence):
        return int(rng.integers(2 ** 32))
    return int(_derived(sequence, CONSTRUCTOR_SEED).generate_state(1)[0])


def is_learning_policy(obj: Any) -> bool:
    """A MABWiser learning policy (``LearningPolicy.UCB1(...)`` and its siblings), by its type."""
    kind = type(obj)
    return (str(getattr(kind, "__module__", "")).startswith("mabwiser")
            and str(getattr(kind, "__qualname__", "")).startswith("LearningPolicy."))


def _method(obj: Any, name: str, label: str = "the candidate") -> Any:
    try:
        found = getattr(obj, name, None)
    except Exception as error:
        raise DPBanditsError(f"{label}: looking up {name}() of the object it builds raised "
                             f"{type(error).__name__}: {quoted(error)}") from error
    return found if callable(found) else None


def _positional_count(method: Any) -> int | None:
    """How many positional arguments ``method`` takes (None: unknown, or any number)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def shape_of(obj: Any, label: str = "the candidate") -> str | None:
    """The protocol ``obj`` follows: ``act-observe``, ``smpybandits``, ``mabwiser``,
    ``learning-policy`` or ``step``; None when it follows none."""
    def has(*names: str) -> bool:
        return all(_method(obj, name, label) for name in names)

    if has("act") or has("observe"):
        return "act-observe"          # (a missing one of the two is reported by name)
    if has("choice", "getReward"):
        return "smpybandits"
    if is_learning_policy(obj):
        return "learning-policy"
    if has("fit", "predict", "partial_fit"):
        return "mabwiser"
    if has("step"):
        return "step"
    return None


def adapt(obj: Any, K: int, feedback: str, rng: np.random.Generator, label: str) -> Any:
    """``obj`` (what a candidate built for one run) as an object with ``act(t)`` and
    ``observe(t, arm, feedback)``, and ``act_call`` / ``observe_call`` naming the candidate's own
    methods for messages. Raises :class:`DPBanditsError` when it follows no known protocol or
    one that cannot serve ``feedback``."""
    shape = shape_of(obj, label)
    if shape == "act-observe":
        observe = _method(obj, "observe", label)
        if feedback == "full" and _positional_count(observe) == 2:
            return _FullInformation(obj)
        return obj
    if shape is None:
        raise DPBanditsError(f"{label}: the object it builds ({type(obj).__name__}) has no "
                             f"act() method and follows no other protocol dpbandits knows; a "
                             f"candidate's run object has {'; or '.join(PROTOCOLS)} "
                             f"(docs/audit-protocol.md#python-protocols)")
    if feedback != "bandit":
        raise DPBanditsError(f"{label}: the object it builds ({type(obj).__name__}) is a "
                             f"{shape} bandit, which observes the pulled arm's reward only; "
                             f"it cannot be given {feedback} feedback")
    if shape == "smpybandits":
        return _SMPyBandits(obj)
    if shape == "learning-policy":
        obj = _mab_for(obj, K, rng, label)
    if shape in ("learning-policy", "mabwiser"):
        return _MABWiser(obj, K, label)
    return _Step(obj)


class _FullInformation:
    """A full-information candidate whose ``observe(t, row)`` takes no arm."""

    act_call, observe_call = "policy.act", "policy.observe(t, row)"

    def __init__(self, policy: Any) -> None:
        self.act = policy.act
        self._observe = policy.observe

    def observe(self, t: int, arm: int, row: np.ndarray) -> None:
        self._observe(t, row)


class _SMPyBandits:
    """``Policy(nbArms, ...)``: ``startGame()`` once, ``choice()``, ``getReward(arm, reward)``."""

    act_call, observe_call = "policy.choice()", "policy.getReward(arm, reward)"

    def __init__(self, policy: Any) -> None:
        start = getattr(policy, "startGame", None)
        if callable(start):
            start()
        self.act = lambda t: policy.choice()
        self._reward = policy.getReward

    def observe(self, t: int, arm: int, reward: float) -> None:
        self._reward(arm, reward)


class _Step:
    """``step(last_reward, last_arm) -> next arm``; ``step(None, None)`` in round 1."""

    act_call, observe_call = "solver.step(last_reward, last_arm)", "solver.step"

    def __init__(self, solver: Any) -> None:
        self._step = solver.step
        self._last: tuple[float | None, int | None] = (None, None)

    def act(self, t: int) -> Any:
        return self._step(*self._last)

    def observe(self, t: int, arm: int, reward: float) -> None:
        self._last = (reward, arm)


def _mab_for(policy: Any, K: int, rng: np.random.Generator, label: str) -> Any:
    """A MABWiser ``MAB`` over arms 0..K-1 with ``policy`` and the run's integer seed."""
    import sys

    module = sys.modules.get(type(policy).__module__)
    MAB = getattr(module, "MAB", None)
    if MAB is None:
        raise DPBanditsError(f"{label}: {policy!r} is a MABWiser learning policy, but its "
                             f"module has no MAB class to run it")
    return MAB(arms=list(range(K)), learning_policy=policy, seed=derived_seed(rng))


def _predicts_cold(mab: Any) -> bool:
    """Whether ``mab`` predicts from its own draws straight after an empty ``fit`` (MABWiser's
    Thompson sampling, softmax, random: the arms' expectations differ with no data), as
    MABWiser itself runs it from a cold start. Tried on a copy, so the run's MAB and its
    generator are untouched; False for a MAB whose expectations are all equal with no data
    (UCB1 and epsilon-greedy score an unseen arm 0) or that cannot be tried so."""
    import copy

    try:
        probe = copy.deepcopy(mab)
        probe.fit(decisions=[], rewards=[])
        values = list(probe.predict_expectations().values())
        return len(values) > 1 and len({float(v) for v in values}) > 1
    except Exception:
        return False


class _MABWiser:
    """A MABWiser ``MAB``. One that predicts after an empty ``fit`` (:func:`_predicts_cold`) is
    run as MABWiser runs it from a cold start: ``fit([], [])``, then ``predict`` /
    ``partial_fit`` from round 1. Any other: one pull of each arm, ``fit``, then ``predict`` /
    ``partial_fit``."""

    act_call, observe_call = "mab.predict()", "mab.partial_fit([arm], [reward])"

    def __init__(self, mab: Any, K: int, label: str) -> None:
        if getattr(mab, "is_contextual", False):
            raise DPBanditsError(f"{label}: the MAB it builds is contextual (it needs contexts "
                                 f"to predict); a candidate here is a context-free bandit")
        arms = list(getattr(mab, "arms", range(K)))
        if len(arms) != K:
            raise DPBanditsError(f"{label}: the MAB it builds has {len(arms)} arms "
                                 f"({arms[:8]!r}...), the problem has K = {K}")
        self._mab = mab
        self._label = label
        self._arms = arms
        self._index = {arm: i for i, arm in enumerate(arms)}
        self._first: list[float] = []
        self._cold = _predicts_cold(mab)
        if self._cold:
            mab.fit(decisions=[], rewards=[])

    def act(self, t: int) -> Any:
        if t <= len(self._arms) and not self._cold:
            return t - 1
        chosen = self._mab.predict()
        try:
            return self._index[chosen]
        except (KeyError, TypeError):
            raise DPBanditsError(f"{self._label}: mab.predict() in round {t} returned "
                                 f"{chosen!r}, which is not one of the MAB's arms") from None

    def observe(self, t: int, arm: int, reward: float) -> None:
        K = len(self._arms)
        if self._cold:
            self._mab.partial_fit(decisions=[self._arms[arm]], rewards=[reward])
        elif t < K:
            self._first.append(reward)
        elif t == K:
            self._mab.fit(decisions=list(self._arms), rewards=self._first + [reward])
        else:
            self._mab.partial_fit(decisions=[self._arms[arm]], rewards=[reward])
