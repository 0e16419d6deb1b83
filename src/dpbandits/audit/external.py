"""External programs as mechanisms under test, over a line protocol on stdin/stdout.

The program may be written in any language. ``workers`` copies of it run in parallel, each
started once and serving a contiguous share of the runs one after the other; the harness talks
to each copy through its standard input and output. The protocol (version 1) is ASCII text, one
message per line, fields separated by single spaces; ``docs/audit-protocol.md`` documents it with
a worked exchange. In short, with ``>`` for harness -> program and ``<`` for program -> harness::

    > dpbandits 1 PROTOCOL FEEDBACK          once, when the program starts
    > run K T SEED                           each run; 0 <= SEED < 2^32 seeds the program's RNG
      protocol "table":
    > x_1 ... x_K                            T lines: the reward table, row t = round t
    < a_1 ... a_T                            the T actions, arms 0..K-1
      protocol "interactive", for t = 1..T:
    < a_t                                    the action of round t
    > r                                      bandit: the pulled arm's reward; full: K rewards
      then
    < end                                    after the last feedback
    > quit                                   once; then stdin is closed and the program exits 0

The run with index ``i`` always gets ``SEED = SeedSequence(seed).spawn(n)[i].generate_state(1)[0]``,
so a correct program (one that resets its state at each ``run`` line and draws randomness only
from SEED) gives results that depend on ``(seed, i)`` only, never on ``workers``.

Robustness: a reader thread drains the program's stdout into a queue, a second drains stderr
(its tail goes into error messages), and a writer thread feeds stdin, so the harness never blocks
on a pipe. Every expected line has a deadline (``timeout`` seconds); a program that misses it is
killed with its whole process group. Crashes, early exits, hangs, unparsable lines, wrong counts,
out-of-range arms, extra output and a non-zero exit status all raise
:class:`~dpbandits.errors.DPBanditsError` naming the command, the run and its seed.
"""

from __future__ import annotations

import collections
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Sequence

import numpy as np

from ..errors import DPBanditsError, check_positive_int
from ..limits import max_line_bytes
from ..reference.environments import Table
from .adapters import FEEDBACK_MODELS, checked_sample_arguments, claimed_guarantee
from .protocols import seed_states
from . import sandbox
from .isolation import DEFAULT_TIMEOUT, check_timeout, prepare_auditor, quoted
from .mechanism import Mechanism
from .pipes import (END_OF_OUTPUT, FLOODED, STDERR_CHUNK, STDERR_FLOOD, STDERR_LINES, TOO_LONG,
                    feed, keep_tail, pump_lines, shown, status_text)

__all__ = ["CommandMechanism", "PROTOCOL_VERSION", "PROTOCOLS", "DEFAULT_TIMEOUT"]

PROTOCOL_VERSION = 1
PROTOCOLS = ("table", "interactive")

PIPELINED_RUNS = 8
"""Runs the harness may send ahead of the answers in the table protocol (throughput only)."""

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")


class CommandMechanism(Mechanism):
    """An external program speaking the dpbandits line protocol (version 1).

    ``command``: the program and its arguments, as a list or as one string split like a POSIX
    shell would (no shell runs it; use ``sh -c "..."`` for pipes or redirections). ``K``: arms.
    ``claim_epsilon``: the epsilon the program claims (epsilon-DP of the action sequence under
    whole-row neighbours), or None. ``protocol``: ``table`` (the program gets the whole table and
    answers T actions) or ``interactive`` (round by round). ``feedback``: what an interactive
    program is told after each action, ``bandit`` (the pulled arm's reward) or ``full`` (the row);
    for ``table`` it records what the program is meant to use. ``workers``: copies of the program
    run in parallel. ``timeout``: seconds allowed for each expected line (a run's actions, one
    action, the exit after ``quit``); a program that starts slowly must answer its first line
    within it too.
    """

    def __init__(self, command: str | Sequence[str], K: int, claim_epsilon: float | None,
                 protocol: str = "table", feedback: str = "bandit", *, workers: int = 1,
                 timeout: float = DEFAULT_TIMEOUT, label: str | None = None) -> None:
        self.argv = _checked_argv(command)
        self.K = check_positive_int(K, "K", minimum=2)
        self.claimed = claimed_guarantee(claim_epsilon)
        if protocol not in PROTOCOLS:
            raise DPBanditsError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        self.protocol = protocol
        if feedback not in FEEDBACK_MODELS:
            raise DPBanditsError(f"feedback must be one of {FEEDBACK_MODELS}, got {feedback!r}")
        self.feedback = feedback
        self.workers = check_positive_int(workers, "workers")
        self.timeout = check_timeout(timeout)
        self.label = label or shlex.join(self.argv)
        self._live: set[_Session] = set()
        self._live_lock = threading.Lock()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_live", None)
        state.pop("_live_lock", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._live, self._live_lock = set(), threading.Lock()

    def stop_all(self) -> None:
        """Stop every copy of the program that a ``sample`` call (in any thread) is running:
        an interrupt ends them now, not at their next line's time limit."""
        with self._live_lock:
            sessions = list(self._live)
        for session in sessions:
            session.cancel()

    def sample(self, table: Table | np.ndarray, n: int, seed: int) -> np.ndarray:
        """``n`` independent runs on ``table``: an int32 array of shape (n, T), arms in 0..K-1."""
        return self.sample_from(table, 0, n, seed)

    def sample_from(self, table: Table | np.ndarray, first: int, n: int, seed: int) -> np.ndarray:
        """Runs ``first`` .. ``first + n - 1`` of ``sample(table, first + n, seed)`` (their
        SEEDs are those runs'), without running the first ``first`` again."""
        table, n, seed = checked_sample_arguments(table, n, seed, self.K, self.label)
        # SeedSequence(seed).spawn(first + n)[i].generate_state(1)[0], for every run at once
        seeds = seed_states(seed, int(first), n, n_words=1)[:, 0].tolist()
        cells = [[repr(float(x)) for x in row] for row in table.X]
        actions = np.empty((n, table.T), dtype=np.int32)
        copies = min(self.workers, n)
        bounds = [n * w // copies for w in range(copies + 1)]
        sessions = [_Session(self, cells) for _ in range(copies)]
        with self._live_lock:
            self._live.update(sessions)
        try:
            if copies == 1:
                sessions[0].serve(range(n), seeds, actions)
                return actions
            with ThreadPoolExecutor(max_workers=copies) as pool:
                futures = [pool.submit(session.serve, range(bounds[w], bounds[w + 1]), seeds, actions)
                           for w, session in enumerate(sessions)]
                try:
                    wait(futures, return_when=FIRST_EXCEPTION)
                finally:   # a failure or an interrupt: stop every copy now, not at its next line
                    if not all(f.done() and f.exception() is None for f in futures):
                        for session in sessions:
                            session.cancel()
            if any(f.exception() is not None for f in futures):
                raise _first_error(futures)
            return actions
        except BaseException:
            for session in sessions:
                session.cancel()
            raise
        finally:
            for session in sessions:
                session.stop()
            with self._live_lock:
                self._live.difference_update(sessions)

    def __repr__(self) -> str:
        return (f"CommandMechanism({self.label!r}, K={self.K}, claimed={self.claimed}, "
                f"protocol={self.protocol!r}, feedback={self.feedback!r}, "
                f"workers={self.workers}, timeout={self.timeout:g})")


def _checked_argv(command: str | Sequence[str]) -> list[str]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise DPBanditsError(f"command {command!r} cannot be split into words: {error}") from None
    else:
        argv = list(command)
    if not argv or not all(isinstance(word, str) for word in argv):
        raise DPBanditsError(f"command must be a non-empty string or list of strings, got {command!r}")
    return argv


def _first_error(futures) -> BaseException:
    """The error of the first failed copy that was not merely stopped because another failed."""
    errors = [f.exception() for f in futures if f.exception() is not None]
    genuine = [e for e in errors if not isinstance(e, _Cancelled)]
    return (genuine or errors)[0]


class _Cancelled(DPBanditsError):
    """This copy was stopped because another copy failed."""


class _Problem(Exception):
    """What went wrong with the program, without the command and run (added by the session)."""


class _Session:
    """One running copy of the program, serving runs one after another."""

    def __init__(self, mechanism: CommandMechanism, cells: list[list[str]]) -> None:
        self.m = mechanism
        self.cells = cells
        self.process: subprocess.Popen | None = None
        self.folder: str | None = None
        """The program's own temporary folder, where it runs sandboxed."""
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._killed = False

    # ---- running the runs -------------------------------------------------------------------

    def serve(self, runs: range, seeds: list[int], actions: np.ndarray) -> None:
        """Run ``runs`` (global indices) in order, writing each run's actions into ``actions``."""
        self._where = "at start-up"
        try:
            self._start()
            self._send(f"dpbandits {PROTOCOL_VERSION} {self.m.protocol} {self.m.feedback}\n")
            if self.m.protocol == "table":
                self._serve_table(runs, seeds, actions)
            else:
                for i in runs:
                    self._check_cancelled()
                    self._where = f"run {i} (seed {seeds[i]})"
                    actions[i] = self._interactive_run(seeds[i])
            self._where = "at shutdown"
            self._shut_down()
        except _Problem as problem:
            if self.cancelled.is_set():
                raise _Cancelled(f"command {self.m.label!r}: stopped because another copy "
                                 f"failed") from None
            raise DPBanditsError(f"command {self.m.label!r}, {self._where}: the program "
                                 f"{problem}") from problem.__cause__
        finally:
            self._release()

    def _serve_table(self, runs: range, seeds: list[int], actions: np.ndarray) -> None:
        table_text = "".join(" ".join(row) + "\n" for row in self.cells)
        T, K = len(self.cells), self.m.K
        sent = runs.start
        for i in runs:
            self._check_cancelled()
            while sent < min(i + PIPELINED_RUNS, runs.stop):
                self._send(f"run {K} {T} {seeds[sent]}\n{table_text}")
                sent += 1
            self._where = f"run {i} (seed {seeds[i]})"
            line = self._receive(f"the T = {T} actions of the run")
            words = line.split()
            if len(words) == T and _DIGITS.fullmatch("".join(words)):     # the usual case
                arms = list(map(int, words))
                if max(arms) < K:
                    actions[i] = arms
                    continue
            where = f" in its answer {shown(line)}"
            arms = [self._arm(word, where) for word in words]
            if len(arms) != T:
                raise _Problem(f"answered {len(arms)} actions where T = {T} were expected: "
                               f"{shown(line)}")
            actions[i] = arms

    def _interactive_run(self, seed: int) -> np.ndarray:
        T, K = len(self.cells), self.m.K
        full = self.m.feedback == "full"
        self._send(f"run {K} {T} {seed}\n")
        actions = np.empty(T, dtype=np.int32)
        for t in range(1, T + 1):
            line = self._receive(f"the action of round t = {t}")
            if line.strip() == "end":
                raise _Problem(f"printed 'end' after {t - 1} of T = {T} actions")
            action = self._arm(line.strip(), f" in round t = {t}")
            actions[t - 1] = action
            row = self.cells[t - 1]
            self._send((" ".join(row) if full else row[action]) + "\n")   # only after acting
        line = self._receive("'end' after the last round").strip()
        if _INTEGER.fullmatch(line):
            raise _Problem(f"printed more than T = {T} actions (then {shown(line)}) where "
                           f"'end' was expected")
        if line != "end":
            raise _Problem(f"printed {shown(line)} where 'end' was expected after round T = {T}")
        return actions

    def _arm(self, word: str, where: str) -> int:
        if not _INTEGER.fullmatch(word):
            raise _Problem(f"printed {shown(word)}{where} where an arm (an integer in "
                           f"0..{self.m.K - 1}) was expected")
        arm = int(word)
        if not 0 <= arm < self.m.K:
            raise _Problem(f"played arm {arm}{where}, outside 0..{self.m.K - 1}")
        return arm

    def _check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise _Problem("stopped because another copy of the program failed")

    def _release(self) -> None:
        """Stop the program, let the pipe threads finish and close the pipes they used."""
        self.stop()
        if self.process is None:
            return
        streams = (self.process.stdout, self.process.stderr, self.process.stdin)
        for thread, stream in zip(self._threads, streams):
            thread.join(timeout=1.0)
            if not thread.is_alive():   # a grandchild that escaped the kill may hold a pipe
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass

    # ---- the process and its pipes ----------------------------------------------------------

    def _start(self) -> None:
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._stderr: collections.deque[bytes] = collections.deque(maxlen=STDERR_LINES)
        self._stderr_bytes = [0]
        self.max_line = max_line_bytes(self.m.K, len(self.cells))
        prepare_auditor()           # no process of the user reaches this one through /proc
        argv = self.m.argv
        box = sandbox.status()
        if sandbox.LAUNCHES:        # confined as a Python candidate's host is
            self.folder = tempfile.mkdtemp(prefix="dpbandits-candidate-")
            executable = shutil.which(argv[0])
            if executable is None:
                shutil.rmtree(self.folder, ignore_errors=True)
                why = ("[Errno 13] Permission denied" if os.path.exists(argv[0]) else
                       "[Errno 2] No such file or directory")
                raise _Problem(f"could not be started: {why}: {argv[0]!r}")
            argv = sandbox.launcher(self.folder, box, [executable, *argv[1:]])
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=os.name == "posix")
        except OSError as error:
            raise _Problem(f"could not be started: {error}") from error
        with self._lock:
            self.process = process
        sandbox.ROOTS.add(process.pid)
        if self.cancelled.is_set():
            self.stop()
        self._threads = [
            threading.Thread(target=pump_lines, args=(process.stdout, self._lines, self.max_line),
                             daemon=True),
            threading.Thread(target=keep_tail, args=(process.stderr, self._stderr,
                                                      self._stderr_bytes, self._lines), daemon=True),
            threading.Thread(target=feed, args=(process.stdin, self._outbox), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _send(self, text: str) -> None:
        self._outbox.put(text.encode("ascii"))

    def _receive(self, expected: str) -> str:
        try:
            line = self._lines.get(timeout=self.m.timeout)
        except queue.Empty:
            self.stop()
            self._check_cancelled()
            raise _Problem(f"gave no answer within the timeout of {self.m.timeout:g} s while "
                           f"waiting for {expected}; it was stopped{self._stderr_tail()}") from None
        if line is END_OF_OUTPUT:
            self._check_cancelled()
            raise _Problem(f"{self._exit_status()} while waiting for {expected}"
                           f"{self._stderr_tail()}")
        if line is TOO_LONG:
            self.stop()
            raise _Problem(f"printed a line longer than {self.max_line} bytes (the longest valid "
                           f"answer for K = {self.m.K}, T = {len(self.cells)}) while waiting for "
                           f"{expected}; it was stopped")
        if line is FLOODED:
            self.stop()
            raise _Problem(f"flooded its standard error (more than {STDERR_FLOOD // 2 ** 20} MiB) "
                           f"while waiting for {expected}; it was stopped")
        try:
            text = line.decode("ascii")
        except UnicodeDecodeError:
            raise _Problem(f"printed non-ASCII output {shown(line)} while waiting for "
                           f"{expected}") from None
        return text.rstrip("\r\n")

    def _shut_down(self) -> None:
        """Send ``quit``, close stdin; expect no more output and exit status 0."""
        self._send("quit\n")
        self._outbox.put(None)
        try:
            line = self._lines.get(timeout=self.m.timeout)
        except queue.Empty:
            exited = self.process.poll() is not None
            self.stop()
            if exited:
                raise _Problem(f"exited, but a process it started still held its standard "
                               f"output {self.m.timeout:g} s after 'quit'; it was stopped") from None
            raise _Problem(f"did not exit within {self.m.timeout:g} s of 'quit'; "
                           f"it was stopped{self._stderr_tail()}") from None
        if line is FLOODED:
            self.stop()
            raise _Problem(f"flooded its standard error (more than {STDERR_FLOOD // 2 ** 20} MiB) "
                           "after 'quit'; it was stopped")
        if line is TOO_LONG:
            self.stop()
            raise _Problem(f"printed a line longer than {self.max_line} bytes after its last "
                           "answer; it was stopped")
        if line is not END_OF_OUTPUT:
            raise _Problem(f"printed {shown(line.rstrip())} after its last answer: more lines "
                           f"than the protocol allows, so earlier answers may be out of step")
        try:
            status = self.process.wait(timeout=self.m.timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise _Problem(f"closed its output but did not exit within {self.m.timeout:g} s "
                           f"of 'quit'; it was stopped") from None
        self.stop()                     # anything the program left running in its group
        if status != 0:
            raise _Problem(f"{status_text(status)} after 'quit'{self._stderr_tail()}")

    def _exit_status(self) -> str:
        try:
            status = self.process.wait(timeout=min(self.m.timeout, 5.0))
        except subprocess.TimeoutExpired:
            self.stop()
            return "closed its standard output (it was stopped)"
        if status == 0:
            return "exited early with status 0"
        return status_text(status)

    def _stderr_tail(self) -> str:
        reader = self._threads[1]
        reader.join(timeout=0.5 if self.process.poll() is not None else 0.05)
        tail = [line.decode("ascii", "backslashreplace").strip() for line in list(self._stderr)]
        tail = [line for line in tail if line]
        if not tail:
            return "; it wrote nothing to standard error"
        written = self._stderr_bytes[0]
        size = f" ({written} bytes in all)" if written > STDERR_LINES * STDERR_CHUNK else ""
        joined = " | ".join(tail)
        return f"; the end of its standard error{size}: {quoted(joined[-600:], 600)}"

    def cancel(self) -> None:
        """Stop this copy because another failed (called from another thread)."""
        self.cancelled.set()
        self.stop()

    def stop(self) -> None:
        """Kill the program and everything it started (its process group on POSIX, which may
        outlive the program itself and hold its pipes open)."""
        with self._lock:
            process = self.process
            if process is None or self._killed:
                return
            self._killed = True   # once only: later, the group's id may belong to others
        self._outbox.put(None)          # lets the writer thread finish
        try:
            if os.name == "posix" and process.returncode is None and self.folder is not None:
                sandbox.end_tree(process.pid)   # not reaped: the pid is still its own
            elif os.name == "posix":
                os.killpg(process.pid, signal.SIGKILL)
            elif process.poll() is None:
                process.kill()
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover  (a process that survives SIGKILL)
            pass
        sandbox.ROOTS.discard(process.pid)
        sandbox.end_orphans()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
