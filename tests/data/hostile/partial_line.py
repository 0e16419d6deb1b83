"""A program that answers half a line, then waits ten minutes (for the interrupt tests)."""
import sys
import time

sys.stdin.readline()
sys.stdout.write("0 1")
sys.stdout.flush()
time.sleep(600)
