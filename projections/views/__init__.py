"""The views (read models) and their runner: each view is tables of its own and a function
from decoded events to rows (``base``); the ``runner`` catches every view up with the log
exactly once, a batch per transaction with its tracking row; ``rebuild`` builds them again,
spread over processes by table; ``registry`` names them. The views: tables, hands, seat hands
(wagers), transfers (bankrolls), accounting, rake, jackpot, coverage, tray, corrections.

It may use the store (to read the log), the table's events, the rules' pure settlement pieces
and the vocabulary; never the application or a face."""
