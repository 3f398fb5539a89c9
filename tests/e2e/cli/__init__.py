"""Tests: e2e cli."""
