"""Python candidates in a process of their own: the code under test cannot reach the auditor.

A Python candidate (a class, a factory or a function of the table, see
:mod:`dpbandits.audit.adapters`) runs in a *host*: a child process forked from the auditor,
which serves whole blocks of runs. The auditor sends a block request (a copy of the reward table
as bytes and the runs' seeds) and receives the block's actions; nothing else crosses. So:

* the candidate works on copies: the host rebuilds the table from the bytes it received (an
  array over immutable bytes, which cannot be made writeable again), and every run gets its own
  copy of what it observes (the pulled rewards as floats, each full row or basis weights as a
  fresh read-only array, a function's table as a fresh read-only array). Rewriting what it was
  given changes only its own copy, never another run's input nor the auditor's table;
* its exceptions, ``sys.exit``, ``os._exit``, signals and crashes end the host, not the auditor:
  each becomes a :class:`~dpbandits.errors.DPBanditsError` naming the candidate, the run and the
  call (exit status 2 on the command line), never a verdict;
* its standard output and error go to a pipe whose last lines are quoted in those errors; they
  never mix with the auditor's output (``--json`` stays JSON);
* every call into it has a time limit (``timeout`` seconds: loading it, building a run's policy,
  each ``act`` and ``observe``, a function's whole run), kept by the auditor on the candidate's
  own clock: the time the call has taken less the time the machine kept the host waiting for a
  processor (Linux's per-thread run-queue delay, :func:`_kept_waiting`), so a slow but honest
  candidate on a loaded machine is not stopped while a sleeping or spinning one is; and at most
  :data:`WAITING_FACTOR` times ``timeout`` on the wall clock, whatever the load (a candidate that
  loads the machine itself cannot stretch its limit further). Where the system does not report
  the delay, the clock is the wall clock. The host writes which call it is in to a word of shared
  memory; the clock restarts only when that word moves past every call seen in the request,
  within the request's calls, so a candidate that writes the word itself gains at most the time
  an honest candidate gets for the calls it skips. A reply that has begun must end within
  ``timeout`` seconds;
* the reply is read without unpickling (a JSON header of bounded size and nesting, then raw int32
  actions of the expected shape, at most the expected size), then checked again (arms in range):
  a host that writes to its end of the connection cannot run code in the auditor or hand it an
  invalid action, and what it says is quoted as data (:func:`quoted`, :func:`neutral`), never as
  a line of ours;
* the auditor is not dumpable and the host is confined before it loads the candidate
  (:mod:`dpbandits.audit.sandbox`): never root, it dies with the auditor, every process it
  starts ends with it (a PID namespace, or the host's and the auditor's subreaping), and, where
  the kernel allows, it writes only its own temporary folder, signals only its own descendants
  and opens no socket. The modules the auditor needs for its verdicts are imported before the
  first host starts (:data:`PRELOAD`).

The host keeps running between requests (starting it, and importing a candidate named by text,
happen once per mechanism and worker), and is killed when the mechanism is closed, garbage
collected or the auditor exits. ``workers`` hosts serve contiguous blocks of runs; a result
depends on ``(seed, run)`` only, as in :func:`dpbandits.audit.adapters.run_seeds`.

Limits (docs/audit-protocol.md#isolation, one table per platform): a hostile candidate can
still read files, use memory and CPU (within the time limit per call), keep notes between the
runs one host serves (module-level state, as any process can), and read its own copy of the
table, including rounds it has not reached yet; without Landlock it can also write the user's
files and signal the user's processes, and without seccomp open sockets. Isolation needs
``os.fork`` (POSIX); elsewhere the candidate runs in the auditor's process.
"""

from __future__ import annotations

import collections
import importlib
import json
import math
import mmap
import os
import pickle
import re
import select
import shutil
import signal
import struct
import tempfile
import threading
import time
from multiprocessing import Pipe
from multiprocessing.connection import wait
from typing import Any, Sequence

import numpy as np

from ..errors import DPBanditsError
from . import sandbox, tampering
from .host import BROKEN, UNCONFINED, host_main
from .quoting import neutral, quoted

__all__ = ["DEFAULT_TIMEOUT", "AVAILABLE", "Hosts", "check_timeout", "quoted", "neutral",
           "prepare_auditor", "PRELOAD"]

DEFAULT_TIMEOUT = 30.0
"""Seconds allowed for each call into a candidate (each expected line of an external program)."""

AVAILABLE = hasattr(os, "fork") and os.name == "posix"
"""Whether candidates can run in a host process (POSIX ``fork``)."""

WAITING_FACTOR = 10
"""A call is stopped after this many times its time limit on the wall clock, even when the
machine kept it waiting for a processor for most of that time."""

POLL_SECONDS = 0.05
"""How often the auditor looks at a busy host's progress word and exit status."""

OUTPUT_LINES = 12
"""Lines of the host's standard output and error quoted in an error message."""

HEADER_BYTES = 65536
"""Longest reply header (JSON) the auditor reads; a message names the failing call."""

HEADER_NESTING = 4
"""Most brackets a reply header may hold: ours has one list, so nesting stays bounded."""

PRELOAD: list[str] = ["dpbandits.audit.result", "dpbandits.audit.confidence",
                      "dpbandits.audit.testers", "dpbandits.audit.scores",
                      "dpbandits.audit.sequential", "dpbandits.audit.drawing",
                      "dpbandits.audit.selection", "dpbandits.audit.against",
                      "dpbandits.audit.pairs", "dpbandits.audit.design",
                      "dpbandits.audit.mechanism", "dpbandits.audit.whitebox"]
"""Modules the auditor needs after a candidate has run, imported before the first host starts:
a module imported later would be read from files the candidate may have changed (packages
above the audit add theirs)."""

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
"""A JSON string literal."""

_LOADING = -1
"""Run index written to the progress word while the host loads and checks the candidate."""


def prepare_auditor() -> None:
    """Before a candidate runs: make this process non-dumpable (no process of the user can
    open its descriptors, memory or environment through /proc) and, without PID namespaces,
    the subreaper of what candidates leave behind (:func:`dpbandits.audit.sandbox.end_orphans`
    ends it); import every module of :data:`PRELOAD`; without a sandbox, mark the tamper
    record (:func:`dpbandits.audit.tampering.before_candidate`)."""
    sandbox.protect_auditor()
    sandbox.adopt_orphans()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:     # not installed: the code that needs it says so when it does
            pass
    tampering.before_candidate()


def check_timeout(timeout: Any) -> float:
    """``timeout`` as a float after checking it is a finite number of seconds > 0."""
    try:
        value = float(timeout)
    except (TypeError, ValueError):
        raise DPBanditsError(f"timeout must be a number of seconds > 0, got {timeout!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise DPBanditsError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    return value


class Hosts:
    """The host processes of one mechanism (started on first use, at most ``size``).

    The owner (the mechanism) provides, in the host: ``_serve(request) -> ndarray | None`` and
    ``_progress``, the int64 pair [run, step] (a memoryview) it updates before each call into
    the candidate;
    in the auditor: ``label``, ``K``, ``_call_name(run, step, request)`` and
    ``_progress_range(request) -> (first run, end run, end step) | None`` (None: a request that
    only loads and checks the candidate).
    """

    def __init__(self, size: int, timeout: float) -> None:
        self.size = size
        self.timeout = timeout
        self._hosts: list[_Host] = []

    def map(self, owner: Any, requests: Sequence[tuple[tuple, tuple[int, ...] | None]]) -> list:
        """Each ``(message, shape)`` served by a host, in order: the reply, an int32 array of
        ``shape`` (or None when ``shape`` is None). The first failure in request order (every
        earlier request is finished first) is raised, and every host is stopped."""
        results: list[Any] = [None] * len(requests)
        failures: dict[int, DPBanditsError] = {}
        busy: dict[_Host, int] = {}
        following = 0
        try:
            while True:
                first_failure = min(failures, default=len(requests))
                while following < first_failure and len(busy) < self.size:
                    host = self._idle_host(owner, busy)
                    host.submit(requests[following][0], owner._progress_range(requests[following][0]))
                    busy[host] = following
                    following += 1
                if not busy:
                    break
                ready = wait([host.connection for host in busy], timeout=POLL_SECONDS)
                for host in list(busy):
                    index = busy[host]
                    try:
                        if host.connection in ready:
                            results[index] = host.collect(owner, requests[index][1])
                            del busy[host]
                        else:
                            host.check(owner)
                    except DPBanditsError as error:
                        failures[index] = error
                        del busy[host]
                        self._drop(host)
            if failures:
                raise failures[min(failures)]
            return results
        except BaseException:
            self.close()
            raise

    def _idle_host(self, owner: Any, busy: dict) -> "_Host":
        for host in self._hosts:
            if host not in busy:
                return host
        prepare_auditor()
        try:
            host = _Host(owner, self.timeout)
        except (BlockingIOError, RuntimeError) as error:    # fork or a thread refused: EAGAIN
            raise DPBanditsError(f"{owner.label}: the system refused a new process or thread for "
                                 f"the candidate ({error}); a candidate that starts processes "
                                 f"without end exhausts the system's limit, and its processes "
                                 f"were stopped") from None
        self._hosts.append(host)
        return host

    def _drop(self, host: "_Host") -> None:
        host.stop()
        self._hosts.remove(host)

    def close(self) -> None:
        """Stop every host (and everything it started)."""
        hosts, self._hosts = self._hosts, []
        for host in hosts:
            host.stop()

    def __len__(self) -> int:
        return len(self._hosts)


class _Late(Exception):
    """A reply that began did not end within the time limit."""


class _Host:
    """One forked child process serving requests for a copy of ``owner``."""

    def __init__(self, owner: Any, timeout: float) -> None:
        self.timeout = timeout
        self.label = owner.label
        self.sandbox = sandbox.status()
        self.folder = tempfile.mkdtemp(prefix="dpbandits-candidate-")
        self._memory = mmap.mmap(-1, 16)
        self.progress = memoryview(self._memory).cast("q")
        self.progress[0], self.progress[1] = _LOADING, 0
        self.connection, theirs = Pipe(duplex=True)
        output_read, output_write = os.pipe()
        parent = os.getpid()
        # The kernel ties the death signal to the thread that forks: only the main thread lives
        # as long as the auditor (elsewhere the host watches its parent: _exit_with).
        tied = threading.current_thread() is threading.main_thread()
        pid = os.fork()
        if pid == 0:        # the host; it never returns from here
            host_main(owner, theirs, self.progress, output_write, self.folder, parent,
                       self.sandbox, tied)
        os.close(output_write)
        theirs.close()
        self.pid = pid
        sandbox.ROOTS.add(pid)
        self.status: int | None = None
        self._tail: collections.deque[bytes] = collections.deque(maxlen=OUTPUT_LINES)
        self._lock = threading.Lock()
        self._stopped = False
        self._drain = threading.Thread(target=_keep_tail, args=(output_read, self._tail),
                                       daemon=True)
        try:
            self._drain.start()
        except RuntimeError:
            self.stop()
            raise

    def submit(self, message: tuple, bounds: tuple[int, int, int] | None) -> None:
        self._bounds = bounds
        self._message = message                         # to name a call of a batch's runs
        self._best: tuple[int, int] | None = None       # the furthest call seen in a run
        self._best_loading = -1                         # the furthest loading step seen
        self._at_submit = tuple(int(x) for x in self.progress)
        self._advance(self._at_submit)
        self._restart_clock(time.monotonic())
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        # A thread sends: a host that stops reading cannot block the auditor past its time limit.
        self._sender = threading.Thread(target=_send, args=(self.connection, data), daemon=True)
        self._sender.start()

    def _in_range(self, run: int, step: int) -> bool:
        if run == _LOADING:
            return 0 <= step <= 2
        if self._bounds is None:
            return False
        first, end, end_step = self._bounds
        return first <= run < end and 0 <= step < end_step

    def _advance(self, seen: tuple[int, int]) -> bool:
        """Whether ``seen`` names a call past every call seen so far in this request."""
        run, step = seen
        if not self._in_range(run, step):
            return False
        if run == _LOADING:
            if step > self._best_loading:
                self._best_loading = step
                return True
            return False
        if self._best is None or seen > self._best:
            self._best = seen
            return True
        return False

    def collect(self, owner: Any, shape: tuple[int, ...] | None) -> Any:
        """The reply to the request in flight (it has begun to arrive), checked."""
        limit = HEADER_BYTES + (4 * math.prod(shape) if shape is not None else 0)
        try:
            data = _read_message(self.connection.fileno(), limit,
                                 time.monotonic() + self.timeout)
        except _Late:
            raise self._forged(f"a reply that did not end within the time limit of "
                               f"{self.timeout:g} s") from None
        except (EOFError, OSError) as error:
            ended = self._ended(wait=1.0)
            if isinstance(error, OSError) and ended is None:
                raise self._forged(f"a message longer than the {limit} bytes a reply may "
                                   f"take") from None
            raise self._failure(owner, (ended or "closed its connection to the auditor")
                                + self._output_tail()) from None
        header, newline, payload = data.partition(b"\n")
        bare = _STRINGS.sub(b'""', header)      # brackets outside strings bound the nesting
        if not newline or len(header) > HEADER_BYTES or \
                bare.count(b"[") + bare.count(b"{") > HEADER_NESTING:
            raise self._forged("a message that is not a reply")
        try:
            reply = json.loads(header.decode("ascii"))
            ok = reply["ok"]
            error, quote = ("", None) if ok is True else (reply["error"], reply.get("quote"))
            if ok not in (True, False) or not isinstance(error, str) or \
                    not isinstance(quote, (str, type(None))):
                raise ValueError
        except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError):
            raise self._forged("a message that is not a reply") from None
        if not ok:      # one line, our label first, whatever the reply said
            text, own = neutral(error), f"{self.label}: "
            text = (text[len(own):] if text.startswith(own)
                    else f"the candidate's process reported: {text}")
            raise DPBanditsError(own + text + ("" if quote is None else f": {quoted(quote)}"))
        if shape is None:
            return None
        if reply.get("shape") != list(shape) or len(payload) != 4 * math.prod(shape):
            raise self._forged(f"actions of shape {neutral(str(reply.get('shape')), 60)} where "
                               f"{list(shape)} were expected")
        return np.frombuffer(payload, dtype=np.int32).reshape(shape).copy()

    def check(self, owner: Any) -> None:
        """Raise if the host died or has been in the same call for longer than the time limit
        (on the auditor's clock: see :meth:`_advance`)."""
        ended = self._ended()
        if ended is not None:
            raise self._failure(owner, ended + self._output_tail())
        now = time.monotonic()
        if self._advance(tuple(int(x) for x in self.progress)):
            self._restart_clock(now)
            return
        overdue = self._overdue(now)
        if overdue and not self.connection.poll():
            # (poll: the reply may have come while this process itself was not running)
            self.stop()
            raise self._failure(owner, f"did not return within {overdue}; it was stopped; "
                                       f"--timeout (timeout= in Python) raises the limit"
                                + self._output_tail())

    def _restart_clock(self, now: float) -> None:
        self._since = now
        self._waited_at = _kept_waiting(self.pid)

    def _overdue(self, now: float) -> str | None:
        """Which time limit the call in progress has passed, or None: the limit on its own
        clock (the wall clock less the time the machine kept the host waiting for a processor
        since the clock restarted) or the limit on the wall clock (:data:`WAITING_FACTOR` times
        longer)."""
        elapsed = now - self._since
        if elapsed > WAITING_FACTOR * self.timeout:
            return (f"{WAITING_FACTOR * self.timeout:g} s on the wall clock ({WAITING_FACTOR} "
                    f"times the time limit of {self.timeout:g} s; the machine kept the "
                    f"candidate's process waiting for a processor for "
                    f"{self._waited(self._waited_at):.0f} s of it)")
        if self._waited_at is None:
            return (f"the time limit of {self.timeout:g} s (on the wall clock: this system does "
                    f"not report the time a process waits for a processor)"
                    if elapsed > self.timeout else None)
        if elapsed - self._waited(self._waited_at) > self.timeout:
            return (f"the time limit of {self.timeout:g} s (of its own time: the time the "
                    f"machine kept it waiting for a processor is not counted)")
        return None

    def _waited(self, since: dict[int, float] | None) -> float:
        """Seconds the host was kept waiting for a processor since ``since`` (a reading of
        :func:`_kept_waiting`): the most any of its threads was, so threads of its own that
        wait for each other are not counted twice."""
        now = _kept_waiting(self.pid)
        if since is None or now is None:
            return 0.0
        return max((delay - since.get(thread, 0.0) for thread, delay in now.items()),
                   default=0.0)

    def _forged(self, what: str) -> DPBanditsError:
        """The candidate wrote to the host's connection itself: no call can be named."""
        self.stop()
        return DPBanditsError(f"{self.label}: the candidate's process sent the auditor {what} "
                              f"(it wrote to the connection itself); it was stopped")

    def _failure(self, owner: Any, what: str) -> DPBanditsError:
        run, step = (int(x) for x in self.progress)
        if not self._in_range(run, step):
            if (run, step) == getattr(self, "_at_submit", None):     # before its first call
                return DPBanditsError(f"{self.label}: the candidate's process {what}")
            return DPBanditsError(f"{self.label}: the candidate's process (which wrote over the "
                                  f"record of the call it was in) {what}")
        return DPBanditsError(f"{self.label}: {owner._call_name(run, step, getattr(self, '_message', None))} "
                              f"{what}")

    def _ended(self, wait: float = 0.0) -> str | None:
        """How the host ended, or None while it runs (after waiting up to ``wait`` seconds)."""
        deadline = time.monotonic() + wait
        while self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return "ended the candidate's process (its exit status is unknown)"
            if pid != 0:
                self.status = status
            elif time.monotonic() >= deadline:
                return None
            else:
                time.sleep(0.01)
        if os.WIFSIGNALED(self.status):
            number = os.WTERMSIG(self.status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"ended the candidate's process: it was killed by {name}"
        code = os.WEXITSTATUS(self.status)
        if code == BROKEN:
            return ("closed or broke its process's connection to the auditor (the process then "
                    "ended)")
        if code == UNCONFINED:
            return ("could not run: the candidate's process could not confine itself, so the "
                    "candidate was not loaded")
        return f"ended the candidate's process (the exit status was {code})"

    def _output_tail(self) -> str:
        self._drain.join(timeout=0.2)
        lines = [line.decode("utf-8", "replace").strip() for line in list(self._tail)]
        lines = [line for line in lines if line]
        if not lines:
            return "; it wrote nothing to its output"
        shown = " | ".join(lines)
        return f"; the end of its output: {quoted(shown[-600:], 600)}"

    def stop(self) -> None:
        """End the host and every process it started (detached ones included: the host adopts
        them), then remove its temporary folder."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self.status is None:             # not reaped: its pid is still its own
            sandbox.end_tree(self.pid)
        else:                               # reaped: only its process group can be named
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.status is None:
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:
                pass
        sandbox.ROOTS.discard(self.pid)
        sandbox.end_orphans()
        self.connection.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _kept_waiting(pid: int) -> dict[int, float] | None:
    """For each thread of process ``pid``, the seconds it has spent runnable but not running
    (waiting for a processor) since it started: the second field of Linux's
    ``/proc/<pid>/task/<tid>/schedstat``, and of the threads of its descendants (the sandbox's
    launcher runs the candidate as its child, in namespaces of its own). None where the system
    does not report it."""
    delays: dict[int, float] = {}
    pending, seen = [pid], set()
    while pending:
        process = pending.pop()
        if process in seen:
            continue
        seen.add(process)
        try:
            threads = os.listdir(f"/proc/{process}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{process}/task/{thread}/schedstat", "rb") as record:
                    delays[int(thread)] = int(record.read().split()[1]) / 1e9
                with open(f"/proc/{process}/task/{thread}/children", "rb") as record:
                    pending.extend(int(c) for c in record.read().split())
            except (OSError, ValueError, IndexError):
                continue
    return delays or None


def _read_message(fd: int, limit: int, deadline: float) -> bytes:
    """One message of ``multiprocessing``'s framing (a 4-byte big-endian length, or -1 and an
    8-byte one, then the bytes) from ``fd``, by ``deadline`` on the auditor's clock. Raises
    :class:`_Late` past the deadline, EOFError at the end of the stream and OSError for a
    message longer than ``limit`` bytes (which is not read)."""
    size, = struct.unpack("!i", _read_exactly(fd, 4, deadline))
    if size == -1:
        size, = struct.unpack("!Q", _read_exactly(fd, 8, deadline))
    if not 0 <= size <= limit:
        raise OSError("bad message length")
    return _read_exactly(fd, size, deadline)


def _read_exactly(fd: int, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    missing = size
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while missing:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(max(1, int(remaining * 1000))):
            raise _Late
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def _send(connection: Any, data: bytes) -> None:
    try:
        connection.send_bytes(data)
    except (OSError, ValueError):
        pass            # the host is gone: the waiting side reports how it ended


def _keep_tail(fd: int, tail: collections.deque) -> None:
    """Drain the host's output, keeping its last lines (memory stays bounded)."""
    try:
        with os.fdopen(fd, "rb", buffering=0) as stream:
            pending = b""
            while chunk := stream.read(65536):
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()[-300:]
                tail.extend(line[:300] for line in lines[-OUTPUT_LINES:])
            if pending:
                tail.append(pending)
    except (OSError, ValueError):
        pass
