"""What a validation could tell apart: the exact first difference, the reference's documented
alternatives tried against a differing candidate, and the reference's planted variants.

* :func:`first_action_difference`: on the fixed table, the first round at which the candidate's
  actions differ from the reference's, exact where it can be: while every run of each side played
  the same action (a deterministic stretch, as UCB1 on a fixed table or DP-SE before its first
  release), the first round where the two common actions differ is where the candidate departs,
  with certainty. After the reference's runs start to vary, a difference is statistical and is
  left to the comparisons.
* :func:`try_alternatives`: when a candidate differs, the reference is run with combinations of
  its documented alternatives (the values its parameter domains enumerate, and its other
  variants; at most one value per parameter), smallest first: every single change, then every
  pair, and so on, at most :data:`MAX_TRIES` in all. The candidate is compared with each under
  the same Holm correction, and the search stops after the first size at which some set
  conforms: those smallest sets are named, with the command line that uses them. This replaces
  guessing at what might explain a difference (a public UCB1 differs from the reference in three
  documented choices at once, and no single one of them conforms).
* :func:`planted_power`: when a candidate conforms, the reference's own planted variants are run
  at the same size and compared with the reference's samples as a candidate would be. Each
  names the one part it changes (:attr:`Change.part`): the changes the algorithm declares in
  ``planted_changes`` (every confidence radius, as Anytime-Lazy-UCB's sqrt(2 ln t / O_j) for
  sqrt(3 ln t / O_j); Thompson sampling's prior and its posterior draw; DP-SE's noise scale), the
  single parts it
  declares in ``planted_parts`` (a description -> the part and factors on attributes: for
  DP-UCB-BOUND its bonus alone and its noise scale alone, the other left as it is), every other value of every documented parameter, those the user set included (the
  other value is probed), and epsilon x 2 and x 1/2 for a private ALGO (which move the noise and
  any bonus together, so they are not single-part changes). A variant with no rejection is one
  this size would not have told apart; it is retried at 4 T and 16 T to name a size that would.
  Each planted variant costs one reference-sized sample pair and its comparisons.

The tries and the planted variants draw from their own children of the validation's seed, so the
validation's own samples and verdict do not move.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

__all__ = ["MAX_TRIES", "GROWTH", "Change", "first_action_difference", "alternatives",
           "combinations", "count_combinations", "plants", "try_alternatives", "planted_power"]

MAX_TRIES = 16
"""Most combinations of documented alternatives tried on a differing candidate, smallest first
(each costs one reference sample pair and its comparisons)."""

GROWTH = (4, 16)
"""Horizons, as multiples of T, at which an undetected planted variant is retried."""


@dataclass(frozen=True)
class Change:
    """One change of the reference: parameters, an epsilon factor, or planted attributes (set
    to a value, or ``scales``: multiplied by a factor, a dotted name reaching into a mechanism)."""

    description: str
    params: tuple[tuple[str, Any], ...] = ()
    epsilon_factor: float = 1.0
    attributes: tuple[tuple[str, Any], ...] = ()
    variant: str | None = None
    scales: tuple[tuple[str, float], ...] = ()
    part: str = ""
    """The one part of the algorithm it changes (``confidence radius``, ``bonus``, ``noise
    scale``, ``prior``, ``posterior draw``, ``schedule``, ``parameter NAME``, ``variant``), or
    what it moves together (epsilon)."""

    @property
    def planted(self) -> bool:
        """Whether it changes the built policy's attributes (run on the reference backend)."""
        return bool(self.attributes or self.scales)

    @property
    def option(self) -> str:
        """How a user asks for it on the command line (empty for planted attributes)."""
        if self.planted or self.epsilon_factor != 1.0:
            return ""
        words = [f"--variant {self.variant}"] if self.variant is not None else []
        return " ".join(words + [f"--param {k}={v}" for k, v in self.params])

    @property
    def key(self) -> str:
        """What it changes: a parameter's name, ``variant``, or the description."""
        if self.variant is not None and not self.params:
            return "variant"
        if len(self.params) == 1 and not self.attributes:
            return self.params[0][0]
        return self.description


def _joined(changes: tuple[Change, ...]) -> Change:
    """One change made of several documented alternatives (parameters and at most one variant)."""
    variant = next((c.variant for c in changes if c.variant is not None), None)
    params = tuple(item for c in changes for item in c.params)
    return Change(" + ".join(c.description for c in changes), params, variant=variant)


def _groups(changes: list[Change]) -> list[list[Change]]:
    """The alternatives grouped by what they change, in their order (one value per group)."""
    groups: dict[str, list[Change]] = {}
    for change in changes:
        groups.setdefault(change.key, []).append(change)
    return list(groups.values())


def count_combinations(changes: list[Change]) -> int:
    """How many combinations of ``changes`` take at most one value of each parameter."""
    total = 1
    for group in _groups(changes):
        total *= len(group) + 1
    return total - 1


def combinations(changes: list[Change]) -> Iterator[tuple[int, Change]]:
    """Every combination of ``changes`` with at most one value per parameter (and at most one
    variant), as (size, joined change): all single changes first, then all pairs, and so on,
    each size in the order of :func:`alternatives`."""
    groups = _groups(changes)
    for size in range(1, len(groups) + 1):
        for chosen in itertools.combinations(groups, size):
            for picked in itertools.product(*chosen):
                yield size, (picked[0] if size == 1 else _joined(picked))


def first_action_difference(cand: np.ndarray, ref: np.ndarray) -> dict[str, Any]:
    """The first round where the actions on the fixed table differ, and whether it is exact.

    ``exact``: every run of both sides played one common action in every earlier round and in
    this one, and the two common actions differ (round, both actions). Otherwise ``round`` is the
    last round of the common deterministic stretch + 1 (where the reference's or the candidate's
    runs start to vary) and ``exact`` is False: from there on the comparisons decide."""
    n_c, T = cand.shape[:2]
    flat_c, flat_r = cand.reshape(n_c, T, -1), ref.reshape(ref.shape[0], T, -1)
    same_c = (flat_c == flat_c[:1]).all(axis=(0, 2))
    same_r = (flat_r == flat_r[:1]).all(axis=(0, 2))
    common = same_c & same_r
    agree = (flat_c[0] == flat_r[0]).all(axis=1)
    stretch = np.flatnonzero(~common)
    end = int(stretch[0]) if stretch.size else T           # rounds 1..end are deterministic
    differs = np.flatnonzero(~agree[:end])
    if differs.size:
        t = int(differs[0])
        return {"round": t + 1, "exact": True,
                "candidate": flat_c[0, t].tolist(), "reference": flat_r[0, t].tolist(),
                "deterministic_until": end}
    return {"round": None if end == T else end + 1, "exact": False,
            "deterministic_until": end}


def alternatives(cls: type, variant: str | None, params: dict[str, Any],
                 given_too: bool = False) -> list[Change]:
    """Every documented alternative of ALGO, one change at a time: each other value of each
    enumerated parameter, then each other variant. A parameter the user gave is the user's
    choice and is left out, unless ``given_too`` (the planted variants probe its other values,
    the default included)."""
    from ..reference.domains import parameters_of

    changes = []
    for parameter in parameters_of(cls):
        if parameter.name in params and not given_too:
            continue
        current = params.get(parameter.name, parameter.default)
        for value in getattr(parameter.rule, "values", ()):     # a OneOf domain's values
            if value != current and str(value) != str(current):
                changes.append(Change(f"{parameter.name}={value}", ((parameter.name, value),),
                                      part=f"parameter {parameter.name}"))
    names = [v.name for v in cls.variants]
    for name in names:
        if len(names) > 1 and name != (variant or names[0]):
            changes.append(Change(f"variant {name}", variant=name, part="variant"))
    return changes


_DECLARED_PARTS = (("radius", "confidence radius"), ("prior", "prior"),
                   ("posterior", "posterior draw"), ("noise", "noise scale"),
                   ("round", "schedule"), ("epoch", "schedule"))


def _declared_part(description: str) -> str:
    return next((part for word, part in _DECLARED_PARTS if word in description), "planted")


def plants(cls: type, variant: str | None, params: dict[str, Any],
           epsilon: float | None) -> list[Change]:
    """The reference's planted variants: its own declared changes (``planted_changes``: a
    description -> attributes set on the built policy), its single-part changes
    (``planted_parts``: a description -> the part and factors on attributes),
    epsilon x 2 and x 1/2 for a private ALGO, and the other values of its documented parameters,
    those in ``params`` included."""
    changes = [Change(description, attributes=tuple(sorted(attributes.items())),
                      part=_declared_part(description))
               for description, attributes in getattr(cls, "planted_changes", {}).items()]
    changes += [Change(description, scales=tuple(sorted(scales.items())), part=part)
                for description, (part, scales) in getattr(cls, "planted_parts", {}).items()]
    if epsilon is not None:
        together = "epsilon: noise and any bonus together"
        changes += [Change("epsilon x 2", epsilon_factor=2.0, part=together),
                    Change("epsilon x 1/2", epsilon_factor=0.5, part=together)]
    return changes + alternatives(cls, variant, params, given_too=True)


@dataclass(frozen=True)
class _Planted:
    """An engine factory: ALGO's factory whose built policies get ``attributes`` set and the
    attributes of ``scales`` multiplied (a dotted name reaches into a mechanism: ``H.eps_L``;
    a factor on a generator, ``rng``, multiplies the scale of its Laplace draws)."""

    factory: Any
    attributes: tuple[tuple[str, Any], ...]
    scales: tuple[tuple[str, float], ...] = ()

    def __call__(self, runs, rng):
        policy = self.factory(runs, rng)
        for key, value in self.attributes:
            setattr(policy, key, value)
        for dotted, factor in self.scales:
            *path, key = dotted.split(".")
            owner = policy
            for name in path:
                owner = getattr(owner, name)
            value = getattr(owner, key)
            scaled = (_LaplaceScaled(value, factor) if isinstance(value, np.random.Generator)
                      else value * factor)
            setattr(owner, key, scaled)
        return policy


class _LaplaceScaled:
    """A planted noise scale for a generator: its Laplace draws at ``factor`` x the scale the
    algorithm asks for (the same stream, each draw ``factor`` x the unplanted one); every other
    draw (ties, Beta samples) is the generator's own. A factor on ``rng`` in ``planted_parts``."""

    def __init__(self, rng: np.random.Generator, factor: float) -> None:
        self._rng, self._factor = rng, factor

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._rng.laplace(loc, np.multiply(scale, self._factor), size)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


def _reference_samples(request: Any, change: Change, T: int, table: Any,
                       seeds: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The changed reference's runs on the fixed ``table`` and on the ``fresh`` tables."""
    from ..audit.mechanism import RegistryMechanism
    from ..reference import simulate, spec

    epsilon = None if request.epsilon is None else request.epsilon * change.epsilon_factor
    params = {**request.params, **dict(change.params)}
    variant = change.variant or request.variant
    backend = "reference" if change.planted else request.backend
    runs, problem = request.runs, request.problem
    mechanism = RegistryMechanism(request.against, request.K, epsilon, variant, params, T=T,
                                  backend=backend)
    factory, source, T_job, n = mechanism._job(table, runs)   # the fixed table as ALGO reads it
    if change.planted:
        factory = _Planted(factory, change.attributes, change.scales)
    fixed = simulate(factory, source, T_job, runs=n, seed=seeds[0], record_actions=True,
                     backend=backend).actions
    fresh_factory = spec(request.against, request.K, epsilon=epsilon, variant=variant, T=T,
                         **params)
    if change.planted:
        fresh_factory = _Planted(fresh_factory, change.attributes, change.scales)
    stacked = simulate(fresh_factory, problem.source, T, runs=runs, seed=seeds[1],
                       record_actions=True, backend=backend).actions
    return (problem.checked(fixed, runs, T, change.description),
            problem.checked(stacked, runs, T, change.description))


def _verdict(problem: Any, samples: dict[str, tuple[np.ndarray, np.ndarray]], alpha: float,
             power: float, rng: np.random.Generator) -> tuple[str, list]:
    """Behaviour of the first member of each pair against the second, under Holm at ``alpha``."""
    from .correction import corrected
    from .summary import PATH_ONLY

    rows = [row for name, (c, r) in samples.items() for row in problem.compare(name, c, r, rng)]
    comparisons = corrected(rows, alpha, power)
    rejected = [c for c in comparisons if c.rejected]
    if not rejected:
        return "conforms", comparisons
    if all(c.kind == "path" for c in rejected):
        return PATH_ONLY, comparisons
    return "differs", comparisons


def _seeds(sequence: np.random.SeedSequence, count: int) -> list[tuple[int, int]]:
    return [tuple(int(c.generate_state(1)[0]) for c in child.spawn(2))
            for child in sequence.spawn(count)]


def try_alternatives(request: Any, candidate_samples: dict[str, tuple[np.ndarray, np.ndarray]],
                     table: Any, sequence: np.random.SeedSequence,
                     say=lambda message: None, limit: int = MAX_TRIES) -> list[dict[str, Any]]:
    """The candidate's samples against the reference under combinations of its documented
    alternatives (:func:`combinations`: smallest first, at most ``limit``), stopping after the
    first size at which some combination conforms. One dict per try with the change, its size,
    the command-line option, the verdict and the rejections; each also carries ``possible``
    (how many combinations exist) and ``limit``."""
    changes = alternatives(request.cls, request.variant, request.params)
    if not changes:
        return []
    possible = count_combinations(changes)
    rng = np.random.default_rng(sequence.spawn(1)[0])
    out: list[dict[str, Any]] = []
    found_at = None
    for (size, change), seeds in zip(combinations(changes), _seeds(sequence, limit)):
        if found_at is not None and size > found_at:
            break
        say(f"behaviour: trying the reference with {change.description}")
        fixed, fresh = _reference_samples(request, change, request.T, table, seeds)
        samples = {"fixed": (candidate_samples["fixed"][0], fixed),
                   "fresh": (candidate_samples["fresh"][0], fresh)}
        verdict, comparisons = _verdict(request.problem, samples, request.alpha, request.power, rng)
        out.append({"change": change.description, "size": size, "option": change.option,
                    "behaviour": verdict, "rejected": sum(c.rejected for c in comparisons),
                    "comparisons": len(comparisons), "possible": possible, "limit": limit,
                    "first_difference": first_action_difference(samples["fixed"][0], fixed)})
        if verdict == "conforms" and found_at is None:
            found_at = size
    return out


def planted_power(request: Any, reference_samples: dict[str, tuple[np.ndarray, np.ndarray]],
                  table: Any, sequence: np.random.SeedSequence,
                  say=lambda message: None) -> list[dict[str, Any]]:
    """Each planted variant of the reference as a candidate against the reference's own samples
    at the validation's size: detected (some comparison rejected) or not; an undetected one is
    retried at :data:`GROWTH` multiples of T to name a size that would. At each multiple the
    reference's samples (a fixed table of that length and fresh tables) are drawn once and
    shared by every variant retried there, as the validation's own samples are shared at T:
    each comparison of a variant with the reference is still a test at level alpha."""
    from .. import limits

    changes = plants(request.cls, request.variant, request.params, request.epsilon)
    if not changes:
        return []
    rng = np.random.default_rng(sequence.spawn(1)[0])
    planted_seeds = _seeds(sequence, len(changes))
    grown = _GrownReference(request, sequence.spawn(1)[0], limits)
    out = []
    for change, seeds in zip(changes, planted_seeds):
        say(f"power: planted {change.description}")
        fixed, fresh = _reference_samples(request, change, request.T, table, seeds)
        samples = {"fixed": (fixed, reference_samples["fixed"][1]),
                   "fresh": (fresh, reference_samples["fresh"][1])}
        verdict, comparisons = _verdict(request.problem, samples, request.alpha, request.power, rng)
        row = {"change": change.description, "part": change.part, "option": change.option,
               "detected": verdict != "conforms",
               "behaviour": verdict, "rejected": sum(c.rejected for c in comparisons),
               "comparisons": len(comparisons), "detected_at": None, "tried_up_to": request.T}
        if verdict == "conforms":
            row["detected_at"] = _detecting_horizon(request, change, seeds, rng, grown, row)
        out.append(row)
    return out


class _GrownReference:
    """The reference's samples at each multiple of :data:`GROWTH` x T, drawn once on first use
    (a fixed table of that length and fresh tables, from a child of the planted variants'
    seed), or None where the size is beyond the validation's limits."""

    def __init__(self, request: Any, sequence: np.random.SeedSequence, limits: Any) -> None:
        self.request, self.limits = request, limits
        self.seeds = dict(zip(GROWTH, _seeds(sequence, len(GROWTH))))
        self._drawn: dict[int, tuple | None] = {}

    def at(self, factor: int) -> tuple | None:
        """(table, (fixed, fresh) reference samples) at ``factor`` x T, or None."""
        from ..errors import DPBanditsError

        if factor not in self._drawn:
            request, T = self.request, self.request.T * factor
            try:
                self.limits.check_validation_size(request.runs, T, request.K)
                table_seed, sample_seed = self.seeds[factor]
                table = request.problem.table(T, np.random.default_rng(table_seed))
                samples = _reference_samples(request, Change("reference"), T, table,
                                             (sample_seed, sample_seed + 1))
                self._drawn[factor] = (table, samples)
            except DPBanditsError:
                self._drawn[factor] = None
        return self._drawn[factor]


def _detecting_horizon(request: Any, change: Change, seeds: tuple[int, int],
                       rng: np.random.Generator, grown: _GrownReference,
                       row: dict[str, Any]) -> int | None:
    """The first horizon in :data:`GROWTH` x T at which the planted variant is told apart from
    the reference (the variant sampled afresh there, the reference's samples shared), or None."""
    from ..errors import DPBanditsError

    for factor in GROWTH:
        T = request.T * factor
        drawn = grown.at(factor)
        if drawn is None:
            break
        table, (ref_fixed, ref_fresh) = drawn
        try:
            fixed, fresh = _reference_samples(request, change, T, table,
                                              (seeds[0] + 3 * factor, seeds[1] + 4 * factor))
        except DPBanditsError:
            break
        verdict, _ = _verdict(request.problem, {"fixed": (fixed, ref_fixed),
                                                "fresh": (fresh, ref_fresh)},
                              request.alpha, request.power, rng)
        row["tried_up_to"] = T
        if verdict != "conforms":
            return T
    return None
