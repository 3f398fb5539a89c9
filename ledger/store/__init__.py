"""The store: where a table's events, the command log and the records beside them are kept, and
how they are read back.

Opening a store (``persistence``: SQLite or PostgreSQL from ``LEDGER_DATABASE_URL``, ``sqlite``,
``postgres``, ``urls``, ``errors``, ``schema``, ``mapper``); the handle every layer above reads
through (``base.LedgerStore``: a table loaded through its hash chain, ``trust``); a table's past
read straight from its stream (``history``); several stores as one (``shards``, ``fleet``); the
wait budget and outages (``availability``); the read replica (``readstore``); the tables beside
the events (``sidetables``); the deck key (``deckkeys``) and backups (``backup``).

It may use ``ledger.domain``, ``ledger.table`` (the event classes it stores and the chain it
checks), ``ledger.settings``, ``ledger.logs``, ``ledger.startup`` and the storage libraries
(eventsourcing, psycopg); never ``ledger.games`` directly, the access layer, the application or
a face.
"""
