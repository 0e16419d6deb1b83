"""What leaves the analysis's sight, found rather than missed (docs/accountant.md#fail-closed).

The tracers follow a reward-derived value through the methods of the arrays that carry it
(:class:`~dpbandits.reference.watched.Watched` and its subclasses, and the tagged values of
:mod:`~dpbandits.reference.tagged`). A few routes leave those classes without calling any of
their methods: ``.view(np.ndarray)``, ``np.asarray``/``np.array``/``np.ascontiguousarray``/
``np.asfortranarray`` (numpy's C code makes a plain array of the same memory), and iteration
(one plain number at a time). Each is a **move out of sight** here: in tracing mode the arrays'
``view`` and ``__iter__`` and, for the length of the tracing block, those numpy functions report
it (:func:`moved_out`): in the size-T mode a value that leaves is lost provenance at that line
(the bound an estimate, never a proof) and a finding of the dependence analysis; the lockstep
runs compare values, not tags, and are left as they are. The project's own input checks, whose other side
is a ``raise``, take their plain copy through :func:`for_a_check`.

Randomness drawn outside the project's noise source (numpy's legacy global functions such as
``np.random.laplace``, ``np.random.default_rng``, Python's ``random`` module, or a generator the
policy holds beside the one it was given) is not the lockstep coupling either: each such draw in
a traced block, and each such generator held by the traced policy, is a finding with its line
(:func:`drew_outside`, :func:`own_generators`), which makes the bound an estimate.

State outside the policy object (a module's global, a class attribute, a closure's cells, a
generator's frame, an object that is not the project's) is not seen by the analysis either:
:class:`Outside` fingerprints it after the start and at the end of a size-T run, and a change is a
finding.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import os
import random
import sys
import sysconfig
import types
from typing import Any, Iterator

import numpy as np

from . import watched

__all__ = ["moved_out", "for_a_check", "plain_makers", "user_modules", "Outside", "drew_outside",
           "own_generators"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_REFERENCE = os.path.dirname(os.path.abspath(__file__))


def _followed(kind) -> bool:
    """Whether arrays of class ``kind`` are followed by the tracers."""
    return isinstance(kind, type) and getattr(kind, "_followed", False)


def _carried(value, out: list, depth: int = 0) -> list:
    """The followed arrays in ``value`` (inside lists and tuples, three levels deep)."""
    if _followed(type(value)):
        out.append(value)
    elif depth < 3 and isinstance(value, (list, tuple)):
        for v in value:
            _carried(v, out, depth + 1)
    return out


def moved_out(values, how: str, frame=None) -> None:
    """``values`` (followed arrays) leave the analysis's sight by ``how`` at ``frame`` (default:
    the caller of the hook that calls this): under the size-T tracer, lost provenance (an
    estimate) and a finding of the dependence analysis while ``observe`` runs. Nothing when the move is made by the
    tracers' own code or numpy's."""
    tracer = watched.ACTIVE
    if tracer is None or not values:
        return
    frame = sys._getframe(2) if frame is None else frame
    if watched._skipped(frame.f_code.co_filename):
        return
    if not getattr(tracer, "symbolic", False):
        return      # the lockstep runs compare values, not tags: a plain copy is still compared
    site = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
    what = f"a move out of the analysis's sight ({how})"
    if any(isinstance(v, watched.Watched) and not isinstance(v, watched.Draw) for v in values):
        tracer.lost(f"{what}: what is computed from it is not followed")
    checker = getattr(tracer, "locality", None)
    if checker is not None:
        checker.finding(f"{what} ({site}): what is computed from it is not followed")


def for_a_check(x) -> np.ndarray:
    """``x`` as a plain array for one of the project's input checks whose other side is a
    ``raise`` (a traced sequence never takes it, and it releases nothing): not a read. Called
    from code outside the project's reference, it is a move out of sight like ``np.asarray``."""
    if _followed(type(x)):
        caller = sys._getframe(1)
        if not os.path.abspath(caller.f_code.co_filename).startswith(_REFERENCE + os.sep):
            moved_out([x], "for_a_check", caller)
    return np.ndarray.view(np.asanyarray(x), np.ndarray)


_MAKERS = ("asarray", "array", "ascontiguousarray", "asfortranarray")
"""numpy's functions that make a plain array of a followed one without calling its methods."""
_ORIGINAL = {name: getattr(np, name) for name in _MAKERS}


def _maker(name: str):
    original = _ORIGINAL[name]

    def make(a, *args, **kwargs):
        if type(a) is not np.ndarray and watched.ACTIVE is not None and \
                not kwargs.get("subok", False):
            found = _carried(a, [])
            if found:
                moved_out(found, f"np.{name}")
        return original(a, *args, **kwargs)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = original.__doc__
    make.__wrapped__ = original
    return make


_MADE = {name: _maker(name) for name in _MAKERS}


# --- randomness outside the noise source --------------------------------------------------

OUTSIDE_DRAW = "randomness drawn outside the project's noise source"
"""The finding's words (with ``not a declared law as drawn``: the bound is then an estimate)."""


def drew_outside(how: str, frame) -> None:
    """``how`` (a function of numpy's global random state, of Python's ``random`` module, or a
    generator made in the traced code) drew at ``frame`` under a tracer: a finding with its
    line. Nothing when the tracers' own code or numpy's drew."""
    tracer = watched.ACTIVE
    if tracer is None or watched._skipped(frame.f_code.co_filename):
        return
    site = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
    note = (f"round {tracer.step}: {OUTSIDE_DRAW} ({how} at {site}): not a declared law as "
            f"drawn, nor coupled across the neighbouring runs")
    if note not in tracer.findings:
        tracer.findings.append(note)


def _outside_functions() -> dict[tuple[Any, str], Any]:
    """(module, name) -> function for every draw of numpy's global RandomState
    (``np.random.laplace``, ``np.random.seed``, ...), ``np.random.default_rng`` and Python's
    ``random`` module's functions."""
    out: dict[tuple[Any, str], Any] = {}
    legacy = np.random.mtrand._rand
    for name in dir(np.random):
        f = getattr(np.random, name)
        if getattr(f, "__self__", None) is legacy and callable(f):
            out[(np.random, name)] = f
    out[(np.random, "default_rng")] = np.random.default_rng
    for name in random.__all__:
        f = getattr(random, name)
        if getattr(f, "__self__", None) is random._inst and callable(f):
            out[(random, name)] = f
    return out


_RANDOM = _outside_functions()


def _drawer(owner, name: str, original):
    prefix = "np.random" if owner is np.random else "random"

    def drawn(*args, **kwargs):
        if watched.ACTIVE is not None:
            drew_outside(f"{prefix}.{name}", sys._getframe(1))
        return original(*args, **kwargs)

    drawn.__name__ = drawn.__qualname__ = name
    drawn.__doc__ = original.__doc__
    drawn.__wrapped__ = original
    return drawn


def _maker_of(owner, base: type) -> type:
    """A subclass of the generator class ``base`` whose construction under a tracer reports
    randomness drawn outside the noise source (an instance is still a ``base``)."""
    prefix = "np.random" if owner is np.random else "random"

    class Made(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            if watched.ACTIVE is not None:
                drew_outside(f"{prefix}.{base.__name__}", sys._getframe(1))
            super().__init__(*args, **kwargs)

    Made.__name__ = Made.__qualname__ = base.__name__
    Made.__module__ = base.__module__
    return Made


_GENERATOR_CLASSES = [(np.random, "RandomState"), (np.random, "PCG64"), (np.random, "PCG64DXSM"),
                      (np.random, "MT19937"), (np.random, "Philox"), (np.random, "SFC64"),
                      (random, "Random"), (random, "SystemRandom")]
"""Generator classes whose instances made in traced code draw outside the noise source (not
``np.random.Generator`` itself, which the tracers' generators subclass: a Generator made in
the traced code is made on one of these bit generators)."""
for _owner, _name in _GENERATOR_CLASSES:
    if hasattr(_owner, _name):
        _RANDOM[(_owner, _name)] = getattr(_owner, _name)

_DRAWERS = {key: (_maker_of(key[0], f) if isinstance(f, type) else _drawer(key[0], key[1], f))
            for key, f in _RANDOM.items()}
_REPLACED = {id(f): (f, _DRAWERS[key]) for key, f in _RANDOM.items()}
_REPLACED.update({id(f): (f, _MADE[name]) for name, f in _ORIGINAL.items()})
"""id of an original -> (the original, what replaces it in a tracing block)."""


def own_generators(policy, given) -> list[str]:
    """The random generators (numpy's Generator, RandomState or BitGenerator, a
    ``random.Random``) that ``policy`` holds (to depth 4, in its attributes and the project's
    objects and containers it holds) other than ``given``, the one it was built with: each named
    by its attribute."""
    out: list[str] = []
    kinds = (np.random.Generator, np.random.RandomState, np.random.BitGenerator, random.Random)

    def walk(obj, path: str, depth: int, seen: set) -> None:
        for name, value in _members(obj, path, depth, seen):
            if isinstance(value, kinds):
                if value is not given and value is not getattr(given, "bit_generator", None):
                    out.append(name)
            elif isinstance(value, (dict, list, tuple)) or (
                    hasattr(value, "__dict__") and not isinstance(value, (_OPAQUE, np.ndarray))
                    and not inspect.isroutine(value)):
                walk(value, name, depth + 1, seen)

    walk(policy, "self", 0, set())
    return out


_BOUND: dict[int, tuple[int, list[tuple[str, Any, Any]]]] = {}


def _bound(module) -> list[tuple[str, Any, Any]]:
    """(name, original, replacement) of the originals ``module`` binds by name, scanned again
    when its globals change in number (or a cached binding no longer holds)."""
    d = vars(module)
    known = _BOUND.get(id(module))
    if known is not None and known[0] == len(d) and all(d.get(k) is o for k, o, _ in known[1]):
        return known[1]
    found = []
    for key, value in list(d.items()):
        replaced = _REPLACED.get(id(value))
        if replaced is not None and replaced[0] is value:
            found.append((key, value, replaced[1]))
    _BOUND[id(module)] = (len(d), found)
    return found


@contextlib.contextmanager
def plain_makers(modules=()) -> Iterator[None]:
    """Inside the block, ``np.asarray`` and the other plain makers report a move out of sight of
    a followed array, and the draws of numpy's global random state, ``np.random.default_rng``
    and Python's ``random`` module report randomness drawn outside the noise source; also where
    ``modules`` (the traced code's) bound the originals by name (``from numpy import
    asarray``, ``from random import random``)."""
    patched: list[tuple[Any, str, Any]] = []
    for name in _MAKERS:
        patched.append((np, name, getattr(np, name)))
        setattr(np, name, _MADE[name])
    for (owner, name), made in _DRAWERS.items():
        patched.append((owner, name, getattr(owner, name)))
        setattr(owner, name, made)
    for module in modules:
        for key, original, made in _bound(module):
            patched.append((module, key, original))
            setattr(module, key, made)
    try:
        yield
    finally:
        for owner, key, value in reversed(patched):
            setattr(owner, key, value)


# --- state outside the policy ------------------------------------------------------------------

_SYSTEM = tuple(os.path.abspath(p) + os.sep for p in {sysconfig.get_paths()["stdlib"],
                                                       sysconfig.get_paths()["purelib"],
                                                       sysconfig.get_paths()["platlib"]})
_OPAQUE = (types.ModuleType, type, types.BuiltinFunctionType, np.random.Generator,
           np.random.BitGenerator, np.dtype)


_USER: dict[str, bool] = {}


_LOADED: list = [-1, []]
"""(number of loaded modules, :func:`user_modules` then)."""


def user_modules() -> list:
    """The loaded modules of code that is neither Python's nor an installed package's nor the
    tracers' (:func:`_user_module`), found again when the number of loaded modules changes."""
    if _LOADED[0] == len(sys.modules):
        return list(_LOADED[1])
    out = []
    for key, module in list(sys.modules.items()):
        known = _USER.get(key)
        if known is None:
            known = _USER[key] = _user_module(module)
        if known:
            out.append(module)
    _LOADED[:] = [len(sys.modules), out]
    return list(out)


def _user_module(module) -> bool:
    """A module of code that is neither Python's nor an installed package's nor the tracers'."""
    path = getattr(module, "__file__", None)
    if not path:
        return False
    path = os.path.abspath(path)
    if path.startswith(_PACKAGE + os.sep):
        return path.startswith(_REFERENCE + os.sep) and path not in watched._OURS
    return not path.startswith(_SYSTEM)


def _data(value) -> bool:
    return not (isinstance(value, _OPAQUE) or inspect.isroutine(value) and
                not getattr(value, "__closure__", None) or isinstance(value, property))


class Outside:
    """The state a policy can keep outside its object: the globals of every module of code
    that is not Python's, an installed package's or the tracers' (the algorithm's modules and
    any module of the user's), the attributes of the classes of its MRO, the cells of the
    closures and the frames of the generators it holds, and objects it holds that are not the
    project's reference objects (whose arrays the dependence analysis follows). :meth:`changed`
    names what differs between two :meth:`snapshot`\\ s."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        modules = user_modules()
        self.roots: list[tuple[str, Any, str]] = []
        for m in modules:
            for key, value in vars(m).items():
                if not key.startswith("__") and _data(value):
                    self.roots.append((f"module global {key} of {os.path.basename(m.__file__)}",
                                       m, key))
        for klass in type(policy).__mro__:
            if klass is object:
                continue
            for key, value in vars(klass).items():
                if not key.startswith("__") and _data(value):
                    self.roots.append((f"class attribute {klass.__name__}.{key}", klass, key))
        own = {klass.__module__ for klass in type(policy).__mro__}
        self.near = [(name, owner, key) for name, owner, key in self.roots
                     if isinstance(owner, type) or owner.__name__ in own]
        """The roots of the policy's own code: its classes' attributes and their modules'
        globals (the rest: the other modules' globals)."""

    def snapshot(self, near: bool = False) -> dict[str, str]:
        """The fingerprints of every root and of what the policy holds (``near``: of the
        policy's own code's roots only, a cheaper check between full ones)."""
        out = {name: _fingerprint(vars(owner).get(key))
               for name, owner, key in (self.near if near else self.roots)}
        for name, value in _hidden(self.policy, "self", 0, set()):
            out[name] = _fingerprint(value)
        return out

    @staticmethod
    def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
        return [name for name in dict.fromkeys([*before, *after])
                if before.get(name) != after.get(name)]


def _members(obj, path: str, depth: int, seen: set) -> Iterator[tuple[str, Any]]:
    """(name, value) of what ``obj`` holds (a dict's items, a list's or tuple's elements, an
    object's attributes), once per object and to depth 4."""
    if id(obj) in seen or depth > 4:
        return
    seen.add(id(obj))
    items = (obj.items() if isinstance(obj, dict) else enumerate(obj)
             if isinstance(obj, (list, tuple)) else vars(obj).items()
             if hasattr(obj, "__dict__") and not isinstance(obj, _OPAQUE) else ())
    for key, value in items:
        yield (f"{path}.{key}" if hasattr(obj, "__dict__") else f"{path}[{key!r}]"), value


def _hidden(obj, path: str, depth: int, seen: set) -> Iterator[tuple[str, Any]]:
    """What an object of the policy holds that the dependence analysis does not compare: the
    cells of its closures, its generators' frames, the objects that are not the project's."""
    for name, value in _members(obj, path, depth, seen):
        if isinstance(value, (np.ndarray, np.generic, int, float, str, bytes, bool,
                              type(None))) or isinstance(value, _OPAQUE):
            continue
        if isinstance(value, (types.GeneratorType, set, frozenset)) or inspect.isroutine(value) \
                or isinstance(value, types.MethodType) or callable(value) and \
                not hasattr(value, "__dict__"):
            yield f"{name} (held by the policy)", value
        elif isinstance(value, (dict, list, tuple)):
            yield from _hidden(value, name, depth + 1, seen)
        elif type(value).__module__.startswith("dpbandits."):
            yield from _hidden(value, name, depth + 1, seen)
        else:
            yield f"{name} (an object that is not the project's)", value


_MOST = 200_000
"""Most values one fingerprint reads; a larger state is not compared but reported as changed
(fail closed: :func:`_fingerprint`)."""
_LARGE = iter(range(1 << 62))


_READ = [0]


class _TooLarge(Exception):
    pass


def _fingerprint(value) -> str:
    """A hash of ``value``'s content; for a state of more than :data:`_MOST` values, a fresh
    mark each time (it then counts as changed: too large to compare, never silently equal)."""
    h = hashlib.blake2b(digest_size=16)
    _READ[0] = 0
    try:
        _feed(h, value, 0, set())
    except _TooLarge:
        return f"too large to compare ({next(_LARGE)})"
    return h.hexdigest()


def _feed(h, value, depth: int, seen: set) -> None:
    if depth > 6:
        return
    _READ[0] += 1
    if _READ[0] > _MOST:
        raise _TooLarge
    if isinstance(value, np.ndarray):
        plain = np.ndarray.view(value, np.ndarray)
        h.update(f"a{plain.dtype.str}{plain.shape}".encode())
        h.update(np.ndarray.tobytes(np.ndarray.view(np.ascontiguousarray(plain), np.ndarray))
                 if plain.dtype.kind != "O" else repr(plain.tolist()).encode())
        return
    if isinstance(value, (int, float, complex, str, bytes, bool, type(None), np.generic)):
        h.update(repr(value).encode())
        return
    if id(value) in seen or isinstance(value, _OPAQUE):
        h.update(type(value).__name__.encode())
        return
    seen.add(id(value))
    h.update(type(value).__name__.encode())
    if isinstance(value, dict):
        for k in sorted(value, key=repr):
            h.update(repr(k).encode())
            _feed(h, value[k], depth + 1, seen)
    elif isinstance(value, (list, tuple)):
        h.update(str(len(value)).encode())
        for v in value:
            _feed(h, v, depth + 1, seen)
    elif isinstance(value, (set, frozenset)):
        h.update(repr(sorted(map(repr, value))).encode())
    elif isinstance(value, types.GeneratorType):
        frame = value.gi_frame
        if frame is not None:
            h.update(str(frame.f_lasti).encode())
            _feed(h, dict(frame.f_locals), depth + 1, seen)
    elif isinstance(value, types.MethodType):
        _feed(h, value.__func__, depth + 1, seen)
        _feed(h, value.__self__, depth + 1, seen)
    elif inspect.isfunction(value):
        for cell in value.__closure__ or ():
            try:
                _feed(h, cell.cell_contents, depth + 1, seen)
            except ValueError:          # an empty cell
                h.update(b"empty")
        _feed(h, value.__defaults__, depth + 1, seen)
    elif isinstance(value, functools.partial):
        _feed(h, (value.func, value.args, value.keywords), depth + 1, seen)
    elif hasattr(value, "__dict__"):
        _feed(h, vars(value), depth + 1, seen)


watched.moved_out = moved_out
