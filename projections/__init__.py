"""The read side: everything derived from the events, never a command.

``views`` are the read models and the runner that keeps them caught up with the log exactly once
(and rebuilds them); ``read`` answers queries over them (one store or a fleet); ``audit`` verifies
the record from the events alone; ``reports`` and ``exports`` serve accounting. It may use the
store (``ledger.store``), access (the access log, the register), the table aggregate, the pure rules
and the vocabulary; never the application, the simulator, the API or the CLI (an import-linter
contract): views and audits never send commands."""
