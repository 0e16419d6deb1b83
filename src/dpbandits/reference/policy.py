"""The act/observe protocol and the small base class every reference algorithm shares.

A policy simulates ``runs`` independent runs in lockstep (batch-first). Rounds are 1-based.

``act(t) -> actions``
    the action of every run in round ``t``, an int array of shape (runs,) with arms 0..K-1;
``observe(t, actions, feedback)``
    what the feedback model reveals after round ``t``: shape (runs,) with the pulled arm's reward
    (``feedback == "bandit"``), or shape (runs, K) with the whole reward vector (``"full"``).

A policy draws all its randomness from the ``numpy.random.Generator`` it was built with, so a run
is a function of that generator's seed and the rewards only.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int, check_rng
from ..limits import check_arms
from .noise import decision
from .sight import for_a_check
from .declarations import AuditDesign, AuditPreset, Declined, KnownPairs, TraceSetting
from .domains import Domain, check_declared, check_parameter_value
from .privacy import PrivacyClaim, Variant

__all__ = ["Policy", "PolicyBase", "as_generator"]


@runtime_checkable
class Policy(Protocol):
    """What the engine drives: a batch of ``runs`` independent runs of one algorithm."""

    K: int
    runs: int
    feedback: str

    def act(self, t: int) -> np.ndarray: ...

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None: ...


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Accept a Generator or an integer seed. ``None`` is refused: randomness must be explicit."""
    return check_rng(rng)


class PolicyBase:
    """Shared plumbing: argument checks, the variant, the claim, the tie-breaking argmax.

    Subclasses set the class attributes below, implement ``act``/``observe`` and ``claim``, and
    declare what the machinery reads about them (:mod:`dpbandits.reference.declarations`).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    paper: ClassVar[str]
    feedback: ClassVar[str] = "bandit"
    private: ClassVar[bool] = True
    needs_horizon: ClassVar[bool] = False
    variants: ClassVar[tuple[Variant, ...]] = (Variant("paper", "as printed in the paper"),)
    default_variant: ClassVar[str] = "paper"
    validate_feedback: bool = True
    """Check every observation; the engine turns this off because it validates its sources."""

    kernel: ClassVar[str | None] = None
    """The module of the compiled package that runs this algorithm (None: no kernel)."""
    audit_design: ClassVar[AuditDesign | None] = None
    """The audit's designed pairs and horizons (docs/audit-design.md)."""
    known_pairs: ClassVar[KnownPairs | None] = None
    """The worked worst-case pairs (docs/errata.md) and the arms at which they are stated."""
    audit_preset: ClassVar[AuditPreset | None] = None
    """Settings of ``dpbandits audit --all`` that replace the common ones."""
    white_box_statistic: ClassVar[str | Declined | None] = None
    """The attribute (dotted path) holding the noisy statistic it releases, for white-box audits."""
    release_structure: ClassVar[str | None] = None
    """Set when the release schedule does not depend on the data: what it is (the accountant's
    one trace then covers every output)."""
    trace_setting: ClassVar[TraceSetting | None] = None
    """The accountant's trace setting, where the default one would trace no release."""
    radius_scale: ClassVar[float] = 1.0
    """A factor on the confidence radius of the index (the sqrt(c ln t / n) term), for the
    algorithms that have one; 1 is the algorithm. Other values are planted variants only (what
    ``validate`` runs to state its power: ``planted_changes``, set on a built policy); the
    compiled backend refuses a policy whose planted attributes differ from its class's."""
    prior: ClassVar[float] = 1.0
    """a = b of the Beta(a, b) prior of a Thompson sampling draw, for the algorithms that draw
    one; 1 is the uniform prior. Other values are planted variants only, as ``radius_scale``."""
    posterior_weight: ClassVar[float] = 1.0
    """A factor on the counts of a Thompson sampling posterior draw, Beta(w S + a, w (O - S) +
    a); 1 is the posterior. Other values are planted variants only, as ``radius_scale``."""
    parameter_domains: ClassVar[dict[str, Domain]] = {}
    """Domains of the parameters whose meaning is this algorithm's own (the shared names' are in
    :mod:`dpbandits.reference.domains`); every parameter of the constructor has one, checked
    when the class is defined."""

    def __init_subclass__(cls, **kwargs) -> None:
        """Every parameter of the constructor has a declared domain (else: an error at import
        that says how to declare one)."""
        super().__init_subclass__(**kwargs)
        check_declared(cls)

    def __new__(cls, *args: Any, **kwargs: Any) -> "PolicyBase":
        """Every parameter given to the constructor in its declared domain (one line naming it
        and the domain, the line ``--param`` prints), before the constructor runs: an algorithm
        writes no check of its own. :meth:`_from_checked` passes no arguments here."""
        for name, value in kwargs.items():
            check_parameter_value(cls, name, value)
        return super().__new__(cls)

    _arguments_checked: bool = False
    """True only while :meth:`_from_checked` runs the constructor: its arguments (but ``runs``
    and ``rng``) were checked by :func:`dpbandits.reference.registry.check_arguments`."""

    def __init__(self, K: int, *, runs: int = 1, rng: np.random.Generator | int | None,
                 epsilon: float | None = None, variant: str | None = None,
                 tie_break: str = "first") -> None:
        checked = self._arguments_checked
        self.K = K if checked else check_arms(K)     # every K of the library: one check
        self.runs = check_positive_int(runs, "runs")
        self.rng = as_generator(rng)
        if self.private:
            self.epsilon = epsilon if checked else check_epsilon(epsilon)
        elif epsilon is not None:
            raise DPBanditsError(f"{self.name} is non-private and takes no epsilon")
        variant = self.default_variant if variant is None else variant
        names = [v.name for v in self.variants]
        if not checked and variant not in names:
            raise DPBanditsError(f"unknown variant {variant!r} for {self.name}; choose one of {names}")
        self.variant = variant
        self.tie_break = tie_break
        self._rows = np.arange(self.runs)

    @classmethod
    def _from_checked(cls, K: int, **kwargs) -> "PolicyBase":
        """The policy built from arguments that
        :func:`~dpbandits.reference.registry.check_arguments` checked (its
        :func:`~dpbandits.reference.registry.build` is the one caller): the constructor skips
        the checks of K, epsilon, the variant and the tie-breaking rule, and checks ``runs``
        and ``rng``. The flag lives on this one object while its constructor runs; every other
        construction checks everything."""
        policy = cls.__new__(cls)
        policy._arguments_checked = True
        try:
            policy.__init__(K, **kwargs)
        finally:
            del policy._arguments_checked
        return policy

    @property
    def claim(self) -> PrivacyClaim:
        raise NotImplementedError

    def argmax(self, index: np.ndarray) -> np.ndarray:
        """Row-wise argmax of an (runs, K) index; ties to the lowest arm or uniformly at random.

        Tie-breaking never reads rewards: it uses only the index and, for ``random``, the rng.
        """
        index = decision(index)
        if self.tie_break == "first":
            return np.argmax(index, axis=1)
        best = index.max(axis=1, keepdims=True)
        keys = np.where(index == best, self.rng.random(index.shape), -1.0)
        return np.argmax(keys, axis=1)

    def check_observation(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> np.ndarray:
        """Check one round's feedback (shape and range) and return it as float."""
        x = np.asanyarray(feedback, dtype=float)    # a traced run's feedback stays watched
        if not self.validate_feedback:
            return x
        shape = (self.runs,) if self.feedback == "bandit" else (self.runs, self.K)
        if x.shape != shape:
            raise DPBanditsError(f"feedback for {self.name} must have shape {shape}, got {x.shape}")
        plain = for_a_check(x)      # the domain check is not a read of the rewards' values
        if plain.size and not (plain.min() >= 0.0 and plain.max() <= 1.0):
            raise DPBanditsError(f"rewards must lie in [0, 1] with no NaN (round t = {t})")
        return x

    def __repr__(self) -> str:
        eps = f", epsilon={self.epsilon:g}" if self.private else ""
        return f"{type(self).__name__}(K={self.K}, runs={self.runs}{eps}, variant={self.variant!r})"
