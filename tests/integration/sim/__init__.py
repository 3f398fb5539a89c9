"""Tests: integration sim."""
