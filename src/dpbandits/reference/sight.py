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
import sys
import sysconfig
import types
from typing import Any, Iterator

import numpy as np

from . import watched

__all__ = ["moved_out", "for_a_check", "plain_makers", "user_modules", "Outside"]

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


@contextlib.contextmanager
def plain_makers(modules=()) -> Iterator[None]:
    """Inside the block, ``np.asarray`` and the other plain makers report a move out of sight of
    a followed array; also where ``modules`` (the traced code's) bound the originals by name
    (``from numpy import asarray``)."""
    patched: list[tuple[Any, str, Any]] = []
    for name in _MAKERS:
        patched.append((np, name, getattr(np, name)))
        setattr(np, name, _MADE[name])
    for module in modules:
        for key, value in list(vars(module).items()):
            for name, original in _ORIGINAL.items():
                if value is original:
                    patched.append((module, key, value))
                    setattr(module, key, _MADE[name])
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


def user_modules() -> list:
    """The loaded modules of code that is neither Python's nor an installed package's nor the
    tracers' (:func:`_user_module`)."""
    out = []
    for key, module in list(sys.modules.items()):
        known = _USER.get(key)
        if known is None:
            known = _USER[key] = _user_module(module)
        if known:
            out.append(module)
    return out


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

    def snapshot(self) -> dict[str, str]:
        out = {name: _fingerprint(vars(owner).get(key)) for name, owner, key in self.roots}
        for name, value in _hidden(self.policy, "self", 0, set()):
            out[name] = _fingerprint(value)
        return out

    @staticmethod
    def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
        return [name for name in dict.fromkeys([*before, *after])
                if before.get(name) != after.get(name)]


def _hidden(obj, path: str, depth: int, seen: set) -> Iterator[tuple[str, Any]]:
    """What an object of the policy holds that the dependence analysis does not compare: the
    cells of its closures, its generators' frames, the objects that are not the project's."""
    if id(obj) in seen or depth > 4:
        return
    seen.add(id(obj))
    items = (obj.items() if isinstance(obj, dict) else enumerate(obj)
             if isinstance(obj, (list, tuple)) else vars(obj).items()
             if hasattr(obj, "__dict__") and not isinstance(obj, _OPAQUE) else ())
    for key, value in items:
        name = f"{path}.{key}" if hasattr(obj, "__dict__") else f"{path}[{key!r}]"
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


def _fingerprint(value) -> str:
    h = hashlib.blake2b(digest_size=16)
    _feed(h, value, 0, set())
    return h.hexdigest()


def _feed(h, value, depth: int, seen: set) -> None:
    if depth > 6:
        return
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
