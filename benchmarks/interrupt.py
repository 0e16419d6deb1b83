"""Time from Ctrl-C to exit, for each command while it works.

Each command runs in a session of its own; after ``--delay`` seconds (past its checks and a
kernel's compilation, inside its simulation) SIGINT goes to its whole process group, as Ctrl-C in
a terminal sends it, and the seconds until the process ends are printed with its status (130 is
the interrupted status). Target: every command ends within 2 s.

    python benchmarks/interrupt.py [--delay 12] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "run (compiled, 1 run)": ["run", "anytime-lazy-ucb", "--means", "0.9", "0.6", "--horizon",
                              "400000000", "--runs", "1", "--epsilon", "1", "--backend",
                              "compiled", "--no-progress"],
    "run (compiled, 8 runs)": ["run", "anytime-lazy-ucb", "--means", "0.9", "0.6", "--horizon",
                               "400000000", "--runs", "8", "--epsilon", "1", "--backend",
                               "compiled", "--no-progress"],
    "run (reference, 2 workers)": ["run", "anytime-lazy-ucb", "--means", "0.9", "0.6",
                                   "--horizon", "20000", "--runs", "40000", "--epsilon", "1",
                                   "--backend", "reference", "--workers", "2", "--no-progress"],
    "bounds (compiled)": ["bounds", "anytime-lazy-ucb", "--setting", "hu2021-setting2",
                          "--epsilon", "0.5", "--horizon", "1000000000", "--runs", "4",
                          "--backend", "compiled"],
    "audit --all (2 workers)": ["audit", "--all", "--workers", "2", "--no-progress"],
    "audit (one algorithm)": ["audit", "dp-ucb", "--samples", "200000", "--no-progress"],
    "validate (Python candidate)": ["validate", "--python",
                                    "examples/validate/implementations.py:PlainLazyUCB",
                                    "--against", "anytime-lazy-ucb", "--epsilon", "1",
                                    "--horizon", "3000", "--runs", "400", "--no-progress"],
    "reproduce (2 workers)": ["reproduce", "hu2021-fig5", "--workers", "2", "--no-progress"],
    "report (2 workers)": ["report", "--workers", "2", "--no-progress"],
}


def interrupted(args: list[str], delay: float, out: str) -> tuple[str, float | None]:
    """Status and seconds from SIGINT to exit (None: it ended before the signal)."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from dpbandits.cli import main; sys.exit(main())",
         *args, "--out", out], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(delay)
    if process.poll() is not None:
        return str(process.returncode), None
    start = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    try:
        status = str(process.wait(120))
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        status = "still running after 120 s (killed)"
        process.wait()
    return status, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=12.0, help="seconds before the signal")
    parser.add_argument("--only", nargs="*", choices=list(COMMANDS), default=None)
    args = parser.parse_args()
    print(f"{'command':32} {'status':>8} {'s to exit':>10}")
    for name in args.only or COMMANDS:
        with tempfile.TemporaryDirectory() as out:
            status, seconds = interrupted(COMMANDS[name], args.delay, out)
        shown = "ended first" if seconds is None else f"{seconds:.2f}"
        print(f"{name:32} {status:>8} {shown:>10}", flush=True)


if __name__ == "__main__":
    main()
