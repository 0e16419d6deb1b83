"""The docs' generated parts that follow the registry: the algorithms' index and navigation.

Kinds: exact (the index has a row per registered algorithm, with its page, source and variants,
under its feedback model's section; the navigation lists every registered algorithm's page after
the index; a temporarily registered algorithm appears in both; the pseudocode-tag table of an
algorithm reads the classes it derives from).
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest
import yaml

from dpbandits.reference import registry
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB

ROOT = Path(__file__).resolve().parents[1]


def _hooks():
    loaded = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _nav() -> list:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    return _hooks().on_config({"nav": config["nav"]})["nav"]


def _algorithms_section(nav: list) -> list:
    return next(item["Algorithms"] for item in nav if isinstance(item, dict) and "Algorithms" in item)


@pytest.mark.exact
def test_the_navigation_lists_every_registered_algorithm_after_the_index():
    section = _algorithms_section(_nav())
    assert section == ["algorithms/index.md", *(f"algorithms/{n}.md" for n in registry.ALGORITHMS)]
    for entry in section:
        assert (ROOT / "docs" / entry).is_file(), f"no page {entry}: write docs/{entry}"


@pytest.mark.exact
def test_the_index_has_a_row_per_algorithm_under_its_feedback_model():
    index = _hooks().algorithm_index()
    for name in registry.ALGORITHMS:
        cls = registry.get(name)
        row = next(line for line in index.splitlines() if f"]({name}.md)" in line)
        assert row.startswith(f"| [{cls.title}]({name}.md) | {cls.paper} | ")
        assert f"{cls.default_variant} (default)" in row
        section = index[:index.index(row)].rsplit("## ", 1)[1].splitlines()[0]
        assert section == _hooks().FAMILIES[cls.feedback]


@pytest.mark.exact
def test_a_newly_registered_algorithm_is_in_the_index_and_the_navigation(monkeypatch):
    module = types.ModuleType("dpbandits.reference.renamed_for_docs_test")
    module.Renamed = type("Renamed", (AnytimeLazyUCB,), {"name": "renamed-lazy-ucb",
                                                        "title": "Renamed lazy UCB"})
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.ALGORITHMS, "renamed-lazy-ucb", "renamed_for_docs_test:Renamed")
    assert "| [Renamed lazy UCB](renamed-lazy-ucb.md) |" in _hooks().algorithm_index()
    assert _algorithms_section(_nav())[-1] == "algorithms/renamed-lazy-ucb.md"


@pytest.mark.exact
def test_the_tag_table_reads_the_shared_classes_an_algorithm_derives_from():
    hooks = _hooks()
    assert "dpbandits/reference/matroid/common.py" in hooks._tags("dpucb-mat")
    assert "dpbandits/reference/matroid/common.py" not in hooks._tags("omm")
    assert "[Alg.2 l.9]" in hooks._tags("dpucb-mat")
