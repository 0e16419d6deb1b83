"""Small UCB1s written in the ecosystem's protocols, each faithful or with one planted bug.

They are ours, written for the tests from the protocols' descriptions (no third-party code):
each computes UCB1's index s_a / n_a + sqrt(2 ln(t - 1) / n_a) with t - 1 the plays so far, as
the public UCB1s do (Auer et al.'s original), so each conforms with ``ucb1 --param
log_round=t-1`` and the tie breaking and first pulls its protocol implies.

* ``SmpyUCB`` (SMPyBandits' shape: ``Policy(nbArms)``, ``startGame()``, ``choice()``,
  ``getReward(arm, reward)``): unpulled arms first, ties uniformly at random, both drawn from
  NumPy's global generator. ``SmpyUCBWrongArm`` credits each reward to the next arm.
* ``tiny_mab(K, seed)`` (MABWiser's shape: ``MAB`` with ``arms``, ``fit``, ``predict``,
  ``partial_fit``, a ``seed``): arms named ``"arm0"``... and ties to the first arm.
  ``tiny_mab_no_two`` drops the 2 under the square root.
* ``tiny_thompson_mab(K, seed)`` (MABWiser's shape, cold start): Thompson sampling with Beta(1, 1)
  priors over arms ``"arm0"``..., drawn from its own ``RandomState``, predicting after an empty
  ``fit`` as MABWiser's ``ThompsonSampling`` does; ``predict_expectations()`` gives the draws.
  ``tiny_thompson_mab_flipped`` counts a reward of 1 as a failure.
* ``StepUCB(n_arms, epsilon)`` (a step-style solver: ``step(last_reward, last_arm) -> arm``):
  unpulled arms in order, ties at random from NumPy's global generator. ``StepUCBInverted``
  records 1 - reward.
* ``RowLeader(K)``: follow the leader with a full-information ``observe(t, row)``.
"""

from __future__ import annotations

import math

import numpy as np


class SmpyUCB:
    def __init__(self, nbArms, lower=0.0, amplitude=1.0):
        self.nbArms, self.lower, self.amplitude = nbArms, lower, amplitude
        self.t = -1
        self.pulls = np.zeros(nbArms, dtype=int)
        self.rewards = np.zeros(nbArms)

    def startGame(self):
        self.t = 0
        self.pulls.fill(0)
        self.rewards.fill(0)

    def choice(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            index = self.rewards / self.pulls + np.sqrt(2 * np.log(self.t) / self.pulls)
        index[self.pulls < 1] = np.inf
        return np.random.choice(np.nonzero(index == np.max(index))[0])

    def getReward(self, arm, reward):
        self.t += 1
        self.pulls[arm] += 1
        self.rewards[self._credited(arm)] += (reward - self.lower) / self.amplitude

    def _credited(self, arm):
        return arm


class SmpyUCBWrongArm(SmpyUCB):
    def _credited(self, arm):
        return (arm + 1) % self.nbArms


class TinyMAB:
    def __init__(self, arms, alpha=1.0, seed=123456, two=2.0):
        self.arms, self.alpha, self.two = list(arms), alpha, two
        self.is_contextual = False
        self.rng = np.random.RandomState(seed)
        self.counts = dict.fromkeys(self.arms, 0)
        self.sums = dict.fromkeys(self.arms, 0.0)

    def fit(self, decisions, rewards):
        self.counts = dict.fromkeys(self.arms, 0)
        self.sums = dict.fromkeys(self.arms, 0.0)
        self.partial_fit(decisions, rewards)

    def partial_fit(self, decisions, rewards):
        for arm, reward in zip(decisions, rewards):
            self.counts[arm] += 1
            self.sums[arm] += reward

    def predict(self):
        total = sum(self.counts.values())
        best, chosen = -math.inf, None
        for arm in self.arms:
            n = self.counts[arm]
            value = (self.sums[arm] / n + self.alpha * math.sqrt(self.two * math.log(total) / n)
                     if n else 0.0)
            if value > best:
                best, chosen = value, arm
        return chosen


def tiny_mab(K, seed):
    return TinyMAB([f"arm{i}" for i in range(K)], seed=seed)


def tiny_mab_no_two(K, seed):
    return TinyMAB([f"arm{i}" for i in range(K)], seed=seed, two=1.0)


class TinyThompsonMAB:
    def __init__(self, arms, seed=123456, flipped=False):
        self.arms, self.flipped = list(arms), flipped
        self.is_contextual = False
        self.rng = np.random.RandomState(seed)
        self.successes = dict.fromkeys(self.arms, 0.0)
        self.failures = dict.fromkeys(self.arms, 0.0)

    def fit(self, decisions, rewards):
        self.successes = dict.fromkeys(self.arms, 0.0)
        self.failures = dict.fromkeys(self.arms, 0.0)
        self.partial_fit(decisions, rewards)

    def partial_fit(self, decisions, rewards):
        for arm, reward in zip(decisions, rewards):
            good = reward if not self.flipped else 1 - reward
            self.successes[arm] += good
            self.failures[arm] += 1 - good

    def predict_expectations(self):
        return {arm: self.rng.beta(self.successes[arm] + 1, self.failures[arm] + 1)
                for arm in self.arms}

    def predict(self):
        draws = self.predict_expectations()
        return max(self.arms, key=lambda arm: draws[arm])


def tiny_thompson_mab(K, seed):
    return TinyThompsonMAB([f"arm{i}" for i in range(K)], seed=seed)


def tiny_thompson_mab_flipped(K, seed):
    return TinyThompsonMAB([f"arm{i}" for i in range(K)], seed=seed, flipped=True)


class StepUCB:
    def __init__(self, n_arms, epsilon=None):
        self.n_arms = n_arms
        self.counts = [0] * n_arms
        self.sums = [0.0] * n_arms

    def step(self, last_reward, last_arm):
        if last_reward is not None:
            self.counts[last_arm] += 1
            self.sums[last_arm] += self._recorded(last_reward)
        for arm, count in enumerate(self.counts):
            if count == 0:
                return arm
        t = sum(self.counts)
        ucb = [s / n + math.sqrt(2 * math.log(t) / n) for s, n in zip(self.sums, self.counts)]
        best = max(ucb)
        return int(np.random.choice([a for a in range(self.n_arms) if ucb[a] == best]))

    def _recorded(self, reward):
        return reward


class StepUCBInverted(StepUCB):
    def _recorded(self, reward):
        return 1.0 - reward


class RowLeader:
    def __init__(self, K):
        self.totals = np.zeros(K)

    def act(self, t):
        return int(np.argmax(self.totals))

    def observe(self, t, row):
        self.totals += row


class ArmRowLeader(RowLeader):
    def observe(self, t, arm, row):
        self.totals += row
