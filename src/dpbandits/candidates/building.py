"""Building a candidate for one run: its signature read once (:func:`builder`), then called per
run with the :class:`Problem` (K, T, epsilon, the setting's parameters) and the run's generator."""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ..audit.protocols import derived_seed, is_learning_policy
from ..errors import DPBanditsError

__all__ = ["ALIASES", "Problem", "builder", "reference_values", "filled_note"]

ALIASES: dict[str, tuple[str, ...]] = {
    "K": ("K", "k", "n_arms", "num_arms", "nbArms"),
    "T": ("T", "horizon"),
    "epsilon": ("epsilon", "eps"),
    "rng": ("rng", "generator", "random_state"),
    "seed": ("seed",),
}
"""Parameter names through which a candidate's signature asks for K, T, epsilon, the generator
and an integer seed (derived from the run's seed: :func:`dpbandits.audit.protocols.derived_seed`)."""


@dataclass(frozen=True)
class Problem:
    """The problem instance a Python candidate is built for, one run at a time."""

    K: int
    """Number of arms (base arms L for a semi-bandit)."""
    T: int
    """Horizon: rounds of the run."""
    epsilon: float | None = None
    """The privacy parameter epsilon (None for a non-private algorithm)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """The algorithm's other parameters (``--param``), by name."""
    feedback: str = "bandit"
    """What the candidate observes: ``bandit`` (the pulled arm's reward), ``full`` (the row) or
    ``semi`` (the played basis's weights; the matroid is ``params["matroid"]``)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """The reference algorithm's values of its documented parameters for this problem (DP-SE's
    ``beta`` = 1/T when unset): a candidate that requires one of them and is not given it in
    ``params`` gets this value (:func:`reference_values`)."""


def builder(obj: Any, name: str | None = None) -> Callable[[Problem, np.random.Generator], Any]:
    """A function ``(problem, rng) -> policy`` that calls ``obj`` the way its signature asks.

    Raises :class:`DPBanditsError` when ``obj`` is not callable or asks for a required
    parameter no problem can serve.
    """
    name = name or getattr(obj, "__name__", type(obj).__name__)
    if is_learning_policy(obj):
        return lambda problem, rng: obj       # run by a MAB built per run (protocols.adapt)
    if not callable(obj):
        raise DPBanditsError(f"{name} is not a class or a factory (it is a "
                             f"{type(obj).__name__})")
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return lambda problem, rng: obj(rng)           # a builtin without a signature: obj(rng)
    parameters = [p for p in signature.parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    names = [p.name for p in parameters]
    takes_keywords = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    required = [p for p in parameters if p.default is p.empty]
    if names and names[0] == "problem":
        if len(required) > 2:
            raise DPBanditsError(f"{name}(problem, rng) takes more required parameters: "
                                 f"{', '.join(p.name for p in required[2:])}")
        if len(parameters) == 1:
            return lambda problem, rng: obj(problem)
        return lambda problem, rng: obj(problem, rng)
    role = {alias: key for key, aliases in ALIASES.items() for alias in aliases}
    by_role = {role[n]: n for n in names if n in role}
    if not by_role and len(required) == 1:
        only = required[0]
        if only.kind == only.POSITIONAL_ONLY:
            return lambda problem, rng: obj(rng)        # the older factory(rng) form

        def older(problem: Problem, rng: np.random.Generator) -> Any:
            # One required parameter named like a problem parameter (a semi-bandit's matroid)
            # gets that value; any other name is the older factory(rng) form.
            if only.name in problem.params:
                return obj(**{p.name: problem.params[p.name] for p in parameters
                              if p.name in problem.params})
            return obj(rng)
        return older
    if not by_role and len(required) == 0 and len(parameters) == 0 and not takes_keywords:
        return lambda problem, rng: obj()
    positional_only = [p.name for p in parameters if p.kind == p.POSITIONAL_ONLY]
    if positional_only:
        raise DPBanditsError(f"{name} takes positional-only parameters ({', '.join(positional_only)}); "
                             f"name them K, T, epsilon, rng or problem")
    served = set(by_role.values())
    others = [p for p in parameters if p.name not in served]

    def build(problem: Problem, rng: np.random.Generator) -> Any:
        values = {"K": problem.K, "T": problem.T, "epsilon": problem.epsilon, "rng": rng}
        kwargs = {by_role[key]: values[key] if key != "seed" else derived_seed(rng)
                  for key in by_role}
        if by_role.get("epsilon") and problem.epsilon is None:
            parameter = signature.parameters[by_role["epsilon"]]
            if parameter.default is parameter.empty:
                raise DPBanditsError(f"{name} requires {by_role['epsilon']} but no epsilon was "
                                     f"given (the reference algorithm is not private)")
            del kwargs[by_role["epsilon"]]
        for p in others:
            if p.name in problem.params:
                kwargs[p.name] = problem.params[p.name]
            elif p.default is p.empty and p.name in problem.defaults:
                kwargs[p.name] = problem.defaults[p.name]
        if takes_keywords:
            kwargs.update({k: v for k, v in problem.params.items() if k not in kwargs})
        return obj(**kwargs)

    missing = [p.name for p in others if p.default is p.empty]
    if missing:
        def checked(problem: Problem, rng: np.random.Generator) -> Any:
            absent = [m for m in missing if m not in problem.params and m not in problem.defaults]
            if absent:
                raise DPBanditsError(
                    f"{name} requires {', '.join(absent)}: a candidate's parameters are K, T "
                    f"(or horizon), epsilon (or eps), rng, the algorithm's parameters "
                    f"given with --param ({', '.join(sorted(problem.params)) or 'none given'}) "
                    f"and the reference's own parameters, at its defaults when not given "
                    f"({', '.join(sorted(problem.defaults)) or 'none'})")
            return build(problem, rng)
        return checked
    return build


@functools.lru_cache(maxsize=64)
def _reference_values(name: str, K: int, T: int, epsilon: float | None,
                      params: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
    from ..reference import get, make
    from ..reference.domains import parameters_of

    given = dict(params)
    out = {}
    built = None
    for parameter in parameters_of(get(name)):
        if parameter.name in given:
            continue
        value = parameter.default
        if value is None:               # set from the problem when unset (beta = 1/T)
            if built is None:
                try:
                    built = make(name, K, epsilon=epsilon, rng=0, T=T, **given)
                except Exception:       # a size the reference refuses: nothing to fill from
                    return tuple(sorted(out.items()))
            value = getattr(built, parameter.name, None)
        if value is not None:
            out[parameter.name] = value
    return tuple(sorted(out.items()))


def reference_values(name: str | None, K: int, T: int, epsilon: float | None,
                     params: Mapping[str, Any]) -> dict[str, Any]:
    """The reference algorithm ``name``'s values of its documented parameters not in ``params``,
    for K arms, horizon T and ``epsilon``: the constructor's default, or, for a parameter whose
    default is unset (DP-SE's ``beta``), the value the reference sets from the problem (1/T).
    Empty when ``name`` is None."""
    if name is None:
        return {}
    key = tuple(sorted(params.items()))
    try:
        hash(key)
    except TypeError:                   # unhashable parameter values: computed afresh
        return dict(_reference_values.__wrapped__(name, K, T, epsilon, key))
    return dict(_reference_values(name, K, T, epsilon, key))


def filled_note(name: str | None, K: int, T: int, epsilon: float | None,
                params: Mapping[str, Any]) -> str:
    """One line naming the reference's values set from the problem (DP-SE's ``beta`` = 1/T) that
    a candidate requiring them gets; empty when there are none."""
    if name is None:
        return ""
    from ..reference import get
    from ..reference.domains import parameters_of

    values = reference_values(name, K, T, epsilon, params)
    unset = [p.name for p in parameters_of(get(name)) if p.default is None and p.name in values]
    if not unset:
        return ""
    shown = [f"{key} = {values[key]:.6g}" + (f" (1/T at T = {T})"
                                            if isinstance(values[key], float)
                                            and math.isclose(values[key], 1 / T) else "")
             for key in unset]
    return (f"a constructor argument the candidate requires, named as a parameter of {name} and "
            f"not given with --param, gets {name}'s value: {', '.join(shown)} (the others their "
            f"stated defaults)")
