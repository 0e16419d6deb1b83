"""The cache of the accountant's bounds behind ``dpbandits list``. Kinds: exact.

The bounds are kept keyed by a hash of the package's sources (and Python's and NumPy's
versions): a warm ``list`` reads them instead of tracing again (about 6 s of CPU), prints the
same bytes, and any change of a source file computes them again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dpbandits.cli import listing
from dpbandits.reference import algorithms

CHOSEN = ("dp-se", "anytime-lazy-ucb")


def _infos():
    return [info for info in algorithms(1.0) if info.name in CHOSEN]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "cache" / "list-traced.json"
    monkeypatch.setattr(listing, "CACHE", path)
    return path


@pytest.mark.exact
def test_a_warm_list_reads_the_bounds_and_gives_the_same_bytes(cache, monkeypatch):
    cold = listing._traced_bounds(_infos(), 1.0)
    assert cache.exists()

    def traced(*args):
        raise AssertionError("traced again although the sources did not change")

    monkeypatch.setattr(listing, "_traced", traced)
    warm = listing._traced_bounds(_infos(), 1.0)
    assert json.dumps(warm, indent=2) == json.dumps(cold, indent=2)
    assert [warm[name][v]["text"] for name in CHOSEN for v in warm[name]] == \
        [cold[name][v]["text"] for name in CHOSEN for v in cold[name]]


@pytest.mark.exact
def test_other_sources_or_another_epsilon_trace_again(cache, monkeypatch):
    listing._traced_bounds(_infos()[:1], 1.0)
    calls = []
    real = listing._traced
    monkeypatch.setattr(listing, "_traced", lambda *a: calls.append(a) or real(*a))
    listing._traced_bounds(_infos()[:1], 0.5)
    assert calls and all(a[2] == 0.5 for a in calls)
    calls.clear()
    monkeypatch.setattr(listing, "sources_key", lambda: "another package")
    listing._traced_bounds(_infos()[:1], 1.0)
    assert calls and all(a[2] == 1.0 for a in calls)


@pytest.mark.exact
def test_the_key_moves_with_any_source_file(tmp_path):
    package = tmp_path / "dpbandits"
    shutil.copytree(Path(listing.__file__).resolve().parents[1],
                    package, ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    before = listing.sources_key(package)
    assert listing.sources_key(package) == before
    deep = sorted(package.rglob("*.py"))[-1]
    deep.write_text(deep.read_text() + "\n")
    assert listing.sources_key(package) != before


@pytest.mark.exact
def test_an_unreadable_or_damaged_cache_is_computed_again(cache):
    cache.parent.mkdir()
    cache.write_text("{not json")
    first = _infos()[:1]
    bounds = listing._traced_bounds(first, 1.0)
    assert json.loads(cache.read_text())["bounds"]
    assert bounds[first[0].name]
