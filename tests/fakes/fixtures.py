"""Pytest fixtures shared across test modules (registered in tests/conftest.py)."""

from __future__ import annotations
