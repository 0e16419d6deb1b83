"""Every bound the tool enforces on a request, in one place, with the reason for each.

A request outside these bounds is refused before any work starts, with one message that names
the argument and the allowed range (:class:`~dpbandits.errors.DPBanditsError`). The docs page
``docs/limits.md`` lists them; it reads the values from this module.
"""

from __future__ import annotations

import math

from .errors import DPBanditsError

__all__ = ["SEED_BOUND", "EPSILON_RANGE", "MAX_ARMS", "MAX_HORIZON", "MAX_RUNS", "MAX_SAMPLES",
           "MIN_SAMPLES", "SELECTION_RUNS", "MAX_TIMEOUT", "MAX_WORKERS", "MEMORY_BUDGET",
           "WORK_BUDGET", "AUDIT_WORK_BUDGET", "CHECKPOINTS", "check_epsilon_range", "check_arms",
           "check_horizon", "check_runs", "check_samples", "check_simulation_size", "check_audit_size",
           "check_validation_size", "simulation_bytes", "audit_bytes", "validation_bytes",
           "max_line_bytes", "table"]

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

MIN_SAMPLES = 100
"""Fewest test-sample runs per side of an audit: below it no Clopper-Pearson bound can exceed
the smallest supported claims (ln 100 = 4.6 is the largest bound 100 runs can give)."""

SELECTION_RUNS = 2000
"""Runs per side of an audit's selection sample when the test sample is small (at least this
many, whatever ``samples`` is): one side of it is held at a time, like the test sample's."""

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
"""Run-rounds of one audit's samples (samples x T x 2 sides); the action sequences of one side
(8 bytes a round) and the pair's two T x K tables must also fit in ``MEMORY_BUDGET``."""


def check_epsilon_range(epsilon: float, name: str = "epsilon", algorithm: str | None = None) -> float:
    """Return ``epsilon`` after checking it lies in :data:`EPSILON_RANGE`."""
    from .errors import check_real

    low, high = EPSILON_RANGE
    check_real(epsilon, name, f"a number in [{low:g}, {high:g}]")
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be a number in [{low:g}, {high:g}], got "
                             f"{epsilon!r}") from None
    if not (math.isfinite(value) and low <= value <= high):
        who = f" for {algorithm}" if algorithm else ""
        raise DPBanditsError(f"{name} must lie in [{low:g}, {high:g}]{who} (the supported range), "
                             f"got {epsilon!r}")
    return value


def check_arms(K: int, name: str = "K", minimum: int = 2) -> int:
    """Return ``K`` after checking it is an integer in [minimum, :data:`MAX_ARMS`]."""
    return _check_integer(K, name, minimum, MAX_ARMS)


def check_horizon(T: int, name: str = "horizon", minimum: int = 1) -> int:
    """Return ``T`` after checking it is an integer in [minimum, :data:`MAX_HORIZON`]."""
    return _check_integer(T, name, minimum, MAX_HORIZON)


def check_runs(runs: int, name: str = "runs", minimum: int = 1) -> int:
    """Return ``runs`` after checking it is an integer in [minimum, :data:`MAX_RUNS`]."""
    return _check_integer(runs, name, minimum, MAX_RUNS)


def check_samples(samples: int, name: str = "samples", minimum: int = MIN_SAMPLES) -> int:
    """Return ``samples`` after checking it is an integer in [minimum, :data:`MAX_SAMPLES`]."""
    return _check_integer(samples, name, minimum, MAX_SAMPLES)


def _check_integer(value: int, name: str, low: int, high: int) -> int:
    from .errors import check_positive_int

    number = check_positive_int(value, name, minimum=low)
    if number > high:
        raise DPBanditsError(f"{name} must be an integer in [{low}, {high}], got {number}")
    return number


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


def audit_bytes(samples: int, T: int, K: int) -> int:
    """Bytes an audit holds at once: one side's action sequences (the test sample, or the
    selection sample of at least :data:`SELECTION_RUNS` runs, 8 bytes a round) and one pair's two
    reward tables of T x K."""
    return 8 * (max(int(samples), SELECTION_RUNS) * int(T) + 2 * int(T) * int(K))


def check_audit_size(samples: int, T: int, K: int = 2, horizon: str = "") -> None:
    """Refuse an audit whose horizon, arms or samples do not fit: T within :data:`MAX_HORIZON`,
    its tables and the selection sample within :data:`MEMORY_BUDGET`, ``samples`` within
    :data:`MAX_SAMPLES`, :data:`AUDIT_WORK_BUDGET` and the memory budget. ``horizon`` says where
    T comes from when the tool chose it (e.g. "dp-se's designed horizon at epsilon = 0.001")."""
    where = f" ({horizon})" if horizon else ""
    budget = f"{MEMORY_BUDGET // 2 ** 30} GiB"
    if K > MAX_ARMS:
        raise DPBanditsError(f"the number of arms must be at most {MAX_ARMS}, got {K}")
    longest = min(MAX_HORIZON, MEMORY_BUDGET // (8 * (SELECTION_RUNS + 2 * K)))
    if T > longest:
        raise DPBanditsError(f"the audit horizon must be at most {longest} rounds at K = {K} (the "
                             f"selection sample's {SELECTION_RUNS} runs and the pair's tables "
                             f"within {budget}), got T = {T}{where}")
    fit = min(MAX_SAMPLES, AUDIT_WORK_BUDGET // (2 * T), MEMORY_BUDGET // (8 * T) - 2 * K)
    if samples > fit:
        raise DPBanditsError(f"samples must be at most {fit} for a horizon of {T}{where} (2 x "
                             f"samples x T within {AUDIT_WORK_BUDGET:.0e} run-rounds and one "
                             f"side's actions within {budget}), got {samples}")


def validation_bytes(runs: int, T: int, K: int) -> int:
    """Bytes a validation holds: the fixed table (T x K), the four samples' actions (runs x T
    each) and the cumulative pull counts of both sides of one sample (2 x runs x T x K)."""
    return 8 * (int(T) * int(K) + 4 * int(runs) * int(T) + 2 * int(runs) * int(T) * int(K))


def check_validation_size(runs: int, T: int, K: int, minimum: int = 1) -> None:
    """Refuse a validation that does not fit: the simulation's limits
    (:func:`check_simulation_size`) and :func:`validation_bytes` within :data:`MEMORY_BUDGET`,
    saying how many runs would fit (``minimum``: the fewest runs a validation takes)."""
    check_simulation_size(runs, T, K)
    fit = (MEMORY_BUDGET // 8 - T * K) // (4 * T + 2 * T * K)
    if fit < minimum:
        raise DPBanditsError(f"horizon x arms too large for a validation: T = {T} and K = {K} "
                             f"leave room for at most {max(fit, 0)} runs within {MEMORY_BUDGET // 2 ** 30} "
                             f"GiB, and a validation needs at least {minimum}")
    if runs > fit:
        raise DPBanditsError(f"runs must be at most {fit} for T = {T} and K = {K} (a validation's "
                             f"tables, actions and pull counts within {MEMORY_BUDGET // 2 ** 30} "
                             f"GiB), got {runs}")


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
