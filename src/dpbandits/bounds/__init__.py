"""Regret bounds of the papers as SymPy expressions. Not yet built: see the issues."""
