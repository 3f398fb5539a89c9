"""Tests: unit cli."""
