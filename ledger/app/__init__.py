"""The application: commands in, events out. Thin by design: load the table (the store's
trusted load), ask the table's state machine to decide, check the approvals the command
carries, save the events with the command-log row in one transaction, retry when another writer
got there first (``application``); route each command to the store of its table's shard
(``fleet``).

It may use every layer below it (``ledger.access``, ``ledger.store``, ``ledger.table``,
``ledger.domain``); only the simulator and the faces (``ledger.api``, ``ledger.cli``) use it.
"""
