"""The four games' rules, one pure package each (``caribbean``, ``hcf``, ``chinese``,
``stud8``), behind the protocol of ``base`` (a game decides the records of a command from the
table's view and its hand state, and folds records into that state) and the ``registry`` of games
by name. They may use ``ledger.domain`` and ``ledger.evaluation`` only: no storage, HTTP, command
line, template or logging library, however indirectly (an import-linter contract)."""
