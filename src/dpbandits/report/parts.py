"""The builders of the report's parts: each runs its stage and returns a :class:`~.plan.Part`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from ..errors import DPBanditsError
from ..files import write_atomically
from .plan import Part

__all__ = ["BUILDERS", "REPRODUCE_VERDICTS"]

def _algorithms(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from ..reference import algorithms

    lines = ["| algorithm | paper | feedback | variant: claim at epsilon = 1 |", "|---|---|---|---|"]
    infos = algorithms(1.0)
    for info in infos:
        claims = "; ".join(f"{v}: {c}" for v, c in info.claims.items())
        lines.append(f"| `{info.name}` | {info.paper} | {info.feedback} | {claims} |")
    return Part("algorithms", "\n".join(lines), {"algorithms": len(infos),
                                                 "variants": sum(len(i.variants) for i in infos)})


def _audit_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from ..audit import audit_all, claims_table
    from ..audit.runner import _bracket

    samples = _preset_samples(budget)
    presets = {name: settings for name, (settings, _) in samples.items()}
    results = audit_all(1.0, samples=budget["audit_samples"], seed=seed, presets=presets,
                        client=client, workers=workers, resume=out / "audit-results",
                        progress=say, backend=backend)
    # the accountant traces each bracket: in the workers, apart from the other parts' threads
    table = claims_table(results, _each(_bracket, [(r,) for r in results], workers, client))
    data = [r.to_dict() for r in results]
    write_atomically(out / "audit-claims.json", json.dumps(data, indent=1))
    from ..reference.registry import ALGORITHMS

    def registered(r) -> bool:
        return r.mechanism.partition("[")[0] in ALGORITHMS

    violations = [r.mechanism for r in results if r.verdict == "violation" and registered(r)]
    consistent = [r.mechanism for r in results if r.verdict == "consistent" and registered(r)]
    controls = {r.mechanism: r.verdict for r in results if not registered(r)}
    false_missed = [r.mechanism for r in results
                    if registered(r) and r.claim_status == "false" and r.verdict != "violation"]
    reasons = dict(zip(false_missed, _each(_unrefuted_reason, [(m, budget["audit_samples"], seed)
                                                               for m in false_missed],
                                           workers, client)))
    own = ", ".join(f"{settings['samples']} for {name}'s {what}"
                    for name, (settings, what) in samples.items())
    text = (f"{budget['audit_samples']} test runs per side for each variant"
            f"{f' ({own})' if own else ''}, 95% confidence, "
            "selection and test samples separate. `violation` means the lower bound exceeds the "
            "claim; `consistent` means this audit could not refute it (not a proof of privacy).\n\n"
            + table)
    return Part("audit", text, {"audits": len(results), "violations": violations,
                                "consistent": consistent, "controls": controls,
                                "false_but_not_detected": false_missed,
                                "why_not_detected": reasons},
                ["audit-claims.json"])


def _preset_samples(budget: dict) -> dict[str, tuple[dict, str]]:
    """Registered name -> (its ``audit --all`` preset with the budget's test sample, what that
    sample is for), for every algorithm whose declared
    :class:`~dpbandits.reference.declarations.AuditPreset` sets a test sample.

    A preset with its own setting (epsilon, parameters or horizon: a worked counterexample,
    docs/errata.md) runs the budget's counterexample sample, ``audit_int_samples``. A preset that
    only raises the test sample (the sample at which designed pairs refute a claim,
    docs/audit-design.md) states it at the default budget's common sample: the budget scales it
    with its own common sample (x 1/10 tiny, x 5 full). Counterexamples first, then the registry's
    order."""
    from ..reference.registry import declaration, declared
    from .plan import BUDGETS

    scale = budget["audit_samples"] / BUDGETS["default"]["audit_samples"]
    found = {}
    for name, preset in declared("audit_preset").items():
        if preset.samples is None:
            continue
        if any(value is not None for value in (preset.epsilon, preset.params, preset.T)):
            found[name] = ({**preset.settings(), "samples": budget["audit_int_samples"]},
                           "counterexample")
        else:
            what = "designed pairs" if declaration(name, "audit_design") else "test sample"
            found[name] = ({**preset.settings(), "samples": round(preset.samples * scale)}, what)
    return dict(sorted(found.items(), key=lambda item: item[1][1] != "counterexample"))


def _unrefuted_reason(label: str, samples: int, seed: int) -> str:
    """Why the audit of the actions did not refute a false claim, computed: on the designed pair
    whose action sequences reveal most (:func:`dpbandits.audit.design.largest_action_level_loss`,
    5 x ``samples`` runs per side, half to choose and half to measure), what the actions lose,
    the (epsilon, delta) bound on them at this sample and the test runs a refutation needs."""
    from ..audit.design import largest_action_level_loss

    name, _, rest = label.partition("[")
    variant = rest.partition("]")[0] or None
    try:
        loss = largest_action_level_loss(name, epsilon=1.0, variant=variant, n=5 * samples,
                                         seed=seed)
    except DPBanditsError as error:
        return f"not computed ({error})"
    if loss is None:
        return ("no designed pair: its violating events are too rare for this budget "
                "(docs/errata.md)")
    return loss.summary()


def _bounds_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from ..bounds import BOUNDS
    from ..bounds.check import estimated_seconds
    from ..bounds.simulated import check_algorithm, informative_horizons, plan_horizons, plot
    from ..reference import get

    names = sorted({tag.partition(":")[0] for b in BOUNDS.values() for tag in b.algorithms
                    if b.is_explicit() and b.kind in ("upper", "lower") and b.status != "flawed"})
    settings, skipped = {}, []
    for name in names:
        feedback = get(name).feedback
        if feedback == "semi":
            skipped.append(name)
        else:
            settings[name] = "hu2021-setting2" if feedback == "bandit" else "hu-journal-thm12"
    base, runs = budget["bounds_horizon"], budget["bounds_runs"]
    informative = {name: informative_horizons(name, setting=setting)
                   for name, setting in settings.items()}
    # The plan assumes the compiled backend's speed; on the reference backend only the base runs.
    seconds = budget["bounds_seconds"] if backend != "reference" else 0.0
    horizons, planned = plan_horizons(informative, base, runs, seconds)
    sections, files, rows = [], [], []
    found: dict[str, list[str]] = {verdict: [] for verdict in BUCKETS}
    jobs = sorted(((name, setting, horizons[name], runs, seed, backend)
                   for name, setting in settings.items()), key=lambda job: -job[2])
    if client is None and workers > 1:
        # each algorithm's runs fit in one block of the engine: whole checks side by side instead
        reports = dict(zip((job[0] for job in jobs), _each(_check_job, jobs, workers)))
    else:
        reports = {}
        for i, (name, setting) in enumerate(settings.items()):
            say(f"bounds [{i + 1}/{len(settings)}] {name} at T = {horizons[name]}")
            reports[name] = check_algorithm(name, setting=setting, horizon=horizons[name],
                                            runs=runs, seed=seed, client=client,
                                            workers=workers, backend=backend)[0]
    for name in settings:
        report = reports[name]
        image = out / f"bounds-{name}.png"
        if report.checks:
            plot(report, image)
            files.append(image.name)
        for check in report.checks:
            if check.verdict in found:
                found[check.verdict].append(f"{name}: {check.bound}")
            T = check.informative_from
            rows.append(f"| `{name}` | `{check.bound}` | {check.kind} "
                        f"| {horizons[name]} | {check.verdict} "
                        f"| {T if T is not None else 'never (up to 1e9)'} "
                        f"| {'-' if T is None else f'{estimated_seconds(runs, 2 * T):.3g}'} |")
        heading, _, details = report.to_markdown().partition("\n")
        sections.append(f"### {name}\n\n{heading.removeprefix('## ')}.{details}"
                        + (f"\n\n![{name}]({image.name})" if report.checks else ""))
    table = ["| algorithm | bound | kind | simulated T | verdict | informative from T "
             f"| estimated s for {runs} runs at twice that T |",
             "|---|---|---|---:|---|---:|---:|", *rows]
    intro = (f"{runs} runs, epsilon = 1, on `hu2021-setting2` (bandits) or `hu-journal-thm12` "
             f"(full information), seed {seed}. Each algorithm is simulated at T = {base}, raised "
             "to twice the horizon from which a bound that is vacuous there becomes informative "
             "(an upper bound below T x largest gap, the largest expected regret possible; a "
             "lower bound above 0), cheapest first, while the estimated cost (runs x T / 1e7 s "
             f"on the compiled backend) stays within this budget's {seconds:g} s (planned: "
             f"{planned:.3g} s). A check is `vacuous at this size` when no run could have "
             "violated its bound at any checked round: it says nothing about the bound, and "
             "the table gives the horizon that would test it. Otherwise it is `violated` where "
             "the simultaneous 95% band lies beyond the bound, `inconclusive at this size` where "
             "the band contains it (its section gives the runs that would decide it, an "
             "estimate), and `respected` where the band lies on the bound's side at every "
             "informative checkpoint: a statement about this instance at this confidence, not a "
             "proof (the rule: docs/bounds.md#what-a-check-says). Matroid bounds are not "
             "simulated here.")
    summary = {BUCKETS[verdict]: labels for verdict, labels in found.items()}
    return Part("bounds", intro + "\n\n" + "\n".join(table) + "\n\n" + "\n\n".join(sections),
                {**summary, "not_simulated": skipped}, files)


def _reproduce_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from ..reproduce import EXPERIMENTS, reproduce_many

    names = budget["experiments"] or tuple(EXPERIMENTS)
    say(f"reproduce: {len(names)} experiments at size `{budget['reproduce_size']}`")
    results = reproduce_many(names, out / "reproduce", size=budget["reproduce_size"], seed=seed,
                             client=client, workers=workers, backend=backend, progress=say,
                             reseed=budget.get("reseed", True))
    buckets: dict[str, list[str]] = {key: [] for key in REPRODUCE_VERDICTS.values()}
    lines, files, below = [], [], []
    ours: dict[str, str] = {}
    for result in results:
        if result.below_paper:
            below.append(result.experiment)
        lines += [f"### {result.experiment}", ""]
        page = result.page.split("\n", 2)[2]          # the page without its title
        lines += [page.split("\n![")[0].rstrip(), ""]
        for claim in result.claims:
            buckets[REPRODUCE_VERDICTS[claim.verdict]].append(f"{result.experiment}: {claim.text}")
        for check in result.checks:
            ours[f"{result.experiment}: {check.text}"] = check.verdict
        for path in result.paths:
            if str(path).endswith(".json"):
                files.append(str(Path(path).resolve().relative_to(out.resolve())))
            if str(path).endswith(".png"):
                relative = Path(path).resolve().relative_to(out.resolve())
                files.append(str(relative))
                lines += [f"![{result.experiment}]({relative})", ""]
    size = budget["reproduce_size"]
    intro = (f"Each experiment at size `{size}`"
             + (" (the paper's horizon, repetitions and epsilon grid; where the paper states no "
                "repetitions, the page gives ours)" if size == "full" else "") + ". "
             + (f"Below the paper's size: {', '.join(f'`{b}`' for b in below)}; "
                "`dpbandits reproduce NAME --full` runs the paper's size." if below
                else "Every experiment ran at the paper's size."))
    return Part("reproduce", intro + "\n\n" + "\n".join(lines),
                {**buckets, "below_paper": below, "our_checks": ours}, files)


def _each(function: Callable, jobs: list[tuple], workers: int, client=None) -> list:
    """``[function(*job) for job in jobs]``, the jobs side by side on ``workers`` local
    processes (the report's shared workers when it has them) unless there is a Dask ``client``
    or a single worker; each result is the same wherever it is computed."""
    if client is not None or workers == 1 or not jobs:
        return [function(*job) for job in jobs]
    from ..pools import process_pool

    with process_pool(min(workers, len(jobs))) as pool:
        return list(pool.map(function, *zip(*jobs)))


def _check_job(name: str, setting: str, horizon: int, runs: int, seed: int, backend: str):
    """One algorithm's regret check (:func:`~dpbandits.bounds.simulated.check_algorithm`) on
    one core, in a worker process."""
    from ..bounds.simulated import check_algorithm

    return check_algorithm(name, setting=setting, horizon=horizon, runs=runs, seed=seed,
                           backend=backend)[0]


BUCKETS = {"respected": "respected", "inconclusive at this size": "inconclusive",
           "violated": "violated", "vacuous at this size": "vacuous"}
"""A regret check's verdict and the key of the bounds part's summary that lists it."""

REPRODUCE_VERDICTS = {"supported": "supported", "contradicted": "contradicted",
                      "depends on reading": "depends", "inconclusive at this size": "inconclusive",
                      "could not fail": "could_not_fail", "could not pass": "could_not_pass",
                      "not testable": "not_testable"}
"""A paper claim's verdict -> its key in the reproduce part's summary (our own checks are kept
apart, under ``our_checks``: "EXPERIMENT: check" -> verdict)."""


BUILDERS: dict[str, Callable[..., Part]] = {
    "algorithms": _algorithms, "audit": _audit_part, "bounds": _bounds_part,
    "reproduce": _reproduce_part,
}
