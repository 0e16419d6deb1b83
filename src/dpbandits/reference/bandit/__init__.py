"""Stochastic bandit algorithms: one module per algorithm, registered in ``registry.py``."""
