"""What the accountant's tests of planted changes share: Anytime-Lazy-UCB's ``observe`` with each
part a planted change may touch behind a hook, and the line of a planted statement.

:class:`PlantedLazyUCB` observes exactly as Anytime-Lazy-UCB (journal Algorithm 1, l.2 and
l.5-7) while no hook is overridden; a planted class overrides one or two hooks in its own test
module, so the accountant's findings name the planted statement's line there.
:func:`where` finds that line from the source, so no test writes a line number by hand.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB
from dpbandits.reference.noise import decision, laplace, release


class PlantedLazyUCB(AnytimeLazyUCB):
    """Anytime-Lazy-UCB with its two releases routed through hooks: ``_draw`` (the noise of
    both releases), ``_first`` (the first reward, l.2), ``_scale`` (the epoch release's scale),
    ``_statistic`` (the epoch sum released, l.7), ``_mean`` (the released mean as stored) and
    ``_reset_sum`` (the epoch sum emptied after
    its release); and two hooks for one added step, ``_on_feedback`` (before anything is
    counted) and ``_after_sums`` (once the round's reward is in the epoch sum, l.5)."""

    def _draw(self, scale, size, t):
        return laplace(self.rng, scale, size)

    def _first(self, x):
        return x

    def _scale(self, t, i, j):
        return 1.0 / self.epsilon

    def _statistic(self, i, j):
        return self.Phi[i, j]

    def _reset_sum(self, i, j):
        self.Phi[i, j] = 0.0

    def _mean(self, i, j, mean, O):
        """The released epoch mean as the index reads it (l.7: as released)."""
        return mean

    def _on_feedback(self, t, x, rows, actions):
        """A planted step before anything is counted (nothing here)."""

    def _after_sums(self, t, x, rows, actions):
        """A planted step once the round's reward is in its epoch sum (nothing here)."""

    def observe(self, t, actions, feedback):
        x = self.check_observation(t, actions, feedback)
        rows = self._rows
        self._on_feedback(t, x, rows, actions)
        if t <= self.K:
            z = self._draw(1.0 / self.epsilon, self.runs, t)
            self.mu_tilde[rows, actions] = release(self._first(x), z)             # [l.2]
            return
        self.N[rows, actions] += 1                                               # [l.5]
        self.Phi[rows, actions] += x
        self._after_sums(t, x, rows, actions)
        pulls, epoch = decision(self.N[rows, actions], self.r[rows, actions])
        full = pulls == np.left_shift(1, epoch + 1)                              # [l.6]
        if full.any():
            i, j = rows[full], actions[full]
            O = np.left_shift(1, self.r[i, j] + 1).astype(float)                 # [l.7]
            self.O[i, j] = O
            self.inv_O[i, j] = 1.0 / O
            self.sqrt_inv_O[i, j] = np.sqrt(1.0 / O)
            z = self._draw(self._scale(t, i, j), i.size, t)
            self.mu_tilde[i, j] = self._mean(i, j, release(self._statistic(i, j), z) / O, O)
            self.r[i, j] += 1
            self.N[i, j] = 0
            self._reset_sum(i, j)


def line_of(function, text: str) -> int:
    """The line of ``function``'s source (a function or a class) that contains ``text``, once."""
    lines, first = inspect.getsourcelines(function)
    (i,) = [i for i, line in enumerate(lines) if text in line]
    return first + i


def where(function, text: str) -> str:
    """``file.py:N`` as the accountant's findings name it: the line of ``function`` holding
    ``text``."""
    return f"{Path(inspect.getsourcefile(function)).name}:{line_of(function, text)}"
