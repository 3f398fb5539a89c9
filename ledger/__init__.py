"""The table ledger: an event-sourced ledger for casino card tables.

The packages are layers, each importing only those below it (pyproject.toml declares them as
import-linter contracts; ``make lint`` checks them): the faces ``cli`` and ``api`` (with the
console); ``sim``, seeded players; ``app``, the application; ``access``, who may do what;
``store``, storage; the infrastructure modules ``settings``, ``logs`` and ``startup``; ``table``,
the aggregate; ``games`` and ``evaluation``, the pure rules; ``domain``, the vocabulary. The read
side (``projections``) may use every layer up to ``access``, never the application or a face.
"""

__version__ = "0.1.0"
