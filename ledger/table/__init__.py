"""The table aggregate: one event stream per table and the state machine behind it.

``state`` is the table as a pure state machine (``decide`` turns a command into records,
``apply`` folds a record in); ``events`` wraps each record in the envelope the store keeps
(version, time, actor, command, the hash-chain link) and defines :class:`~ledger.table.events.Table`
and its snapshot; ``dealing`` and ``decks`` deal cards from the recorded or sealed sources
(COM-8); ``inventory`` and ``signers`` decide the tray's counts, fills and credits (INV-1..3);
``corrections`` decides corrections from the table's past (COR-1..5); ``describe`` puts events
into plain language for replays.

No storage, HTTP, command line or logging: it may use ``ledger.domain``, ``ledger.evaluation``
and ``ledger.games`` only, so tests, the simulator and the audit drive the same code without a
store.
"""
