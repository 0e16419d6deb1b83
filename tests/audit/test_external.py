"""External programs over the line protocol: CommandMechanism and the example programs.

Kinds: exact (both protocols deliver the table and the feedback exactly, worked-out action
sequences, worker-count independence, every misbehaviour of a program refused quickly with the
command and the run named), oracle (the harness's runs of the Python example against the same
code called directly with the seeds computed independently), smoke (the doc's Python blocks run).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit import sandbox
from dpbandits.audit.external import CommandMechanism
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "external"
LEADER = [sys.executable, str(EXAMPLES / "noisy_leader.py")]
GREEDY = ["sh", str(EXAMPLES / "epsilon_greedy.sh")]

K = 3
FIXTURE_SLEEP = 60   # seconds the 'hang' and 'linger' programs below sleep; a harness that
                     # waited for them would take this long whatever the machine's load
RNG_TABLE = Table(np.random.default_rng(2).random((16, K)))

# A protocol-speaking program for the tests: plays (t - 1) mod K in round t, or with "echo"
# the best arm of the previous row (table, full) or arm round((K - 1) r) for the reward r just
# received (bandit). Any other mode misbehaves in the run whose seed is argv[2] (every run if
# absent).
SCRIPT = r'''
import sys, time
mode = sys.argv[1]
hello = sys.stdin.readline().split()
assert hello[:2] == ["dpbandits", "1"], hello
protocol, feedback = hello[2], hello[3]

def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

def best(row):
    return max(range(len(row)), key=row.__getitem__)

for line in sys.stdin:
    words = line.split()
    if words == ["quit"]:
        if mode == "chatty":
            say("goodbye")
        if mode == "bad-exit":
            sys.exit(4)
        if mode == "linger":
            time.sleep(60)
        sys.exit(0)
    K, T, seed = map(int, words[1:])
    bad = mode not in ("fine", "echo") and (len(sys.argv) < 3 or sys.argv[2] == str(seed))
    if bad and mode == "crash":
        sys.stderr.write("about to fail\nValueError: no luck with this seed\n")
        sys.exit(3)
    if bad and mode == "hang":
        time.sleep(60)
    if bad and mode == "exit":
        sys.exit(0)
    if protocol == "table":
        rows = [[float(x) for x in sys.stdin.readline().split()] for _ in range(T)]
        arms = [str(t % K) for t in range(T)]
        if mode == "echo":
            arms = ["0"] + [str(best(row)) for row in rows[:-1]]
        if bad:
            if mode == "garbage":
                arms[1] = "x1"
            if mode == "float":
                arms[1] = "1.0"
            if mode == "short":
                arms = arms[:-1]
            if mode == "long":
                arms.append("0")
            if mode == "range":
                arms[2] = str(K)
            if mode == "two-lines":
                say(" ".join(arms))
            if mode == "non-ascii":
                arms[0] = "\u00e9"
        say(" ".join(arms))
        continue
    arm = 0
    for t in range(1, T + 1):
        if mode != "echo":
            arm = (t - 1) % K
        if bad and t == 2:
            if mode == "garbage":
                arm = "two"
            if mode == "range":
                arm = -1
            if mode == "end-early":
                say("end")
                break
            if mode == "late-crash":
                sys.exit(5)
        say(str(arm))
        rewards = [float(x) for x in sys.stdin.readline().split()]
        assert len(rewards) == (K if feedback == "full" else 1), rewards
        arm = best(rewards) if feedback == "full" else round((K - 1) * rewards[0])
    else:
        if bad and mode == "long":
            say("0")
        say("end")
'''


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("programs") / "player.py"
    path.write_text(SCRIPT)
    return lambda *args: [sys.executable, str(path), *args]


def seeds_of(seed, n):
    return [int(c.generate_state(1)[0]) for c in np.random.SeedSequence(seed).spawn(n)]


def timeout_for(mode):
    """Short for the programs that hang; generous for the others, which must not time out even
    on a loaded machine."""
    return 1.0 if mode in ("hang", "linger") else 20.0


def load_noisy_leader():
    spec = importlib.util.spec_from_file_location("noisy_leader_example", EXAMPLES / "noisy_leader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the protocols deliver exactly what they should --------------------------------------------

@pytest.mark.oracle
def test_table_protocol_runs_the_python_example_with_the_right_seeds_and_table():
    import random
    leader = load_noisy_leader()
    actions = CommandMechanism(LEADER + ["--epsilon", "2"], K, 2.0).sample(RNG_TABLE, 12, seed=4)
    scale = 2 * (RNG_TABLE.T - 1) / 2.0
    expected = [leader.noisy_leader(RNG_TABLE.X.tolist(), scale, random.Random(s))
                for s in seeds_of(4, 12)]
    np.testing.assert_array_equal(actions, expected)


@pytest.mark.exact
def test_table_protocol_sends_rewards_exactly(script):
    # Round 2's best arm is 1 only if 0.1 + 0.2 survives the trip as 0.30000000000000004.
    X = np.array([[0.0, 1.0, 0.5], [0.3, 0.1 + 0.2, 0.1], [1.0, 0.0, 1e-300], [0.0, 0.0, 5e-324]])
    actions = CommandMechanism(script("echo"), K, None).sample(X, 2, 0)
    np.testing.assert_array_equal(actions, [[0, 1, 1, 0]] * 2)


@pytest.mark.exact
def test_follow_the_leader_by_hand():
    X = np.array([[0.2, 0.9, 0.0], [0.9, 0.0, 0.0], [0.0, 0.0, 0.5], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    # sums before each round: 0 0 0 | .2 .9 0 | 1.1 .9 0 | 1.1 .9 .5 | 1.1 .9 1.5
    actions = CommandMechanism(LEADER + ["--scale", "0"], K, None).sample(X, 3, 9)
    np.testing.assert_array_equal(actions, [[0, 1, 0, 0, 2]] * 3)


@pytest.mark.exact
@pytest.mark.parametrize("feedback, expected", [("bandit", [0, 1, 1, 2, 0]),
                                                ("full", [0, 2, 1, 1, 0])])
def test_interactive_protocol_feeds_back_after_each_action(script, feedback, expected):
    X = np.array([[0.5, 0.0, 1.0], [0.0, 0.5, 0.0], [0.0, 1.0, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    # bandit: arm 0 -> 0.5 -> arm 1 -> 0.5 -> arm 1 -> 1.0 -> arm 2 -> 0.0 -> arm 0
    # full: arm 0, then the best arm of each previous row: 2, 1, 1, 0
    mechanism = CommandMechanism(script("echo"), K, None, protocol="interactive", feedback=feedback)
    np.testing.assert_array_equal(mechanism.sample(X, 2, 0), [expected] * 2)


@pytest.mark.exact
def test_epsilon_greedy_without_exploration_by_hand():
    X = np.array([[0.2, 0.9], [0.1, 0.8], [0.3, 0.0], [0.9, 0.0], [0.5, 0.5]])
    # arm 0 -> .2, arm 1 -> .8; means .2 < .8 -> arm 1 -> 0 (mean .4) -> arm 1 -> 0 (.267) -> arm 1
    for feedback in ("bandit", "full"):
        greedy = CommandMechanism(GREEDY + ["0"], 2, None, protocol="interactive", feedback=feedback)
        np.testing.assert_array_equal(greedy.sample(X, 3, 0), [[0, 1, 1, 1, 1]] * 3)


# ---- determinism and workers ------------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("command, protocol", [(LEADER, "table"), (GREEDY + ["0.3"], "interactive")])
def test_results_depend_on_the_seed_only_not_on_workers(command, protocol):
    one = CommandMechanism(command, K, 1.0, protocol=protocol).sample(RNG_TABLE, 30, seed=7)
    two = CommandMechanism(command, K, 1.0, protocol=protocol, workers=2).sample(RNG_TABLE, 30, 7)
    np.testing.assert_array_equal(one, two)
    assert one.shape == (30, RNG_TABLE.T) and one.dtype == np.int32
    assert one.min() >= 0 and one.max() <= K - 1
    prefix = CommandMechanism(command, K, 1.0, protocol=protocol, workers=2).sample(RNG_TABLE, 11, 7)
    np.testing.assert_array_equal(prefix, one[:11])
    other = CommandMechanism(command, K, 1.0, protocol=protocol).sample(RNG_TABLE, 30, seed=8)
    assert not np.array_equal(one, other)
    assert len({tuple(run) for run in one}) > 5      # the runs are not copies of one another


# ---- every misbehaviour is refused, quickly --------------------------------------------------

TABLE_FAILURES = [
    ("crash", r"exited with status 3 while waiting for the T = 16 actions.*ValueError: no luck"),
    ("hang", r"no answer within the timeout of 1 s"),
    ("exit", r"exited early with status 0"),
    ("garbage", r"printed 'x1' in its answer '0 x1 2 .*' where an arm \(an integer in 0\.\.2\)"),
    ("float", r"printed '1\.0'"),
    ("short", r"answered 15 actions where T = 16 were expected"),
    ("long", r"answered 17 actions"),
    ("range", r"played arm 3 in its answer .*, outside 0\.\.2"),
    ("non-ascii", r"non-ASCII output"),
]


@pytest.mark.exact
@pytest.mark.parametrize("mode, message", TABLE_FAILURES, ids=[m for m, _ in TABLE_FAILURES])
def test_table_protocol_failures(script, mode, message):
    command = script(mode, str(seeds_of(0, 3)[1]))
    start = time.monotonic()
    with pytest.raises(DPBanditsError) as caught:
        CommandMechanism(command, K, 1.0, timeout=timeout_for(mode)).sample(RNG_TABLE, 3, 0)
    assert time.monotonic() - start < FIXTURE_SLEEP / 2    # did not wait for the sleeping program
    text = str(caught.value)
    assert text.startswith(f"command '{command[0]} ")
    assert f"run 1 (seed {seeds_of(0, 3)[1]})" in text
    assert re.search(message, text, flags=re.S), text


INTERACTIVE_FAILURES = [
    ("crash", r"exited with status 3 while waiting for the action of round t = 1"),
    ("late-crash", r"exited with status 5 while waiting for the action of round t = 2"),
    ("hang", r"no answer within the timeout of 1 s while waiting for the action of round t = 1"),
    ("garbage", r"printed 'two' in round t = 2 where an arm"),
    ("range", r"played arm -1 in round t = 2, outside 0\.\.2"),
    ("end-early", r"printed 'end' after 1 of T = 16 actions"),
    ("long", r"printed more than T = 16 actions"),
]


@pytest.mark.exact
@pytest.mark.parametrize("mode, message", INTERACTIVE_FAILURES, ids=[m for m, _ in INTERACTIVE_FAILURES])
def test_interactive_protocol_failures(script, mode, message):
    command = script(mode, str(seeds_of(0, 3)[2]))
    start = time.monotonic()
    with pytest.raises(DPBanditsError) as caught:
        CommandMechanism(command, K, 1.0, protocol="interactive",
                         timeout=timeout_for(mode)).sample(RNG_TABLE, 3, 0)
    assert time.monotonic() - start < FIXTURE_SLEEP / 2    # did not wait for the sleeping program
    assert f"run 2 (seed {seeds_of(0, 3)[2]})" in str(caught.value)
    assert re.search(message, str(caught.value)), str(caught.value)


@pytest.mark.exact
@pytest.mark.parametrize("mode, message", [
    ("two-lines", r"at shutdown: the program printed '0 1 2 .*' after its last answer"),
    ("chatty", r"at shutdown: the program printed 'goodbye' after its last answer"),
    ("bad-exit", r"at shutdown: the program exited with status 4 after 'quit'"),
    ("linger", r"at shutdown: the program did not exit within 1 s of 'quit'"),
])
def test_shutdown_failures(script, mode, message):
    with pytest.raises(DPBanditsError, match=message):
        CommandMechanism(script(mode), K, 1.0, timeout=timeout_for(mode)).sample(RNG_TABLE, 1, 0)


@pytest.mark.exact
def test_one_failing_copy_stops_the_others_and_names_its_run(script):
    seed = seeds_of(0, 8)[5]
    start = time.monotonic()
    with pytest.raises(DPBanditsError, match=rf"run 5 \(seed {seed}\): the program exited with status 3"):
        CommandMechanism(script("crash", str(seed)), K, 1.0, workers=2, timeout=5).sample(RNG_TABLE, 8, 0)
    with pytest.raises(DPBanditsError, match=r"no answer within the timeout of 0\.3 s"):
        CommandMechanism(script("hang"), K, 1.0, workers=2, timeout=0.3).sample(RNG_TABLE, 8, 0)
    assert time.monotonic() - start < FIXTURE_SLEEP / 2    # did not wait for the sleeping program


@pytest.mark.exact
def test_processes_left_behind_by_the_program_cannot_hang_the_audit():
    # The shell exits at once, but the background sleep keeps its standard output open, unless
    # the program has a PID namespace of its own: then the kernel ends the sleep with the shell.
    start = time.monotonic()
    ended = (r"exited early with status 0" if sandbox.status().namespaces
             else r"no answer within the timeout of 0\.3 s")
    with pytest.raises(DPBanditsError, match=r"run 0 .*" + ended):
        CommandMechanism(["sh", "-c", "(sleep 30 &); exit 0"], K, 1.0, timeout=0.3).sample(RNG_TABLE, 2, 0)
    assert time.monotonic() - start < 15    # did not wait for the background sleep 30


@pytest.mark.exact
def test_a_missing_program_and_bad_arguments_are_named():
    with pytest.raises(DPBanditsError, match=r"at start-up: the program could not be started"):
        CommandMechanism(["/nonexistent/dpbandits-program"], K, 1.0).sample(RNG_TABLE, 1, 0)
    with pytest.raises(DPBanditsError, match="protocol must be one of"):
        CommandMechanism(LEADER, K, 1.0, protocol="batch")
    with pytest.raises(DPBanditsError, match="feedback must be one of"):
        CommandMechanism(LEADER, K, 1.0, feedback="semi")
    with pytest.raises(DPBanditsError, match="timeout"):
        CommandMechanism(LEADER, K, 1.0, timeout=0)
    with pytest.raises(DPBanditsError, match="workers"):
        CommandMechanism(LEADER, K, 1.0, workers=0)
    with pytest.raises(DPBanditsError, match="command must be"):
        CommandMechanism("", K, 1.0)
    with pytest.raises(DPBanditsError, match="cannot be split"):
        CommandMechanism("python3 'unclosed", K, 1.0)
    with pytest.raises(DPBanditsError, match="claim_epsilon"):
        CommandMechanism(LEADER, K, -1.0)
    with pytest.raises(DPBanditsError, match="K = 3 arms but the table has 2"):
        CommandMechanism(LEADER, K, 1.0).sample(np.zeros((4, 2)), 1, 0)


@pytest.mark.smoke
def test_attributes_and_the_command_string_split_like_a_shell():
    mechanism = CommandMechanism("python3 'my leader.py' --scale 0.5", K, 0.5, protocol="interactive",
                                 feedback="full", workers=2, timeout=3)
    assert mechanism.argv == ["python3", "my leader.py", "--scale", "0.5"]
    assert mechanism.label == "python3 'my leader.py' --scale 0.5"
    assert (mechanism.K, mechanism.protocol, mechanism.feedback) == (K, "interactive", "full")
    assert mechanism.claimed.epsilon == 0.5 and CommandMechanism(LEADER, K, None).claimed is None


# ---- the protocol page -------------------------------------------------------------------------

PROTOCOL_DOC = (ROOT / "docs" / "audit-protocol.md").read_text()


PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", PROTOCOL_DOC, flags=re.S)


@pytest.mark.smoke
@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_python_blocks_of_the_protocol_page_run(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(block, "docs/audit-protocol.md", "exec"), {})


@pytest.mark.exact
def test_the_worked_exchange_of_the_protocol_page_is_what_the_examples_print():
    leader = load_noisy_leader()
    import random
    rows = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.25]]
    answers = [" ".join(map(str, leader.noisy_leader(rows, 0.1, random.Random(s))))
               for s in seeds_of(7, 2)]
    table_exchange = re.search(r"> dpbandits 1 table bandit\n(.*?)> quit", PROTOCOL_DOC, flags=re.S)
    assert [line[2:] for line in table_exchange.group(1).splitlines() if line.startswith("<")] == answers
    assert [f"run 2 3 {s}" for s in seeds_of(7, 2)] == re.findall(r"> (run 2 3 \d+)", table_exchange.group(1))
    greedy = CommandMechanism(GREEDY + ["0.5"], 2, None, protocol="interactive").sample(
        np.array(rows), 1, 7)
    exchange = re.search(r"> dpbandits 1 interactive bandit\n(.*?)> quit", PROTOCOL_DOC, flags=re.S)
    played = [int(line[2:]) for line in exchange.group(1).splitlines() if re.fullmatch(r"< \d", line)]
    assert played == greedy[0].tolist()
