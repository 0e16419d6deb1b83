"""The compiled backend: every reference algorithm's ``act``/``observe`` compiled with numba.

The reference (:mod:`dpbandits.reference`) is the source of truth, written to be read beside the
papers; a kernel here is a second implementation of one algorithm family, written for speed, that
has to earn trust. It earns it in the tests: ``dpbandits.validate`` holds each kernel against its
reference algorithm (the certificate on each algorithm's docs page), and wherever a kernel can
consume the same random numbers in the same order as the reference, its trajectories are checked
to be bit-identical.

How a kernel runs. The engine builds the reference policy for a block of runs exactly as it
would for the reference backend (so every argument is checked by the same code, with the same
errors), and the kernel's ``state_from(policy)`` takes that policy's own arrays, parameters and
generator. The kernel's ``run`` then plays rounds t0..t1-1 through the shared round loop
(:mod:`dpbandits.compiled.loop`). Compilation is cached on disk (numba's ``cache=True``, beside
the package), so only the first call of a kernel on a machine compiles it.

Each algorithm names its kernel module in its ``kernel`` declaration; the module defines
``ALGORITHMS`` (the registry names it covers), ``state_from``, the compiled ``act``, ``observe`` and
``run``, and optionally ``unsupported(policy) -> str | None``
for configurations it does not cover (the engine then says why, or ``auto`` falls back to the
reference).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Callable

import numpy as np

from ..errors import DPBanditsError
from ..files import atomic_write
from ..reference.registry import Declared, declaration

__all__ = ["KERNELS", "kernel_module", "unsupported", "run_block", "KernelPolicy", "warm_up",
           "cold_kernels", "CHUNK_RUN_ROUNDS"]

CHUNK_RUN_ROUNDS = 1 << 21
"""Run-rounds a kernel plays per call before it returns to Python, where a pending Ctrl-C is
raised: about 0.2 s at 1e7 run-rounds a second, 0.9 s for the slowest kernel (2.3e6). The chunks
change where the loop pauses, never a draw or a result."""

KERNELS: Mapping[str, str] = Declared("kernel")
"""Registry name -> kernel module (relative to this package): each algorithm's ``kernel``
declaration, read through the registry (this package names no algorithm)."""


def kernel_module(name: str) -> ModuleType | None:
    """The kernel module of registered algorithm ``name``, or None if it has none."""
    module = declaration(name, "kernel")
    return None if module is None else importlib.import_module(f"{__name__}.{module}")


def unsupported(policy, source) -> str | None:
    """Why the compiled backend cannot run ``policy`` on ``source``; None when it can."""
    from ..reference.policy import PolicyBase
    from .loop import source_kind
    if not isinstance(policy, PolicyBase):
        return f"{type(policy).__name__} is not a reference algorithm"
    module = kernel_module(policy.name)
    if module is None:
        return f"{policy.name} has no compiled kernel"
    if source_kind(source) is None:
        return f"the compiled backend cannot draw rewards from {type(source).__name__}"
    planted = sorted({key for attributes in getattr(policy, "planted_changes", {}).values()
                      for key in attributes if getattr(policy, key) != getattr(type(policy), key)})
    if planted:
        return (f"the {policy.name} kernel runs the algorithm itself, not a planted variant "
                f"({', '.join(planted)} changed)")
    if policy.feedback == "semi" and getattr(source, "optimal_value", None) is None:
        return "a semi-bandit policy needs a source with an optimal_value (a matroid environment)"
    reason = getattr(module, "unsupported", None)
    return reason(policy) if reason is not None else None


_announced: set[str] = set()


def _sources_stamp(folder: str) -> str:
    """A hash of every source file in ``folder``."""
    import hashlib

    digest = hashlib.sha256()
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".py"):
            with open(os.path.join(folder, entry), "rb") as handle:
                digest.update(entry.encode() + b"\0" + handle.read())
    return digest.hexdigest()


def _sources_key(folder: str) -> str:
    """Name, size and modification time of every source file in ``folder`` (no file read).

    numba keys each cached function on its own file's modification time and size in the same
    way; a file rewritten with the same size in the same clock tick would pass this key unseen.
    """
    parts = []
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".py"):
            status = os.stat(os.path.join(folder, entry))
            parts.append(f"{entry}:{status.st_size}:{status.st_mtime_ns}")
    return " ".join(parts)


def _cache_folders() -> list[str]:
    """Where numba keeps this package's compiled kernels."""
    from numba.core import config

    folders = [os.path.join(os.path.dirname(__file__), "__pycache__")]
    if config.CACHE_DIR:
        folders.append(config.CACHE_DIR)
    return folders


def _drop_stale_cache(sources: str = os.path.dirname(__file__),
                      caches: list[str] | None = None) -> None:
    """Empty the kernels' disk cache when any source file of this package changed.

    numba invalidates a cached function when its own file changes, not when a function it calls
    from another file does (a kernel calling a changed helper of ``loop.py`` would keep the old
    helper). The hash of all the package's files, kept beside the cache, closes that gap. The
    marker holds that hash and the files' sizes and modification times: while those are
    unchanged no file is read (this check runs at every import); when they moved, the hash
    decides, so a file touched but not changed keeps the cache.
    """
    import glob

    key = _sources_key(sources)
    stamp = None
    modules = [entry[:-3] for entry in os.listdir(sources) if entry.endswith(".py")]
    for folder in _cache_folders() if caches is None else caches:
        marker = os.path.join(folder, "dpbandits-kernels.stamp")
        try:
            with open(marker) as handle:
                kept_stamp, _, kept_key = handle.read().partition("\n")
        except OSError:
            kept_stamp = kept_key = None
        if kept_key == key:
            continue
        stamp = stamp or _sources_stamp(sources)
        if kept_stamp != stamp:
            for module in modules:
                pattern = os.path.join(folder, "**", f"{module}.*.nb[ic]")
                for path in glob.glob(pattern, recursive=True):
                    try:
                        os.remove(path)
                    except OSError:
                        pass
        try:
            os.makedirs(folder, exist_ok=True)
            atomic_write(marker, lambda handle: handle.write(f"{stamp}\n{key}"))   # read by workers
        except OSError:
            pass


_drop_stale_cache()


def _announce_compiling(name: str, module: ModuleType) -> None:
    """Say once per process that a kernel is being compiled when its cache is cold."""
    if name in _announced:
        return
    _announced.add(name)
    if not _loaded(module) and not _cache_present(module):
        print(f"dpbandits: compiling the {name} kernel (cached on disk after the first time)...",
              file=sys.stderr, flush=True)


def _loaded(module: ModuleType) -> bool:
    """Whether this process already compiled or loaded the kernel's ``run``."""
    return bool(getattr(module.run, "signatures", ()))


def _cache_present(module: ModuleType) -> bool:
    import glob

    stem = module.__name__.rsplit(".", 1)[1] + ".run-"
    return any(glob.glob(os.path.join(folder, "**", stem + "*.nbi"), recursive=True)
               for folder in _cache_folders())


def cold_kernels() -> list[str]:
    """One registered name per kernel module whose compiled ``run`` is not in the disk cache
    (compiling that name's kernel compiles the module's, whichever name it covers)."""
    cold = {}
    for name, module_name in KERNELS.items():
        if module_name not in cold:
            module = kernel_module(name)
            if not _loaded(module) and not _cache_present(module):
                cold[module_name] = name
    return list(cold.values())


def _overridden(state, overrides: dict):
    """``state`` with the fields of ``overrides`` replaced. An array keeps its shape and dtype and
    an integer stays an integer: the kernels index their arrays without bounds checks, so a field
    of another shape would be read or written out of bounds."""
    for field, value in overrides.items():
        if field not in state._fields:
            raise DPBanditsError(f"kernel override: the state has no field {field!r}")
        old = getattr(state, field)
        if isinstance(old, np.ndarray):
            value = np.asarray(value)
            if value.shape != old.shape or value.dtype != old.dtype:
                raise DPBanditsError(f"kernel override {field!r}: shape {value.shape} and dtype "
                                     f"{value.dtype} differ from the state's {old.shape} "
                                     f"{old.dtype}")
        elif isinstance(old, (int, np.integer)) and not isinstance(value, (int, np.integer)):
            raise DPBanditsError(f"kernel override {field!r}: an integer is needed, got {value!r}")
    return state._replace(**overrides)


def run_block(policy, source, T: int, env_rng: np.random.Generator, checkpoints: np.ndarray,
              record_actions: bool, progress: Callable[[int], None] | None = None):
    """One block of the engine on the compiled backend; returns what the reference block returns.

    ``policy`` is the reference policy built for the block (its arrays become the kernel's state
    and end in the final state); ``env_rng`` is the block's generator for rewards. A policy with a
    ``kernel_overrides`` dict gets those fields of the kernel's state replaced: the planted
    deviations of :func:`dpbandits.validate.certify.planted`, which show that a certificate can
    fail.
    """
    from .loop import make_sim, draw_rows
    reason = unsupported(policy, source)
    if reason is not None:
        raise DPBanditsError(f"compiled backend: {reason}")
    module = kernel_module(policy.name)
    _announce_compiling(policy.name, module)
    runs = policy.runs
    width = getattr(policy, "super_arm_size", None) if policy.feedback == "semi" else None
    best = getattr(source, "optimal_value", None) if policy.feedback == "semi" else None
    sim = make_sim(source, runs, T, checkpoints, record_actions, env_rng, width, best)
    state = _overridden(module.state_from(policy), getattr(policy, "kernel_overrides", {}))
    if getattr(policy, "observes_round_zero", False):
        draw_rows(sim, 0)
        module.observe_round_zero(state, sim.rows)
    step = min(max(1, math.ceil(T / 100)) if progress is not None else T,
               max(1, CHUNK_RUN_ROUNDS // runs))      # back in Python often enough for Ctrl-C
    for t0 in range(1, T + 1, step):
        t1 = min(T + 1, t0 + step)
        module.run(state, sim, t0, t1)
        if progress is not None:
            progress(runs * (t1 - t0))
    actions = sim.actions_seen if record_actions else None
    return sim.pseudo_at, sim.realised_at, sim.pulls, actions


class KernelPolicy:
    """A kernel driven round by round through ``act``/``observe``, like any policy.

    This is how ``validate`` holds a kernel against its reference: the kernel plays as a
    third-party candidate. ``overrides`` replaces fields of the kernel's state (for example a
    planted wrong epsilon), which is how the tests show that the certification can fail.
    """

    def __init__(self, policy, **overrides) -> None:
        module = kernel_module(policy.name)
        if module is None:
            raise DPBanditsError(f"{policy.name} has no compiled kernel")
        self.module = module
        self.K, self.runs, self.feedback = policy.K, policy.runs, policy.feedback
        self.state = module.state_from(policy)._replace(**overrides)
        width = getattr(policy, "super_arm_size", None)
        shape = (self.runs, width) if self.feedback == "semi" else (self.runs,)
        self._actions = np.zeros(shape, np.int64)

    def act(self, t: int) -> np.ndarray:
        self.module.act(self.state, t, self._actions)
        return self._actions.copy()

    def observe(self, t: int, actions, feedback) -> None:
        """Feedback as the engine gives it, or for one run as a scalar (bandit) or a row."""
        actions = np.array(actions, dtype=np.int64).reshape(self._actions.shape)
        shape = (self.runs,) if self.feedback == "bandit" else (self.runs, -1)
        self.module.observe(self.state, t, actions, np.array(feedback, dtype=float).reshape(shape))


def warm_up(names: list[str] | None = None) -> dict[str, float]:
    """Compile (or load from the disk cache) the kernels of ``names``; seconds per kernel."""
    from ..reference import Bernoulli, simulate, spec
    from ..reference.registry import get
    seconds = {}
    for name in names or list(KERNELS):
        start = time.perf_counter()
        cls = get(name)
        factory = spec(name, 2, epsilon=1.0 if cls.private else None, T=64)
        source = Bernoulli([0.6, 0.4])
        if cls.feedback == "semi":
            from ..reference.matroid import MatroidEnvironment, Uniform
            source = MatroidEnvironment(Uniform(2, 1), source)   # the policies' default matroid
        simulate(factory, source, T=64, runs=2, backend="compiled")
        seconds[name] = time.perf_counter() - start
    return seconds
