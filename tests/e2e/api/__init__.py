"""Tests: e2e api."""
