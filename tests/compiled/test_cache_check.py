"""The kernels' disk-cache check (``dpbandits.compiled._drop_stale_cache``). Kind: exact.

The check runs at every import of the compiled package: while the sources' sizes and
modification times are those in the marker it reads no file; when they moved, the hash of the
sources decides whether the cached kernels are dropped.
"""

from __future__ import annotations

import os

import pytest

from dpbandits.compiled import _drop_stale_cache


def _package(tmp_path):
    sources, cache = tmp_path / "src", tmp_path / "cache"
    sources.mkdir()
    cache.mkdir()
    (sources / "loop.py").write_text("x = 1\n")
    (sources / "kernel.py").write_text("y = 2\n")
    return sources, cache


def _cached(cache, module="kernel"):
    path = cache / f"{module}.run-10.py311.nbi"
    path.write_text("compiled")
    return path


@pytest.mark.exact
def test_a_changed_helper_drops_every_kernel_of_the_package(tmp_path):
    sources, cache = _package(tmp_path)
    _drop_stale_cache(str(sources), [str(cache)])
    kept = _cached(cache)
    _drop_stale_cache(str(sources), [str(cache)])
    assert kept.exists()
    (sources / "loop.py").write_text("x = 3\n")           # same size, another content
    _drop_stale_cache(str(sources), [str(cache)])
    assert not kept.exists()


@pytest.mark.exact
def test_a_touched_but_unchanged_file_keeps_the_cache(tmp_path):
    sources, cache = _package(tmp_path)
    _drop_stale_cache(str(sources), [str(cache)])
    kept = _cached(cache)
    status = os.stat(sources / "loop.py")
    os.utime(sources / "loop.py", ns=(status.st_atime_ns, status.st_mtime_ns + 10 ** 9))
    _drop_stale_cache(str(sources), [str(cache)])
    assert kept.exists()
    marker = (cache / "dpbandits-kernels.stamp").read_text()
    assert str(status.st_mtime_ns + 10 ** 9) in marker    # the new time is kept: no hash next time


@pytest.mark.exact
def test_unchanged_sizes_and_times_read_no_source(tmp_path, monkeypatch):
    sources, cache = _package(tmp_path)
    _drop_stale_cache(str(sources), [str(cache)])
    import dpbandits.compiled as compiled

    def hashed(folder):
        raise AssertionError("the sources were hashed though their sizes and times are unchanged")

    monkeypatch.setattr(compiled, "_sources_stamp", hashed)
    _drop_stale_cache(str(sources), [str(cache)])


@pytest.mark.exact
def test_cold_kernels_names_each_uncached_kernel_module_once(monkeypatch):
    """What the report compiles before its parts: one name per kernel module not in the cache."""
    import dpbandits.compiled as compiled

    modules = set(compiled.KERNELS.values())
    monkeypatch.setattr(compiled, "_cache_present", lambda module: False)
    monkeypatch.setattr(compiled, "_loaded", lambda module: False)
    cold = compiled.cold_kernels()
    assert sorted(compiled.KERNELS[name] for name in cold) == sorted(modules)
    monkeypatch.setattr(compiled, "_cache_present", lambda module: True)
    assert compiled.cold_kernels() == []
