"""The registry: the one place that knows every reference algorithm.

``get(name)`` returns an algorithm's class, ``make(name, ...)`` builds a policy, ``spec(name, ...)``
returns a picklable factory for the engine, and ``algorithms()`` lists what is registered with its
paper, setting, variants and privacy claim.

**Checked once.** ``make`` and a policy's constructor check every argument on every call: they
are the public API. ``check_arguments(name, K, ...)`` makes the same checks once and returns
:class:`CheckedArguments`, which nothing else can make; ``build(arguments, runs, rng)`` builds
from them without checking them again (only ``runs`` and ``rng``, which change per block, are
checked). ``spec`` checks this way, so the engine's blocks trust the factory's arguments. ``declaration(name, attribute)`` and ``declared(...)``
read what each algorithm declares for the machinery (:mod:`dpbandits.reference.declarations`):
the machinery finds an algorithm's design, pairs, presets and kernel here, never by its name.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError, check_positive_int
from ..limits import check_epsilon_range
from .declarations import Declined
from .domains import check_parameter_value, parameters_of
from .policy import Policy, PolicyBase

__all__ = ["ALGORITHMS", "ALIASES", "canonical", "docs_page", "get", "make", "spec", "algorithms",
           "AlgorithmSpec", "AlgorithmInfo", "declaration", "declared", "Declared", "CheckedArguments",
           "check_arguments", "build", "spec_of", "reference_only"]

# name -> "module:Class", relative to dpbandits.reference; imported on first use.
ALGORITHMS: dict[str, str] = {
    "ucb1": "bandit.ucb1:UCB1",
    "thompson": "bandit.thompson:ThompsonSampling",
    "dp-ucb-bound": "bandit.dp_ucb_bound:DPUCBBound",
    "dp-ucb": "bandit.dp_ucb:DPUCB",
    "dp-ucb-int": "bandit.dp_ucb_int:DPUCBInt",
    "private-ucb": "bandit.private_ucb:PrivateUCB",
    "anytime-lazy-ucb": "bandit.anytime_lazy_ucb:AnytimeLazyUCB",
    "hybrid-ucb": "bandit.hybrid_ucb:HybridUCB",
    "lazy-dp-ts": "bandit.lazy_dp_ts:LazyDPTS",
    "dp-se": "bandit.dp_se:DPSE",
    "adap-klucb": "bandit.adap_klucb:AdaPKLUCB",
    "ftl": "fullinfo.ftl:FTL",
    "hedge": "fullinfo.hedge:Hedge",
    "naive-ftnl": "fullinfo.naive_ftnl:NaiveFTNL",
    "rnm-ftnl": "fullinfo.rnm_ftnl:RNMFTNL",
    "rnm-ftnl-bq": "fullinfo.rnm_ftnl_bq:RNMFTNLBQ",
    "omm": "matroid.omm:OMM",
    "cts": "matroid.cts:CTS",
    "dpucb-mat": "matroid.dpucb_mat:DPUCBMAT",
    "dpts-mat": "matroid.dpts_mat:DPTSMAT",
}


ALIASES: dict[str, str] = {"ftnl": "rnm-ftnl"}
"""Other names of registered algorithms (the conference version calls RNM-FTNL "FTNL")."""


def canonical(name: str) -> str:
    """The registered name of ``name`` (resolving aliases)."""
    return ALIASES.get(name, name)


def docs_page(name: str) -> str:
    """The docs page of registered algorithm ``name``: its pseudocode, its claim's proof or
    counterexample, its regret bounds (``docs/algorithms/NAME.md``)."""
    return f"docs/algorithms/{canonical(name)}.md"


def get(name: str) -> type[PolicyBase]:
    """The class of the registered algorithm ``name``; the error lists the known names."""
    try:
        target = ALGORITHMS[canonical(name)]
    except KeyError:
        known = ", ".join(sorted(ALGORITHMS))
        raise DPBanditsError(f"unknown algorithm {name!r}; known algorithms: {known}") from None
    module_name, class_name = target.split(":")
    module = importlib.import_module(f"dpbandits.reference.{module_name}")
    return getattr(module, class_name)


def make(name: str, K: int, *, epsilon: float | None = None, runs: int = 1,
         rng: np.random.Generator | int | None, variant: str | None = None, T: int | None = None,
         **params: Any) -> Policy:
    """Build algorithm ``name`` for K arms and ``runs`` runs, checking every argument.

    ``T`` is passed only to algorithms that need their horizon; ``epsilon`` is ignored by the
    non-private baselines (so that a sweep over epsilon can include them).
    """
    cls, kwargs = _registry_checks(name, epsilon, variant, T, params)
    return cls(K, runs=runs, rng=rng, **kwargs)


def _registry_checks(name: str, epsilon: float | None, variant: str | None, T: int | None,
                     params: dict[str, Any]) -> tuple[type[PolicyBase], dict[str, Any]]:
    """What ``make`` checks before the constructor does: the name, the parameters' names,
    epsilon's range and T; the class and its constructor's keyword arguments but K, runs, rng."""
    name = canonical(name)
    cls = get(name)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "K", "runs", "rng",
                                                                    "epsilon", "variant", "T"}
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise DPBanditsError(f"unknown parameter(s) {unknown} for {name}; it accepts {sorted(accepted)}")
    for key, value in params.items():       # the declared domain, before anything is built
        check_parameter_value(cls, key, value)
    if cls.private and epsilon is not None:
        epsilon = check_epsilon_range(epsilon, algorithm=name)
    kwargs: dict[str, Any] = dict(params)
    if cls.private:
        if epsilon is None:
            raise DPBanditsError(f"{name} is private: epsilon is required")
        kwargs["epsilon"] = epsilon
    if variant is not None:
        kwargs["variant"] = variant
    if cls.needs_horizon:
        if T is None:
            raise DPBanditsError(f"{name} needs its horizon: T is required")
        kwargs["T"] = check_positive_int(T, "T")
    return cls, kwargs


@dataclass(frozen=True, init=False)
class CheckedArguments:
    """An algorithm's arguments after every check of :func:`make` and of its constructor, made
    only by :func:`check_arguments` (calling the class raises); :func:`build` trusts them."""

    name: str
    """The registered name."""
    cls: type[PolicyBase]
    K: int
    kwargs: tuple[tuple[str, Any], ...]
    """The constructor's keyword arguments but ``runs`` and ``rng``, as checked."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise DPBanditsError("CheckedArguments are made by check_arguments(name, K, ...) only")

    @property
    def epsilon(self) -> float | None:
        """epsilon as checked; None for a non-private algorithm."""
        return dict(self.kwargs).get("epsilon")

    @property
    def T(self) -> int | None:
        """The horizon as checked; None for an algorithm that does not need it."""
        return dict(self.kwargs).get("T")


def check_arguments(name: str, K: int, *, epsilon: float | None = None,
                    variant: str | None = None, T: int | None = None,
                    **params: Any) -> CheckedArguments:
    """Check the arguments of :func:`make` (but ``runs`` and ``rng``) once, as ``make`` does and
    with the same errors: the registry's checks, then the constructor's, by building one policy
    for one run."""
    cls, kwargs = _registry_checks(name, epsilon, variant, T, params)
    policy = cls(K, runs=1, rng=np.random.default_rng(0), **kwargs)
    arguments = object.__new__(CheckedArguments)
    for key, value in (("name", canonical(name)), ("cls", cls), ("K", policy.K),
                       ("kwargs", tuple(kwargs.items()))):
        object.__setattr__(arguments, key, value)
    return arguments


def build(arguments: CheckedArguments, runs: int, rng: np.random.Generator | int) -> Policy:
    """The policy of :func:`check_arguments`'s ``arguments`` for ``runs`` runs drawing from
    ``rng``; only ``runs`` and ``rng`` are checked."""
    if not isinstance(arguments, CheckedArguments):
        raise DPBanditsError(f"build takes the arguments check_arguments returns, got "
                             f"{type(arguments).__name__}")
    return arguments.cls._from_checked(arguments.K, runs=runs, rng=rng, **dict(arguments.kwargs))


@dataclass(frozen=True)
class AlgorithmSpec:
    """A picklable policy factory: ``spec(runs, rng)`` builds the algorithm for one block.

    Made by :func:`spec`, it carries its :class:`CheckedArguments` and builds without checking
    them again; made directly, it builds through :func:`make`, every argument checked."""

    name: str
    K: int
    epsilon: float | None = None
    variant: str | None = None
    T: int | None = None
    params: tuple[tuple[str, Any], ...] = field(default=())
    checked: CheckedArguments | None = field(default=None, init=False, repr=False, compare=False)
    """Set by :func:`spec` only (``dataclasses.replace`` drops it: a changed copy is checked)."""

    def __call__(self, runs: int, rng: np.random.Generator) -> Policy:
        if self.checked is not None:
            return build(self.checked, runs, rng)
        return make(self.name, self.K, epsilon=self.epsilon, runs=runs, rng=rng,
                    variant=self.variant, T=self.T, **dict(self.params))


def spec(name: str, K: int, *, epsilon: float | None = None, variant: str | None = None,
         T: int | None = None, **params: Any) -> AlgorithmSpec:
    """A factory for the engine, its arguments checked once here (:func:`check_arguments`)."""
    factory = AlgorithmSpec(name, K, epsilon, variant, T, tuple(sorted(params.items())))
    object.__setattr__(factory, "checked", check_arguments(name, K, epsilon=epsilon,
                                                           variant=variant, T=T, **params))
    return factory


def spec_of(arguments: CheckedArguments) -> AlgorithmSpec:
    """The engine's factory of arguments :func:`check_arguments` checked (no check again)."""
    if not isinstance(arguments, CheckedArguments):
        raise DPBanditsError(f"spec_of takes the arguments check_arguments returns, got "
                             f"{type(arguments).__name__}")
    given = dict(arguments.kwargs)
    fields = {key: given.pop(key, None) for key in ("epsilon", "variant", "T")}
    factory = AlgorithmSpec(arguments.name, arguments.K, **fields,
                            params=tuple(sorted(given.items())))
    object.__setattr__(factory, "checked", arguments)
    return factory


@dataclass(frozen=True)
class AlgorithmInfo:
    """What ``dpbandits list`` shows for one algorithm."""

    name: str
    title: str
    paper: str
    feedback: str
    private: bool
    needs_horizon: bool
    variants: tuple[str, ...]
    default_variant: str
    claims: dict[str, str]
    """Variant -> its claim in words, for a person (:meth:`~.privacy.PrivacyClaim.summary`:
    ``1-DP [row]: true for this variant (its proof: docs/algorithms/NAME.md)``)."""
    parameters: tuple[dict[str, Any], ...] = ()
    epsilon_range: tuple[float, float] | None = None
    reference_only: str | None = None
    """Why only the reference runs it (:func:`reference_only`); None when it has a kernel."""
    claim_status: dict[str, str] = field(default_factory=dict)
    """Variant -> its claim's status, the machine field programs read (``holds``, ``false``,
    ``unproven``, ``non-private``: :mod:`~.privacy`)."""


def algorithms(epsilon: float = 1.0) -> list[AlgorithmInfo]:
    """Every registered algorithm, with each variant's claim evaluated at ``epsilon``."""
    from ..limits import EPSILON_RANGE

    check_epsilon_range(epsilon)
    infos = []
    for name in ALGORITHMS:
        cls = get(name)
        claims, status = {}, {}
        for variant in cls.variants:
            policy = make(name, 2, epsilon=epsilon, rng=0, variant=variant.name, T=1000)
            claims[variant.name] = policy.claim.summary(docs_page(name))
            status[variant.name] = policy.claim.status
        infos.append(AlgorithmInfo(name, cls.title, cls.paper, cls.feedback, cls.private,
                                   cls.needs_horizon, tuple(v.name for v in cls.variants),
                                   cls.default_variant, claims,
                                   tuple(p.as_dict() for p in parameters_of(cls)),
                                   EPSILON_RANGE if cls.private else None,
                                   reference_only(name), status))
    return infos


def reference_only(name: str) -> str | None:
    """Why only the reference runs registered algorithm ``name`` (the reason of its declined
    kernel, ``kernel = Declined("...")``, or that it declares none); None when it declares a
    compiled kernel."""
    kernel = getattr(get(name), "kernel", None)
    if isinstance(kernel, Declined):
        return kernel.reason
    return "it declares no compiled kernel" if kernel is None else None


def declaration(name: str, attribute: str) -> Any:
    """What registered algorithm ``name`` declares as ``attribute`` (a class attribute of
    :mod:`dpbandits.reference.declarations`'s table); None when it declares none, declines one
    (:class:`~dpbandits.reference.declarations.Declined`) or is not registered."""
    name = canonical(name)
    if name not in ALGORITHMS:
        return None
    value = getattr(get(name), attribute, None)
    return None if isinstance(value, Declined) else value


def declared(attribute: str) -> dict[str, Any]:
    """Registered name -> its declaration ``attribute``, for every algorithm that has one, in the
    registry's order."""
    found = {name: declaration(name, attribute) for name in ALGORITHMS}
    return {name: value for name, value in found.items() if value is not None}


class Declared(Mapping):
    """A read-only mapping, registered name -> ``transform(declaration)``, over the algorithms
    that declare ``attribute``; built on first use (it imports every algorithm's module)."""

    def __init__(self, attribute: str, transform: Callable[[Any], Any] = lambda value: value) -> None:
        self._attribute, self._transform = attribute, transform
        self._table: dict[str, Any] | None = None

    def _data(self) -> dict[str, Any]:
        if self._table is None:
            self._table = {name: self._transform(value)
                           for name, value in declared(self._attribute).items()}
        return self._table

    def __getitem__(self, name: str) -> Any:
        return self._data()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())

    def __repr__(self) -> str:
        return f"Declared({self._attribute!r}: {self._data()!r})"
