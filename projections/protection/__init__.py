"""Game protection: the players, pairs and dealers whose results the cards and the rules cannot
explain.

- :mod:`.odds`: the results of each action over the hidden cards, and one decision judged.
- :mod:`.caribbean`: Caribbean Stud Play/fold against the dealer's hidden cards, exact.
- :mod:`.hcf`: High Card Flush fold/raise against the designated player's hand, exact.
- :mod:`.stud`, :mod:`.chinese`: what each pair of players did to each other.
- :mod:`.pairs`: the pair tests; :mod:`.stats`: the information test, decision quality and the
  control of false discoveries.

Pure functions over plain values: nothing here reads the store. It may use the evaluators, the
games' configurations, the paytable mathematics (``projections.reports.mathematics``), the
vocabulary and scipy; the report (``report``) reads the views through ``projections.read``.
"""
