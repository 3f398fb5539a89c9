"""Tests: integration store."""
