"""Python black boxes as mechanisms: PolicyMechanism and CallableMechanism.

Kinds: exact (per-run seeding, feedback delivered to a policy, worker-count independence,
every invalid output and user exception refused with the run named), smoke (attributes).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.audit.adapters import CallableMechanism, PolicyMechanism, run_seeds
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table
from dpbandits.reference.privacy import Guarantee

K = 3
TABLE = Table(np.array([[0.0, 0.5, 1.0],
                        [1.0, 0.0, 0.5],
                        [0.5, 0.5, 0.0],
                        [0.0, 1.0, 1.0],
                        [1.0, 1.0, 0.5]]))


# ---- user code (module level, so that worker processes can unpickle it) -----------------------

def uniform_actions(table, rng):
    return rng.integers(0, table.shape[1], size=table.shape[0])


class EchoPolicy:
    """Round 1: a random arm. Then bandit: arm round(2 r) for the reward r just seen (K = 3);
    full: the best arm of the row just seen (first on ties)."""

    def __init__(self, rng, full=False):
        self.rng, self.full, self.next = rng, full, None
        self.seen = []

    def act(self, t):
        return int(self.rng.integers(0, K)) if self.next is None else self.next

    def observe(self, t, action, feedback):
        self.seen.append((t, action, feedback))
        if self.full:
            assert isinstance(feedback, np.ndarray) and feedback.shape == (K,)
            self.next = int(np.argmax(feedback))
        else:
            assert isinstance(feedback, float)
            self.next = int(round(2 * feedback))


def bandit_echo(rng):
    return EchoPolicy(rng)


def full_echo(rng):
    return EchoPolicy(rng, full=True)


class Returning:
    """A policy whose act returns a fixed value (to feed invalid actions to the adapter)."""

    def __init__(self, value):
        self.value = value

    def act(self, t):
        return self.value

    def observe(self, t, action, feedback):
        pass


class FailsAt:
    """A valid policy that raises in ``method`` at round ``t_fail``."""

    def __init__(self, method, t_fail):
        self.method, self.t_fail = method, t_fail

    def act(self, t):
        if self.method == "act" and t == self.t_fail:
            raise ZeroDivisionError("boom in act")
        return 0

    def observe(self, t, action, feedback):
        if self.method == "observe" and t == self.t_fail:
            raise KeyError("boom in observe")


def fails_in_act(rng):
    return FailsAt("act", 2)


def fails_in_third_run():
    built = []

    def factory(rng):
        built.append(1)
        if len(built) == 3:
            raise RuntimeError("cannot build")
        return Returning(1)
    return factory


def expected_echo(first, full):
    """The echo policy's actions on TABLE, worked out from its first (random) arm."""
    actions = [first]
    for t in range(1, TABLE.T):
        row = TABLE.X[t - 1]
        actions.append(int(np.argmax(row)) if full else int(round(2 * row[actions[-1]])))
    return actions


# ---- seeding, feedback and workers ------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("workers", [1, 2])
def test_run_i_gets_the_ith_child_seed(workers):
    mechanism = CallableMechanism(uniform_actions, K, claim_epsilon=1.0, workers=workers)
    actions = mechanism.sample(TABLE, n=9, seed=11)
    expected = np.stack([np.random.default_rng(child).integers(0, K, size=TABLE.T)
                         for child in np.random.SeedSequence(11).spawn(9)])
    np.testing.assert_array_equal(actions, expected)
    assert actions.dtype == np.int32 and actions.shape == (9, TABLE.T)


@pytest.mark.exact
@pytest.mark.parametrize("full", [False, True])
def test_policy_sees_the_pulled_reward_or_the_row_after_acting(full):
    mechanism = PolicyMechanism(full_echo if full else bandit_echo, K, claim_epsilon=None,
                                feedback="full" if full else "bandit")
    actions = mechanism.sample(TABLE, n=6, seed=3)
    for run, child in zip(actions, run_seeds(3, 6)):
        first = int(np.random.default_rng(child).integers(0, K))
        assert run.tolist() == expected_echo(first, full)


@pytest.mark.exact
def test_full_feedback_is_read_only_and_bandit_feedback_a_float():
    seen = []

    def factory(rng):
        policy = EchoPolicy(rng, full=True)
        seen.append(policy)
        return policy
    # In this process (isolated=False), to look at what the policy was given.
    PolicyMechanism(factory, K, 1.0, feedback="full", isolated=False).sample(TABLE, 1, 0)
    (t, action, row), = seen[0].seen[:1]
    assert t == 1 and isinstance(action, int)
    np.testing.assert_array_equal(row, TABLE.X[0])
    with pytest.raises(ValueError):
        row[0] = 0.25
    assert not seen[0].seen[1][2].flags.writeable and row.base is None   # a copy of its own


@pytest.mark.exact
def test_results_do_not_depend_on_workers_or_on_n():
    one = PolicyMechanism(bandit_echo, K, 1.0).sample(TABLE, n=20, seed=5)
    two = PolicyMechanism(bandit_echo, K, 1.0, workers=2).sample(TABLE, n=20, seed=5)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one[:7], PolicyMechanism(bandit_echo, K, 1.0).sample(TABLE, 7, 5))
    other = PolicyMechanism(bandit_echo, K, 1.0).sample(TABLE, n=20, seed=6)
    assert not np.array_equal(one, other)


@pytest.mark.exact
def test_user_code_cannot_change_the_table():
    def writes(table, rng):
        table[0, 0] = 0.5
        return np.zeros(table.shape[0], dtype=int)
    with pytest.raises(DPBanditsError, match=r"run 0: fn\(table, rng\) raised ValueError"):
        CallableMechanism(writes, K, 1.0).sample(TABLE, 2, 0)
    assert TABLE.X[0, 0] == 0.0


@pytest.mark.smoke
def test_attributes_of_a_wrapped_policy():
    mechanism = PolicyMechanism(bandit_echo, K, claim_epsilon=0.5, feedback="full", label="mine")
    assert mechanism.claimed == Guarantee(0.5)
    assert (mechanism.K, mechanism.feedback, mechanism.label) == (K, "full", "mine")
    assert PolicyMechanism(bandit_echo, K, None).claimed is None
    assert PolicyMechanism(bandit_echo, K, None).label == "policy bandit_echo"
    assert CallableMechanism(uniform_actions, K, None).label == "function uniform_actions"


# ---- invalid outputs and user exceptions ------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("value, message", [
    (3, r"returned arm 3, outside 0\.\.2"),
    (-1, r"returned arm -1, outside"),
    (1.0, r"returned 1\.0 of type float"),
    (float("nan"), r"returned NaN"),
    (True, r"boolean"),
    (np.array([0, 1]), r"shape \(2,\)"),
    (np.array([2.0]), r"returned 2\.0 of type float64"),
    ("1", r"returned '1' of type str"),
    (None, r"returned None"),
])
def test_invalid_actions_of_a_policy_are_refused(value, message):
    mechanism = PolicyMechanism(lambda rng: Returning(value), K, 1.0)
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(1\) .*" + message):
        mechanism.sample(TABLE, 3, 0)


@pytest.mark.exact
def test_length_one_arrays_and_numpy_integers_are_accepted():
    for value in (np.array([2]), np.int64(2), [2], np.uint8(2)):
        actions = PolicyMechanism(lambda rng: Returning(value), K, 1.0).sample(TABLE, 2, 0)
        assert (actions == 2).all()


@pytest.mark.exact
def test_exceptions_in_user_code_name_the_run_and_are_chained():
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(2\) raised ZeroDivisionError: "
                                             r"'boom in act'"):
        PolicyMechanism(fails_in_act, K, 1.0).sample(TABLE, 2, 0)
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(2\) raised ZeroDivisionError: "
                                             r"'boom in act'") as caught:
        PolicyMechanism(fails_in_act, K, 1.0, isolated=False).sample(TABLE, 2, 0)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)   # chained in this process
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.observe\(4, \.\.\.\) raised KeyError"):
        PolicyMechanism(lambda rng: FailsAt("observe", 4), K, 1.0).sample(TABLE, 2, 0)
    with pytest.raises(DPBanditsError, match=r"run 2: factory\(rng\) raised RuntimeError: "
                                             r"'cannot build"):
        PolicyMechanism(fails_in_third_run(), K, 1.0).sample(TABLE, 5, 0)


@pytest.mark.exact
def test_exceptions_in_worker_processes_name_the_run():
    with pytest.raises(DPBanditsError, match=r"run 0: policy\.act\(2\) raised ZeroDivisionError"):
        PolicyMechanism(fails_in_act, K, 1.0, workers=2).sample(TABLE, 4, 0)
    # Host processes are forked: code that cannot be pickled runs with workers = 2 too.
    actions = PolicyMechanism(lambda rng: Returning(1), K, 1.0, workers=2).sample(TABLE, 4, 0)
    assert (actions == 1).all()


@pytest.mark.exact
@pytest.mark.parametrize("output, message", [
    (np.zeros(4, dtype=int), r"expected T = 5 actions \(shape \(5,\)\), got shape \(4,\)"),
    (np.zeros((5, 1), dtype=int), r"got shape \(5, 1\)"),
    (np.array([0, 1, np.nan, 0, 0]), r"round t = 3 is NaN"),
    (np.array([0.0, 1.0, 2.0, 0.0, 1.0]), r"must be integers, got dtype float64"),
    (np.array([0, 1, 2, 3, 1]), r"round t = 4 is arm 3, outside 0\.\.2"),
    (["0", "1", "2", "0", "1"], r"must be integers, got dtype <U1"),
    (np.array([True] * 5), r"must be integers, got dtype bool"),
    ([0, [1, 2]], r"not an array|shape"),
])
def test_invalid_sequences_of_a_function_are_refused(output, message):
    mechanism = CallableMechanism(lambda table, rng: output, K, 1.0)
    with pytest.raises(DPBanditsError, match=r"run 0: .*" + message):
        mechanism.sample(TABLE, 2, 0)


@pytest.mark.exact
def test_bad_arguments_name_the_argument():
    with pytest.raises(DPBanditsError, match="claim_epsilon"):
        PolicyMechanism(bandit_echo, K, claim_epsilon=0.0)
    with pytest.raises(DPBanditsError, match="feedback"):
        PolicyMechanism(bandit_echo, K, 1.0, feedback="semi")
    with pytest.raises(DPBanditsError, match="workers"):
        CallableMechanism(uniform_actions, K, 1.0, workers=0)
    with pytest.raises(DPBanditsError, match="factory must be callable"):
        PolicyMechanism(None, K, 1.0)
    with pytest.raises(DPBanditsError, match="K = 2 arms but the table has 3"):
        CallableMechanism(uniform_actions, 2, 1.0).sample(TABLE, 2, 0)
    with pytest.raises(DPBanditsError, match="n must"):
        CallableMechanism(uniform_actions, K, 1.0).sample(TABLE, 0, 0)
    with pytest.raises(DPBanditsError, match="seed must"):
        CallableMechanism(uniform_actions, K, 1.0).sample(TABLE, 2, -1)


@pytest.mark.exact
@pytest.mark.parametrize("entropy", [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 64 + 5, 2 ** 128 - 1])
def test_the_runs_seeds_derived_in_bulk_are_numpys_word_for_word(entropy):
    """The global generators' seeds of a block of runs, computed for the whole block
    (protocols.global_seeds, a vectorised copy of SeedSequence's hash), equal those that
    seed_globals derives one run at a time through NumPy's SeedSequence; and the runs' own
    states (seed_states with no word) equal SeedSequence(entropy).spawn(n)[i]'s."""
    import random

    from dpbandits.audit.protocols import (NUMPY_GLOBAL, PYTHON_GLOBAL, _derived, global_seeds,
                                           seed_globals, seed_states)

    first, count = 3, 40
    numpy_words, python_ints = global_seeds(entropy, first, count)
    children = np.random.SeedSequence(entropy).spawn(first + count)[first:]
    for i, child in enumerate(children):
        assert numpy_words[i] == _derived(child, NUMPY_GLOBAL).generate_state(4).tolist()
        assert python_ints[i] == int(_derived(child, PYTHON_GLOBAL).generate_state(2, np.uint64)[0])
    np.testing.assert_array_equal(seed_states(entropy, first, count, n_words=2),
                                  [child.generate_state(2) for child in children])
    # And the generators they seed draw what seed_globals' would.
    state = np.random.get_state(), random.getstate()
    try:
        seed_globals(children[7])
        expected = (np.random.random(3).tolist(), random.random())
        np.random.seed(numpy_words[7])
        random.seed(python_ints[7])
        assert (np.random.random(3).tolist(), random.random()) == expected
    finally:
        np.random.set_state(state[0])
        random.setstate(state[1])


class _SometimesGlobal:
    """Round 1: with probability 0.3 (the run's own generator) an arm from NumPy's global
    generator, by an odd number of Gaussian draws (one left cached); otherwise from the run's
    generator. Then Python's global generator for round 2."""

    def __init__(self, rng):
        self.rng = rng

    def act(self, t):
        import random

        if t == 1:
            if self.rng.random() < 0.3:
                return int(sum(np.random.normal(size=3)) > 0)
            return int(self.rng.integers(0, 2))
        if t == 2:
            return random.randrange(2)
        return int(self.rng.integers(0, 2))

    def observe(self, t, arm, reward):
        pass


@pytest.mark.exact
@pytest.mark.parametrize("isolated, workers", [(False, 1), (True, 1), (True, 2)])
def test_the_global_generator_watched_not_seeded_gives_the_seeded_runs(isolated, workers):
    """NumPy's global generator is seeded for a block's first run and then only watched until a
    run draws from it (protocols.NumpyGlobal): a candidate that draws from it in some runs only,
    from the second run of a block on, gives exactly the runs of one seeded before every run
    (seed_globals), in the auditor's process and in one or two hosts."""
    from dpbandits.audit.protocols import seed_globals

    table = Table(np.zeros((4, 2)))
    seed, n = 4, 40
    expected = []
    state = np.random.get_state()
    for child in np.random.SeedSequence(seed).spawn(n):
        seed_globals(child)
        policy = _SometimesGlobal(np.random.default_rng(child))
        expected.append([policy.act(t) for t in range(1, 5)])
    np.random.set_state(state)
    drew = [i for i in range(n) if np.random.default_rng(np.random.SeedSequence(seed).spawn(n)[i]).random() < 0.3]
    assert drew and drew[0] > 0          # the first draw from the global is not a block's first run
    mechanism = PolicyMechanism(_SometimesGlobal, 2, None, isolated=isolated, workers=workers)
    try:
        np.testing.assert_array_equal(mechanism.sample(table, n, seed), expected)
        np.testing.assert_array_equal(mechanism.sample(table, n, seed), expected)   # seeded now
    finally:
        mechanism.close()
