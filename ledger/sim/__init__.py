"""Seeded random players that drive tables through the same commands as real devices."""
