"""Tests of the reference algorithms (the shared helpers are in helpers.py)."""
