"""Tests: integration access."""
