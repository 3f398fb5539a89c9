"""The vocabulary of the ledger: cards, money, accounts, the records (facts) a table appends,
the commands a device sends, hand results, the bounds of what a client may send, errors, the
actors who cause events, and the rule book as data.

Plain values and their validation, nothing else: it may use the standard library and pydantic,
and imports nothing else of the ledger (no storage, HTTP, command line or logging). Every other
layer builds on it.
"""
