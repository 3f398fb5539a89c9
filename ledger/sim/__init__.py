"""Seeded random players that drive tables through the same commands as real devices: one
strategy module per game (``caribbean``, ``hcf``, ``chinese``, ``stud8``), the ``profiles`` of
how they play, the tray's counts (``tray``) and the ``runner`` that plays days of hands. It may
use the application and every layer below it (``ledger.app``, ``ledger.table``,
``ledger.domain``...), never a face or the read side."""
