"""Tests: unit domain."""
