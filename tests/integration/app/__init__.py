"""Tests: integration app."""
