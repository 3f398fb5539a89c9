"""The exact mathematics of the paytables, by enumeration of every deal (Caribbean Stud: the
house edge, the element of risk and the optimal strategy; High Card Flush: the DP's
qualification and the bonus returns). Pure functions: they may use ``ledger.evaluation``,
``ledger.games`` configurations and ``ledger.domain`` only."""
