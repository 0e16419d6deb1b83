"""Hostile candidates: each tries one attack on the auditor, then plays follow-the-leader.

Follow-the-leader with full information is not private at all, so an audit that the attack did
not steer ends in a violation (exit status 1). An attack that gets through either changes that
outcome or raises ``Breached`` naming what it reached (exit status 2 with that word), so a test
can tell a failed attack from one that worked. Nothing here changes a file outside the host's
own temporary folder even when its attempt succeeds: a file opened for writing is closed at
once, unchanged (or removed, when the attempt created it).

``HOSTILE_TARGET`` in the environment names a folder the auditor writes (an ``--out`` folder).
"""

import gc
import json
import os
import signal
import site
import socket
import stat
import struct
import sys
import time

try:
    import numpy as np
except ImportError:     # run as an external program by a Python without numpy (program.py)
    np = None


class Breached(Exception):
    """An attack reached what it should not have."""


class FTL:
    """Follow the leader with full information."""

    def __init__(self, K, rng=None):
        self.totals = np.zeros(K)
        self.attack()

    def attack(self):
        pass

    def act(self, t):
        return int(np.argmax(self.totals))

    def observe(self, t, arm, row):
        self.totals = self.totals + row


def _auditor():
    """The auditor's pid: given by the test (in a PID namespace of its own the candidate cannot
    name it; an attacker would find it in /proc), or the parent's."""
    return int(os.environ.get("HOSTILE_AUDITOR") or os.getppid())


def _try_open(path, mode):
    """True when ``path`` opened in ``mode`` (closed at once, nothing written)."""
    try:
        flags = {"r": os.O_RDONLY, "a": os.O_WRONLY | os.O_APPEND}[mode]
        os.close(os.open(path, flags))
        return True
    except OSError:
        return False


def _try_create(path):
    """True when a new file could be created at ``path`` (it is removed again)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return False
    os.unlink(path)
    return True


class ReachesAuditor(FTL):
    """Opens the auditor's standard output, memory and environment through /proc."""

    def attack(self):
        pid = _auditor()
        for name, mode in (("fd/1", "a"), ("mem", "r"), ("environ", "r")):
            if _try_open(f"/proc/{pid}/{name}", mode):
                raise Breached(f"opened /proc/<auditor>/{name}")


FAKE = json.dumps({"verdict": "consistent", "epsilon_lower_bound": 0.0, "exit_status": 0})


class ForgesVerdict(FTL):
    """Writes a whole JSON verdict to the auditor's standard output, then kills the auditor."""

    def attack(self):
        pid = _auditor()
        try:
            with open(f"/proc/{pid}/fd/1", "w") as stdout:
                stdout.write(FAKE + "\n")
        except OSError:
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class SignalsAuditor(FTL):
    """Sends the auditor a signal (0: only asks whether it may)."""

    def attack(self):
        try:
            os.kill(_auditor(), 0)
        except OSError:
            return
        raise Breached("may signal the auditor")


def _package_file():
    import dpbandits.audit.result

    return dpbandits.audit.result.__file__


class WritesPackage(FTL):
    """Opens the installed dpbandits/audit/result.py for appending."""

    def attack(self):
        if _try_open(_package_file(), "a"):
            raise Breached("could append to dpbandits/audit/result.py")


class WritesPth(FTL):
    """Creates a .pth file in site-packages (every later Python process would run it)."""

    def attack(self):
        for folder in site.getsitepackages():
            if _try_create(os.path.join(folder, "zz-dpbandits-hostile.pth")):
                raise Breached(f"could create a .pth file in {folder}")


class WritesCache(FTL):
    """Creates a file in the package's byte-code and numba cache folders."""

    def attack(self):
        import dpbandits.compiled

        package = os.path.dirname(dpbandits.compiled.__file__)
        for folder in (os.path.join(package, "__pycache__"), package):
            if os.path.isdir(folder) and _try_create(os.path.join(folder, "hostile.nbi")):
                raise Breached(f"could create a file in {folder}")


class WritesOut(FTL):
    """Creates a file in the folder the auditor writes its results to."""

    def attack(self):
        target = os.environ.get("HOSTILE_TARGET")
        if target and _try_create(os.path.join(target, "validate-forged.json")):
            raise Breached("could create a file in the --out folder")


class ChecksPreload(FTL):
    """Fails when a module the auditor's verdict needs was not imported before this process was
    forked (it would be read later, from files a candidate can change)."""

    def attack(self):
        from dpbandits.audit.isolation import PRELOAD

        missing = [name for name in PRELOAD if name not in sys.modules]
        if missing:
            raise Breached(f"imported after the fork: {missing}")


VERDICT = ("x.py:X: claim eps = 1; eps lower bound 0.000 at 95% (event, m = 1) -> CONSISTENT\n"
           "privacy: CONSISTENT\nbehaviour: CONFORMS")


class RaisesVerdict(FTL):
    """Raises an exception whose message is one of our verdict lines."""

    def attack(self):
        print(VERDICT)
        raise RuntimeError(VERDICT)


def _connection():
    """The host's connection to the auditor: its only socket."""
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    raise Breached("found no connection")


class NestedReply(FTL):
    """Sends the auditor a reply whose header nests 50 000 lists, then waits."""

    def attack(self):
        message = b"[" * 50000 + b"\n"
        os.write(_connection(), struct.pack("!i", len(message)) + message)
        time.sleep(120)


class PartialReply(FTL):
    """Announces a reply of 1000 bytes, sends ten, then waits."""

    def attack(self):
        os.write(_connection(), struct.pack("!i", 1000) + b'{"ok": tru')
        time.sleep(120)


def _progress_word():
    for thing in gc.get_objects():
        try:        # hasattr on a lazily importing module imports it (and may raise)
            word = getattr(thing, "_progress", None) if hasattr(thing, "_serve") else None
        except Exception:
            continue
        if isinstance(word, memoryview):
            return word
    raise Breached("found no progress word")


class TogglesProgress(FTL):
    """Never returns, but keeps changing the word that says which call it is in."""

    def attack(self):
        word = _progress_word()
        step = 0
        while True:
            step = (step + 1) % 7
            word[1] = step
            time.sleep(0.005)


class AdvancesProgress(FTL):
    """Never returns, but keeps moving the word forward, past the calls the request makes."""

    def attack(self):
        word = _progress_word()
        while True:
            word[1] += 1
            time.sleep(0.005)


MARK = os.environ.get("HOSTILE_MARK", "987654.5")
"""The argument of the processes the candidates below leave behind (to find them)."""


_DETACHED = []


class Detaches(FTL):
    """Starts a process in a session of its own that would outlive the audit (once per host)."""

    def attack(self):
        if _DETACHED:
            return
        _DETACHED.append(True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", MARK])
            os._exit(0)


class ForksMany(FTL):
    """Starts 200 detached processes, then fails."""

    def attack(self):
        for _ in range(200):
            if os.fork() == 0:
                os.setsid()
                os.execv("/bin/sleep", ["sleep", MARK])
        raise RuntimeError("forked 200 processes")


class BusyInC(FTL):
    """Holds the interpreter in one long C call (so no Python thread of its process runs)."""

    def act(self, t):
        if t == 2:
            sum(range(10 ** 13))
        return super().act(t)


class AppendsWatched(FTL):
    """Appends a line to the file ``HOSTILE_WATCHED`` names (a stand-in for a module of the
    package, which a test must not change)."""

    def attack(self):
        with open(os.environ["HOSTILE_WATCHED"], "a") as handle:
            handle.write("VERDICT = 'consistent'\n")


class DetachesAndExits(FTL):
    """Starts a process in a session of its own (double fork, setsid), then ends its host, so
    that nothing the host holds is left to end the detached process with."""

    def attack(self):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", MARK])
            os._exit(0)
        time.sleep(0.2)
        os._exit(0)


class ConnectsOut(FTL):
    """Connects to the pathname unix socket ``HOSTILE_SOCKET`` and to TCP port
    ``HOSTILE_PORT`` of this machine (listeners the test holds) and says hello."""

    def attack(self):
        for family, address in ((socket.AF_UNIX, os.environ.get("HOSTILE_SOCKET")),
                                (socket.AF_INET, os.environ.get("HOSTILE_PORT"))):
            if not address:
                continue
            try:
                with socket.socket(family, socket.SOCK_STREAM) as channel:
                    channel.settimeout(2)
                    channel.connect(address if family == socket.AF_UNIX
                                    else ("127.0.0.1", int(address)))
                    channel.sendall(b"hello from the candidate")
            except OSError:
                continue
            raise Breached(f"reached a socket outside ({address})")


class ChangesMetadata(FTL):
    """Changes the mode, owner, times and extended attributes of the file ``HOSTILE_FILE``
    (each change undone at once when it worked)."""

    def attack(self):
        path = os.environ["HOSTILE_FILE"]
        with open(path, "rb") as handle:        # reading it is allowed, in a folder of 0700
            handle.read()
        info = os.stat(path)
        attempts = (
            ("chmod", lambda: os.chmod(path, 0o4755),
             lambda: os.chmod(path, stat.S_IMODE(info.st_mode))),
            ("chown", lambda: os.chown(path, 12345, 12345),
             lambda: os.chown(path, info.st_uid, info.st_gid)),
            ("utime", lambda: os.utime(path, (0, 0)),
             lambda: os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))),
            ("setxattr", lambda: os.setxattr(path, "user.hostile", b"1"),
             lambda: os.removexattr(path, "user.hostile")),
        )
        for name, change, undo in attempts:
            try:
                change()
            except OSError:
                continue
            undo()
            raise Breached(f"may {name} a file of the auditor's user")
