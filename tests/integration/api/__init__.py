"""Tests: integration api."""
