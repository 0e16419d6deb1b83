"""Run audits: one registered algorithm, any mechanism, or every algorithm and variant at once.

Defaults (``samples`` = runs per side of the test sample; each candidate pair's selection sample
is ``samples // 5`` runs per side, at least 2000): K is the arm count of the algorithm's design
or of its known worst cases (docs/errata.md) (5 for FTNL, 2 for Wu and Wang's RNM-FTNL, 2 for
the designed pairs of the hybrid-counter UCBs and DP-SE, otherwise 3), T = 16 rounds (the
designed pairs' horizon, :func:`dpbandits.audit.design.designed_horizon`, where one is designed:
2740 for DP-SE at eps = 1). The pairs are the
designed pairs (:func:`dpbandits.audit.design.designed_pairs`), the known worst cases
(:data:`dpbandits.audit.pairs.KNOWN_PAIRS`) and the generic candidates of
:func:`dpbandits.audit.pairs.candidate_pairs` at the algorithm's release rounds.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable

from ..errors import DPBanditsError, check_epsilon, check_positive_int, check_seed
from ..files import write_atomically
from ..reference.declarations import AuditPreset
from ..reference.privacy import STATUS_WORD
from ..reference.registry import ALGORITHMS, Declared, canonical, get
from .mechanism import Mechanism, RegistryMechanism
from .design import DESIGNED_ARMS, designed_horizon, designed_pairs, designed_selection
from .pairs import DEFAULT_ARMS, Pair, candidate_pairs, known_pairs
from .result import AuditResult
from .testers import EventStages, event_result, event_stages
from .toys import TOY_VARIANTS, ToyThreshold
from .whitebox import CounterMechanism, InternalStatistics, stream_pairs

__all__ = ["audit", "audit_algorithm", "audit_all", "controls", "claims_table", "DEFAULT_HORIZON",
           "AUDIT_PRESETS", "algorithm_of_row", "replace_rows"]

DEFAULT_HORIZON = 16


def audit(mechanism: Mechanism, pairs: list[Pair] | None = None, *, samples: int = 50_000,
          alpha: float = 0.05, seed: int = 0, T: int = DEFAULT_HORIZON,
          progress: Callable[[str], None] | None = None, workers: int | None = None,
          client=None, n_selection: int | None = None) -> AuditResult:
    """Audit any mechanism: the event tester on the given or generic candidate pairs.

    ``workers`` (local processes) and ``client`` (a Dask client), when given, replace those of a
    :class:`RegistryMechanism` (on a copy) and only change where its runs are simulated, not the
    result. Other mechanisms take their parallelism when constructed (an external program's
    ``workers=``); passing either here for them raises :class:`DPBanditsError`.
    """
    samples = check_positive_int(samples, "samples", minimum=100)
    seed = check_seed(seed)
    if workers is not None or client is not None:
        if not isinstance(mechanism, RegistryMechanism):
            raise DPBanditsError(f"workers= and client= apply to registered algorithms only; "
                                 f"{mechanism.label} sets its parallelism when constructed")
        mechanism = copy.copy(mechanism)
        if workers is not None:
            mechanism.workers = check_positive_int(workers, "workers")
        if client is not None:
            mechanism.client = client
    return event_result(_stages(mechanism, pairs, samples=samples, alpha=alpha, seed=seed, T=T,
                                progress=progress, n_selection=n_selection))


def _stages(mechanism: Mechanism, pairs: list[Pair] | None, *, samples: int, alpha: float,
            seed: int, T: int, progress: Callable[[str], None] | None,
            n_selection: int | None) -> EventStages:
    """The selection and test stages of :func:`audit` (the arguments checked there)."""
    if pairs is None:
        pairs = candidate_pairs(mechanism.K, T, boundaries=mechanism.epoch_boundaries(T),
                                row_zero=getattr(mechanism, "observes_round_zero", False))
    n_selection = max(2000, samples // 5) if n_selection is None else n_selection
    return event_stages(mechanism, pairs, n_selection=n_selection, n_test=samples,
                        alpha=alpha, seed=seed, progress=progress)


def audit_algorithm(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                    K: int | None = None, T: int | None = None, params: dict[str, Any] | None = None,
                    samples: int = 50_000, alpha: float = 0.05, seed: int = 0,
                    white_box: bool = False, workers: int = 1, client=None,
                    progress: Callable[[str], None] | None = None,
                    backend: str = "auto") -> AuditResult:
    """Audit registered algorithm ``name`` (and ``variant``) against its claim at ``epsilon``.

    ``workers`` (local processes) and ``client`` (a Dask client) only change where the runs are
    simulated: samples come from the engine's seeded blocks, so the result is identical.
    ``backend`` is the engine's (:func:`dpbandits.reference.engine.simulate`); the result records
    the one that ran.
    """
    from ..reference.engine import check_backend

    check_backend(backend)
    name = canonical(name)
    epsilon, seed = check_epsilon(epsilon), check_seed(seed)
    params = dict(params or {})
    K = K or DESIGNED_ARMS.get(name) or DEFAULT_ARMS.get(name, 3)
    T = check_positive_int(T or (designed_horizon(name, K, epsilon) if name in DESIGNED_ARMS
                                 else None) or DEFAULT_HORIZON, "T")
    if white_box:
        mechanism: Mechanism = InternalStatistics(name, K, epsilon, variant, params)
    else:
        mechanism = RegistryMechanism(name, K, epsilon, variant, params, T=T, workers=workers,
                                      client=client, backend=backend)
    policy = getattr(mechanism, "_policy", None)
    row_zero = bool(getattr(policy, "observes_round_zero", False))
    relation = mechanism.claimed.relation if mechanism.claimed else None
    designed = [] if white_box else designed_pairs(name, K, epsilon, variant, T)
    n_selection = None
    if designed:
        pairs = designed + known_pairs(name, K, T)
        n_selection = designed_selection(name, samples)
    else:
        pairs = known_pairs(name, K, T) + candidate_pairs(
            K, T, boundaries=mechanism.epoch_boundaries(T), row_zero=row_zero,
            **({"relation": relation} if relation is not None else {}))
    if getattr(mechanism, "feedback", "") == "semi":
        pairs = [p for p in pairs if p.D0.X0 is not None] or pairs
    samples = check_positive_int(samples, "samples", minimum=100)
    stages = _stages(mechanism, pairs, samples=samples, alpha=alpha, seed=seed, T=T,
                     progress=progress, n_selection=n_selection)
    return event_result(stages, backend=",".join(stages.backends))


def controls(epsilon: float = 1.0, *, samples: int = 50_000, alpha: float = 0.05,
             seed: int = 0, workers: int = 1) -> list[AuditResult]:
    """The audit's own controls: toy mechanisms with known loss, and the hybrid counter white-box
    (side by side on ``workers`` local processes; each result is the same wherever it runs)."""
    jobs = [(i, epsilon, samples, alpha, seed) for i in range(len(TOY_VARIANTS) + 2)]
    if workers == 1:
        return [_control(*job) for job in jobs]
    from ..pools import process_pool

    with process_pool(min(workers, len(jobs))) as pool:
        return list(pool.map(_control, *zip(*jobs)))


def _control(i: int, epsilon: float, samples: int, alpha: float, seed: int) -> AuditResult:
    """The ``i``-th control of :func:`controls`."""
    if i < len(TOY_VARIANTS):
        return audit(ToyThreshold(TOY_VARIANTS[i], epsilon), samples=samples, alpha=alpha,
                     seed=seed, T=6)
    split = ("paper", "chan")[i - len(TOY_VARIANTS)]
    return audit(CounterMechanism("hybrid", epsilon, split), stream_pairs(8), samples=samples,
                 alpha=alpha, seed=seed)


AUDIT_PRESETS: Mapping[str, dict[str, Any]] = Declared("audit_preset", AuditPreset.settings)
"""Settings under which ``audit_all`` audits an algorithm instead of the common ones: each
algorithm's ``audit_preset`` declaration, which says why (for DP-UCB-INT the parameters of the
counterexample in docs/errata.md#td-int-loop; for DP-UCB the test sample at which its designed
pairs refute the printed variant's claim, docs/audit-design.md)."""


def audit_all(epsilon: float = 1.0, *, samples: int = 20_000, alpha: float = 0.05, seed: int = 0,
              include_controls: bool = True, presets: dict[str, dict[str, Any]] | None = None,
              workers: int = 1, client=None, resume: str | Path | None = None,
              names: list[str] | None = None,
              progress: Callable[[str], None] | None = None,
              backend: str = "auto") -> list[AuditResult]:
    """Audit every registered algorithm and variant (and, by default, the controls).

    ``presets`` override :data:`AUDIT_PRESETS`. With ``resume=DIR`` every finished audit is
    written at once to ``DIR/<algorithm>-<variant>.json`` with the parameters that produced it,
    and a re-run with the same parameters reads it back instead of recomputing, so an
    interrupted ``--all`` resumes where it stopped. ``names`` restricts the audit to some
    algorithms (all their variants).

    ``workers > 1`` runs whole audits side by side in that many local processes, and a Dask
    ``client`` runs them on its cluster, each audit on one core (the largest first); one audit
    at a time uses ``workers`` only inside itself. Every audit is seeded by its own arguments, so
    the results, in the same order, are those of ``workers = 1``. ``progress`` gets one message
    per audit: before it starts when they run one after another, when it ends otherwise.
    """
    workers = check_positive_int(workers, "workers")
    chosen_names = [canonical(n) for n in names] if names else list(ALGORITHMS)
    jobs = [(name, v.name) for name in chosen_names for v in get(name).variants]
    chosen = {**AUDIT_PRESETS, **(presets or {})}
    folder = Path(resume) if resume is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    results: list[AuditResult | None] = [None] * len(jobs)
    todo: list[tuple[int, dict, dict]] = []
    for i, (name, variant) in enumerate(jobs):
        preset = dict(epsilon=epsilon, samples=samples)
        preset.update(chosen.get(name, {}))
        key = dict(name=name, variant=variant, alpha=alpha, seed=seed, backend=backend, **preset)
        cached = _cached(folder, f"{name}-{variant}", key, progress)
        if cached is not None:
            if progress:
                progress(f"[{i + 1}/{len(jobs)}] {name} [{variant}]: reused")
            results[i] = cached
            continue
        todo.append((i, key, dict(name=name, variant=variant, alpha=alpha, seed=seed,
                                  backend=backend, **preset)))
    side_by_side = client is not None or (workers > 1 and len(todo) > 1)
    if side_by_side:
        done = _audits_side_by_side(todo, workers, client)
    else:
        done = ((i, key, audit_algorithm(**arguments, workers=workers, client=client))
                for i, key, arguments in _announced(todo, jobs, progress))
    for i, key, result in done:
        name, variant = jobs[i]
        _store(folder, f"{name}-{variant}", key, result)
        results[i] = result
        if progress and side_by_side:
            progress(f"[{i + 1}/{len(jobs)}] {name} [{variant}]: done")
    finished = [r for r in results if r is not None]
    if include_controls:
        if progress:
            progress("controls")
        finished.extend(controls(epsilon, samples=samples, alpha=alpha, seed=seed,
                                 workers=workers if client is None else 1))
    return finished


def _announced(todo, jobs, progress):
    """The audits of ``todo`` one after another, each announced before it starts."""
    for i, key, arguments in todo:
        if progress:
            name, variant = jobs[i]
            progress(f"[{i + 1}/{len(jobs)}] {name} [{variant}]")
        yield i, key, arguments


def _audit_job(arguments: dict) -> AuditResult:
    """One whole audit on one core, in a worker process or on a Dask worker."""
    return audit_algorithm(**arguments, workers=1)


def _cost(arguments: dict) -> float:
    """A rough relative cost of an audit (test runs times rounds), to start the largest first:
    the last audits to finish are then short ones, and the cores stay busy."""
    return arguments["samples"] * (arguments.get("T") or DEFAULT_HORIZON)


def _audits_side_by_side(todo: list[tuple[int, dict, dict]], workers: int, client):
    """Yield (index, key, result) for every audit of ``todo`` as it finishes, the audits run
    side by side on ``workers`` local processes or on the Dask ``client``'s cluster."""
    order = sorted(todo, key=lambda job: -_cost(job[2]))
    if client is not None:
        from distributed import as_completed

        futures = {client.submit(_audit_job, arguments, pure=False, retries=2): (i, key)
                   for i, key, arguments in order}
        for future in as_completed(futures):
            i, key = futures[future]
            yield i, key, future.result()
        return
    from concurrent.futures import as_completed as completed

    from ..pools import process_pool

    with process_pool(min(workers, len(order))) as pool:
        futures = {pool.submit(_audit_job, arguments): (i, key) for i, key, arguments in order}
        for future in completed(futures):
            i, key = futures[future]
            yield i, key, future.result()


def _cached(folder: Path | None, stem: str, key: dict,
            progress: Callable[[str], None] | None = None) -> AuditResult | None:
    """The stored result of audit ``stem`` when it was made with ``key``, else None.

    A damaged file (not JSON, not the layout :func:`_store` writes, or a result that does not
    load) counts as not cached: the audit is run again and overwrites it, and one progress line
    names the file (docs/cli.md#resuming)."""
    if folder is None:
        return None
    path = folder / f"{stem}.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:          # ValueError: bad JSON or bad UTF-8
        return _damaged(path, type(error).__name__, progress)
    if not isinstance(data, dict) or not isinstance(data.get("result"), dict):
        return _damaged(path, "not a stored audit", progress)
    if data.get("key") != json.loads(json.dumps(key)):
        return None
    try:
        result = AuditResult.from_dict(data["result"])
        result.to_dict()                            # its derived fields (verdict) compute
        return result
    except Exception as error:                      # any damage inside the stored result
        return _damaged(path, type(error).__name__, progress)


def _damaged(path: Path, why: str, progress: Callable[[str], None] | None) -> None:
    if progress:
        progress(f"{path} is damaged ({why}): not reused, the audit runs again")
    return None


def _store(folder: Path | None, stem: str, key: dict, result: AuditResult) -> None:
    if folder is None:
        return
    write_atomically(folder / f"{stem}.json", json.dumps({"key": key, "result": result.to_dict()}))


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return "inf" if value == float("inf") else f"{value:.3f}"


def _bracket(r: AuditResult) -> str:
    """[audit lower, exact, traced upper] and the accountant's verdict (docs/accountant.md)."""
    from ..accountant import TooLargeToTrace, _parse_label, audit_bracket

    name = _parse_label(r.mechanism)[0]
    try:
        b = audit_bracket(r.to_dict(), AUDIT_PRESETS.get(name, {}).get("epsilon"))
    except TooLargeToTrace:
        return "- (no traced upper bound at this size)"
    return "-" if b is None else b.text()


def algorithm_of_row(row: dict) -> str:
    """The registered name a row of the claims table audits (its label without the variant and
    parameters: ``dp-ucb-int[paper] v=1.5`` -> ``dp-ucb-int``); a control's name otherwise."""
    return str(row["mechanism"]).split("[", 1)[0].split(" ", 1)[0]


def replace_rows(rows: list[dict], results: list[AuditResult], names: list[str]) -> list[dict]:
    """The claims table ``rows`` (``AuditResult.to_dict()`` rows, as ``audit --all`` writes
    them) with every row of the algorithms ``names`` replaced by ``results``; the other rows are
    kept as they are, field for field. The order is ``audit --all``'s: the registry's, then the
    rows of anything else (the controls) in their present order."""
    names = [canonical(n) for n in names]
    new = [r.to_dict() for r in results]
    ordered = []
    for name in ALGORITHMS:
        source = new if name in names else rows
        ordered += [row for row in source if algorithm_of_row(row) == name]
    return ordered + [row for row in rows if algorithm_of_row(row) not in ALGORITHMS]


def claims_table(results: list[AuditResult], brackets: list[str] | None = None) -> str:
    """A Markdown table: mechanism, claim, lower bound, certificate, exact loss, verdict, and the
    bracket [audit lower bound, exact value, traced upper bound] with the accountant's verdict
    (``brackets``: each result's, when already computed elsewhere, e.g. in worker processes)."""
    brackets = brackets if brackets is not None else [_bracket(r) for r in results]
    lines = ["| mechanism | claim | known status (see the errata) | eps lower bound (95%) | certificate | "
             "exact eps of the pair | verdict | bracket [lower, exact, traced upper] |",
             "|---|---|---|---|---|---|---|---|"]
    for r, bracket in zip(results, brackets):
        claim = "-" if r.claimed_epsilon is None else f"{r.claimed_epsilon:g}-DP [{r.relation}]"
        status = STATUS_WORD.get(r.claim_status, r.claim_status) or "-"
        lines.append(f"| {r.mechanism} | {claim} | {status} | "
                     f"{_fmt(r.epsilon_lower_bound)} | {_fmt(r.certificate)} | "
                     f"{_fmt(r.exact_epsilon)} | {r.verdict} | {bracket} |")
    return "\n".join(lines)
