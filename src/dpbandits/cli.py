"""The ``dpbandits`` command.

``dpbandits list``  every registered algorithm, its paper, setting, variants and privacy claims;
``dpbandits run``   simulate one or more algorithms on a setting or on given Bernoulli means,
                    print final regret with a 95% interval, write a CSV and a regret-curve PNG.

Invalid input prints one line, ``dpbandits: error: ...``, and exits with status 2.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import DPBanditsError, check_epsilon, check_positive_int
from .files import atomic_write as _atomic_write
from .reference import Bernoulli, algorithms, get, get_setting, simulate, spec
from .reference.registry import ALGORITHMS as _REGISTERED
from .reference.engine import SimulationResult

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise DPBanditsError(message)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dpbandits", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    listing = commands.add_parser("list", help="list every algorithm with its paper and claim")
    listing.add_argument("--epsilon", type=float, default=1.0,
                         help="epsilon at which the claims are evaluated (default 1)")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")

    run = commands.add_parser("run", help="simulate algorithms and report their regret")
    run.add_argument("algorithms", nargs="+", metavar="ALGO", help="registered algorithm name(s)")
    run.add_argument("--variant", default=None, help="variant (default: each algorithm's default)")
    run.add_argument("--epsilon", type=float, default=None, help="privacy parameter epsilon")
    where = run.add_mutually_exclusive_group(required=True)
    where.add_argument("--means", type=float, nargs="+", help="Bernoulli arm means in [0, 1]")
    where.add_argument("--setting", help="a named setting of the papers (see `dpbandits list`)")
    run.add_argument("--movielens", default=None, metavar="DIR",
                     help="MovieLens-1M folder for the chandak-movielens setting (never downloaded)")
    run.add_argument("--horizon", type=int, default=None,
                     help="horizon T (default: the setting's horizon)")
    run.add_argument("--runs", type=int, default=20, help="independent runs R (default 20)")
    run.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="an algorithm parameter, e.g. --param interval=y (repeatable)")
    run.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    run.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="run the blocks on a Dask cluster (needs dpbandits[distributed])")
    run.add_argument("--out", default="dpbandits-out", help="output folder for CSV and PNG")
    run.add_argument("--log-x", action="store_true", help="logarithmic time axis in the plot")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    audit = commands.add_parser("audit", help="estimate a lower bound on epsilon and test the claim")
    audit.add_argument("algorithm", nargs="?", metavar="ALGO", help="registered algorithm name")
    audit.add_argument("--all", action="store_true", help="audit every algorithm and variant")
    audit.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                       help="audit an external program speaking the line protocol")
    audit.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    audit.add_argument("--epsilon", type=float, default=1.0, help="epsilon of the algorithm (default 1)")
    audit.add_argument("--claim-epsilon", type=float, default=None,
                       help="the epsilon an external program claims")
    audit.add_argument("--arms", type=int, default=None, help="number of arms K")
    audit.add_argument("--horizon", type=int, default=None, help="rounds T per run (default 16)")
    audit.add_argument("--samples", type=int, default=None,
                       help="test-sample runs per side (default 50000; 20000 per algorithm with --all)")
    audit.add_argument("--alpha", type=float, default=0.05, help="1 - confidence (default 0.05)")
    audit.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    audit.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                       help="algorithm parameter (repeatable)")
    audit.add_argument("--white-box", action="store_true",
                       help="audit the noisy statistics the algorithm releases, not its actions")
    audit.add_argument("--protocol", choices=("table", "interactive"), default="table",
                       help="line protocol of the external program (default table)")
    audit.add_argument("--feedback", choices=("bandit", "full"), default="bandit",
                       help="what the external program observes (default bandit)")
    audit.add_argument("--timeout", type=float, default=10.0,
                       help="seconds an external program may take per run (default 10)")
    audit.add_argument("--workers", type=int, default=1,
                       help="worker processes (simulations, or external program instances)")
    audit.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="simulate on a Dask cluster (needs dpbandits[distributed]); same result")
    audit.add_argument("--out", default="dpbandits-out", help="output folder for --all")
    audit.add_argument("--json", action="store_true", help="print the result as JSON")
    audit.add_argument("--no-progress", action="store_true", help="hide progress messages")
    for name, module in _COMMANDS:
        command = importlib.import_module(module)
        command.add_arguments(commands.add_parser(name, help=command.HELP))
    return parser


_COMMANDS: tuple[tuple[str, str], ...] = (
    # Further subcommands: each module defines HELP, add_arguments(parser) and run(args) -> int.
    ("bounds", "dpbandits.bounds.cli"),
    ("report", "dpbandits.report"),
    ("reproduce", "dpbandits.reproduce"),
    ("validate", "dpbandits.validate.cli"),
)
"""Subcommands implemented outside this file, as (name, module)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpbandits`` console script."""
    try:
        args = _build_parser().parse_args(argv)
        if args.command == "list":
            return _list(args)
        if args.command == "audit":
            return _audit(args)
        if args.command == "run":
            return _run(args)
        return importlib.import_module(dict(_COMMANDS)[args.command]).run(args)
    except DPBanditsError as error:
        print(f"dpbandits: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpbandits: interrupted", file=sys.stderr)
        return 130


def _list(args: argparse.Namespace) -> int:
    epsilon = check_epsilon(args.epsilon)
    infos = algorithms(epsilon)
    if args.json:
        print(json.dumps([info.__dict__ for info in infos], indent=2))
        return 0
    print(f"Privacy claims evaluated at epsilon = {epsilon:g}; [row] = one reward vector replaced.\n")
    for info in infos:
        horizon = ", needs T" if info.needs_horizon else ""
        print(f"{info.name}  ({info.title}; {info.feedback}{horizon})")
        print(f"    source:   {info.paper}")
        for variant, claim in info.claims.items():
            default = " (default)" if variant == info.default_variant else ""
            print(f"    {variant + default + ':':<22}{claim}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from .reference.matroid.data import MATROID_SETTINGS, matroid_setting

    matroid = None
    if args.setting in MATROID_SETTINGS:
        options = {"path": args.movielens} if args.movielens else {}
        source = matroid_setting(args.setting, **options)
        matroid = source.matroid
        if args.horizon is None:
            raise DPBanditsError("--horizon is required with a matroid setting")
        horizon = args.horizon
    elif args.setting is not None:
        setting = get_setting(args.setting)
        source = setting.environment()
        horizon = setting.horizon if args.horizon is None else args.horizon
    else:
        source = Bernoulli(np.array(args.means))
        if args.horizon is None:
            raise DPBanditsError("--horizon is required with --means")
        horizon = args.horizon
    T = check_positive_int(horizon, "horizon")
    runs = check_positive_int(args.runs, "runs")
    seed = check_positive_int(args.seed, "seed", minimum=0)
    workers = check_positive_int(args.workers, "workers")
    factories = []
    for name in args.algorithms:
        cls = get(name)
        if cls.private and args.epsilon is None:
            raise DPBanditsError(f"{name} is private: --epsilon is required")
        epsilon = check_epsilon(args.epsilon) if cls.private else None
        params = _params(args.param)
        if (cls.feedback == "semi") != (matroid is not None):
            raise DPBanditsError(f"{name} needs {'a matroid setting' if cls.feedback == 'semi' else 'a setting of arms, not a matroid'}; "
                                 f"matroid settings: {', '.join(sorted(MATROID_SETTINGS))}")
        if matroid is not None:
            params["matroid"] = matroid
        factories.append(spec(name, source.K, epsilon=epsilon, variant=args.variant, T=T, **params))

    client = _dask_client(args.scheduler)
    results = []
    try:
        for factory in factories:
            label = factory.name + (f"[{factory.variant}]" if factory.variant else "")
            with _progress(runs * T, label, disabled=args.no_progress) as bar:
                results.append(simulate(factory, source, T, runs=runs, seed=seed, workers=workers,
                                        client=client, progress=bar.update))
    finally:
        if client is not None:
            client.close()

    print(f"means = {source.means.tolist()}, T = {T}, runs = {runs}, seed = {seed}")
    print(f"{'algorithm':<28}{'pseudo-regret (95% CI)':<34}{'realised regret (95% CI)'}")
    for factory, result in zip(factories, results):
        print(f"{_label(factory):<28}{_interval(result, 'pseudo'):<34}{_interval(result, 'realised')}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"run-{'+'.join(args.algorithms)}-eps{args.epsilon}-T{T}-R{runs}-seed{seed}"
    csv_path, png_path = out / f"{stem}.csv", out / f"{stem}.png"
    _write_csv(csv_path, factories, results)
    _plot(png_path, factories, results, source.means, log_x=args.log_x)
    print(f"wrote {csv_path} and {png_path}")
    return 0


def _dask_client(address: str | None):
    """A Dask client connected to ``address`` (None: no cluster); a clear error if unavailable."""
    if address is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise DPBanditsError("--scheduler needs Dask: pip install 'dpbandits[distributed]'") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError) as error:
        raise DPBanditsError(f"cannot reach the Dask scheduler at {address!r}: {error}") from None


def _audit(args: argparse.Namespace) -> int:
    from .audit import audit, audit_algorithm, audit_all, claims_table

    chosen = [bool(args.algorithm), bool(args.all), bool(args.external)]
    if sum(chosen) != 1:
        raise DPBanditsError("give exactly one of ALGO, --all or --command")
    say = (lambda message: None) if args.no_progress else (
        lambda message: print(f"  {message}", file=sys.stderr, flush=True))
    workers = check_positive_int(args.workers, "workers")
    if args.all:
        start = time.perf_counter()
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        client = _dask_client(args.scheduler)
        jobs = sum(len(get(name).variants) for name in _REGISTERED) + 1
        with _progress(jobs, "audit --all", disabled=args.no_progress, unit=" audits") as bar:
            def step(message: str) -> None:
                bar.set_description_str(message.split("] ", 1)[-1][:40])
                bar.update(1)
            try:
                results = audit_all(check_epsilon(args.epsilon), samples=args.samples or 20_000,
                                    alpha=args.alpha, seed=args.seed, workers=workers,
                                    client=client, resume=out / "audit-results", progress=step)
            finally:
                if client is not None:
                    client.close()
        table = claims_table(results)
        _atomic_write(out / "audit-claims.md", lambda h: h.write(table + "\n"), mode="w")
        _atomic_write(out / "audit-claims.json",
                      lambda h: h.write(json.dumps([r.to_dict() for r in results], indent=1)), mode="w")
        print(json.dumps([r.to_dict() for r in results], indent=1) if args.json else table)
        print(f"\n{sum(r.verdict == 'violation' for r in results)} violation(s) in {len(results)} "
              f"audits, {time.perf_counter() - start:.0f} s; wrote {out / 'audit-claims.md'} and "
              f"{out / 'audit-claims.json'}", file=sys.stderr)
        return 0
    if args.external:
        from .audit.external import CommandMechanism

        if args.claim_epsilon is None or args.arms is None:
            raise DPBanditsError("--command needs --claim-epsilon and --arms")
        mechanism = CommandMechanism(args.external, check_positive_int(args.arms, "arms", minimum=2),
                                     check_epsilon(args.claim_epsilon, "claim-epsilon"),
                                     protocol=args.protocol, feedback=args.feedback,
                                     workers=args.workers, timeout=args.timeout)
        result = audit(mechanism, samples=args.samples or 20_000, alpha=args.alpha, seed=args.seed,
                       T=args.horizon or 16, progress=say)
    else:
        client = _dask_client(args.scheduler)
        try:
            result = audit_algorithm(args.algorithm, epsilon=check_epsilon(args.epsilon),
                                     variant=args.variant, K=args.arms, T=args.horizon,
                                     params=_params(args.param), samples=args.samples or 50_000,
                                     alpha=args.alpha, seed=args.seed, white_box=args.white_box,
                                     workers=workers, client=client, progress=say)
        finally:
            if client is not None:
                client.close()
    print(result.to_json(indent=1) if args.json else _describe(result))
    return 0


def _describe(result) -> str:
    counts = result.counts
    lines = [result.summary(),
             f"  pair:  {result.pair['description']} (T = {result.pair['T']}, K = {result.pair['K']})",
             f"  event: {result.event}",
             f"  test sample: {counts.get('in_S_D0', '-')} of {counts['n_D0']} runs on D0 and "
             f"{counts.get('in_S_D1', '-')} of {counts['n_D1']} on D1 in the event; selection "
             f"{result.n_selection} runs per side and pair, {counts['candidate_pairs']} candidate pairs",
             f"  point estimate (not a bound): {result.epsilon_estimate:.3f}; {result.seconds:.1f} s"]
    return "\n".join(lines)


def _params(pairs: list[str]) -> dict[str, object]:
    """Parse NAME=VALUE pairs; values become int, float or str, in that order of preference."""
    params: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.isidentifier():
            raise DPBanditsError(f"--param must look like NAME=VALUE, got {pair!r}")
        value: object = text
        for convert in (int, float):
            try:
                value = convert(text)
                break
            except ValueError:
                continue
        params[name] = value
    return params


def _label(factory) -> str:
    cls = get(factory.name)
    if len(cls.variants) == 1:
        return factory.name
    return f"{factory.name}[{factory.variant or cls.default_variant}]"


def _interval(result: SimulationResult, kind: str) -> str:
    mean, low, high = result.final(kind)
    if np.isnan(low):
        return f"{mean:.1f} (one run: no interval)"
    return f"{mean:.1f} ({low:.1f}, {high:.1f})"


def _write_csv(path: Path, factories, results) -> None:
    rows = [("algorithm", "t", "pseudo_mean", "pseudo_low", "pseudo_high",
             "realised_mean", "realised_low", "realised_high")]
    for factory, result in zip(factories, results):
        pseudo_band = result.confidence_band("pseudo")
        realised_band = result.confidence_band("realised")
        pseudo, realised = result.mean_curve("pseudo"), result.mean_curve("realised")
        for i, t in enumerate(result.checkpoints):
            rows.append((_label(factory), int(t), pseudo[i], pseudo_band[0][i], pseudo_band[1][i],
                         realised[i], realised_band[0][i], realised_band[1][i]))
    _atomic_write(path, lambda handle: csv.writer(handle).writerows(rows), mode="w")


def _plot(path: Path, factories, results, means: np.ndarray, *, log_x: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for factory, result in zip(factories, results):
        mean = result.mean_curve()
        low, high = result.confidence_band()
        axes.plot(result.checkpoints, mean, label=_label(factory))
        if result.runs > 1:
            axes.fill_between(result.checkpoints, low, high, alpha=0.2)
    axes.set_xlabel("round t")
    axes.set_ylabel("pseudo-regret (mean, 95% CI)")
    axes.set_title(f"means = {np.round(means, 3).tolist()}, runs = {results[0].runs}", fontsize=9)
    if log_x:
        axes.set_xscale("log")
    axes.legend()
    figure.tight_layout()
    _atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=120), mode="wb")
    plt.close(figure)


class _progress:
    """A tqdm bar on stderr (or nothing), used as a context manager with ``update(n)``."""

    def __init__(self, total: int, label: str, disabled: bool, unit: str = " run-rounds") -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=label, unit=unit, unit_scale=unit == " run-rounds",
                        disable=disabled, file=sys.stderr, leave=False)

    def __enter__(self):
        return self.bar

    def __exit__(self, *exc) -> None:
        self.bar.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
