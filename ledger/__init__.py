"""The table ledger: an event-sourced ledger for casino card tables."""

__version__ = "0.1.0"
