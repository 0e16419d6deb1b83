"""Input validation shared by the whole package.

Every public entry point checks its arguments here, so that a bad value fails at once with a
message that names the argument, instead of producing a silently wrong simulation or bound.
The command line turns :class:`DPBanditsError` into a one-line message and exit status 2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "DPBanditsError",
    "check_epsilon",
    "check_positive_int",
    "check_probability",
    "check_rewards",
    "check_table",
    "check_means",
    "check_seed",
    "check_rng",
    "check_real",
]


class DPBanditsError(ValueError):
    """An argument given to dpbandits is invalid; the message names the argument."""


def check_real(value: Any, name: str, expected: str) -> None:
    """Refuse a value that is not a real number before any conversion: a bool, a complex number
    (``float(numpy.complex128(1))`` would drop the imaginary part with only a warning) or a
    text with digit-group underscores (``float("1_0")`` is 10; the command line refuses it, and
    so does every other entry point). ``expected`` says what was expected, for the message."""
    if isinstance(value, (bool, np.bool_, complex, np.complexfloating)) or (
            isinstance(value, str) and "_" in value):
        raise DPBanditsError(f"{name} must be {expected}, got {_short(value)}")


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking ``0 < epsilon < inf``."""
    check_real(epsilon, name, "a positive number")
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be a positive number, got {epsilon!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise DPBanditsError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return value


def check_positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    check_real(value, name, f"an integer >= {minimum}")
    if isinstance(value, (int, np.integer)):     # exact: never through a float (seeds > 2^53)
        if int(value) < minimum:
            raise DPBanditsError(f"{name} must be an integer >= {minimum}, got {_short(value)}")
        return int(value)
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be an integer >= {minimum}, got {value!r}") from None
    if not math.isfinite(as_float) or as_float != int(as_float) or int(as_float) < minimum:
        raise DPBanditsError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(as_float)


def check_probability(value: Any, name: str, *, open_left: bool = True,
                      open_right: bool = True) -> float:
    """Return ``value`` as a float in (0, 1) (ends included where ``open_*`` is False)."""
    check_real(value, name, "a number in (0, 1)")
    try:
        p = float(value)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be a number in (0, 1), got {value!r}") from None
    low_ok = p > 0 if open_left else p >= 0
    high_ok = p < 1 if open_right else p <= 1
    if not (math.isfinite(p) and low_ok and high_ok):
        left = "(" if open_left else "["
        right = ")" if open_right else "]"
        raise DPBanditsError(f"{name} must lie in {left}0, 1{right}, got {value!r}")
    return p


def check_rewards(values: np.ndarray, name: str = "rewards") -> np.ndarray:
    """Check that every reward is a number in [0, 1] (no NaN); return a float array.

    Privacy rests on this: every mechanism assumes a reward has sensitivity 1.
    """
    array = np.asarray(values, dtype=float)
    if array.size and not np.all((array >= 0.0) & (array <= 1.0)):
        bad = float(array[~((array >= 0.0) & (array <= 1.0))].ravel()[0])
        raise DPBanditsError(f"{name} must lie in [0, 1] with no NaN, found {bad!r}")
    return array


def check_table(table: Any, K: int | None = None, name: str = "table") -> np.ndarray:
    """Check a reward table of shape (T, K) with entries in [0, 1]; return it as float."""
    try:
        array = np.asarray(table, dtype=float)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be a numeric array of shape (T, K)") from None
    if array.ndim != 2:
        raise DPBanditsError(f"{name} must have shape (T, K), got an array with shape {array.shape}")
    if array.shape[0] < 1:
        raise DPBanditsError(f"{name} must have at least one row (T >= 1), got shape {array.shape}")
    if array.shape[1] < 2:
        raise DPBanditsError(f"{name} must have K >= 2 columns, got shape {array.shape}")
    if K is not None and array.shape[1] != K:
        raise DPBanditsError(f"{name} must have K = {K} columns, got shape {array.shape}")
    return check_rewards(array, name)


def check_means(means: Any, name: str = "means") -> np.ndarray:
    """Check a vector of K >= 2 arm means in [0, 1]; return it as float."""
    try:
        array = np.asarray(means, dtype=float)
    except (TypeError, ValueError):
        raise DPBanditsError(f"{name} must be a list of numbers in [0, 1]") from None
    if array.ndim != 1 or array.size < 2:
        raise DPBanditsError(f"{name} must be a vector of K >= 2 arm means, got shape {array.shape}")
    return check_rewards(array, name)


def check_seed(value: Any, name: str = "seed") -> int:
    """Return ``value`` as an exact integer in [0, 2^128) (never through a float)."""
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer, str)):
        raise DPBanditsError(f"{name} must be an integer in [0, 2^128), got {value!r}")
    text = str(value).strip()
    if len(text) > 60 or not text.isdigit():
        raise DPBanditsError(f"{name} must be an integer in [0, 2^128), got {_short(value)}")
    seed = int(text)
    if seed >= 2 ** 128:
        raise DPBanditsError(f"{name} must be an integer in [0, 2^128), got {_short(value)}")
    return seed


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` as a Generator: a Generator as it is, or a seed (:func:`check_seed`) made
    into one. ``None`` is refused: randomness must be explicit."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, float, np.floating)) or not isinstance(rng, (int, np.integer)):
        raise DPBanditsError(f"{name} must be a numpy.random.Generator or an integer seed in "
                             f"[0, 2^128), got {_short(rng)}")
    return np.random.default_rng(check_seed(rng, f"{name} (a seed)"))


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
