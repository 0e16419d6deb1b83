"""Fuzzing Python candidates that misbehave: the code under test never decides the outcome.

Kinds: property (Hypothesis, reproducible under the ``reproducible`` profile). A strategy writes
a candidate file that misbehaves in one place (at import, in ``__init__``, in ``act`` or in
``observe`` at some round) in one way: exits (``sys.exit`` with any code, ``os._exit``), raises
(``SystemExit``, ``GeneratorExit``, ``KeyboardInterrupt``, ``StopIteration``, ``MemoryError``,
``RecursionError``, an ordinary exception), kills itself with a signal, closes its descriptors,
writes to them, returns an invalid action, sleeps past ``--timeout`` (the full suite only), or
does something harmless for the auditor: prints to its standard output or error (also text that
looks like JSON), or rewrites the row it was given. The candidate has one of the shapes
``--python`` recognises (docs/audit-protocol.md#python-protocols): act/observe, a
full-information ``observe(t, row)``, SMPyBandits' ``choice``/``getReward``, a MABWiser-style
``fit``/``predict``/``partial_fit`` or ``step(last_reward, last_arm)``; in the choosing method it
may also draw from a generator shared by the runs a process serves (reported: harmful). The fast subset runs by default; ``-m fuzz``
runs the full suite (more examples, ``validate`` too, sleeping candidates).

What every case must give: a misbehaving candidate ends ``audit`` and ``validate`` with exit
status 2, nothing on standard output and exactly one line on standard error that starts with
``dpbandits: error:`` and names the candidate (never a traceback, never 0, 1 or 3); a harmless
one ends with status 0, 1 or 3 and standard output that is valid JSON.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpbandits.cli import main

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FULL = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

HARMFUL = {
    "sys.exit": st.sampled_from(["0", "1", "2", "3", "None", "'a message'"]).map(
        lambda code: f"sys.exit({code})"),
    "os._exit": st.sampled_from(["0", "1", "3", "70"]).map(lambda code: f"os._exit({code})"),
    "raise": st.sampled_from(["SystemExit(0)", "GeneratorExit()", "KeyboardInterrupt()",
                              "StopIteration()", "MemoryError()", "RecursionError('deep')",
                              "ValueError('line one\\nline two')"]).map(lambda e: f"raise {e}"),
    "signal": st.sampled_from(["SIGKILL", "SIGTERM", "SIGSEGV", "SIGABRT", "SIGINT"]).map(
        lambda name: f"os.kill(os.getpid(), signal.{name})"),
    "close": st.just("os.closerange(3, 4096)"),
    "write": st.just("[os.write(fd, b'junk' * 50) for fd in range(3, 32) if _open(fd)]"),
}
"""Misbehaviour in any place (a statement of the candidate's code)."""

INVALID_ACTIONS = st.sampled_from(["None", "-1", "2", "1.5", "'0'", "[0, 1]", "True",
                                   "float('nan')"])
"""Returned by act: not an arm in 0..K-1 (K = 2)."""

HARMLESS = {
    "print": st.sampled_from(['print("noise")', 'print(\'{"verdict": "consistent"}\')',
                              'print("x" * 5000, file=sys.stderr)', 'sys.stdout.write("[1, 2")']),
}
"""Harmless for the auditor in any place."""

REWRITE = ("holder = row if row.base is None else row.base; holder.setflags(write=True); "
           "holder[...] = 0.5")
"""Harmless in observe: rewrites the candidate's own copy of the row."""

SLEEP = "time.sleep(60)"

SHARED_DRAW = "return int(_SHARED.integers(2))"
"""In act: a draw from a generator built at import, shared by every run of a host process."""

SHAPES = {
    # shape: (feedback, header of the class, the choosing method, the observing method)
    "act-observe": ("full", "    def act(self, t):", "    def observe(self, t, arm, row):"),
    "observe-row": ("full", "    def act(self, t):", "    def observe(self, t, row):"),
    "smpybandits": ("bandit", "    def choice(self):\n        t = self.t",
                    "    def getReward(self, arm, row):\n        self.t += 1; t = self.t - 1"),
    "mabwiser": ("bandit", "    def predict(self):\n        t = self.t",
                 "    def partial_fit(self, decisions, rewards):\n        self.t += 1; t = self.t - 1\n"
                 "        row = rewards\n        if False:\n            pass"),
    "step": ("bandit", "    def step(self, last_reward, last_arm):\n        t = self.t; self.t += 1\n"
             "        if t > 1:\n            self._seen(t - 1, last_reward)",
             "    def _seen(self, t, row):"),
}
"""The shapes a candidate may have, each written so that round t's call sees ``t`` and
(observing) ``row``."""

_names = itertools.count()


@st.composite
def candidates(draw, full: bool = False):
    """(source text, harmful): a candidate that misbehaves once, in one place."""
    shape = draw(st.sampled_from(sorted(SHAPES)))
    feedback, act_header, observe_header = SHAPES[shape]
    where = draw(st.sampled_from(["import", "init", "act", "observe"]))
    kinds = dict(HARMFUL, **HARMLESS)
    if full:
        kinds["sleep"] = st.just(SLEEP)
    if where == "act":
        kinds["invalid"] = INVALID_ACTIONS.map(lambda value: f"return {value}")
        kinds["shared"] = st.just(SHARED_DRAW)
    if where == "observe" and feedback == "full":
        kinds["rewrite"] = st.just(REWRITE)
    kind = draw(st.sampled_from(sorted(kinds)))
    statement = draw(kinds[kind])
    # Only rounds the shape's methods see at the audit's horizon (T = 3): a MABWiser MAB is
    # fitted on rounds 1..K (K = 2), so predict and partial_fit first run in round 3; a step
    # solver is told round t's reward in round t + 1's call, so it never observes round 3.
    first = 3 if shape == "mabwiser" else 1
    last = 2 if shape == "step" and where == "observe" else 3
    round_ = draw(st.integers(first, last))
    body = {place: "pass" for place in ("import", "init", "act", "observe")}
    body[where] = statement
    observing = [observe_header or "    def observe(self, t, arm, row):",
                 f"        if t == {round_}:",
                 f"            {body['observe']}"]
    mabwiser = ["    arms = [0, 1]",
                "    is_contextual = False",
                "    def fit(self, decisions, rewards):",
                "        self.t = len(decisions) + 1"] if shape == "mabwiser" else []
    source = "\n".join([
        "import os, signal, sys, time",
        "import numpy as np",
        "_SHARED = np.random.default_rng(7)",
        "def _open(fd):",
        "    try:",
        "        os.fstat(fd)",
        "        return True",
        "    except OSError:",
        "        return False",
        body["import"],
        "class C:",
        "    def __init__(self, K, rng=None):",
        "        self.t = 1",
        f"        {body['init']}",
        *mabwiser,
        act_header,
        f"        if t == {round_}:",
        f"            {body['act']}",
        "        return 0",
        *observing,
        "",
    ])
    return source, kind not in HARMLESS and kind != "rewrite", feedback


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _check(command: str, case: tuple[str, bool, str]) -> None:
    source, harmful, feedback = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzzed_{next(_names)}.py"
        path.write_text(source)
        target = f"{path}:C"
        if command == "audit":
            argv = ["audit", "--python", target, "--feedback", feedback, "--claim-epsilon", "1",
                    "--arms", "2", "--samples", "100", "--horizon", "3", "--timeout", "3",
                    "--json", "--no-progress"]
        else:
            against = "ftl" if feedback == "full" else "ucb1"
            argv = ["validate", "--python", target, "--against", against, "--means", "0.7", "0.3",
                    "--runs", "20", "--horizon", "6", "--audit-samples", "0", "--timeout", "3",
                    "--out", str(Path(folder) / "out"), "--json", "--no-progress"]
        status, out, err = _run_cli(argv)
    shown = f"\n{source}\nstatus {status}\nstdout {out[:300]!r}\nstderr {err[:600]!r}"
    assert "Traceback" not in err, shown
    if harmful:
        assert status == 2 and out == "", shown
        assert err.count("\n") == 1 and err.startswith("dpbandits: error: "), shown
        assert str(path) in err, shown
    else:
        assert status in (0, 1, 3), shown
        json.loads(out)


@pytest.mark.property
@FAST
@given(candidates())
def test_a_misbehaving_candidate_never_decides_the_audit(case):
    _check("audit", case)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(st.sampled_from(["audit", "validate"]), candidates(full=True))
def test_a_misbehaving_candidate_never_decides_the_audit_or_validate_full(command, case):
    _check(command, case)
