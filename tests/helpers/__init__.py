"""Helpers shared by several test modules (imported, not copied)."""
