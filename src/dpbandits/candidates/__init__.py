"""Naming a candidate implementation: one way for ``audit``, ``validate`` and the testing API.

A *candidate* is someone else's implementation of a bandit algorithm, given as

* a Python object, or the text ``MODULE:OBJECT`` or ``path/to/file.py:OBJECT`` naming one
  (``--python`` on the command line; a file inside a package is imported as that package's
  module, so its relative imports work). ``OBJECT(name=value, ...)`` with Python literals binds
  those arguments (``"SMPyBandits.Policies:UCBalpha(alpha=4)"``); ``mabwiser:NAME`` and
  ``mabwiser:NAME(...)`` name MABWiser's learning policies (``mabwiser:UCB1(alpha=1)`` is
  ``mabwiser.mab.LearningPolicy.UCB1(alpha=1)``). The object is a class or a factory called
  once per run (or a MABWiser learning policy, run by a MAB built per run). What it receives is
  read from its signature (:func:`builder`):

  - ``OBJECT(problem, rng)``: a parameter named ``problem`` gets the :class:`Problem` (K, T,
    epsilon, the setting's parameters) and the next one the run's ``numpy.random.Generator``;
  - ``OBJECT(K, T, epsilon, rng)`` in any order and with any subset: parameters are matched by
    name (:data:`ALIASES`: ``K``, ``n_arms`` or ``nbArms``; ``T`` or ``horizon``; ``epsilon`` or
    ``eps``; ``rng``, ``generator`` or ``random_state``; ``seed``, which gets an integer derived
    from the run's seed), and any other parameter whose name is one of the problem's ``params``
    gets that value; parameters with defaults may be left out;
  - ``OBJECT(rng)``: one required parameter of another name (not one of the problem's
    ``params``) is the generator (the older form).

  The object it returns follows the single-run act/observe protocol of
  :mod:`dpbandits.audit.adapters`: ``act(t)`` returns an arm in 0..K-1, ``observe(t, arm,
  feedback)`` receives the pulled arm's reward (``bandit``) or the whole row (``full``; an
  ``observe(t, row)`` of two arguments gets the row), or one of the ecosystem's protocols,
  recognised by shape (:mod:`dpbandits.audit.protocols`): SMPyBandits' ``startGame()`` /
  ``choice()`` / ``getReward(arm, reward)``, a MABWiser ``MAB`` (``fit`` / ``predict`` /
  ``partial_fit``) or ``step(last_reward, last_arm) -> arm``.
  With ``semi`` feedback (a matroid semi-bandit, the matroid in ``params["matroid"]``, so a
  parameter named ``matroid`` gets it, and K = its L base arms) it first gets
  ``observe(0, None, w0)`` with the free round-0 row, then ``act(t)`` returns k base arms
  forming a basis and ``observe(t, arms, rewards)`` receives the sorted basis and its weights
  (:class:`~dpbandits.audit.semi_adapter.SemiPolicyMechanism`).
* :class:`Command`, an external program in any language speaking the line protocol of
  docs/audit-protocol.md (``--command``); it reads K and T from each ``run`` line and takes any
  other parameter (epsilon) as its own arguments.
* an audit mechanism built already (anything with ``K`` and ``sample``), used as it is.

:func:`load` turns any of these into a mechanism for :func:`dpbandits.audit.audit` and
:func:`dpbandits.validate.validate`. A Python candidate runs in a process of its own
(:mod:`dpbandits.audit.isolation`, docs/audit-protocol.md#isolation): a candidate named by text
is imported there, never in the auditor's process, and it sees copies only. Everything that can
be checked before the work starts is checked by :func:`load`, in that process: the text names an
importable object, the signature can be served, the object built for a small problem has
callable ``act`` and ``observe``. A candidate that later returns an arm outside 0..K-1, a value
that is not one arm, raises, exits, crashes or exceeds the time limit of a call (``timeout``)
stops the run with a :class:`~dpbandits.errors.DPBanditsError` naming the run and the round
(exit status 2 on the command line), never a verdict.

The package has one module per role: :mod:`~dpbandits.candidates.naming` (text to object:
``MODULE:OBJECT``, ``FILE.py:OBJECT``, a :class:`Command`), :mod:`~dpbandits.candidates.building`
(an object's signature to a per-run builder for a :class:`Problem`) and
:mod:`~dpbandits.candidates.mechanisms` (:func:`load`: a candidate to an audit mechanism that runs
it in its host process, checked before any work).
"""

from __future__ import annotations

from .building import ALIASES, Problem, builder, filled_note, reference_values
from .mechanisms import (CandidateMechanism, NamedFunctionMechanism, SemiCandidateMechanism,
                         check_protocol, load)
from .naming import NAMESPACES, Command, resolve, short_name

__all__ = ["Problem", "Command", "load", "resolve", "builder", "reference_values", "filled_note",
           "CandidateMechanism", "SemiCandidateMechanism", "NamedFunctionMechanism", "ALIASES", "NAMESPACES",
           "short_name", "check_protocol"]
