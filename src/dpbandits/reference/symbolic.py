"""The tracer of the accountant's size-T mode: linear provenance instead of lockstep runs
(:mod:`dpbandits.accountant.size`, docs/accountant.md#proof-at-your-size). The lockstep tracer
and the records both share are in :mod:`dpbandits.reference.tracer`."""

from __future__ import annotations

import numpy as np

from .formed import Formed
from .forms import ZERO, _zeros, flatten, forms_of
from .forms import _array, _asarray
from .tracer import Release, Tracer
from .tagged import _control, _noisy
from .watched import _site

__all__ = ["SymbolicTracer", "SymbolicGenerator"]


class SymbolicTracer(Tracer):
    """The tracer of the accountant's size-T mode (:mod:`dpbandits.accountant.size`).

    The policy runs ``runs`` independent action sequences at once (one run each, no lockstep
    copies). Its float state and its feedback are :class:`~dpbandits.reference.formed.Formed`
    arrays: every reward-derived value carries its linear form over the cells it came from
    (cell ids ``run * (T + 1) + round``; bandit feedback, one cell per row). A release flattens
    the forms of its values and charges every cell its cost, |coefficient| / scale (the
    alignment's shift of that draw), at once; nothing else is kept of it. The checks of the
    lockstep tracer are made on forms: a predicate, branch, index, decision, conversion or
    published value of a value with a form is a leak of its cells; a draw operated on before
    its release is not its declared law; a nonlinear map is recorded (and its form is opaque:
    its cells cost infinity); a reward-derived value written where the forms are not followed
    is recorded as lost provenance."""

    symbolic = True
    locality = None
    """The dependence analysis of the per-arm schedule while it checks a round
    (:class:`~dpbandits.reference.locality.Locality`), or None."""
    array_class = Formed
    """The arrays the policy's float state and feedback become (:func:`~dpbandits.reference.watched.watch`)."""

    def __init__(self, runs: int, T: int) -> None:
        super().__init__(1, [], 1.0)
        self.R, self.T = runs, T
        self.width = T + 1
        self.cost = np.zeros(runs * self.width)
        self.last_step = np.zeros(runs * self.width, np.int64)
        self.last_site = np.full(runs * self.width, -1, np.int64)
        self.sites: list[str] = []
        self._site_index: dict[str, int] = {}
        self.arms = np.full(runs * self.width, -1, np.int64)
        self.lost_notes: list[str] = []
        self.argmax_releases: list[tuple[Release, list[tuple[np.ndarray, np.ndarray]]]] = []
        self.released_values = 0

    # cells ------------------------------------------------------------------------------
    def cell_name(self, leaf: int) -> str:
        run, t = divmod(int(leaf), self.width)
        return f"x{t},{int(self.arms[leaf])} (sequence {run})"

    def _cells_of(self, forms) -> np.ndarray:
        ids = [flatten(g)[0] for g in _asarray(forms, dtype=object).flat if g is not ZERO]
        return np.unique(np.concatenate(ids)) if ids else np.zeros(0, np.int64)

    def _leak_cells(self, ids: np.ndarray, what: str) -> None:
        if ids.size == 0:
            return
        self.cost[ids] = np.inf
        self.leaks.update((int(i) // self.width, int(i) % self.width) for i in ids[:64])
        names = " ".join(self.cell_name(i) for i in ids[:4])
        more = f" and {ids.size - 4} more" if ids.size > 4 else ""
        note = f"round {self.step}, cell{'s' if ids.size > 1 else ''} {names}{more}: {what}"
        if len(self.findings) < 64 and note not in self.findings:
            self.findings.append(note)

    # information flow ---------------------------------------------------------------------
    def moves(self, a) -> bool:
        return forms_of(a) is not None

    def read(self, a, what: str) -> None:
        f = forms_of(a)
        if f is not None:
            self._leak_cells(self._cells_of(f), f"{what} reads an unreleased reward-derived "
                                                f"value ({_site()})")

    def read_form(self, form, what: str) -> None:
        self._leak_cells(self._cells_of(_array([form], dtype=object)),
                         f"{what} reads an unreleased reward-derived value ({_site()})")

    def lost(self, what: str) -> None:
        note = f"round {self.step}: {what} ({_site()})"
        if note not in self.lost_notes:
            self.lost_notes.append(note)

    def published(self, value) -> None:
        self.read(value, "a published value")

    def decided(self, index) -> None:
        self.read(index, "a decision's input")
        if self.locality is not None:
            _control(index, "a decision's input")

    def acted(self, actions: np.ndarray) -> None:
        return None

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        out = _asarray(bits, dtype=float).view(Formed)
        f = forms_of(x)
        out._f = f.copy() if f is not None and f.shape == out.shape else None
        return out

    # releases -----------------------------------------------------------------------------
    def released(self, value, noise, kind: str):
        self.read(noise, "noise that carries a reward-derived value")
        if self.locality is not None and getattr(value, "_played", False):
            self.locality.acted(f"a release of a value derived from the actions ({_site()})")
        vb, nb = np.broadcast_arrays(_asarray(value, dtype=float), _asarray(noise, dtype=float))
        n0 = nb.reshape(-1)
        fresh, family, scale, taken = self._match(n0)
        self._used.update(taken)
        law = self.law_of(taken)
        f = getattr(value, "_f", None)
        forms = _zeros(vb.shape) if f is None else np.broadcast_to(f, vb.shape)
        scale = np.broadcast_to(_asarray(scale, dtype=float), (n0.size,))
        site = _site()
        k = self._site_index.setdefault(site, len(self.sites))
        if k == len(self.sites):
            self.sites.append(site)
        record = Release(family, scale, kind, [], fresh, self.step, law=law, line=site)
        flats: list = []
        before = self.released_values
        for i, g in enumerate(forms.reshape(-1)):
            ids, coefs = flatten(g)
            if ids.size == 0:
                continue
            self.released_values += 1
            self.last_step[ids] = self.step
            self.last_site[ids] = k
            if self.locality is not None and ids.size > 1 and (
                    np.any(ids // self.width != ids[0] // self.width)
                    or np.any(self.arms[ids] != self.arms[ids[0]])):
                self.locality.finding(f"a released value mixes the rewards of several runs or "
                                      f"arms ({site}): not one arm's stream", force=True)
            if kind == "argmax":
                flats.append((i, ids, coefs))
                continue
            if not fresh or law or family != "laplace":
                self.cost[ids] = np.inf
            else:
                self.cost[ids] += np.abs(coefs) / scale[i]
        if kind == "argmax" and flats:
            self.argmax_releases.append((record, flats))
        out = (_asarray(vb) + nb).reshape(np.shape(_asarray(value) + _asarray(noise)))
        if self.locality is not None and self.phase == "act" and self.released_values > before:
            self.locality.finding(f"a release of reward-derived values while the policy acts "
                                  f"({site}): not an observation of one arm", force=True)
        handed = self._recorded(record, _array(out, dtype=float))
        checking = self.locality is not None and self.locality.active
        return _noisy(handed) if checking and kind == "value" else handed

    def _recorded(self, record: "Release", out: np.ndarray) -> np.ndarray:
        return self._handed(record, out)    # charged per cell at release, not kept

    def finish(self) -> None:
        """Charge the argmax releases (report-noisy-max), whose values may have been read after
        their release: per cell, 2 max_i |c_i| / scale (for Laplace never more than
        sum_i |c_i| / scale_i), or the values' cost where they were read."""
        for record, flats in self.argmax_releases:
            scale = _asarray(record.scale, dtype=float)
            per: dict[int, list[tuple[float, float]]] = {}
            for i, ids, coefs in flats:
                for leaf, c in zip(ids.tolist(), np.abs(coefs).tolist()):
                    per.setdefault(leaf, []).append((c, float(scale[i])))
            for leaf, terms in per.items():
                values = sum(c / b for c, b in terms)
                if not record.fresh or record.law:
                    loss = np.inf
                elif record.values_read:
                    loss = values if record.family == "laplace" else np.inf
                else:
                    loss = 2.0 * max(c for c, _ in terms) / float(scale.min())
                    if record.family == "laplace":
                        loss = min(loss, values)
                self.cost[leaf] += loss
        self.argmax_releases = []


class SymbolicGenerator(np.random.Generator):
    """The size-T mode's Generator: plain draws (every run its own), each draw's parameters
    checked for a reward-derived value (a leak: the draw's law would move with the data)."""

    def __init__(self, seed: int, tracer: SymbolicTracer) -> None:
        super().__init__(np.random.PCG64(seed))
        self.tracer = tracer

    def _check(self, *params):
        out = []
        for p in params:
            self.tracer.read(p, "a draw's parameters")
            if self.tracer.locality is not None:
                _control(p, "a draw's parameters")
                if type(p) is np.ndarray and p.size > 1:
                    from .tagged import _line
                    self.tracer.locality.acted(f"a draw's parameters from an array the "
                                               f"analysis does not follow ({_line()})")
            out.append(_asarray(p).view(np.ndarray) if isinstance(p, np.ndarray) else p)
        return out

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        loc, scale = self._check(loc, scale)
        return super().laplace(loc, scale, size)

    def exponential(self, scale=1.0, size=None):  # type: ignore[override]
        (scale,) = self._check(scale)
        return super().exponential(scale, size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        loc, scale = self._check(loc, scale)
        return super().gumbel(loc, scale, size)

    def _undeclared(self, name: str) -> None:
        """A draw that is not one of the declared noise primitives: in ``observe`` it could
        steer the schedule (the noise-free schedule of the per-arm analysis)."""
        if self.tracer.locality is not None:
            from .tagged import _line
            self.tracer.locality.finding(f"a random draw outside the declared noise "
                                         f"primitives (rng.{name}, {_line()}) while the "
                                         f"policy observes")

    def random(self, *args, **kwargs):  # type: ignore[override]
        self._undeclared("random")
        return super().random(*args, **kwargs)

    def integers(self, *args, **kwargs):  # type: ignore[override]
        self._undeclared("integers")
        return super().integers(*args, **kwargs)

    def choice(self, *args, **kwargs):  # type: ignore[override]
        self._undeclared("choice")
        return super().choice(*args, **kwargs)

    def uniform(self, *args, **kwargs):  # type: ignore[override]
        self._undeclared("uniform")
        return super().uniform(*args, **kwargs)

    def beta(self, a, b, size=None):  # type: ignore[override]
        self._undeclared("beta")
        a, b = self._check(a, b)
        return super().beta(a, b, size)

    def normal(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        self._undeclared("normal")
        loc, scale = self._check(loc, scale)
        return super().normal(loc, scale, size)

    def gamma(self, shape, scale=1.0, size=None):  # type: ignore[override]
        self._undeclared("gamma")
        shape, scale = self._check(shape, scale)
        return super().gamma(shape, scale, size)

    def binomial(self, n, p, size=None):  # type: ignore[override]
        self._undeclared("binomial")
        n, p = self._check(n, p)
        return super().binomial(n, p, size)
