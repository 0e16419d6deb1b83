"""Audits on local worker processes and on a Dask cluster give the same result; --all resumes.

Kinds: exact (bit-identical results across 1 worker, 2 processes and a LocalCluster; a resumed
audit equals a fresh one), smoke (the command line).
"""

from __future__ import annotations

import json

import pytest

from dpbandits.audit import audit, audit_algorithm, audit_all
from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.audit.toys import TOY_VARIANTS, ToyThreshold
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError


def _comparable(result) -> dict:
    data = result.to_dict()
    data.pop("seconds")
    return data


@pytest.mark.exact
def test_same_audit_on_one_worker_two_processes_and_a_cluster():
    distributed = pytest.importorskip("distributed")
    arguments = dict(variant="paper", samples=5000, seed=3)
    one = _comparable(audit_algorithm("rnm-ftnl-bq", **arguments))
    two = _comparable(audit_algorithm("rnm-ftnl-bq", workers=2, **arguments))
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = _comparable(audit_algorithm("rnm-ftnl-bq", client=client, **arguments))
    assert one == two == remote
    assert one["verdict"] == "violation"


@pytest.mark.exact
def test_audit_of_a_mechanism_takes_workers_and_keeps_the_result():
    mechanism = RegistryMechanism("rnm-ftnl-bq", 2, 1.0, "paper", T=16)
    local = _comparable(audit(mechanism, samples=3000, seed=5))
    parallel = _comparable(audit(mechanism, samples=3000, seed=5, workers=2))
    assert local == parallel
    assert mechanism.workers == 1                  # the caller's mechanism is not changed
    with pytest.raises(DPBanditsError, match="registered algorithms only"):
        audit(ToyThreshold(TOY_VARIANTS[0], 1.0), samples=1000, workers=2)


@pytest.mark.exact
def test_audit_all_side_by_side_on_processes_and_a_cluster_gives_the_same_results(tmp_path):
    """Whole audits run side by side (2 processes; a LocalCluster) return, in the same order,
    what one process returns, and each finished audit is stored for a resume."""
    distributed = pytest.importorskip("distributed")
    arguments = dict(samples=500, include_controls=False, names=["rnm-ftnl-bq", "hybrid-ucb"])
    one = [_comparable(r) for r in audit_all(**arguments)]
    messages: list[str] = []
    two = audit_all(workers=2, resume=tmp_path, progress=messages.append, **arguments)
    assert [_comparable(r) for r in two] == one
    assert len(messages) == 4 and all(m.endswith(": done") for m in messages)
    assert len(list(tmp_path.glob("*.json"))) == 4
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = audit_all(client=client, **arguments)
    assert [_comparable(r) for r in remote] == one
    assert [r["mechanism"] for r in one] == ["rnm-ftnl-bq[paper]", "rnm-ftnl-bq[corrected]",
                                             "hybrid-ucb[paper]", "hybrid-ucb[corrected]"]


@pytest.mark.exact
def test_interrupted_audit_all_resumes_with_the_same_results(tmp_path):
    from dpbandits.audit.runner import _cached

    arguments = dict(samples=500, include_controls=False, names=["rnm-ftnl-bq"])
    messages: list[str] = []

    def interrupt(message: str) -> None:
        messages.append(message)
        if "corrected" in message:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        audit_all(resume=tmp_path, progress=interrupt, **arguments)
    saved = list(tmp_path.glob("*.json"))
    assert [p.name for p in saved] == ["rnm-ftnl-bq-paper.json"]   # the finished audit was kept
    resumed: list[str] = []
    results = audit_all(resume=tmp_path, progress=resumed.append, **arguments)
    assert [m.endswith("reused") for m in resumed] == [True, False]
    fresh = audit_all(**arguments)
    assert [_comparable(r) for r in results] == [_comparable(r) for r in fresh]
    key = json.loads(saved[0].read_text())["key"]
    assert _cached(tmp_path, "rnm-ftnl-bq-paper", key) is not None
    assert _cached(tmp_path, "rnm-ftnl-bq-paper", {**key, "seed": 1}) is None  # changed: recompute


@pytest.mark.smoke
def test_cli_audit_accepts_workers(capsys):
    assert main(["audit", "rnm-ftnl-bq", "--variant", "paper", "--samples", "1000", "--workers", "2",
                 "--json", "--no-progress"]) == 1          # exit 1: a violation
    assert json.loads(capsys.readouterr().out)["verdict"] == "violation"
