"""A candidate as an audit mechanism (:func:`load`): a Python class or factory, a function of the
table, an external program or a mechanism built already, checked before any work and run in a
process of its own (:mod:`dpbandits.audit.isolation`)."""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping

import numpy as np

from ..audit.adapters import LOADING, CallableMechanism, PolicyMechanism, _name_of, protocol_methods
from ..audit.external import DEFAULT_TIMEOUT, CommandMechanism
from ..audit.isolation import quoted
from ..audit.protocols import adapt
from ..audit.semi_adapter import SemiPolicyMechanism
from ..errors import DPBanditsError, check_positive_int
from .building import Problem, builder, filled_note, reference_values
from .naming import Command, resolve

__all__ = ["CandidateMechanism", "SemiCandidateMechanism", "NamedFunctionMechanism", "load",
           "check_protocol"]


def _built_in_place(rng: np.random.Generator) -> Any:   # pragma: no cover
    """The factory slot of a candidate mechanism: its runs are built by ``_build``."""
    raise NotImplementedError


class _Candidate:
    """What the two candidate mechanisms share: the object, or the text naming it, resolved
    and turned into a builder where the candidate runs (its host process), never before."""

    obj: Any
    epsilon: float | None
    params: dict[str, Any]
    label: str
    _progress: memoryview

    def _prepare(self) -> Callable[[Problem, np.random.Generator], Any]:
        factory = self.__dict__.get("_factory")
        if factory is None:
            where = tuple(self._progress)
            self._progress[0], self._progress[1] = LOADING, 0
            obj = resolve(str(self.obj)) if isinstance(self.obj, (str, os.PathLike)) else self.obj
            factory = self.__dict__["_factory"] = builder(obj, self.label)
            self._progress[0], self._progress[1] = where
        return factory

    def _check_here(self) -> None:
        _check_policy(self)

    def filled_at(self, T: int) -> str:
        """The line naming the reference's values a run of T rounds gets where the candidate
        requires them (:func:`~dpbandits.candidates.building.filled_note`), empty when none."""
        return filled_note(getattr(self, "reference", None), self.K, T, self.epsilon,
                           self.params)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()  # type: ignore[misc]
        state.pop("_factory", None)     # a closure over the user's object, rebuilt where it runs
        return state


class CandidateMechanism(_Candidate, PolicyMechanism):
    """A Python candidate, built per run for :class:`Problem` (K, T = the table's rows, epsilon,
    params) with the run's generator, and driven round by round like :class:`PolicyMechanism`.

    ``obj``: the class or factory, or the text ``MODULE:OBJECT`` / ``FILE.py:OBJECT`` naming it
    (imported where the candidate runs). ``timeout``: seconds for each call into it.
    """

    def __init__(self, obj: Any, K: int, epsilon: float | None, params: Mapping[str, Any] | None = None,
                 feedback: str = "bandit", *, claim_epsilon: float | None = None, workers: int = 1,
                 label: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 isolated: bool = True, reference: str | None = None) -> None:
        self.obj = obj
        self.epsilon = epsilon
        self.params = dict(params or {})
        self.reference = reference
        super().__init__(_built_in_place, K, claim_epsilon, feedback, workers=workers,
                         label=label or _label(obj), timeout=timeout, isolated=isolated)

    build_call = "building the candidate"

    def _build(self, T: int, rng: np.random.Generator) -> Any:
        defaults = reference_values(self.reference, self.K, T, self.epsilon, self.params)
        problem = Problem(self.K, T, self.epsilon, self.params, self.feedback, defaults)
        return self._prepare()(problem, rng)


class SemiCandidateMechanism(_Candidate, SemiPolicyMechanism):
    """A Python semi-bandit candidate, built per run for :class:`Problem` (K = L base arms, T,
    epsilon, params with the matroid, feedback ``semi``) with the run's generator, and driven round
    by round like :class:`~dpbandits.audit.semi_adapter.SemiPolicyMechanism`."""

    def __init__(self, obj: Any, epsilon: float | None, params: Mapping[str, Any], *,
                 claim_epsilon: float | None = None, workers: int = 1,
                 label: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 isolated: bool = True) -> None:
        self.obj = obj
        self.epsilon = epsilon
        self.params = dict(params)
        super().__init__(_built_in_place, self.params.get("matroid"), claim_epsilon,
                         workers=workers, label=label or _label(obj), timeout=timeout,
                         isolated=isolated)

    build_call = "building the candidate"

    def _build(self, T: int, rng: np.random.Generator) -> Any:
        problem = Problem(self.K, T, self.epsilon, self.params, "semi")
        return self._prepare()(problem, rng)


def _label(obj: Any) -> str:
    return str(obj) if isinstance(obj, (str, os.PathLike)) else _name_of(obj)


def load(candidate: Any, *, K: int, epsilon: float | None = None,
         params: Mapping[str, Any] | None = None, feedback: str = "bandit",
         claim_epsilon: float | None = None, workers: int = 1, table_function: bool = False,
         label: str | None = None, check: bool = True, timeout: float = DEFAULT_TIMEOUT,
         isolated: bool = True, reference: str | None = None):
    """An audit mechanism for ``candidate`` (module docstring): ``MODULE:OBJECT`` or
    ``FILE.py:OBJECT`` text, a Python class or factory, a :class:`Command`, or a mechanism.

    ``K``, ``epsilon`` and ``params`` make the :class:`Problem` the candidate is built for (T is
    each table's horizon); ``claim_epsilon`` is the epsilon of the claim an audit tests (default
    ``epsilon``). ``table_function``: the object is ``fn(table, rng) -> actions`` instead.
    ``check`` builds the candidate once for a two-round problem and checks that it has callable
    ``act`` and ``observe`` (a malformed candidate is one clear error before any work).
    ``feedback="semi"``: a matroid semi-bandit candidate, ``params["matroid"]`` the matroid over
    the K base arms whose bases it plays; only a Python class or factory (act/observe) or a
    mechanism built already.
    ``timeout``: seconds allowed for each call into a Python candidate (loading it, building a
    run's policy, each ``act`` and ``observe``, a function's whole run); a :class:`Command`
    carries its own. ``isolated``: run a Python candidate in processes of its own
    (docs/audit-protocol.md#isolation); False runs it in this process (for debugging).
    ``reference``: the registered algorithm the candidate is held against; a constructor argument
    the candidate requires, not in ``params`` and named as one of its documented parameters, gets
    the reference's value for the run's problem (:func:`reference_values`: DP-SE's ``beta`` = 1/T).
    """
    K = check_positive_int(K, "K", minimum=2)
    claim = epsilon if claim_epsilon is None else claim_epsilon
    if _is_mechanism(candidate):
        return candidate
    if feedback == "semi":
        return _load_semi(candidate, K, epsilon, params, claim, workers, table_function, label,
                          check, timeout, isolated)
    if isinstance(candidate, Command):
        return CommandMechanism(candidate.argv, K, claim, protocol=candidate.protocol,
                                feedback=feedback, workers=workers, timeout=candidate.timeout,
                                label=label)
    if table_function:
        kind = (NamedFunctionMechanism if isinstance(candidate, (str, os.PathLike))
                else CallableMechanism)
        mechanism = kind(candidate, K, claim, feedback, workers=workers,
                         label=label or _label(candidate), timeout=timeout, isolated=isolated)
        if check:
            mechanism.check()
        return mechanism
    mechanism = CandidateMechanism(candidate, K, epsilon, params, feedback, claim_epsilon=claim,
                                   workers=workers, label=label, timeout=timeout,
                                   isolated=isolated, reference=reference)
    if check:
        check_protocol(mechanism)
    return mechanism


def _is_mechanism(candidate: Any) -> bool:
    """A mechanism built already (``K`` and ``sample``); user code that fails the question is not."""
    try:
        return hasattr(candidate, "sample") and hasattr(candidate, "K")
    except Exception:
        return False


def _resolved_in_place(table: np.ndarray, rng: np.random.Generator) -> Any:   # pragma: no cover
    """The fn slot of a function named by text (:class:`NamedFunctionMechanism`)."""
    raise NotImplementedError


class NamedFunctionMechanism(CallableMechanism):
    """A function ``fn(table, rng) -> actions`` named by ``MODULE:OBJECT`` or ``FILE.py:OBJECT``
    text, resolved where it runs (its host process), never in the auditor's."""

    def __init__(self, name: str | os.PathLike, K: int, claim_epsilon: float | None,
                 feedback: str = "bandit", **options: Any) -> None:
        self.name = str(name)
        super().__init__(_resolved_in_place, K, claim_epsilon, feedback, **options)

    def _check_here(self) -> None:
        super()._check_here()
        if self.fn is _resolved_in_place:
            fn = resolve(self.name)
            if not callable(fn):
                raise DPBanditsError(f"{self.name} is not a function (table, rng) -> actions "
                                     f"(it is a {type(fn).__name__})")
            self.fn = fn

    def _run(self, X: np.ndarray, rng: np.random.Generator, i: int) -> np.ndarray:
        if self.fn is _resolved_in_place:
            self._check_here()
        return super()._run(X, rng, i)


def _load_semi(candidate: Any, K: int, epsilon: float | None, params: Mapping[str, Any] | None,
               claim: float | None, workers: int, table_function: bool, label: str | None,
               check: bool, timeout: float, isolated: bool) -> SemiCandidateMechanism:
    from ..reference.matroid import Matroid

    params = dict(params or {})
    matroid = params.get("matroid")
    if not isinstance(matroid, Matroid):
        raise DPBanditsError(f"a semi-bandit candidate plays bases of a matroid: give "
                             f"params['matroid'], a Matroid over the K = {K} base arms "
                             f"(got {matroid!r})")
    if matroid.L != K:
        raise DPBanditsError(f"params['matroid'] has L = {matroid.L} base arms but K = {K}")
    if isinstance(candidate, Command):
        raise DPBanditsError("the line protocol (docs/audit-protocol.md) has no message for a "
                             "basis: a semi-bandit candidate is a Python class or factory")
    if table_function:
        raise DPBanditsError("a semi-bandit candidate is a Python act/observe class or factory, "
                             "not a function of the table")
    mechanism = SemiCandidateMechanism(candidate, epsilon, params, claim_epsilon=claim,
                                       workers=workers, label=label, timeout=timeout,
                                       isolated=isolated)
    if check:
        check_protocol(mechanism)
    return mechanism


def check_protocol(mechanism: CandidateMechanism | SemiCandidateMechanism) -> None:
    """Load the candidate where it runs, build it once for a two-round problem and check its
    act/observe methods (a malformed candidate is one clear error before any work)."""
    mechanism.check()


def _check_policy(mechanism: Any) -> None:
    """:func:`check_protocol`, where the candidate runs (its host process)."""
    mechanism._prepare()
    mechanism._progress[0], mechanism._progress[1] = LOADING, 1
    try:
        policy = mechanism._build(2, np.random.default_rng(0))
    except DPBanditsError:
        raise
    except Exception as error:
        raise DPBanditsError(f"{mechanism.label}: building the candidate raised "
                             f"{type(error).__name__}: {quoted(error)}") from error
    mechanism._progress[0], mechanism._progress[1] = LOADING, 2
    needs = ("act(t) -> basis and observe(t, arms, rewards)" if mechanism.feedback == "semi"
             else "act(t) -> arm and observe(t, arm, feedback)")
    if mechanism.feedback != "semi":
        try:
            policy = adapt(policy, mechanism.K, mechanism.feedback, np.random.default_rng(0),
                           mechanism.label)
        except DPBanditsError:
            raise
        except Exception as error:
            raise DPBanditsError(f"{mechanism.label}: starting a run of the object it builds "
                                 f"({type(policy).__name__}) raised {type(error).__name__}: "
                                 f"{quoted(error)}") from error
    protocol_methods(policy, mechanism.label, needs)
