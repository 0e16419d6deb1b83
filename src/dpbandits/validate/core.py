"""The validation: behaviour, privacy and regret of a candidate against a registered algorithm.

:func:`validate` runs the stages in order, each in its module: the arguments checked once and
the problem built (:mod:`~dpbandits.validate.loading`), the two samples (here), the comparisons
for arms (:mod:`~dpbandits.validate.arms`) or for bases (:mod:`~dpbandits.validate.bases`), the
correction (:mod:`~dpbandits.validate.correction`), the privacy audit
(:mod:`dpbandits.audit.against`), the regret checks (:mod:`~dpbandits.validate.regret`) and the
verdicts (:mod:`~dpbandits.validate.summary`). Each stage returns a frozen result of its own
(:mod:`~dpbandits.validate.stages`), and the summary :class:`Validation` is built once from them.

**Samples.** The candidate (any :class:`~dpbandits.audit.mechanism.Mechanism`: a single-run
act/observe policy or a function of the table through :mod:`dpbandits.audit.adapters`, a program
in any language through :mod:`dpbandits.audit.external`) and the reference (the registered
algorithm ALGO, through the engine) each produce R runs of T rounds twice:

* ``fixed``: every run of both on one reward table drawn from the setting (the audit shape). The
  two samples are independent and each is i.i.d. given the table, so a two-sample test compares
  the two conditional output distributions given that table.
* ``fresh``: every run on its own freshly drawn table (the regret shape). The reference runs as
  one batch of R runs in the engine with fresh rewards per run; the candidate runs once per table,
  R times, with independent seeds. Both samples are i.i.d. from the output distribution averaged
  over the environment, and independent of each other.

**Comparisons.** On each sample: the pull count of every arm at the checkpoints (Mann-Whitney U),
the action at chosen rounds (chi-square test of homogeneity, or its permutation version when an
expected count is below 5), the pseudo-regret at the checkpoints (Mann-Whitney U). See
:mod:`dpbandits.validate.stats` for each test's guarantee.

**Semi-bandits.** Against a matroid algorithm (OMM, CTS, DPUCB-MAT, DPTS-MAT: Chandak, Hu &
Hegde, Sec. 2) the candidate is a single-run act/observe class that plays bases
(:class:`~dpbandits.audit.semi_adapter.SemiPolicyMechanism`, built with the matroid in
``params["matroid"]``), or a mechanism with ``K`` = L base arms, ``feedback = "semi"`` and
``sample(table, n, seed)`` returning bases of shape (n, T, k), k the matroid's rank; the tables
carry the free row 0 (``table.X0``) these algorithms observe before round 1. Every basis is
checked against the matroid and sorted (its order within a round is post-processing). The
comparisons are the same with base arms for arms: the pulls of every base arm (the rounds whose
basis held it) and the regret against the best basis f(A*, w_bar) - f(A_t, w_bar) at the
checkpoints, and the distribution of the basis played at chosen rounds. The environment is a
named matroid setting (default :data:`~dpbandits.validate.bases.DEFAULT_MATROID_SETTING`), or Bernoulli means of the base
arms with ``params["matroid"]``. The privacy audit uses neighbouring tables that give a row 0.
The regret bounds of the matroid algorithms need the per-base-arm gaps Delta_{e,min}, which are
not computed here: they are listed as not used.

**Correction and verdict.** Holm's step-down procedure over *all* comparisons of both samples at
family-wise level ``alpha``: if the candidate's output distribution is the reference's (on the
fixed table and averaged over the environment), the verdict is ``differs`` with probability at
most ``alpha`` (up to the normal approximation of Mann-Whitney). ``differs`` names the first
difference: the rejected comparison with the smallest round (then the smallest p-value). Each
comparison reports its effect size, p-value, Holm-adjusted p-value and the smallest effect the
sample could have detected with probability ``power`` at level ``alpha / m``.

**Privacy.** The candidate is audited (:func:`dpbandits.audit.audit`) against the claim ALGO makes
at ``epsilon``: the known worst-case pairs for ALGO (docs/errata.md) and the generic candidate pairs at ALGO's
release rounds, with the event tester's Clopper-Pearson lower bound on epsilon at confidence
``1 - alpha`` (its own correction over pairs is stated in the audit result).

**Regret.** The candidate's pseudo-regret on the fresh sample is held against every upper bound
about ALGO in :mod:`dpbandits.bounds` with explicit constants (not flawed, not asymptotic, not
about one special instance, not a printed form the catalogue has corrected), with
:func:`dpbandits.bounds.check_regret` (simultaneous t band at level ``1 - alpha``; each check
``violated``, ``inconclusive at this size`` with the runs that would decide it, ``respected`` or
``vacuous at this size``, by the rule of :mod:`dpbandits.bounds.check`). The reference's curve
is checked the same way, for comparison only.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from .arms import checkpoints_for, rounds_for
from .correction import ACTIONS, Comparison, corrected
from .defaults import DEFAULT_HORIZON, DEFAULT_RUNS, DEFAULT_SETTING, MIN_RUNS
from .loading import Request, check_request, semi_bandit_matroid
from .stages import Alternatives, Behaviour, Difference, Planted, Privacy, Setup
from .summary import PATH_ONLY, Validation
from ..audit import isolation

isolation.PRELOAD.extend(["dpbandits.validate.power", "dpbandits.validate.regret",
                          "dpbandits.validate.stats", "dpbandits.validate.bases",
                          "dpbandits.bounds", "dpbandits.bounds.check", "dpbandits.bounds.core",
                          "dpbandits.bounds.simulated"]
                         + [f"dpbandits.bounds.{paper}" for paper in
                            ("prior", "wu_wang2025", "chandak2023", "hu2021", "hu_journal",
                             "tossou2016")])
"""The validation's verdicts read these modules after the candidate has run: they are imported
before its first process starts (:data:`dpbandits.audit.isolation.PRELOAD`)."""

__all__ = ["validate", "run_checked", "Comparison", "Validation", "ACTIONS", "PATH_ONLY",
           "checkpoints_for", "rounds_for", "semi_bandit_matroid", "DEFAULT_HORIZON",
           "DEFAULT_RUNS", "DEFAULT_SETTING", "MIN_RUNS"]

def validate(candidate: Any, against: str, *, epsilon: float | None = None,
             variant: str | None = None, params: dict[str, Any] | None = None,
             setting: str | None = None, means: Any = None, horizon: int | None = None,
             runs: int = DEFAULT_RUNS, seed: int = 0, alpha: float = 0.05, power: float = 0.8,
             audit_samples: int | None = None, audit_horizon: int | None = None,
             progress: Callable[[str], None] | None = None,
             backend: str = "auto", explain: bool = True) -> Validation:
    """Validate ``candidate`` against the registered algorithm ``against`` (module docstring).

    Parameters
    ----------
    candidate
        Anything :func:`dpbandits.candidates.load` accepts: a Python class or factory (built per
        run for the problem K, T, epsilon, params), ``MODULE:OBJECT`` or ``FILE.py:OBJECT``, a
        :class:`~dpbandits.candidates.Command`, or a mechanism with ``K``, ``feedback``,
        ``label`` and ``sample(table, n, seed)``. Against a matroid semi-bandit ALGO: a Python
        act/observe class or factory, built with the problem's matroid in ``params["matroid"]``
        (:class:`~dpbandits.audit.semi_adapter.SemiPolicyMechanism`), or a mechanism with
        ``feedback = "semi"`` whose ``sample`` returns (n, T, k) bases.
    against, variant, params
        The reference: registered algorithm ALGO, its variant (default: ALGO's default) and
        extra parameters.
    epsilon
        The privacy parameter epsilon of ALGO (required when ALGO is private).
    setting, means
        The environment: a named setting or Bernoulli arm means (default ``hu2021-setting2``;
        for a matroid ALGO a matroid setting, default ``chandak-synthetic``, or base-arm means
        with ``params["matroid"]``).
    horizon, runs
        Rounds T per run (None: :data:`DEFAULT_HORIZON`, or, when ALGO's actions do not depend
        on the rewards within it, twice the horizon from which they do:
        :func:`~dpbandits.validate.loading.default_horizon`) and runs R per sample (R >= 20).
    seed
        Everything random (tables, runs, permutations, the audit) derives from it.
    alpha, power
        Family-wise level of the behavioural comparisons (also the audit's and the regret
        check's level), and the power at which detectable effects are reported.
    audit_samples, audit_horizon
        Test runs per side of the privacy audit (0 skips it; None:
        :data:`~dpbandits.validate.defaults.DEFAULT_AUDIT_SAMPLES`) and its horizon (None: the horizon
        that reaches ALGO's first data-dependent output,
        :func:`dpbandits.audit.against.audit_horizon`).
    backend
        The engine's backend for the reference side (``auto``, ``reference`` or ``compiled``);
        ``reference`` when a compiled kernel is the candidate, as in its certificate.
    explain
        Run the stages that say what the verdict could tell apart
        (:mod:`~dpbandits.validate.power`): the reference's documented alternatives against a
        differing candidate, its planted variants against a conforming one. Each costs one
        reference-sized sample pair and its comparisons.
    """
    request = check_request(against, epsilon=epsilon, variant=variant, params=params,
                            setting=setting, means=means, horizon=horizon, runs=runs, seed=seed,
                            alpha=alpha, power=power, audit_samples=audit_samples,
                            audit_horizon=audit_horizon, backend=backend)
    if not (hasattr(candidate, "K") and hasattr(candidate, "sample")):
        from ..candidates import load

        candidate = load(candidate, K=request.K, epsilon=request.epsilon, params=request.params,
                         feedback=request.cls.feedback, reference=request.against)
    return run_checked(candidate, request, progress, explain=explain)


def run_checked(candidate: Any, request: Request,
                progress: Callable[[str], None] | None = None,
                explain: bool = True) -> Validation:
    """The stages after the check: ``candidate`` (a loaded mechanism) against a checked
    ``request`` (:func:`~dpbandits.validate.loading.check_request`).

    A pipeline: the two samples of each side (the reference's in the background), then the
    behaviour's tests and the stages that read them (in the background while the audit runs
    the candidate), then the summary. :class:`_Jobs` is the one place that stops the
    background work when a stage fails or is interrupted."""
    say = progress or (lambda message: None)
    _check_candidate(candidate, request)
    seeds = _Seeds(*np.random.SeedSequence(request.seed).spawn(len(_Seeds._fields)))
    variant = _variant(request)
    with _Jobs() as jobs:
        table, samples, side = _samples(candidate, request, seeds, say, explain, jobs)
        judged = jobs.start(lambda say: _judge(request, variant, samples, table,
                                               (seeds.tests, seeds.tries, side), say, explain),
                            say)
        audit = _audit(candidate, request, variant, seeds, progress)
        stages = judged.result()
    setup = _setup(candidate, request, variant, getattr(candidate, "label", "candidate"))
    return Validation.of_stages(setup, *stages[:4], _privacy(request, audit), stages[4])


class _Seeds(NamedTuple):
    """The children of the validation's seed, one per stage, in the order they were spawned
    (the tries and the planted variants came last: a new child goes at the end, so that no
    stage's draws move)."""

    fixed: np.random.SeedSequence
    fresh: np.random.SeedSequence
    cand_fixed: np.random.SeedSequence
    ref_fixed: np.random.SeedSequence
    cand_fresh: np.random.SeedSequence
    ref_fresh: np.random.SeedSequence
    tests: np.random.SeedSequence
    audit: np.random.SeedSequence
    tries: np.random.SeedSequence
    plants: np.random.SeedSequence


def _check_candidate(candidate: Any, request: Request) -> None:
    """The candidate's feedback and number of arms are those of ALGO and the problem."""
    from ..errors import DPBanditsError

    cls, K = request.cls, request.problem.K
    feedback = getattr(candidate, "feedback", "bandit")
    if feedback != cls.feedback:
        raise DPBanditsError(f"the candidate observes {feedback!r} feedback but "
                             f"{request.against} is a {cls.feedback!r}-feedback algorithm")
    if candidate.K != K:
        raise DPBanditsError(f"the candidate has K = {candidate.K} "
                             f"{'base arms' if request.semi else 'arms'} but the setting has {K}")


def _reference(request: Request, T: int | None = None) -> Any:
    """ALGO as a mechanism, at the request's horizon unless ``T`` is given."""
    from ..audit.mechanism import RegistryMechanism

    return RegistryMechanism(request.against, request.K, request.epsilon, request.variant,
                             request.params, T=T or request.T, backend=request.backend)


def _variant(request: Request) -> str | None:
    """The variant of ALGO that runs (its default when the request names none)."""
    return _reference(request).variant


def _samples(candidate: Any, request: Request, seeds: _Seeds, say: Callable[[str], None],
             explain: bool, jobs: "_Jobs") -> tuple[Any, dict, "_Background"]:
    """The fixed table and both sides' samples, ``{"fixed": (candidate, reference), "fresh":
    (...)}``; the reference's side runs in the background (:func:`_reference_side`) and goes
    on, once its samples are published, with the stages that read only the reference."""
    problem, T, runs = request.problem, request.T, request.runs
    label = getattr(candidate, "label", "candidate")
    table = problem.table(T, np.random.default_rng(seeds.fixed))
    fresh_rng = np.random.default_rng(seeds.fresh)
    requests = [(problem.table(T, fresh_rng), 1, _seed(child))
                for child in seeds.cand_fresh.spawn(runs)]
    side = jobs.start(lambda say, publish: _reference_side(request, table, seeds, explain, say,
                                                           publish), say, publishes=True)
    say(f"behaviour: {runs} runs of the candidate on one fixed table")
    cand_fixed = problem.checked(candidate.sample(table, runs, _seed(seeds.cand_fixed)), runs,
                                 T, label)
    say(f"behaviour: {runs} runs of the candidate, every run on a fresh table")
    outputs = _single_runs(candidate, requests)
    cand_fresh = problem.checked(np.concatenate([problem.one_run(o) for o in outputs]), runs, T,
                                 label)
    ref_fixed, ref_fresh = side.early()
    return table, {"fixed": (cand_fixed, ref_fixed), "fresh": (cand_fresh, ref_fresh)}, side


def _reference_side(request: Request, table: Any, seeds: _Seeds, explain: bool,
                    say: Callable[[str], None], publish: Callable[[Any], None]) -> tuple:
    """The reference's two samples (published as soon as they exist), then, while the
    candidate runs in its host, whether any round could differ and the planted variants: they
    read only the reference, and are used if the candidate conforms."""
    from ..reference import simulate
    from ..reference.registry import spec_of
    from .loading import dependence
    from .power import planted_power

    problem, T, runs = request.problem, request.T, request.runs
    say(f"behaviour: {runs} runs of the reference on one fixed table and on fresh tables")
    fixed = problem.checked(_reference(request).sample(table, runs, _seed(seeds.ref_fixed)),
                            runs, T, "reference")
    fresh = simulate(spec_of(request.arguments), problem.source, T, runs=runs,
                     seed=_seed(seeds.ref_fresh), record_actions=True,
                     backend=request.backend).actions
    fresh = problem.checked(fresh, runs, T, "reference")
    publish((fixed, fresh))
    untestable = dependence(request)
    planted = None
    if explain and untestable is None:
        planted = planted_power(request, {"fixed": (None, fixed), "fresh": (None, fresh)},
                                table, seeds.plants, say)
    return untestable, planted


def _audit(candidate: Any, request: Request, variant: str | None, seeds: _Seeds,
           progress: Callable[[str], None] | None) -> Any:
    """The privacy audit of the candidate against ALGO's claim (None when ALGO makes none or
    it is skipped). It runs the candidate (in its host process) while this process, idle
    until the host replies, judges the behaviour in a thread: the tests, the planted variants
    and the regret checks read only the samples and seeds of their own, so the result is the
    same as one stage after the other."""
    if request.epsilon is None or request.audit_samples == 0:
        return None
    from ..audit.against import audit_against

    return audit_against(candidate, request.against, epsilon=request.epsilon, variant=variant,
                         params=request.params, T=request.audit_horizon,
                         samples=request.audit_samples, alpha=request.alpha,
                         seed=_seed(seeds.audit), progress=progress)


def _setup(candidate: Any, request: Request, variant: str | None, label: str) -> Setup:
    """The loading stage's result: the request as checked, the candidate's label, the problem."""
    from ..candidates import filled_note

    problem = request.problem
    return Setup(algorithm=request.against,
                 variant=variant if len(request.cls.variants) > 1 else None,
                 epsilon=request.epsilon, candidate=label, K=problem.K, T=request.T,
                 runs=request.runs, seed=request.seed, alpha=request.alpha, power=request.power,
                 means=[float(x) for x in problem.means],
                 matroid=repr(problem.matroid) if request.semi else "",
                 super_arm_size=problem.k if request.semi else 0,
                 filled_note=filled_note(getattr(candidate, "reference", None), problem.K,
                                         request.T, request.epsilon, request.params))


def _privacy(request: Request, audit: Any) -> Privacy:
    """The privacy stage's result: the audit (None when ALGO makes no claim or it was skipped)
    and the sentence about ALGO's claim at the audited horizon."""
    from ..reference.registry import docs_page

    against = request.against
    if request.epsilon is None:
        return Privacy(note=f"{against} makes no privacy claim")
    if audit is None:
        return Privacy(note="audit skipped (audit_samples = 0)")
    claim = _reference(request, request.audit_horizon).claim
    return Privacy(audit=audit, note=f"{against}'s claim {claim.summary(docs_page(against))}")


def _judge(request: Request, variant: str | None, samples: dict, table: Any, sequences: tuple,
           say: Callable[[str], None], explain: bool) -> tuple:
    """The behaviour's tests, the explanation stages and the regret checks, from the two samples
    (every stage of the validation but the loading and the privacy audit): their results
    (:class:`Behaviour`, :class:`Difference`, :class:`Alternatives`, :class:`Planted`,
    :class:`Regret`)."""
    from .regret import regret_stage

    s_tests, s_tries, side = sequences
    problem = request.problem
    say("behaviour: two-sample tests")
    test_rng = np.random.default_rng(s_tests)
    rows = [row for name, (c, r) in samples.items() for row in problem.compare(name, c, r, test_rng)]
    behaviour = Behaviour(comparisons=corrected(rows, request.alpha, request.power))
    difference, alternatives, planted = _explain(behaviour, request, samples, table, s_tries,
                                                 side, say, explain)
    say("regret: checks against the bounds")
    regret = regret_stage(problem, samples["fresh"], T=request.T, against=request.against,
                          variant=variant, needs_horizon=request.cls.needs_horizon,
                          epsilon=request.epsilon, alpha=request.alpha)
    return behaviour, difference, alternatives, planted, regret


class _Stopped(Exception):
    """Raised in the background stage when the foreground has failed or been interrupted."""


class _Background:
    """``job(say)`` in a daemon thread; :meth:`result` waits for it and re-raises its error.

    :meth:`stop` (the foreground failed or was interrupted) makes its next progress message
    raise, and does not wait: the process may exit at once."""

    def __init__(self, job: Callable[..., Any], say: Callable[[str], None],
                 publishes: bool = False) -> None:
        import threading

        self._stopped = threading.Event()
        self._published = threading.Event()
        self._value: Any = None
        self._early: Any = None
        self._error: BaseException | None = None

        def checked_say(message: str) -> None:
            if self._stopped.is_set():
                raise _Stopped()
            say(message)

        def publish(value: Any) -> None:
            self._early = value
            self._published.set()

        def run() -> None:
            try:
                self._value = job(checked_say, publish) if publishes else job(checked_say)
            except BaseException as error:        # re-raised in the foreground
                self._error = error
            finally:
                self._published.set()

        self._thread = threading.Thread(target=run, name="validate-behaviour", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def early(self) -> Any:
        """What the job published before it ended (it goes on in the background)."""
        self._published.wait()
        if self._error is not None:
            raise self._error
        return self._early

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


class _Jobs:
    """The background jobs of one validation: :meth:`start` runs one (:class:`_Background`);
    leaving the block with an error or an interrupt stops them all, here and only here."""

    def __init__(self) -> None:
        self._started: list[_Background] = []

    def start(self, job: Callable[..., Any], say: Callable[[str], None],
              publishes: bool = False) -> "_Background":
        self._started.append(_Background(job, say, publishes))
        return self._started[-1]

    def __enter__(self) -> "_Jobs":
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is not None:
            for job in self._started:
                job.stop()


def _explain(behaviour: Behaviour, request: Request, samples: dict, table: Any,
             s_tries: np.random.SeedSequence, side: _Background, say: Callable[[str], None],
             explain: bool) -> tuple[Difference, Alternatives, Planted]:
    """The exact first difference on the fixed table; whether any round could differ at this
    horizon and, with ``explain``, the planted variants' detection (a conforming candidate),
    both from the reference's side (``side``, run beside the candidate); with ``explain``, the
    alternatives tried against a differing one: :mod:`~dpbandits.validate.power`."""
    from .power import first_action_difference, try_alternatives

    first = first_action_difference(*samples["fixed"])
    if explain and behaviour.rejects:
        side.stop()                     # its planted variants are not needed
        from .loading import dependence

        difference = Difference(first_action_difference=first, untestable=dependence(request))
        tried = try_alternatives(request, samples, table, s_tries, say)
        return difference, Alternatives(tried=tried), Planted()
    untestable, planted = side.result()
    difference = Difference(first_action_difference=first, untestable=untestable)
    return difference, Alternatives(), Planted(checks=planted if explain and untestable is None
                                               else [])


def _single_runs(candidate: Any, requests: list[tuple[Any, int, int]]) -> list[np.ndarray]:
    """One ``sample`` call per request, in order. An external program with ``workers > 1`` gets
    that many calls at once (each call starts its own process); the outputs do not change."""
    from ..audit.external import CommandMechanism

    copies = getattr(candidate, "workers", 1)
    if isinstance(candidate, CommandMechanism) and copies > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=copies) as pool:
            try:
                return list(pool.map(lambda request: candidate.sample(*request), requests))
            except BaseException:       # an interrupt or a failure: stop every copy now
                candidate.stop_all()
                raise
    many = getattr(candidate, "sample_many", None)
    return many(requests) if many else [candidate.sample(*request) for request in requests]


def _seed(sequence: np.random.SeedSequence) -> int:
    """A seed for one stage, drawn from its child of the validation's seed."""
    return int(sequence.generate_state(1)[0])

