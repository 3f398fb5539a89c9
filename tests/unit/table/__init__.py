"""Tests: unit table."""
