"""Toy mechanisms with known privacy, deliberately broken ones included: the audit's controls.

:class:`ToyThreshold` plays two arms. After each round t < T it releases one bit about that
round's reward of arm 0, ``1{X[t, 0] + Z_t > 1/2}``, and plays it as the action of round t + 1
(round 1 plays arm 0). Each release reads one row, so with fresh ``Z_t ~ Lap(1/eps)`` the whole
action sequence is eps-DP under row replacement (parallel composition); its exact loss is
``ln(2 e^(eps/2) - 1)`` (rewards 1 vs 0 at one round). Variants:

* ``correct``  -- Z_t ~ Lap(1/eps): eps-DP (negative control);
* ``halved``   -- Z_t ~ Lap(1/(2 eps)): the noise scale halved, exact loss ``ln(2 e^eps - 1)``;
* ``reused``   -- one Z for every round: the bits of two rounds together reveal Z, loss infinite
  (outcome (0, 1) at rounds 2-3 is impossible when both rewards are 1, possible when the first is 0);
* ``no-noise`` -- Z_t = 0: deterministic, loss infinite.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..reference.privacy import Guarantee
from .mechanism import Mechanism, as_table

__all__ = ["ToyThreshold", "TOY_VARIANTS", "LaplaceMechanism"]

TOY_VARIANTS = ("correct", "halved", "reused", "no-noise")


class ToyThreshold(Mechanism):
    """A two-arm threshold mechanism with a known (possibly infinite) privacy loss."""

    K = 2
    feedback = "full"

    def __init__(self, variant: str = "correct", epsilon: float = 1.0) -> None:
        if variant not in TOY_VARIANTS:
            raise DPBanditsError(f"unknown toy variant {variant!r}; choose one of {list(TOY_VARIANTS)}")
        self.variant = variant
        self.epsilon = check_epsilon(epsilon)
        self.claimed = Guarantee(self.epsilon)
        self.label = f"toy-threshold[{variant}]"

    @property
    def true_epsilon(self) -> float:
        """The exact privacy loss of the worst pair (rewards 1 vs 0 in one round)."""
        if self.variant == "correct":
            return math.log(2 * math.exp(self.epsilon / 2) - 1)
        if self.variant == "halved":
            return math.log(2 * math.exp(self.epsilon) - 1)
        return math.inf

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        X = as_table(table).X
        n = check_positive_int(n, "n")
        T = X.shape[0]
        rng = np.random.default_rng(seed)
        if self.variant == "no-noise":
            Z = np.zeros((n, T - 1))
        elif self.variant == "reused":
            Z = np.repeat(rng.laplace(0.0, 1.0 / self.epsilon, (n, 1)), T - 1, axis=1)
        else:
            scale = 1.0 / self.epsilon if self.variant == "correct" else 1.0 / (2 * self.epsilon)
            Z = rng.laplace(0.0, scale, (n, T - 1))
        actions = np.zeros((n, T), dtype=np.int64)
        actions[:, 1:] = (X[None, :-1, 0] + Z > 0.5).astype(np.int64)
        return actions


class LaplaceMechanism(Mechanism):
    """The Laplace mechanism on one bit: releases X[0, 0] + Lap(1/eps) (real-valued output).

    Exactly eps-DP for inputs in {0, 1}; the reference mechanism of the audit recipes (section 5),
    used to measure how close the auditor comes to the oracle-optimal bound.
    """

    K = 1
    feedback = "stream"

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.claimed = Guarantee(self.epsilon)
        self.label = f"laplace-mechanism[eps={self.epsilon:g}]"

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        x = float(np.asarray(table.X if hasattr(table, "X") else table, dtype=float).ravel()[0])
        rng = np.random.default_rng(seed)
        return (x + rng.laplace(0.0, 1.0 / self.epsilon, check_positive_int(n, "n")))[:, None]
