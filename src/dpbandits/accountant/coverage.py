"""Coverage stage: which branches of the traced algorithm's code ran under tracing.

A proof needs the checks of the noise laws and of the information flow to have seen every line
of the algorithm that can run (docs/accountant.md#coverage). :class:`Coverage` records, while a
policy acts and observes under the tracer, the line-to-line arcs of every function of the
algorithm's code: the files that define the policy's class and its bases, and the shared
mechanisms (counters, report-noisy-max) it may release through (:func:`files_of`);
:meth:`Coverage.gaps` then lists, for every function that ran, each ``if`` whose true or false
side never ran and each ``while`` whose body never ran, by file and line.

Two kinds of branch are not required to run both ways, because no run at this configuration can
take the other side:

* a **configuration branch**, whose test reads only attributes the class sets when it is built
  and never changes afterwards (``self.variant``, ``self.tie_break``, a parameter), constants
  and literals, or compares a name with string literals (an option);
* an **input check**, whose other side is a single ``raise`` (invalid input ends the run before
  anything is released).

What is not a branch here: the two outcomes of a conditional expression or of ``and``/``or``
on one line, the zero-iteration case of a ``for`` loop, and exception handlers; the docs page
says so.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import linecache
import os
import sys
from dataclasses import dataclass, field
from typing import Iterator

from ..reference import noise

_REFERENCE = os.path.dirname(os.path.abspath(noise.__file__))

Key = tuple[str, int, str]
"""A function: (file, first line, name)."""

_CHECK_EVERY = 32
"""Calls of a function between two checks of whether its branches have all run (after which
it is no longer traced)."""


@dataclass
class Coverage:
    """Arcs (from line, to line; -1 is the entry or the return) of every traced function."""

    files: frozenset[str] = frozenset()
    arcs: dict[Key, set[tuple[int, int]]] = field(default_factory=dict)
    done: set[Key] = field(default_factory=set)
    """Functions whose every branch has run both ways: no longer traced line by line."""
    calls: dict[Key, int] = field(default_factory=dict)

    def covers(self, filename: str) -> bool:
        return filename in self.files

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Record the arcs of the covered files inside the block (``sys.settrace``; the trace
        function in place before is put back after)."""
        before = sys.gettrace()
        last: dict[int, int] = {}

        def recorder(arcs: set[tuple[int, int]]):
            """The local trace function of a frame whose function's arcs are ``arcs``."""
            def local(frame, event, arg):
                if event == "line":
                    arcs.add((last.get(id(frame), -1), frame.f_lineno))
                    last[id(frame)] = frame.f_lineno
                elif event == "return":
                    arcs.add((last.pop(id(frame), -1), -1))
                return local
            return local

        files = self.files

        def call(frame, event, arg):
            # called at every Python call inside the block: the test of the file comes first
            # and calls nothing (sys.settrace's global function sees "call" events only)
            code = frame.f_code
            if code.co_filename in files and event == "call":
                key = (code.co_filename, code.co_firstlineno, code.co_name)
                if key in self.done:
                    return None
                n = self.calls[key] = self.calls.get(key, 0) + 1
                if n % _CHECK_EVERY == 0 and not _branches(key, frozenset(self.arcs.get(key, ()))):
                    self.done.add(key)          # complete: its later calls cannot add a gap
                    return None
                last.pop(id(frame), None)
                return recorder(self.arcs.setdefault(key, set()))
            return None

        sys.settrace(call)
        try:
            yield
        finally:
            sys.settrace(before)

    def gaps(self) -> list[str]:
        """Every branch of a function that ran whose side never ran, as ``file:line (what)``."""
        out: list[str] = []
        for key, arcs in sorted(self.arcs.items()):
            for line, side in _branches(key, frozenset(arcs)):
                out.append(f"{os.path.basename(key[0])}:{line} ({side})")
        return out


_ACTIVE: "Coverage | None" = None


@contextlib.contextmanager
def collecting(coverage: Coverage) -> Iterator[Coverage]:
    """Make ``coverage`` the one every traced step records into inside the block (the copies
    an enumeration makes of a run share it)."""
    global _ACTIVE
    before, _ACTIVE = _ACTIVE, coverage
    try:
        yield coverage
    finally:
        _ACTIVE = before


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Record into the collecting coverage, if any."""
    if _ACTIVE is None:
        yield
    else:
        with _ACTIVE.recording():
            yield


def files_of(cls: type) -> frozenset[str]:
    """The algorithm's code: the source files of the classes of ``cls``'s MRO and the shared
    mechanisms it may release through (the counters, report-noisy-max)."""
    out = {os.path.join(_REFERENCE, "mechanisms.py"),
           os.path.join(_REFERENCE, "report_noisy_max.py")}
    for klass in cls.__mro__:
        if klass is object:
            continue
        try:
            out.add(os.path.abspath(inspect.getsourcefile(klass) or ""))
        except TypeError:
            continue
        for value in vars(klass).values():      # methods compiled elsewhere (a planted rewrite)
            code = getattr(value, "__code__", None)
            if code is not None:
                name = code.co_filename
                out.add(name if name.startswith("<") else os.path.abspath(name))
    return frozenset(f for f in out if f)


@functools.lru_cache(maxsize=None)
def _tree(filename: str) -> ast.Module | None:
    lines = linecache.getlines(filename)
    if not lines:
        return None
    try:
        return ast.parse("".join(lines))
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=None)
def _changed(filename: str) -> frozenset[str]:
    """Attributes of ``self`` assigned anywhere in the file outside ``__init__``."""
    tree = _tree(filename)
    out: set[str] = set()
    if tree is None:
        return frozenset()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name == "__init__":
            continue
        for node in ast.walk(fn):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self"):
                        out.add(sub.attr)
    return frozenset(out)


_CALLS = {"isinstance", "len", "callable", "hasattr", "getattr"}


def _configuration(test: ast.AST, changed: frozenset[str]) -> bool:
    """The test reads only attributes set at construction, constants and literals, or compares
    a name with string literals (an option such as ``rounding == "ceil"``: no reward is a
    string)."""
    if (isinstance(test, ast.Compare) and isinstance(test.left, (ast.Name, ast.Attribute))
            and all(isinstance(c, ast.Constant) and isinstance(c.value, str)
                    or isinstance(c, (ast.Tuple, ast.Set, ast.List))
                    and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                            for e in c.elts) for c in test.comparators)):
        return True
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "self" and node.attr in changed:
                return False
        elif isinstance(node, ast.Name):
            if node.id == "self" or node.id.isupper() or node.id in _CALLS or node.id in (
                    "None", "True", "False"):
                continue
            return False
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _CALLS):
                return False
    return True


def _raises(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _function(tree: ast.Module, first: int, name: str) -> ast.AST | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start == first or node.lineno == first:
                return node
    return None


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body, not those of functions, lambdas or classes defined in it."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


@functools.lru_cache(maxsize=4096)
def _branches(key: Key, arcs: frozenset[tuple[int, int]]) -> list[tuple[int, str]]:
    filename, first, name = key
    if name.startswith("<"):
        return []           # a lambda or a comprehension: no statements, no branches here
    tree = _tree(filename)
    fn = None if tree is None else _function(tree, first, name)
    if fn is None:
        return [(first, f"the source of {name} could not be read: its branches are not known")]
    ran = {b for _, b in arcs}
    changed = _changed(filename)
    out: list[tuple[int, str]] = []
    for node in _own_nodes(fn):
        if isinstance(node, ast.While):
            if node.body[0].lineno not in ran and node.test.lineno in ran:
                out.append((node.lineno, "the loop's body never ran"))
            continue
        if not isinstance(node, ast.If) or node.test.lineno not in ran:
            continue
        if _configuration(node.test, changed):
            continue
        span = set(range(node.test.lineno, (node.test.end_lineno or node.test.lineno) + 1))
        body = node.body[0].lineno
        if body in span:
            continue                    # one line: its sides cannot be told apart by lines
        if body not in ran and not _raises(node.body):
            out.append((node.lineno, "its true side never ran"))
        if node.orelse:
            other = node.orelse[0].lineno
            if other not in ran and not _raises(node.orelse):
                out.append((node.lineno, "its false side never ran"))
        elif not any(a in span and b not in span and b != body for a, b in arcs):
            out.append((node.lineno, "its false side never ran"))
    return sorted(out)
