"""Checking: module resolution, name resolution, types, diagnostics."""
