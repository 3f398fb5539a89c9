"""Helpers for tests: pure tables, scripted card readers."""
