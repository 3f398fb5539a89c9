"""Exports for accountants and auditors: CSV and JSON Lines of the accounting views, and hand
histories (JSON Lines for every game; PHH and Open Hand History where the game fits).

It may use the read models (``projections.read``, ``projections.views``), the reports and the
vocabulary; never the application or a face.
"""
