"""``dpbandits run``: simulate algorithms on a setting or on given Bernoulli means.

Prints the final regret of each algorithm with a 95% interval and writes a CSV of the regret
curves; with ``--plot`` (or ``--log-x``) also a PNG of them. The PNG is asked for because drawing
it imports matplotlib, which took 1.0 s of the 1.6 s a short run took start to finish
(``benchmarks/start_time.py``).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

from .. import limits
from ..errors import DPBanditsError
from ..files import atomic_write, check_names
from ..reference import Bernoulli, get, get_setting, simulate, spec
from ..reference.engine import SimulationResult
from .options import (movielens_folder, add_backend, OK, add_out, add_progress, add_scheduler, add_seed, add_workers, check_out,
                      cluster, epsilon, integer, parse_params, progress_bar, unit_number)

HELP = "simulate algorithms and report their regret"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithms", nargs="+", metavar="ALGO", help="registered algorithm name(s)")
    parser.add_argument("--variant", default=None, help="variant (default: each algorithm's default)")
    parser.add_argument("--epsilon", type=epsilon, default=None,
                        help="privacy parameter epsilon (required when an ALGO is private)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--means", type=unit_number, nargs="+", help="Bernoulli arm means in [0, 1]")
    where.add_argument("--setting", help="a named setting of the papers (see `dpbandits list`)")
    parser.add_argument("--movielens", type=movielens_folder, default=None, metavar="DIR",
                        help="MovieLens-1M folder for the chandak-movielens setting (never downloaded)")
    parser.add_argument("--horizon", type=integer(1, limits.MAX_HORIZON), default=None,
                        help="horizon T (default: the setting's horizon)")
    parser.add_argument("--runs", type=integer(1, limits.MAX_RUNS), default=20,
                        help="independent runs R (default %(default)s)")
    add_seed(parser)
    parser.add_argument("--param", action="append", default=[], metavar="[ALGO:]NAME=VALUE",
                        help="a parameter of one algorithm, e.g. --param dp-ucb-int:interval=y "
                             "(repeatable; see `dpbandits list`)")
    add_workers(parser)
    add_backend(parser)
    add_scheduler(parser, "run the blocks on a Dask cluster (needs dpbandits[distributed])")
    add_out(parser, help="output folder for the CSV (and the PNG with --plot)")
    parser.add_argument("--plot", action="store_true",
                        help="also draw the regret curves as a PNG (imports matplotlib: about 1 s)")
    parser.add_argument("--log-x", action="store_true",
                        help="logarithmic time axis in the plot (implies --plot)")
    parser.add_argument("--per-run", action="store_true",
                        help="also write a CSV with every run's final pseudo-regret, realised "
                             "regret and pulls of each arm")
    add_progress(parser)


def _source(args: argparse.Namespace):
    """The reward source, its matroid (or None) and the horizon."""
    from ..reference.matroid.data import DATA_HELP, MATROID_SETTINGS, matroid_setting

    if args.movielens is not None and args.setting != "chandak-movielens":
        raise DPBanditsError("--movielens applies only to --setting chandak-movielens")
    if args.setting == "chandak-movielens" and args.movielens is None:
        raise DPBanditsError(f"--setting chandak-movielens needs --movielens DIR: {DATA_HELP}")
    if args.setting in MATROID_SETTINGS:
        options = {"path": args.movielens} if args.movielens else {}
        source = matroid_setting(args.setting, **options)
        if args.horizon is None:
            raise DPBanditsError("--horizon is required with a matroid setting")
        return source, source.matroid, args.horizon
    if args.setting is not None:
        setting = get_setting(args.setting)
        return setting.environment(), None, setting.horizon if args.horizon is None else args.horizon
    if args.horizon is None:
        raise DPBanditsError("--horizon is required with --means")
    return Bernoulli(np.array(args.means)), None, args.horizon


def _factories(args: argparse.Namespace, source, matroid, T: int) -> list:
    from ..reference.matroid.data import MATROID_SETTINGS

    chosen = parse_params(args.param, args.algorithms)
    private = [name for name in args.algorithms if get(name).private]
    if args.epsilon is not None and not private:
        raise DPBanditsError(f"--epsilon does not apply: {', '.join(args.algorithms)} "
                             f"{'is' if len(args.algorithms) == 1 else 'are'} not private")
    factories = []
    for name, params in zip(args.algorithms, chosen.values()):
        cls = get(name)
        if cls.private and args.epsilon is None:
            raise DPBanditsError(f"{name} is private: --epsilon is required")
        params = dict(params)
        if (cls.feedback == "semi") != (matroid is not None):
            needs = "a matroid setting" if cls.feedback == "semi" else "a setting of arms, not a matroid"
            raise DPBanditsError(f"{name} needs {needs}; matroid settings: "
                                 f"{', '.join(sorted(MATROID_SETTINGS))}")
        if matroid is not None:
            params["matroid"] = matroid
        factories.append(spec(name, source.K, epsilon=args.epsilon if cls.private else None,
                              variant=args.variant, T=T, **params))
    return factories


def run(args: argparse.Namespace) -> int:
    if len(set(args.algorithms)) != len(args.algorithms):
        raise DPBanditsError(f"an algorithm is named twice: {' '.join(args.algorithms)}")
    source, matroid, T = _source(args)
    runs, seed, workers = args.runs, args.seed, args.workers
    limits.check_simulation_size(runs, T, source.K)
    factories = _factories(args, source, matroid, T)
    out = check_out(args.out)
    stem = f"run-{'+'.join(args.algorithms)}-eps{args.epsilon}-T{T}-R{runs}-seed{seed}"
    csv_path, png_path, per_run_path = (out / f"{stem}.csv", out / f"{stem}.png",
                                        out / f"{stem}-per-run.csv")
    plot = args.plot or args.log_x
    check_names(out, [csv_path.name] + ([png_path.name] if plot else [])
                + ([per_run_path.name] if args.per_run else []))

    results = []
    with cluster(args.scheduler) as client:
        for factory in factories:
            label = factory.name + (f"[{factory.variant}]" if factory.variant else "")
            with progress_bar(runs * T, label, disabled=args.no_progress) as bar:
                results.append(simulate(factory, source, T, runs=runs, seed=seed, workers=workers,
                                        client=client, progress=bar.update,
                                        backend=args.backend))

    # The files first: a closed or full standard output must not lose the results.
    _write_csv(csv_path, factories, results)
    if plot:
        _plot(png_path, factories, results, source.means, log_x=args.log_x)
    if args.per_run:
        _write_per_run(per_run_path, factories, results)

    backends = ", ".join(sorted({r.backend for r in results}))
    print(f"means = {source.means.tolist()}, T = {T}, runs = {runs}, seed = {seed}, "
          f"backend = {backends}")
    print(f"{'algorithm':<28}{'pseudo-regret (95% CI)':<34}{'realised regret (95% CI)'}")
    for factory, result in zip(factories, results):
        print(f"{_label(factory):<28}{_interval(result, 'pseudo'):<34}{_interval(result, 'realised')}")
    print(f"wrote {csv_path} and {png_path}" if plot else f"wrote {csv_path}")
    if args.per_run:
        print(f"wrote {per_run_path}")
    return OK


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
    rows = [("algorithm", "backend", "t", "pseudo_mean", "pseudo_low", "pseudo_high",
             "realised_mean", "realised_low", "realised_high")]
    for factory, result in zip(factories, results):
        pseudo_band = result.confidence_band("pseudo")
        realised_band = result.confidence_band("realised")
        pseudo, realised = result.mean_curve("pseudo"), result.mean_curve("realised")
        for i, t in enumerate(result.checkpoints):
            rows.append((_label(factory), result.backend, int(t), pseudo[i], pseudo_band[0][i], pseudo_band[1][i],
                         realised[i], realised_band[0][i], realised_band[1][i]))
    atomic_write(path, lambda handle: csv.writer(handle).writerows(rows), mode="w")


def _write_per_run(path: Path, factories, results) -> None:
    """One row per algorithm and run: the final pseudo-regret, realised regret and pulls of
    every arm at T (the values behind the printed means and intervals)."""
    K = results[0].pulls.shape[1]
    rows = [("algorithm", "backend", "run", "T", "pseudo_regret", "realised_regret",
             *(f"pulls_arm_{a}" for a in range(K)))]
    for factory, result in zip(factories, results):
        for i in range(result.runs):
            rows.append((_label(factory), result.backend, i, int(result.checkpoints[-1]),
                         float(result.pseudo_regret[i, -1]), float(result.realised_regret[i, -1]),
                         *(int(x) for x in result.pulls[i])))
    atomic_write(path, lambda handle: csv.writer(handle).writerows(rows), mode="w")


def _plot(path: Path, factories, results, means: np.ndarray, *, log_x: bool) -> None:
    from matplotlib.figure import Figure     # no pyplot: no GUI backend, half the import time

    figure = Figure(figsize=(7, 4.5))
    axes = figure.subplots()
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
    atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=120), mode="wb")
