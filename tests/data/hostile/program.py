"""A hostile external program: it runs the attack of ``attacks.py`` named by its argument when
it starts, then plays arm 0 in every round (protocol "table"); a breach is its exit status 9,
with what it reached on standard error."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attacks  # noqa: E402

try:
    getattr(attacks, sys.argv[1]).attack(None)
except attacks.Breached as error:
    print(f"breached: {error}", file=sys.stderr)
    sys.exit(9)
sys.stdin.readline()                                    # the protocol header
for line in sys.stdin:
    words = line.split()
    if words[0] == "quit":
        break
    T = int(words[2])
    for _ in range(T):
        sys.stdin.readline()
    print(" ".join(["0"] * T), flush=True)
