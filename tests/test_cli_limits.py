"""Every size is checked before any work, from the sizes that will be used (docs/limits.md).

Kinds: exact. Each case is a request that the tool used to accept and then start (DP-SE's
designed horizon at small epsilon, T x K tables of tens of GiB, an audit budget whose actions
need about 40 GB, ``audit --all`` and ``validate``'s audit unchecked, ``bounds --setting``
read as K = 2, ``make`` with K = 10^12, a one-run audit sample): each must now be refused with
exit status 2 (or :class:`~dpbandits.errors.DPBanditsError` from the library), one line that
names the problem and the allowed range, and no work started (the functions that do the work are
replaced by ones that fail the test). Smoke, under the fuzz marker: every private algorithm's
audit at the edges of the accepted sizes ends in a verdict or could-not-test, never exit 70.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from dpbandits.cli import main
from dpbandits.errors import DPBanditsError


class WorkStarted(AssertionError):
    """Raised by the stand-ins of the functions that do the work."""


def _no_work(*args, **kwargs):
    raise WorkStarted("the work started before the size was checked")


@pytest.fixture
def no_work(monkeypatch):
    """Replace every function that starts an audit, a validation or a simulation."""
    import dpbandits.audit as audit
    import dpbandits.audit.against as against
    import dpbandits.audit.runner as runner
    import dpbandits.bounds.simulated as simulated
    import dpbandits.candidates as candidates
    import dpbandits.validate.core as core

    # The package's names first: monkeypatch keeps what getattr gives, and a lazy package's
    # getattr reads the submodule's name, which must not be the stand-in yet (else teardown
    # would leave the stand-in in the package for every later test).
    for module, name in ((audit, "audit_algorithm"), (audit, "audit_all"),
                         (runner, "audit_algorithm"), (runner, "audit_all"),
                         (against, "audit_against"), (against, "audit_observed"),
                         (candidates, "load"), (core, "run_checked"),
                         (simulated, "check_algorithm")):
        monkeypatch.setattr(module, name, _no_work, raising=False)


def _refused(argv: list[str], tmp_path, *named: str) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv + (["--out", str(tmp_path / "out")] if argv[0] in ("validate", "bounds")
                              or "--all" in argv else []))
    lines = err.getvalue().splitlines()
    assert status == 2, err.getvalue()
    assert len(lines) == 1 and lines[0].startswith("dpbandits: error: "), lines
    for word in named:
        assert word in lines[0], (word, lines[0])
    assert not (tmp_path / "out").exists()
    return lines[0]


MANY_MEANS = ["0.5"] * 9_999 + ["0.6"]

REFUSED = [
    # DP-SE's designed horizon at epsilon = 1e-3 is 485 519 rounds: 50 000 runs of it are 190 GB
    (["audit", "dp-se", "--epsilon", "0.001"], ("at most", "release horizon")),
    # an audit of a candidate with 100 runs but T x K = 10^10 cells per table (74.5 GiB)
    (["audit", "--command", "true", "--arms", "10000", "--claim-epsilon", "1", "--samples", "100",
      "--horizon", "1000000"], ("at most", "K = 10000")),
    # 2 x samples x T = 10^10 passes the work budget, but one side's actions are 40 GB
    (["audit", "ucb1", "--samples", "100000000", "--horizon", "50"], ("samples must be at most",)),
    # every audit of --all is checked: DP-SE's horizon at epsilon = 1e-6 is 7.2e8 rounds
    (["audit", "--all", "--epsilon", "0.000001"], ("at most", "dp-se")),
    # validate's audit: DP-SE's horizon at epsilon = 1e-3 with the default 10 000 audit runs
    (["validate", "--command", "true", "--against", "dp-se", "--epsilon", "0.001"],
     ("at most", "release horizon")),
    # validate's audit at a given horizon of 10^9 rounds
    (["validate", "--command", "true", "--against", "anytime-lazy-ucb", "--epsilon", "1",
      "--audit-horizon", "1000000000"], ("at most",)),
    # K = 10 000 arms over 10^5 rounds: the pull counts of 20 runs are 320 GB
    (["validate", "--command", "true", "--against", "ucb1", "--horizon", "100000", "--runs", "20",
      "--means", *MANY_MEANS], ("at most", "K = 10000")),
    # one run per side cannot give an audit bound: at least 100, as `audit --samples`
    (["validate", "--command", "true", "--against", "ucb1", "--audit-samples", "1"],
     ("--audit-samples", "[100,")),
    # the setting has K = 10 arms, not 2: 200 runs of 10^9 rounds exceed the work budget
    (["bounds", "ucb1", "--setting", "tossou2016-10arms", "--horizon", "1000000000", "--runs",
      "200"], ("runs must be at most 100",)),
]


@pytest.mark.exact
@pytest.mark.parametrize("argv, named", REFUSED, ids=[" ".join(a[:3]) + f" #{i}"
                                                      for i, (a, _) in enumerate(REFUSED)])
def test_a_request_beyond_the_limits_is_refused_before_any_work(argv, named, tmp_path, no_work):
    _refused(argv, tmp_path, *named)


@pytest.mark.exact
def test_make_refuses_more_arms_than_the_limit():
    from dpbandits.reference import make

    with pytest.raises(DPBanditsError, match=r"K must be an integer in \[2, 10000\]"):
        make("ucb1", K=10 ** 12, rng=0)


@pytest.mark.exact
def test_assert_private_refuses_an_audit_sample_below_100(no_work):
    from dpbandits.testing import assert_private

    with pytest.raises(DPBanditsError, match=r"samples must be an integer >= 100"):
        assert_private("examples/validate/implementations.py:PlainLazyUCB", "anytime-lazy-ucb",
                       samples=1)


@pytest.mark.exact
def test_assert_private_refuses_dp_se_at_a_horizon_beyond_memory(no_work):
    from dpbandits.testing import assert_private

    with pytest.raises(DPBanditsError, match="at most"):
        assert_private("examples/validate/implementations.py:PlainLazyUCB", "dp-se",
                       epsilon=0.001)


@pytest.mark.exact
@pytest.mark.parametrize("kwargs, named", [
    (dict(against="ucb1", audit_samples=1), "audit_samples must be an integer >= 100"),
    (dict(against="dp-se", epsilon=0.001), "release horizon"),
    (dict(against="ucb1", runs=5), "runs must be an integer >= 20"),
    (dict(against="dp-se", epsilon=1e-9), "epsilon must lie in"),
    (dict(against="ucb1", variant="nope"), "unknown variant"),
])
def test_validate_checks_every_argument_before_the_candidate_is_loaded(kwargs, named, no_work):
    from dpbandits.validate import validate

    with pytest.raises(DPBanditsError, match=named):
        validate("examples/validate/implementations.py:PlainLazyUCB", **kwargs)


PRIVATE_AUDITED = ["dp-ucb-bound", "dp-ucb", "dp-ucb-int", "private-ucb", "anytime-lazy-ucb",
                   "hybrid-ucb", "lazy-dp-ts", "dp-se", "adap-klucb", "naive-ftnl", "rnm-ftnl",
                   "rnm-ftnl-bq", "dpucb-mat", "dpts-mat"]

EDGES = ([[name, "--arms", "10000", "--horizon", "2"] for name in PRIVATE_AUDITED
          if name not in ("dpucb-mat", "dpts-mat")]
         + [[name, "--arms", "2", "--horizon", "2", "--epsilon", epsilon]
            for name in PRIVATE_AUDITED for epsilon in ("0.000001", "10000")])
"""Audits at the edges of the accepted sizes: the most arms (10 000; the matroid algorithms'
base arms take minutes there, not run; DP-UCB and DP-UCB-BOUND took more than 4 minutes each
at a load of 10, the others 22 s to 2.5 min) and each end of the epsilon range. ``audit rnm-ftnl
--arms 10000 --horizon 2`` ended in an OverflowError, exit status 70 (the exact law's
integrand; tests/reference/test_report_noisy_max.py checks the law at that size quickly)."""


@pytest.mark.fuzz
@pytest.mark.smoke
@pytest.mark.parametrize("argv", EDGES, ids=[" ".join(a) for a in EDGES])
def test_an_accepted_size_at_the_edge_runs_to_a_verdict_never_an_internal_error(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["audit", *argv, "--samples", "100", "--no-progress"])
    assert status in (0, 1, 3), err.getvalue()
    assert "internal error" not in err.getvalue()
