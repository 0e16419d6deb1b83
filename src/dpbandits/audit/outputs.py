"""What a Python candidate returns, checked before the auditor uses it: one action (an integer,
or a length-1 integer array, in 0..K-1) or a whole action sequence (T integers in 0..K-1); any
other value is a :class:`~dpbandits.errors.DPBanditsError` naming the run and the call."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import DPBanditsError

__all__ = ["_checked_action", "_checked_sequence"]


def _checked_action(value: Any, K: int, where: str) -> int:
    """One action from user code: an integer (or a length-1 integer array) in 0..K-1."""
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.size != 1 or value.ndim > 1:
            raise DPBanditsError(f"{where} must return one arm (an int or a length-1 array), "
                                 f"got an array of shape {value.shape}")
        value = value.reshape(())[()]
    if isinstance(value, (bool, np.bool_)):
        raise DPBanditsError(f"{where} returned the boolean {value!r}; an arm is an integer")
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        raise DPBanditsError(f"{where} returned NaN; an arm is an integer in 0..{K - 1}")
    if not isinstance(value, (int, np.integer)):
        shown = value.item() if isinstance(value, np.generic) else value
        raise DPBanditsError(f"{where} returned {shown!r} of type {type(value).__name__}; "
                             f"an arm is an integer in 0..{K - 1}")
    arm = int(value)    # the check reads the int that is used (an int subclass may lie in
    if not 0 <= arm < K:  # its comparisons, and its observe would then name the wrong call)
        raise DPBanditsError(f"{where} returned arm {arm}, outside 0..{K - 1}")
    return arm


def _checked_sequence(output: Any, T: int, K: int, where: str) -> np.ndarray:
    """A whole action sequence from user code: T integers in 0..K-1."""
    try:
        actions = np.asarray(output)
    except Exception as error:
        raise DPBanditsError(f"{where}: the actions are not an array: {error}") from error
    if actions.shape != (T,):
        raise DPBanditsError(f"{where}: expected T = {T} actions (shape ({T},)), "
                             f"got shape {actions.shape}")
    if actions.dtype.kind == "f" and np.isnan(actions).any():
        t = int(np.flatnonzero(np.isnan(actions))[0]) + 1
        raise DPBanditsError(f"{where}: the action of round t = {t} is NaN")
    if actions.dtype.kind not in "iu":
        raise DPBanditsError(f"{where}: actions must be integers, got dtype {actions.dtype} "
                             f"(first value {actions.ravel()[0].item()!r})")
    outside = (actions < 0) | (actions >= K)
    if outside.any():
        t = int(np.flatnonzero(outside)[0]) + 1
        raise DPBanditsError(f"{where}: the action of round t = {t} is arm {int(actions[t - 1])}, "
                             f"outside 0..{K - 1}")
    return actions.astype(np.int32)
