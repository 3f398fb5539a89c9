"""Who may do what: API tokens and their roles (``tokens``), the register of principals whose
names approve and sign (``principals``), the check of every approval and signature a command
carries (``approvals``), the access log of who saw hidden cards (``accesslog``), and the probes
of a caller who asks about what it may not see (``probes``).

It keeps its records in the store's side tables: it may use ``ledger.domain``, ``ledger.store``,
``ledger.settings`` and ``ledger.logs``; never the application or a face.
"""
