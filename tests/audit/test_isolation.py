"""The code under test cannot steer the auditor: Python candidates run in host processes.

Kinds: exact (a table-rewriting candidate gets the same verdict and bound as the plain one,
through ``--python``, ``--callable`` and ``assert_private``; an exiting, crashing, interrupting
or sleeping candidate is one line and exit status 2 on ``audit`` and ``validate``; a printing
candidate leaves ``--json`` valid; trajectories equal those run in this process) and smoke (the
host is stopped, the time limit names the call).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit import isolation
from dpbandits.audit.adapters import CallableMechanism, PolicyMechanism
from dpbandits.candidates import load
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table

HOSTILE = textwrap.dedent('''
    """Candidates that misbehave, for the isolation tests."""
    import os
    import signal
    import sys
    import time

    import numpy as np


    class FTL:
        """Follow the leader with full information: not private at all."""

        def __init__(self, K, rng=None):
            self.totals = np.zeros(K)

        def act(self, t):
            return int(np.argmax(self.totals))

        def observe(self, t, arm, row):
            self.totals = self.totals + row


    class RewritingFTL(FTL):
        """FTL that, on each observe, makes the array holding the row writeable again and
        overwrites it (in the auditor's process this rewrote the table of every later run)."""

        def observe(self, t, arm, row):
            super().observe(t, arm, row)
            holder = row if row.base is None else row.base
            holder.setflags(write=True)
            holder[...] = 0.5


    def ftl(table, rng):
        totals, actions = np.zeros(table.shape[1]), []
        for row in table:
            actions.append(int(np.argmax(totals)))
            totals = totals + row
        return np.array(actions)


    def rewriting_ftl(table, rng):
        actions = ftl(table, rng)
        holder = table if table.base is None else table.base
        holder.setflags(write=True)
        holder[...] = 0.5
        return actions


    class Misbehaves:
        """Plays arm 0; misbehaves in act at round 2 (and prints on every round)."""

        def __init__(self, K, rng=None):
            pass

        def act(self, t):
            print("a line on standard output", t)
            if t == 2:
                self.misbehave()
            return 0

        def observe(self, t, arm, reward):
            pass

        def misbehave(self):
            pass


    class Prints(Misbehaves):
        pass


    class Exits(Misbehaves):
        def misbehave(self):
            sys.exit(0)


    class ExitsOne(Misbehaves):
        def misbehave(self):
            sys.exit(1)


    class HardExit(Misbehaves):
        def misbehave(self):
            os._exit(0)


    class RaisesGeneratorExit(Misbehaves):
        def misbehave(self):
            raise GeneratorExit


    class RaisesKeyboardInterrupt(Misbehaves):
        def misbehave(self):
            raise KeyboardInterrupt


    class KillsItself(Misbehaves):
        def misbehave(self):
            os.kill(os.getpid(), signal.SIGKILL)


    class Sleeps(Misbehaves):
        def misbehave(self):
            time.sleep(120)


    class ClosesEverything(Misbehaves):
        def misbehave(self):
            os.closerange(3, 4096)


    class WritesEverywhere(Misbehaves):
        def misbehave(self):
            for fd in range(3, 64):
                try:
                    os.write(fd, b"garbage\\n" * 100)
                except OSError:
                    pass


    class ExitsInInit(Misbehaves):
        def __init__(self, K, rng=None):
            raise SystemExit(0)


    class SleepsInInit(Misbehaves):
        def __init__(self, K, rng=None):
            time.sleep(120)


    class RaisingGetattr:
        def __init__(self, K, rng=None):
            pass

        def __getattr__(self, name):
            raise RuntimeError("no attribute today")
''')

AT_IMPORT = {
    "exits.py": "import sys\nprint('hello from the import')\nsys.exit(0)\n",
    "hard_exit.py": "import os\nos._exit(0)\n",
    "sleeps.py": "import time\ntime.sleep(120)\n",
    "prints.py": ("print('{\"not\": \"our json\"}')\nclass Plays:\n    def __init__(self, K, rng):\n"
                  "        pass\n    def act(self, t):\n        print('act', t)\n        return 0\n"
                  "    def observe(self, t, arm, reward):\n        pass\n"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "hostile.py").write_text(HOSTILE)
    for name, text in AT_IMPORT.items():
        (folder / name).write_text(text)
    return folder


def _cli(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


AUDIT = ["--claim-epsilon", "1", "--arms", "2", "--samples", "300", "--horizon", "4", "--json",
         "--no-progress"]


def _audit(capsys, target: str, *extra: str) -> tuple[int, dict]:
    status, out, err = _cli(capsys, ["audit", "--python", target, *AUDIT, *extra])
    assert "Traceback" not in err
    return status, json.loads(out)


# ---- a candidate that rewrites the table --------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("plain, rewriting, extra", [
    ("FTL", "RewritingFTL", ("--feedback", "full")),
    ("ftl", "rewriting_ftl", ("--callable",)),
])
def test_a_table_rewriting_candidate_is_the_violation_its_plain_twin_is(capsys, hostile, plain,
                                                                       rewriting, extra):
    file = hostile / "hostile.py"
    status, honest = _audit(capsys, f"{file}:{plain}", *extra)
    assert status == 1 and honest["verdict"] == "violation"
    status, rewritten = _audit(capsys, f"{file}:{rewriting}", *extra)
    assert status == 1 and rewritten["verdict"] == "violation"
    assert rewritten["epsilon_lower_bound"] == honest["epsilon_lower_bound"] > 1


@pytest.mark.slow
@pytest.mark.exact
def test_assert_private_sees_through_a_table_rewriting_candidate(hostile):
    from dpbandits.testing import assert_private

    messages = []
    for name in ("FTL", "RewritingFTL"):
        with pytest.raises(AssertionError, match="privacy VIOLATION of rnm-ftnl's claim") as caught:
            assert_private(f"{hostile / 'hostile.py'}:{name}", against="rnm-ftnl", epsilon=1.0,
                           samples=200)
        messages.append(str(caught.value).replace(name, "NAME"))
    assert messages[0] == messages[1] and "lower bound" in messages[0]


@pytest.mark.exact
def test_a_rewritten_row_or_table_is_the_candidates_own_copy():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    table = Table(X.copy())

    class Rewrites:
        def __init__(self, rng):
            self.seen = []

        def act(self, t):
            return 0

        def observe(self, t, arm, row):
            self.seen.append(row.tolist())
            if t == 1:
                assert not row.flags.writeable
                holder = row if row.base is None else row.base
                holder.setflags(write=True)
                holder[...] = 0.5
            elif row.tolist() != X[t - 1].tolist():
                raise AssertionError(f"round {t} saw a rewritten row {row.tolist()}")

    for isolated in (True, False):
        PolicyMechanism(Rewrites, 2, None, feedback="full", isolated=isolated).sample(table, 3, 0)
        np.testing.assert_array_equal(table.X, X)

    def rewrites_the_table(table, rng):
        if (table != X).any():
            raise AssertionError("this run's table was rewritten by an earlier run")
        table.setflags(write=True)
        table[...] = 0.5
        return np.zeros(len(table), dtype=int)
    CallableMechanism(rewrites_the_table, 2, None).sample(table, 3, 0)
    np.testing.assert_array_equal(table.X, X)


# ---- a candidate that exits, crashes or interrupts --------------------------------------------

MISBEHAVING = [
    ("Exits", r"run 0: policy\.act\(2\) raised SystemExit: '0'"),
    ("ExitsOne", r"run 0: policy\.act\(2\) raised SystemExit: '1'"),
    ("HardExit", r"run 0: policy\.act\(2\) ended the candidate's process \(the exit status was 0\)"),
    ("RaisesGeneratorExit", r"run 0: policy\.act\(2\) raised GeneratorExit"),
    ("RaisesKeyboardInterrupt", r"run 0: policy\.act\(2\) raised KeyboardInterrupt"),
    ("KillsItself", r"run 0: policy\.act\(2\) ended the candidate's process: it was killed by SIGKILL"),
    ("ClosesEverything", r"run \d+: policy\.\w+\(\d, ...\) closed or broke its process's "
                         r"connection to the auditor"),
    ("WritesEverywhere", r"the candidate's process sent the auditor a message (longer than the "
                         r"\d+ bytes a reply may take|that is not a reply) \(it wrote to the "
                         r"connection itself\); it was stopped"),
    ("ExitsInInit", r"building the candidate .*raised SystemExit: '0'"),
    ("RaisingGetattr", r"looking up act\(\) of the object it builds raised RuntimeError"),
]


@pytest.mark.exact
@pytest.mark.parametrize("name, message", MISBEHAVING, ids=[m[0] for m in MISBEHAVING])
def test_a_misbehaving_candidate_is_one_line_and_status_2_on_audit(capsys, hostile, name, message):
    import re

    status, out, err = _cli(capsys, ["audit", "--python", f"{hostile / 'hostile.py'}:{name}",
                                     *AUDIT])
    assert status == 2 and out == "", (status, out, err)
    assert err.count("\n") == 1 and err.startswith("dpbandits: error: ") and "Traceback" not in err
    assert re.search(message, err), err


@pytest.mark.exact
@pytest.mark.parametrize("name", ["Exits", "HardExit", "ExitsInInit", "RaisingGetattr",
                                  "RaisesGeneratorExit", "Sleeps"])
def test_a_misbehaving_candidate_is_one_line_and_status_2_on_validate(capsys, hostile, tmp_path,
                                                                      name):
    status, out, err = _cli(capsys, ["validate", "--python", f"{hostile / 'hostile.py'}:{name}",
                                     "--against", "ucb1", "--runs", "20", "--horizon", "10",
                                     "--audit-samples", "0", "--out", str(tmp_path / "out"),
                                     "--timeout", "2", "--json", "--no-progress"])
    assert status == 2 and out == "", (status, out, err)
    assert err.count("\n") == 1 and err.startswith("dpbandits: error: ") and "Traceback" not in err


@pytest.mark.exact
@pytest.mark.parametrize("file, message", [
    ("exits.py", r"loading the candidate raised SystemExit: '0'"),
    ("hard_exit.py", r"loading the candidate ended the candidate's process \(the exit status was 0\)"),
])
def test_a_candidate_that_exits_at_import_is_one_line_and_status_2(capsys, hostile, file, message):
    import re

    for command in (["audit", "--python", f"{hostile / file}:X", *AUDIT],
                    ["validate", "--python", f"{hostile / file}:X", "--against", "ucb1", "--json",
                     "--no-progress"]):
        status, out, err = _cli(capsys, command)
        assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
        assert re.search(message, err), err


@pytest.mark.exact
def test_the_api_reports_an_exit_as_an_error_and_keeps_running(hostile):
    mechanism = load(f"{hostile / 'hostile.py'}:HardExit", K=2, epsilon=1.0)
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(2\) ended the candidate's "
                                             r"process .*the end of its output: 'a line on "):
        mechanism.sample(Table(np.full((3, 2), 0.5)), 4, 0)


# ---- a sleeping candidate and the time limit ---------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("target, call", [
    ("hostile.py:Sleeps", r"run 0: policy\.act\(2\)"),
    ("hostile.py:SleepsInInit", r"building the candidate for a two-round problem"),
    ("sleeps.py:X", r"loading the candidate"),
])
def test_a_sleeping_candidate_stops_at_the_timeout_with_status_2(capsys, hostile, target, call):
    import re

    status, out, err = _cli(capsys, ["audit", "--python", str(hostile / target), *AUDIT,
                                     "--timeout", "2"])
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert re.search(call + r" did not return within the time limit of 2 s \(of its own time[^)]*"
                     r"\); it was stopped; --timeout \(timeout= in Python\) raises the limit", err)


@pytest.mark.smoke
def test_the_time_limit_applies_to_each_call_not_to_the_whole_sample(hostile):
    # Sixty runs of four rounds at 0.01 s per round take longer than the 2-second limit in all;
    # no single call does.
    class Slow:
        def __init__(self, rng):
            pass

        def act(self, t):
            import time
            time.sleep(0.01)
            return 0

        def observe(self, t, arm, reward):
            pass
    actions = PolicyMechanism(Slow, 2, None, timeout=2).sample(Table(np.full((4, 2), 0.5)), 60, 0)
    assert actions.shape == (60, 4) and (actions == 0).all()


def _spinning_on_one_processor(count: int) -> tuple[list, set]:
    """``count`` processes that spin on the processor this process is then held to as well."""
    import os
    import subprocess
    import sys

    before = os.sched_getaffinity(0)
    processor = {min(before)}
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             preexec_fn=lambda: os.sched_setaffinity(0, processor))
            for _ in range(count)]
    os.sched_setaffinity(0, processor)
    return hogs, before


@pytest.mark.smoke
@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or not hasattr(__import__("os"),
                    "sched_setaffinity"), reason="the system reports no run-queue delay")
def test_a_candidate_slowed_only_by_the_machines_load_is_not_stopped(monkeypatch):
    # Three processes spinning on the one processor the auditor and its host are held to leave
    # the candidate at most a quarter of it: a call that spins for 1.6 s on the wall clock runs
    # for about 0.4 s, within its time limit of 1 s of its own time (on the wall clock, as
    # before, it was stopped after 1 s); a call that sleeps as long is stopped, and so is the
    # spinning call when the limit on the wall clock is set to the time limit itself.
    import os
    import time

    class Spins:
        def __init__(self, rng):
            pass

        def act(self, t):
            start = time.monotonic()
            while time.monotonic() - start < 1.6:
                pass
            return 0

        def observe(self, t, arm, reward):
            pass

    class Sleeps(Spins):
        def act(self, t):
            time.sleep(1.6)
            return 0

    hogs, before = _spinning_on_one_processor(3)
    try:
        actions = PolicyMechanism(Spins, 2, None, timeout=1).sample(
            Table(np.full((1, 2), 0.5)), 1, 0)
        assert actions.tolist() == [[0]]
        with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(1\) did not return "
                                                 r"within the time limit of 1 s \(of its own time"):
            PolicyMechanism(Sleeps, 2, None, timeout=1).sample(Table(np.full((1, 2), 0.5)), 1, 0)
        monkeypatch.setattr(isolation, "WAITING_FACTOR", 1)
        with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(1\) did not return "
                                                 r"within 1 s on the wall clock \(1 times the "
                                                 r"time limit of 1 s; the machine kept"):
            PolicyMechanism(Spins, 2, None, timeout=1).sample(Table(np.full((1, 2), 0.5)), 1, 0)
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.exact
def test_a_forged_error_reply_comes_after_a_label_of_ours():
    # Before, the reply's "error" made up the whole line: a forged one could print a line with
    # a label of its own and nothing of ours before it.
    import json
    import os
    import stat
    import struct
    import time

    class ForgesError:
        def __init__(self, rng):
            pass

        def act(self, t):
            connection = next(fd for fd in range(3, 256) if _is_socket(os, stat, fd))
            reply = json.dumps({"ok": False, "error": "dpbandits: CONSISTENT (a label of its "
                                                      "own)"}).encode() + b"\n"
            os.write(connection, struct.pack("!i", len(reply)) + reply)
            time.sleep(30)

        def observe(self, t, arm, reward):
            pass

    with pytest.raises(DPBanditsError) as raised:
        PolicyMechanism(ForgesError, 2, None, timeout=5).sample(Table(np.full((1, 2), 0.5)), 1, 0)
    assert str(raised.value).startswith("policy ForgesError: the candidate's process reported: "
                                        "dpbandits: consistent"), str(raised.value)


@pytest.mark.exact
def test_a_lying_int_is_named_in_the_call_that_returned_it():
    # An int subclass whose comparisons say "in range" and whose int() is 7: before, the check
    # passed and the message named policy.observe(1, ...) (an IndexError there).
    class Liar(int):
        def __lt__(self, other):
            return True

        def __le__(self, other):
            return True

        def __int__(self):
            return 7

    class Lies:
        def __init__(self, rng):
            pass

        def act(self, t):
            return Liar(1)

        def observe(self, t, arm, reward):
            pass

    with pytest.raises(DPBanditsError, match=r"^policy Lies: run 0: policy\.act\(1\) returned "
                                             r"arm 7, outside 0\.\.1$"):
        PolicyMechanism(Lies, 2, None, timeout=5).sample(Table(np.full((2, 2), 0.5)), 1, 0)


def _is_socket(os, stat, fd: int) -> bool:
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False


# ---- output ---------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.exact
def test_a_printing_candidate_leaves_json_valid(capsys, hostile):
    for target in (f"{hostile / 'prints.py'}:Plays", f"{hostile / 'hostile.py'}:Prints"):
        status, out, err = _cli(capsys, ["audit", "--python", target, *AUDIT])
        assert status in (0, 3) and json.loads(out)["mechanism"]
        assert "a line on standard output" not in out + err and "act 1" not in out + err


# ---- the same trajectories as in this process --------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("workers", [1, 2])
def test_isolated_runs_equal_runs_in_this_process(workers):
    from pathlib import Path as _Path

    examples = _Path(__file__).resolve().parents[2] / "examples" / "validate" / "implementations.py"
    table = Table(np.random.default_rng(4).random((30, 3)))
    here = load(f"{examples}:PlainLazyUCB", K=3, epsilon=1.0, isolated=False).sample(table, 25, 9)
    there = load(f"{examples}:PlainLazyUCB", K=3, epsilon=1.0, workers=workers).sample(table, 25, 9)
    np.testing.assert_array_equal(here, there)
    assert len({tuple(run) for run in here}) > 1                 # the runs' generators are used


@pytest.mark.smoke
def test_close_stops_the_hosts_and_a_later_sample_starts_new_ones():
    mechanism = PolicyMechanism(lambda rng: _Zero(), 2, None, workers=2)
    table = Table(np.full((3, 2), 0.5))
    mechanism.sample(table, 8, 0)
    hosts = list(mechanism._hosts._hosts)
    assert len(hosts) == 2
    mechanism.close()
    assert len(mechanism._hosts) == 0 and all(host.status is not None for host in hosts)
    assert (mechanism.sample(table, 8, 0) == 0).all()


class _Zero:
    def act(self, t):
        return 0

    def observe(self, t, arm, reward):
        pass


# ---- many requests sent together (sample_many) ---------------------------------------------------

def _requests(seed: int, count: int, T: int = 12, K: int = 3) -> list:
    rng = np.random.default_rng(seed)
    return [(Table(rng.random((T, K))), int(n), int(s))
            for n, s in zip(rng.integers(1, 6, count), rng.integers(0, 2**31, count))]


@pytest.mark.exact
@pytest.mark.parametrize("workers", [1, 2])
def test_many_requests_sent_together_equal_one_sample_each(workers):
    examples = Path(__file__).resolve().parents[2] / "examples" / "validate" / "implementations.py"
    requests = _requests(3, 40)
    together = load(f"{examples}:PlainLazyUCB", K=3, epsilon=1.0, workers=workers)
    one_by_one = load(f"{examples}:PlainLazyUCB", K=3, epsilon=1.0, isolated=False)
    many = together.sample_many(requests)
    assert [m.shape for m in many] == [(n, 12) for _, n, _ in requests]
    for output, request in zip(many, requests):
        np.testing.assert_array_equal(output, one_by_one.sample(*request))
    assert len({tuple(run) for output in many for run in output}) > 1
    # one message per host block, not one per request: the hosts served every request
    assert len(together._hosts) == workers


@pytest.mark.exact
@pytest.mark.parametrize("kind", ["unseeded", "module-level"])
def test_many_requests_replay_their_first_calls(tmp_path, kind):
    path = tmp_path / "leaky.py"
    path.write_text({"unseeded": "import numpy as np\n_G = np.random.default_rng()\n",
                     "module-level": "import numpy as np\n_G = np.random.default_rng(0)\n"}[kind]
                    + "class Leaky:\n    def __init__(self, K):\n        self.K = K\n"
                      "    def act(self, t):\n        return int(_G.integers(self.K))\n"
                      "    def observe(self, t, arm, reward):\n        pass\n")
    with pytest.raises(DPBanditsError, match=r"run \d did not repeat .* --workers"):
        load(f"{path}:Leaky", K=3, timeout=20).sample_many(_requests(5, 10))


@pytest.mark.smoke
def test_a_call_that_fails_in_many_requests_is_named_by_its_request(tmp_path):
    # The candidate sleeps in round 2 after a reward of 0.25, which only the sixth request's
    # table pays: the time limit names that request's run, not a run counted over the message.
    path = tmp_path / "sleeps_late.py"
    path.write_text("import time\nclass SleepsLate:\n    def __init__(self, K):\n"
                    "        self.seen = 0.0\n    def act(self, t):\n"
                    "        if t == 2 and self.seen == 0.25:\n            time.sleep(120)\n"
                    "        return 0\n    def observe(self, t, arm, reward):\n"
                    "        self.seen = reward\n")
    mechanism = load(f"{path}:SleepsLate", K=2, timeout=2)
    requests = [(Table(np.full((4, 2), 0.5)), 3, seed) for seed in range(5)]
    requests.append((Table(np.full((4, 2), 0.25)), 2, 7))
    with pytest.raises(DPBanditsError, match=r"run 0 of request 6 \(requests sent together\): "
                                             r"policy\.act\(2\) did not return within the time "
                                             r"limit of 2 s"):
        mechanism.sample_many(requests)
