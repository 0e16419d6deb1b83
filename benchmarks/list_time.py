"""What ``dpbandits list`` costs: wall and CPU seconds of the whole command, beside a baseline.

Usage: python benchmarks/list_time.py [--baseline-src DIR] [--repeats K]

Each repeat runs ``dpbandits list`` in a process of its own on this package (the ``src`` beside
this script) and, with ``--baseline-src DIR`` (``git archive COMMIT src | tar -x -C DIR``, then
``--baseline-src DIR/src``), on the older package right after it, so that both are measured
under the same load; the outputs must be identical (the script stops otherwise). It prints the
best and the median of the K repeats of each, wall and CPU (user + system of the child), and the
load average before and after, as a Markdown table.

The target is 10 s of wall time for the whole command (the accountant's bounds of every
algorithm at its proof size, docs/accountant.md), measured at a load of about 2 on the shared
2-core machine.

Measured with ``python benchmarks/list_time.py --baseline-src OLD/src --repeats 3``, OLD the
package before the changes below (commit 9ee71b4), on the shared 2-core machine at a load
average of 2.8 to 3.0 (outputs identical):

| package | wall s (best) | wall s (median) | CPU s (best) | CPU s (median) |
|---|---|---|---|---|
| this package | 6.32 | 6.36 | 6.15 | 6.29 |
| baseline | 8.32 | 8.63 | 8.08 | 8.48 |

(Measured earlier at 11.2 s of wall time and 10.7 s of CPU at a load of 2, on the code of
that day.) What changed, the same work done cheaper (the same output, and the same bounds,
statuses, scopes and findings, a finding at a line of DP-UCB-INT's module naming the same
statement at its new line): the command line no longer imports the audit's statistics (scipy.stats, about 0.5 s
of CPU) to build its parser; the coverage's trace function, called at every Python call of
the traced code, tests the file first and records a frame's arcs without looking its function
up again at each line; the watched arrays' hooks and the tracer's checks make fewer Python
calls per operation (loops instead of generators, ndarray methods instead of numpy's Python
wrappers on plain arrays), which counts twice under the trace function (the Python calls it
sees in the command's traced steps fell from 3.3 to 1.7 million); the composition reads each
release's per-row sensitivities in one pass over its cells; and DP-UCB-INT's policy can be
copied where the enumeration's action sequences branch (its release points are a Python
generator, so every branch traced its prefix again).
"""

from __future__ import annotations

import os
import sys
import tempfile

from start_time import measured, parsed, print_table


def main() -> None:
    args, sources = parsed(__doc__)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as out:
        figures, outputs = measured(sources, {"dpbandits list": ["list"]}, args.repeats, out)
    if len(set(outputs.values())) > 1:
        sys.exit("the outputs of dpbandits list differ between this package and the baseline")
    load_after = os.getloadavg()[0]
    print(f"dpbandits list, {args.repeats} repeat(s) each, load average {load_before:.1f} "
          f"before, {load_after:.1f} after; outputs identical\n")
    print_table(figures)


if __name__ == "__main__":
    main()
