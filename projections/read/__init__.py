"""Queries over the views: the read API of the ledger for the CLI, the exports and the HTTP
routes (``queries.ReadModel``), the hand search (``search``), the corrections' queries
(``correction_queries``), and the same queries over every store of a fleet, merged
(``fleet``). Plain rows of JSON-ready values. It may use the views, the store and the
vocabulary; never the application or a face."""
