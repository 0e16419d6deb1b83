"""How far one command's arguments travel: the calls that receive epsilon and T.

``python tools/argument_walk.py`` runs one fixed ``dpbandits validate`` invocation in this
process (:data:`COMMAND`: the awk Anytime-Lazy-UCB of ``examples/external`` against the
registered algorithm, a short horizon, 20 runs per sample and a 100-run audit) under
:func:`sys.setprofile`, and prints for the arguments ``epsilon`` and ``T`` (the command's
``--epsilon`` and ``--horizon``):

* ``calls``: calls of Python functions of the ``dpbandits`` package that receive the value as
  an argument (a parameter, or an item of ``*args`` / a value of ``**kwargs``);
* ``modules``: the distinct modules those calls are in;
* ``climbs back``: how often the walk returns to a module it had left, in call order (a call in
  module M whose preceding receiving call is in another module, when M received it before);
* ``checks``: those calls that are checking functions (``check_*`` of ``dpbandits.errors`` and
  ``dpbandits.limits``).

**Counted by identity.** A call counts when one of its arguments *is* the object that the
command line parsed (``args.epsilon``, ``args.horizon``, taken when
:func:`dpbandits.cli.validate.run` is entered; the option parsing itself, which sees text, is not
counted). A copy made by ``float(x)`` or ``int(x)`` of a value that is already a float or an int
is the same object and stays counted; a value computed from it (epsilon x 2 for a planted
variant, epsilon / K, the audit's own horizon) is another object and is not. The horizon is
above 256 so that CPython's cache of small ints cannot make an unrelated int the same object.
Only the calling thread is profiled (the command's default runs everything in it, apart from the
candidate's own processes).

``--detail`` also lists the receiving calls by module and the checking calls by function.
:func:`walk` measures any callable the same way (the tests use it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent

COMMAND = ("validate", "--command", "sh examples/external/anytime_lazy_ucb.sh",
           "--against", "anytime-lazy-ucb", "--epsilon", "1", "--horizon", "300",
           "--runs", "20", "--audit-samples", "100", "--seed", "1")
"""The measured invocation (run from the repository's root, ``--out`` a temporary folder)."""

CHECKING_MODULES = ("dpbandits.errors", "dpbandits.limits")


@dataclass
class Walk:
    """The calls that received one value, in call order: (module, function) pairs."""

    name: str
    calls: list[tuple[str, str]] = field(default_factory=list)

    @property
    def modules(self) -> int:
        return len({module for module, _ in self.calls})

    @property
    def climbs_back(self) -> int:
        """Returns to a module left earlier: a call in module M after a call in another module,
        when a call in M came before."""
        seen: set[str] = set()
        count, previous = 0, None
        for module, _ in self.calls:
            if module != previous and module in seen:
                count += 1
            seen.add(module)
            previous = module
        return count

    @property
    def checks(self) -> list[str]:
        return [f"{module}.{function}" for module, function in self.calls
                if module in CHECKING_MODULES and function.startswith("check_")]

    def row(self) -> str:
        return (f"{self.name:<8} {len(self.calls):>6} {self.modules:>8} {self.climbs_back:>12} "
                f"{len(self.checks):>7}")


HEADER = f"{'argument':<8} {'calls':>6} {'modules':>8} {'climbs back':>12} {'checks':>7}"


def _arguments(frame) -> list[Any]:
    """The values a frame's function received: its parameters, ``*args`` items and ``**kwargs``
    values (read before the function's body runs, at the profiler's ``call`` event)."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    names = code.co_varnames[:count]
    local = frame.f_locals
    values = [local.get(name) for name in names]
    flags = code.co_flags
    extra = count
    if flags & 0x04:                       # CO_VARARGS
        values.extend(local.get(code.co_varnames[extra], ()))
        extra += 1
    if flags & 0x08:                       # CO_VARKEYWORDS
        values.extend(local.get(code.co_varnames[extra], {}).values())
    return values


class _Profiler:
    """Records, for each tracked value, the dpbandits calls that receive it."""

    def __init__(self, targets: dict[str, Any], start: Callable[[Any], dict[str, Any]] | None,
                 start_code: Any = None) -> None:
        self.targets = dict(targets)
        self.walks = {name: Walk(name) for name in targets}
        self._start, self._start_code = start, start_code

    def __call__(self, frame, event, arg) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("dpbandits"):
            return
        if self._start is not None and frame.f_code is self._start_code:
            self.targets.update(self._start(frame))
            self._start = None
        if not any(value is not None for value in self.targets.values()):
            return
        received = _arguments(frame)
        for name, target in self.targets.items():
            if target is not None and any(value is target for value in received):
                self.walks[name].calls.append((module, frame.f_code.co_name))


def walk(run: Callable[[], Any], targets: dict[str, Any], *,
         start: tuple[Any, Callable[[Any], dict[str, Any]]] | None = None) -> tuple[Any, dict[str, Walk]]:
    """Run ``run()`` under the profiler; return its result and, for each ``targets`` name, the
    :class:`Walk` of the calls that received that object. ``start`` = (a function, a function
    of its frame returning the targets) sets the targets when that function is entered."""
    code = None if start is None else getattr(start[0], "__code__", None)
    profiler = _Profiler(targets, None if start is None else start[1], code)
    previous = sys.getprofile()
    sys.setprofile(profiler)
    try:
        result = run()
    finally:
        sys.setprofile(previous)
    return result, profiler.walks


def measure(command: tuple[str, ...] = COMMAND) -> tuple[int, dict[str, Walk], str]:
    """The exit status of ``dpbandits`` ``command``, the walks of its epsilon and horizon, and
    what it wrote to standard error."""
    from dpbandits.cli import main
    from dpbandits.cli import validate as validate_command

    def targets(frame) -> dict[str, Any]:
        args = frame.f_locals["args"]
        return {"epsilon": args.epsilon, "T": args.horizon}

    errors = io.StringIO()
    with tempfile.TemporaryDirectory() as out, contextlib.chdir(ROOT), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(errors):
        status, walks = walk(lambda: main([*command, "--out", out]),
                             {"epsilon": None, "T": None},
                             start=(validate_command.run, targets))
    return status, walks, errors.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detail", action="store_true",
                        help="list the receiving calls by module and the checks by function")
    args = parser.parse_args(argv)
    status, walks, errors = measure()
    print("dpbandits " + " ".join(f'"{part}"' if " " in part else part for part in COMMAND))
    if status not in (0, 1):
        last = errors.strip().splitlines()[-1:] or ["(nothing on standard error)"]
        print(f"the command failed (exit status {status}): {last[0]}", file=sys.stderr)
        return 1
    print(f"exit status {status}; counted by identity of the parsed value")
    print(HEADER)
    for found in walks.values():
        print(found.row())
    if args.detail:
        for found in walks.values():
            print(f"\n{found.name}: receiving calls by module")
            for module, n in Counter(m for m, _ in found.calls).most_common():
                print(f"  {n:>6}  {module}")
            print(f"{found.name}: checking calls by function")
            for function, n in Counter(found.checks).most_common():
                print(f"  {n:>6}  {function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
