"""Every bound the tool enforces on a request, in one place, with the reason for each.

A request outside these bounds is refused before any work starts, with one message that names
the argument and the allowed range (:class:`~dpbandits.errors.DPBanditsError`). The docs page
``docs/limits.md`` lists them; it reads the values from this module.
"""

from __future__ import annotations

import math

from .errors import DPBanditsError

__all__ = ["SEED_BOUND", "EPSILON_RANGE", "MAX_ARMS", "MAX_HORIZON", "MAX_RUNS", "MAX_SAMPLES",
           "MAX_TIMEOUT", "MAX_WORKERS", "MEMORY_BUDGET", "WORK_BUDGET", "AUDIT_WORK_BUDGET",
           "CHECKPOINTS", "check_epsilon_range", "check_simulation_size", "check_audit_size",
           "simulation_bytes", "max_line_bytes", "table"]

SEED_BOUND = 2 ** 128
"""Seeds are exact integers in [0, 2^128): the entropy of a ``numpy.random.SeedSequence`` pool."""

EPSILON_RANGE = (1e-6, 1e4)
"""Supported privacy parameters, for every algorithm: inside it every computation is finite (the
smallest noise scale 1/eps keeps the report-noisy-max law summing to 1 within 1e-9; the largest
keeps DP-SE's epoch lengths and DP-UCB-INT's intervals below 2^62)."""

MAX_ARMS = 10_000
"""Arms K of a simulation or audit; state and output grow linearly in K."""

MAX_HORIZON = 10 ** 9
"""Rounds T of a simulation; the rounds are counted in 64-bit integers and each is a Python step."""

MAX_RUNS = 10 ** 7
"""Independent runs R of one simulation (the memory budget usually binds first)."""

MAX_SAMPLES = 10 ** 8
"""Test-sample runs per side of an audit (the audit work budget usually binds first)."""

MAX_TIMEOUT = 3600.0
"""Seconds an external program may take for one expected line."""

MAX_WORKERS = 1024
"""Local worker processes or parallel copies of an external program."""

CHECKPOINTS = 61
"""Most rounds at which a simulation records each run's regret (``default_checkpoints``)."""

MEMORY_BUDGET = 2 * 2 ** 30
"""Bytes the results of one request may hold: per run, two regret curves and the pull counts."""

WORK_BUDGET = 10 ** 12
"""Run-round-arm steps of one simulation (R x T x K): about a day on one core."""

AUDIT_WORK_BUDGET = 10 ** 10
"""Run-rounds of one audit's samples (samples x T x 2 sides): its action sequences are held."""


def check_epsilon_range(epsilon: float, name: str = "epsilon", algorithm: str | None = None) -> float:
    """Return ``epsilon`` after checking it lies in :data:`EPSILON_RANGE`."""
    low, high = EPSILON_RANGE
    value = float(epsilon)
    if not (math.isfinite(value) and low <= value <= high):
        who = f" for {algorithm}" if algorithm else ""
        raise DPBanditsError(f"{name} must lie in [{low:g}, {high:g}]{who} (the supported range), "
                             f"got {epsilon!r}")
    return value


def simulation_bytes(runs: int, K: int) -> int:
    """Bytes of a simulation's results: two regret curves at the checkpoints and K pull counts."""
    return int(runs) * (2 * CHECKPOINTS + int(K)) * 8


def check_simulation_size(runs: int, T: int, K: int) -> None:
    """Refuse a simulation whose results exceed :data:`MEMORY_BUDGET` or whose work exceeds
    :data:`WORK_BUDGET`, saying how many runs would fit."""
    if T > MAX_HORIZON:
        raise DPBanditsError(f"horizon must be at most {MAX_HORIZON:.0e}, got {T}")
    if K > MAX_ARMS:
        raise DPBanditsError(f"the number of arms must be at most {MAX_ARMS}, got {K}")
    fit = min(MAX_RUNS, MEMORY_BUDGET // simulation_bytes(1, K), WORK_BUDGET // (T * K))
    if runs > fit:
        raise DPBanditsError(f"runs must be at most {fit} for T = {T} and K = {K} (results within "
                             f"{MEMORY_BUDGET // 2 ** 30} GiB and R x T x K within {WORK_BUDGET:.0e} "
                             f"steps), got {runs}")


def check_audit_size(samples: int, T: int) -> None:
    """Refuse an audit whose samples exceed :data:`MAX_SAMPLES` or :data:`AUDIT_WORK_BUDGET`."""
    fit = min(MAX_SAMPLES, AUDIT_WORK_BUDGET // (2 * T))
    if samples > fit:
        raise DPBanditsError(f"samples must be at most {fit} for a horizon of {T} (2 x samples x T "
                             f"within {AUDIT_WORK_BUDGET:.0e} run-rounds), got {samples}")


def max_line_bytes(K: int, T: int) -> int:
    """The longest line a valid external program writes for K arms and T rounds (all T actions
    on one line, each with its separator), plus room for line ends and spaces."""
    return 64 + T * (len(str(max(int(K) - 1, 0))) + 2)


def table() -> str:
    """A Markdown table of every limit above: name, value and reason (its docstring)."""
    import ast
    import inspect
    import sys

    source = ast.parse(inspect.getsource(sys.modules[__name__]))
    rows = ["| limit | value | why |", "|---|---|---|"]
    body = source.body
    for node, after in zip(body, body[1:]):
        if isinstance(node, ast.Assign) and isinstance(after, ast.Expr) \
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str):
            name = node.targets[0].id
            value = globals()[name]
            shown = ("2^128" if name == "SEED_BOUND" else
                     f"[{value[0]:g}, {value[1]:g}]" if isinstance(value, tuple) else
                     f"{value:,}" if isinstance(value, int) else f"{value:g}")
            why = " ".join(after.value.value.split())
            rows.append(f"| `{name}` | {shown} | {why} |")
    return "\n".join(rows)
