"""Naming a candidate implementation: one way for ``audit``, ``validate`` and the testing API.

A *candidate* is someone else's implementation of a bandit algorithm, given as

* a Python object, or the text ``MODULE:OBJECT`` or ``path/to/file.py:OBJECT`` naming one
  (``--python`` on the command line; a file inside a package is imported as that package's
  module, so its relative imports work). ``OBJECT(name=value, ...)`` with Python literals binds
  those arguments (``"SMPyBandits.Policies:UCBalpha(alpha=4)"``); ``mabwiser:NAME`` and
  ``mabwiser:NAME(...)`` name MABWiser's learning policies (``mabwiser:UCB1(alpha=1)`` is
  ``mabwiser.mab.LearningPolicy.UCB1(alpha=1)``). The object is a class or a factory called
  once per run (or a MABWiser learning policy, run by a MAB built per run). What it receives is
  read from its signature (:func:`builder`):

  - ``OBJECT(problem, rng)``: a parameter named ``problem`` gets the :class:`Problem` (K, T,
    epsilon, the setting's parameters) and the next one the run's ``numpy.random.Generator``;
  - ``OBJECT(K, T, epsilon, rng)`` in any order and with any subset: parameters are matched by
    name (:data:`ALIASES`: ``K``, ``n_arms`` or ``nbArms``; ``T`` or ``horizon``; ``epsilon`` or
    ``eps``; ``rng``, ``generator`` or ``random_state``; ``seed``, which gets an integer derived
    from the run's seed), and any other parameter whose name is one of the problem's ``params``
    gets that value; parameters with defaults may be left out;
  - ``OBJECT(rng)``: one required parameter of another name (not one of the problem's
    ``params``) is the generator (the older form).

  The object it returns follows the single-run act/observe protocol of
  :mod:`dpbandits.audit.adapters`: ``act(t)`` returns an arm in 0..K-1, ``observe(t, arm,
  feedback)`` receives the pulled arm's reward (``bandit``) or the whole row (``full``; an
  ``observe(t, row)`` of two arguments gets the row), or one of the ecosystem's protocols,
  recognised by shape (:mod:`dpbandits.audit.protocols`): SMPyBandits' ``startGame()`` /
  ``choice()`` / ``getReward(arm, reward)``, a MABWiser ``MAB`` (``fit`` / ``predict`` /
  ``partial_fit``) or ``step(last_reward, last_arm) -> arm``.
  With ``semi`` feedback (a matroid semi-bandit, the matroid in ``params["matroid"]``, so a
  parameter named ``matroid`` gets it, and K = its L base arms) it first gets
  ``observe(0, None, w0)`` with the free round-0 row, then ``act(t)`` returns k base arms
  forming a basis and ``observe(t, arms, rewards)`` receives the sorted basis and its weights
  (:class:`~dpbandits.audit.adapters.SemiPolicyMechanism`).
* :class:`Command`, an external program in any language speaking the line protocol of
  docs/audit-protocol.md (``--command``); it reads K and T from each ``run`` line and takes any
  other parameter (epsilon) as its own arguments.
* an audit mechanism built already (anything with ``K`` and ``sample``), used as it is.

:func:`load` turns any of these into a mechanism for :func:`dpbandits.audit.audit` and
:func:`dpbandits.validate.validate`. A Python candidate runs in a process of its own
(:mod:`dpbandits.audit.isolation`, docs/audit-protocol.md#isolation): a candidate named by text
is imported there, never in the auditor's process, and it sees copies only. Everything that can
be checked before the work starts is checked by :func:`load`, in that process: the text names an
importable object, the signature can be served, the object built for a small problem has
callable ``act`` and ``observe``. A candidate that later returns an arm outside 0..K-1, a value
that is not one arm, raises, exits, crashes or exceeds the time limit of a call (``timeout``)
stops the run with a :class:`~dpbandits.errors.DPBanditsError` naming the run and the round
(exit status 2 on the command line), never a verdict.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .audit.adapters import (LOADING, CallableMechanism, PolicyMechanism, SemiPolicyMechanism,
                             _name_of, protocol_methods)
from .audit.external import DEFAULT_TIMEOUT, CommandMechanism
from .audit.isolation import quoted
from .audit.protocols import adapt, derived_seed, is_learning_policy
from .errors import DPBanditsError, check_positive_int

__all__ = ["Problem", "Command", "load", "resolve", "builder", "CandidateMechanism",
           "SemiCandidateMechanism", "NamedFunctionMechanism", "ALIASES", "NAMESPACES",
           "short_name"]

ALIASES: dict[str, tuple[str, ...]] = {
    "K": ("K", "k", "n_arms", "num_arms", "nbArms"),
    "T": ("T", "horizon"),
    "epsilon": ("epsilon", "eps"),
    "rng": ("rng", "generator", "random_state"),
    "seed": ("seed",),
}
"""Parameter names through which a candidate's signature asks for K, T, epsilon, the generator
and an integer seed (derived from the run's seed: :func:`dpbandits.audit.protocols.derived_seed`)."""

NAMESPACES: dict[str, tuple[str, str]] = {"mabwiser": ("mabwiser.mab", "LearningPolicy")}
"""``MODULE:NAME`` looked up in another namespace when MODULE has no NAME: ``mabwiser:UCB1`` is
``mabwiser.mab:LearningPolicy.UCB1``."""


@dataclass(frozen=True)
class Problem:
    """The problem instance a Python candidate is built for, one run at a time."""

    K: int
    """Number of arms (base arms L for a semi-bandit)."""
    T: int
    """Horizon: rounds of the run."""
    epsilon: float | None = None
    """The privacy parameter epsilon (None for a non-private algorithm)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """The algorithm's other parameters (``--param``), by name."""
    feedback: str = "bandit"
    """What the candidate observes: ``bandit`` (the pulled arm's reward), ``full`` (the row) or
    ``semi`` (the played basis's weights; the matroid is ``params["matroid"]``)."""


@dataclass(frozen=True)
class Command:
    """An external program speaking the line protocol (docs/audit-protocol.md)."""

    argv: str | Sequence[str]
    """The program and its arguments, one string split like a POSIX shell would, or a list."""
    protocol: str = "table"
    """``table`` (the whole table, then T actions) or ``interactive`` (round by round)."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds allowed for each expected line."""


def resolve(target: str) -> Any:
    """The object named by ``MODULE:OBJECT`` or ``path/to/file.py:OBJECT``, optionally
    ``OBJECT(arguments)``.

    A module is imported with the current folder first on the path; a file is loaded as a module
    of its own (named after the file), or, inside a package (folders with ``__init__.py``), as
    that package's module with the package's parent folder first on the path. Dotted OBJECT names
    an attribute of an attribute; a MODULE of :data:`NAMESPACES` without OBJECT is looked up in
    its namespace. Arguments are Python literals, bound to the object (a MABWiser learning policy
    is built with them at once: it is an immutable tuple).
    """
    text = str(target).strip()
    arguments: tuple[tuple, dict] | None = None
    if "(" in text and text.endswith(")"):     # the arguments may hold ':' (a dict), not the name
        opening = text.find("(")
        text, arguments = text[:opening].strip(), _literal_arguments(text[opening:], str(target))
    source, sep, attribute = text.rpartition(":")
    if not sep or not source or not attribute:
        raise DPBanditsError(f"a Python candidate is named MODULE:OBJECT or FILE.py:OBJECT "
                             f"(optionally OBJECT(name=value, ...)), got {target!r}")
    if source.endswith(".py"):
        module = _load_file(Path(source))
    else:
        module = _import(source)
    value = _attribute(module, source, attribute)
    if arguments is None:
        return value
    args, kwargs = arguments
    if not callable(value):
        raise DPBanditsError(f"{target!r}: {attribute} is not a class or a factory, so it takes "
                             f"no arguments")
    if isinstance(value, type) and value.__qualname__.startswith("LearningPolicy."):
        try:
            built = value(*args, **kwargs)
        except Exception as error:
            raise DPBanditsError(f"{target!r}: {type(error).__name__}: {error}") from None
        if is_learning_policy(built):
            return built
    bound = functools.partial(value, *args, **kwargs)
    functools.update_wrapper(bound, value)      # type: ignore[arg-type]
    return bound


def _literal_arguments(call: str, target: str) -> tuple[tuple, dict]:
    """``(1, alpha=0.5)`` as ``((1,), {"alpha": 0.5})``: literals only, nothing is run."""
    try:
        node = ast.parse(f"f{call}", mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None
                                                                      for k in node.keywords):
            raise ValueError("* and ** are not literals")
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise DPBanditsError(f"{target!r}: the arguments in OBJECT(...) must be Python literals "
                             f"(numbers, strings, True, False, None, tuples, lists, dicts), as "
                             f"in OBJECT(alpha=1, name='x')") from None
    return args, kwargs


def _attribute(module: Any, source: str, attribute: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            break
    else:
        return value
    if source in NAMESPACES:
        where, namespace = NAMESPACES[source]
        value = getattr(_import(where), namespace)
        names = [name for name in dir(value) if not name.startswith("_")]
        for part in attribute.split("."):
            if not hasattr(value, part):
                raise DPBanditsError(f"{source!r} has no {attribute!r}; {source}:NAME names one "
                                     f"of {where}.{namespace}'s: {', '.join(names)}")
            value = getattr(value, part)
        return value
    raise DPBanditsError(f"{source!r} has no {attribute!r}")


def _import(source: str) -> Any:
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(source)
    except Exception as error:  # the user's module may fail in any way
        raise DPBanditsError(f"cannot import {source!r}: {type(error).__name__}: "
                             f"{_one_line(error)}{_dependency_hint(source, error)}") from None
    finally:
        sys.path.pop(0)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def _dependency_hint(source: str, error: BaseException) -> str:
    """Why a library failed to import when the failure is in another package it imports: that
    package's installed version (a library that needs an older SciPy, say), or its absence."""
    failed = getattr(error, "name", None)
    if not isinstance(error, ImportError) or not failed:
        return ""
    top, own = str(failed).split(".")[0], source.split(".")[0]
    if top == own:
        return ""
    if isinstance(error, ModuleNotFoundError) and str(failed) == top:
        return f" ({source} needs the module {top!r}, which is not installed)"
    try:
        version = importlib.metadata.version(top)
    except Exception:
        return ""
    return (f" ({source} does not work with the installed {top} {version}: it may need an "
            f"older version of {top})")


def _load_file(path: Path):
    if not path.is_file():
        raise DPBanditsError(f"no such Python file: {str(path)!r}")
    root, dotted = _package_of(path.resolve())
    if dotted is not None:      # a module inside a package: imported as the package's module
        sys.path.insert(0, str(root))
        try:
            return importlib.import_module(dotted)
        except Exception as error:
            raise DPBanditsError(f"cannot load {str(path)!r} (as {dotted}, from {str(root)!r}): "
                                 f"{type(error).__name__}: {_one_line(error)}"
                                 f"{_dependency_hint(dotted, error)}") from None
        finally:
            sys.path.pop(0)
    name = f"dpbandits_candidate_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise DPBanditsError(f"cannot load {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module        # so that its classes can be pickled
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise DPBanditsError(f"cannot load {str(path)!r}: {type(error).__name__}: "
                             f"{_one_line(error)}{_dependency_hint(path.stem, error)}") from None
    finally:
        sys.path.pop(0)
    return module


def _package_of(path: Path) -> tuple[Path, str | None]:
    """The folder above the outermost package holding ``path`` and the module's dotted name
    (None when its folder is not a package)."""
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.insert(0, folder.name)
        folder = folder.parent
    if folder == path.parent or not parts:
        return path.parent, None
    return folder, ".".join(parts)


def short_name(candidate: Any) -> str:
    """A short file-name-safe name of a candidate for output names (``validate-ALGO-NAME``):
    its words with folders and ``.py``/``.sh`` dropped (``sh examples/ucb1.sh`` gives
    ``sh-ucb1``, ``impl.py:PlainLazyUCB`` gives ``impl-PlainLazyUCB``)."""
    text = " ".join(candidate) if isinstance(candidate, (list, tuple)) else str(candidate)
    words = [re.sub(r"\.(py|sh|R|jl|js|awk)$", "", word.rstrip("/").rsplit("/", 1)[-1])
             for word in re.split(r"[\s:]+", text) if word]
    name = re.sub(r"[^A-Za-z0-9_.=+]+", "-", "-".join(words)).strip("-.")
    return name[:60].rstrip("-.") or "candidate"


def builder(obj: Any, name: str | None = None) -> Callable[[Problem, np.random.Generator], Any]:
    """A function ``(problem, rng) -> policy`` that calls ``obj`` the way its signature asks.

    Raises :class:`DPBanditsError` when ``obj`` is not callable or asks for a required
    parameter no problem can serve.
    """
    name = name or getattr(obj, "__name__", type(obj).__name__)
    if is_learning_policy(obj):
        return lambda problem, rng: obj       # run by a MAB built per run (protocols.adapt)
    if not callable(obj):
        raise DPBanditsError(f"{name} is not a class or a factory (it is a "
                             f"{type(obj).__name__})")
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return lambda problem, rng: obj(rng)           # a builtin without a signature: obj(rng)
    parameters = [p for p in signature.parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    names = [p.name for p in parameters]
    takes_keywords = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    required = [p for p in parameters if p.default is p.empty]
    if names and names[0] == "problem":
        if len(required) > 2:
            raise DPBanditsError(f"{name}(problem, rng) takes more required parameters: "
                                 f"{', '.join(p.name for p in required[2:])}")
        if len(parameters) == 1:
            return lambda problem, rng: obj(problem)
        return lambda problem, rng: obj(problem, rng)
    role = {alias: key for key, aliases in ALIASES.items() for alias in aliases}
    by_role = {role[n]: n for n in names if n in role}
    if not by_role and len(required) == 1:
        only = required[0]
        if only.kind == only.POSITIONAL_ONLY:
            return lambda problem, rng: obj(rng)        # the older factory(rng) form

        def older(problem: Problem, rng: np.random.Generator) -> Any:
            # One required parameter named like a problem parameter (a semi-bandit's matroid)
            # gets that value; any other name is the older factory(rng) form.
            if only.name in problem.params:
                return obj(**{p.name: problem.params[p.name] for p in parameters
                              if p.name in problem.params})
            return obj(rng)
        return older
    if not by_role and len(required) == 0 and len(parameters) == 0 and not takes_keywords:
        return lambda problem, rng: obj()
    positional_only = [p.name for p in parameters if p.kind == p.POSITIONAL_ONLY]
    if positional_only:
        raise DPBanditsError(f"{name} takes positional-only parameters ({', '.join(positional_only)}); "
                             f"name them K, T, epsilon, rng or problem")
    served = set(by_role.values())
    others = [p for p in parameters if p.name not in served]

    def build(problem: Problem, rng: np.random.Generator) -> Any:
        values = {"K": problem.K, "T": problem.T, "epsilon": problem.epsilon, "rng": rng}
        kwargs = {by_role[key]: values[key] if key != "seed" else derived_seed(rng)
                  for key in by_role}
        if by_role.get("epsilon") and problem.epsilon is None:
            parameter = signature.parameters[by_role["epsilon"]]
            if parameter.default is parameter.empty:
                raise DPBanditsError(f"{name} requires {by_role['epsilon']} but no epsilon was "
                                     f"given (the reference algorithm is not private)")
            del kwargs[by_role["epsilon"]]
        for p in others:
            if p.name in problem.params:
                kwargs[p.name] = problem.params[p.name]
        if takes_keywords:
            kwargs.update({k: v for k, v in problem.params.items() if k not in kwargs})
        return obj(**kwargs)

    missing = [p.name for p in others if p.default is p.empty]
    if missing:
        def checked(problem: Problem, rng: np.random.Generator) -> Any:
            absent = [m for m in missing if m not in problem.params]
            if absent:
                raise DPBanditsError(
                    f"{name} requires {', '.join(absent)}: a candidate's parameters are K, T "
                    f"(or horizon), epsilon (or eps), rng and the algorithm's parameters "
                    f"given with --param ({', '.join(sorted(problem.params)) or 'none given'})")
            return build(problem, rng)
        return checked
    return build


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
                 isolated: bool = True) -> None:
        self.obj = obj
        self.epsilon = epsilon
        self.params = dict(params or {})
        super().__init__(_built_in_place, K, claim_epsilon, feedback, workers=workers,
                         label=label or _label(obj), timeout=timeout, isolated=isolated)

    build_call = "building the candidate"

    def _build(self, T: int, rng: np.random.Generator) -> Any:
        problem = Problem(self.K, T, self.epsilon, self.params, self.feedback)
        return self._prepare()(problem, rng)


class SemiCandidateMechanism(_Candidate, SemiPolicyMechanism):
    """A Python semi-bandit candidate, built per run for :class:`Problem` (K = L base arms, T,
    epsilon, params with the matroid, feedback ``semi``) with the run's generator, and driven round
    by round like :class:`~dpbandits.audit.adapters.SemiPolicyMechanism`."""

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
         isolated: bool = True):
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
                                   isolated=isolated)
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
    from .reference.matroid import Matroid

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
