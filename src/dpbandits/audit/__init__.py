"""Empirical privacy audits (neighbouring-sequence experiments). Not yet built: see the issues."""
