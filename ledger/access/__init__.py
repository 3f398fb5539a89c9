"""Who may do what: API tokens and their roles (``tokens``), the principals' own keys
(``keys``), the register of principals as a chained stream with a root of trust (``register``,
read through ``principals``), the check of every approval's signatures (``signatures``), the
proposals awaiting approval (``proposals``), the access log of who saw hidden cards
(``accesslog``), and the probes of a caller who asks about what it may not see (``probes``).

It keeps its records in the store's side tables: it may use ``ledger.domain``, ``ledger.table``
(the state an approval is bound to), ``ledger.store``, ``ledger.settings`` and ``ledger.logs``;
never the application or a face.
"""
