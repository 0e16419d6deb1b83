"""Cost of the reference's one noise source on its normal path (no tracing), against direct draws.

Usage: python benchmarks/noise_source.py [--runs R] [--horizon T] [--repeats N]

Every noisy draw and release of ``dpbandits.reference`` goes through ``dpbandits.reference.noise``
(``laplace``, ``exponential``, ``gumbel``, ``release``, ``publish``, ``resample``), which costs one
test of a module global per call when no tracer is active (docs/accountant.md). The baseline is
the same reference with those functions replaced, in every module that imported them, by the
direct calls they wrap (``rng.laplace(0, scale, size)``, ``value + noise``, ...): the same random
stream and the same arithmetic, so both runs must give bit-identical results, which the script
checks. For each private algorithm with a noise draw per round or per release, R runs of T rounds
on the reference backend (one process), the best of N repeats of each, interleaved. It prints a
Markdown table: run-rounds per second through the source, directly, and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from dpbandits.reference import get_setting, simulate, spec
from dpbandits.reference import noise

ALGORITHMS = ("dp-ucb", "dp-ucb-bound", "hybrid-ucb", "anytime-lazy-ucb", "lazy-dp-ts",
              "rnm-ftnl", "rnm-ftnl-bq", "dpucb-mat")


def _direct() -> dict:
    """The direct calls each source function wraps (its normal path without the global test)."""
    def laplace(rng, scale, size):
        return rng.laplace(0.0, scale, size)

    def exponential(rng, scale, size):
        return rng.exponential(scale, size)

    def gumbel(rng, scale, size):
        return rng.gumbel(0.0, scale, size)

    def draw(rng, family, scale, size):
        return {"laplace": laplace, "exponential": exponential, "gumbel": gumbel}[family](
            rng, scale, size)

    def release(value, noise_, kind="value"):
        return value + noise_

    def publish(value):
        return value

    def resample(rng, x):
        return (rng.random(x.shape) >= 1.0 - x).astype(float)

    return {"laplace": laplace, "exponential": exponential, "gumbel": gumbel, "draw": draw,
            "release": release, "publish": publish, "resample": resample}


def _patch(replacements: dict) -> list[tuple[object, str, object]]:
    """Bind every module's imported source function to its replacement; return what to undo."""
    originals = {name: getattr(noise, name) for name in replacements}
    undo = []
    for module in list(sys.modules.values()):     # the source module itself too: some modules
        if not getattr(module, "__name__", "").startswith("dpbandits.reference"):   # call
            continue                              # noise.draw through the module
        for name, function in replacements.items():
            if getattr(module, name, None) is originals[name]:
                undo.append((module, name, getattr(module, name)))
                setattr(module, name, function)
    return undo


def _run(name: str, runs: int, T: int):
    params = {}
    source = get_setting("hu-journal-setting1").environment()
    if name == "dpucb-mat":
        from dpbandits.reference.matroid.data import matroid_setting

        source = matroid_setting("chandak-synthetic")
        params["matroid"] = source.matroid
    factory = spec(name, source.K, epsilon=1.0, **params)
    start = time.perf_counter()
    result = simulate(factory, source, T, runs=runs, seed=0, backend="reference",
                      record_actions=True)
    return runs * T / (time.perf_counter() - start), result.actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs R (default 1000)")
    parser.add_argument("--horizon", type=int, default=1000, help="rounds T (default 1000)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each (default 3)")
    args = parser.parse_args()
    for name in ALGORITHMS:            # import every algorithm module before patching
        _run(name, 2, 10)
    undo = _patch(_direct())
    patched = sorted({module.__name__ for module, _, _ in undo})
    for module, attribute, function in undo:
        setattr(module, attribute, function)
    print(f"{args.runs} runs x {args.horizon} rounds, reference backend, one process, best of "
          f"{args.repeats}; the baseline rebinds {len(undo)} names in {', '.join(patched)}\n")
    print("| algorithm | through the source (run-rounds/s) | direct draws (run-rounds/s) | ratio | "
          "identical |")
    print("|---|---:|---:|---:|---|")
    direct = _direct()
    for name in ALGORITHMS:
        via, raw, same = 0.0, 0.0, True
        for _ in range(args.repeats):
            rate, actions = _run(name, args.runs, args.horizon)
            via = max(via, rate)
            undo = _patch(direct)
            try:
                rate, baseline = _run(name, args.runs, args.horizon)
            finally:
                for module, attribute, function in undo:
                    setattr(module, attribute, function)
            raw = max(raw, rate)
            same = same and np.array_equal(actions, baseline)
        print(f"| {name} | {via:,.0f} | {raw:,.0f} | {via / raw:.3f} | {'yes' if same else 'NO'} |",
              flush=True)


if __name__ == "__main__":
    main()
