"""Reports for accountants and compliance: hold against the theoretical hold (``hold``,
``hold_days``), the players' play (``players``), the tray's inventory (``inventory``), the
paytable's mathematics cached by configuration (``paytable``, with ``caribbean_report``,
``hcf_report``, ``rake_report``, and the exact computations in ``mathematics``), periods of
gaming days (``periods``). It may use the read models, the games' configurations and the pure
evaluators; never the application or a face."""
