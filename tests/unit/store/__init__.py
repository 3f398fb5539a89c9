"""Tests: unit store."""
