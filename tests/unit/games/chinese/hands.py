"""Hands used by the Chinese Poker tests, as (front, middle, back) text."""

from __future__ import annotations

Hand = tuple[str, str, str]

# CHP-5 sheet examples: a back straight flush winning 2 of 3, and 3 of 3.
BACK_SF: Hand = ("3c 4d 6s", "7c 7d 8s 8c 2h", "9h Th Jh Qh Kh")
WINS_FRONT: Hand = ("Kc Kd 5c", "Ac Ad 9c Tc 3h", "2c 2s Jd Js Qs")
LOSES_ALL: Hand = ("4h 3s 2d", "Ac Kd 9c Tc 5h", "2c 2s Jd Js Qs")

# A weak legal hand without spades, aces or kings, and hands with CHP-5 bonuses against it.
LOW: Hand = ("2c 3d 5h", "4c 6d 8h 9c Jc", "2d 2h 7d Td Qd")
FRONT_TRIPS: Hand = ("Ks Kh Kc", "As Ah Ac 4s 5s", "6s 7s 8s Js 2s")
MIDDLE_FULL_HOUSE: Hand = ("4h 5d 7c", "Ts Th Tc 3s 3h", "Ad Ac Ah 6s 6h")
MIDDLE_QUADS_BACK_SF: Hand = ("4s 5s 7h", "Ks Kc Kd Kh 3s", "8s 9s Ts Js Qs")
ALL_BONUSES_ROYAL: Hand = ("Ac Ad Ah", "3s 4s 5s 6s 7s", "Ts Js Qs Ks As")
BACK_QUADS: Hand = ("4s 5s 7h", "Kh Qh 9s 6s 3s", "Ac Ad As Ah 2s")

# A middle full house that loses to a bigger one (CHP-5 decision).
SMALL_FULL_HOUSE: Hand = ("4h 5d 7c", "Ts Th Tc 3s 3h", "Ad Ac Ah 6s 6h")
BIG_FULL_HOUSE: Hand = ("4d 5c 6c", "Js Jh Jc 2s 2h", "9s 9h 9d 9c Kc")

# CHP-2: no straight or flush in front, the wheel is the lowest straight.
SUITED_RUN_FRONT: Hand = ("2h 3h 4h", "6c 6d 9s Tc Jd", "Ac 2d 3s 4s 5c")
ACE_HIGH_FRONT: Hand = ("Ad 9d 5h", "7c 7d Ks Qc 8h", "2c 3c 4d 5s 6h")

# A table of four whose cards are all distinct: G holds a middle full house and back quads and
# scoops H; F1 is out of order, F2 has segments of the wrong sizes (CHP-3).
G: Hand = ("5c 6c 8d", "9s 9h 9d 2h 2d", "Kc Kd Kh Ks 7s")
H: Hand = ("4s 3c 2c", "Th Td 6s 6h 7c", "Js Jh Qs 8s 8c")
F1: Hand = ("Qc Qd Qh", "Jc Jd 4c 4d 2s", "Ac Ad As Ah 3s")
F2: Hand = ("3d 3h 4h 5d", "5h 5s 6d 7d", "7h 8h 9c Tc Ts")

# CHP-7 automatic wins.
DRAGON: Hand = ("2c 3d 4h", "5s 6c 7d 8h 9s", "Tc Jd Qh Ks Ac")
DRAGON_2: Hand = ("2d 3c 4s", "5h 6d 7c 8s 9h", "Td Jc Qs Kh Ad")
SIX_PAIRS: Hand = ("As 7c 7h", "2d 2h 3c 3h 4c", "4d 5c 5d 6d 6h")
SIX_PAIRS_OUT_OF_ORDER: Hand = ("3c 3h As", "7c 7h 2d 2h 4c", "4d 5c 5d 6d 6h")
SIX_PAIRS_WITH_QUADS: Hand = ("As 7c 7h", "2d 2h 2c 2s 4c", "4d 5c 5d 6d 6h")
"""Quads count as two pairs: 2222 77 44 55 66 + A."""
FIVE_PAIRS_AND_TRIPS: Hand = ("As 7c 7h", "2d 2h 2c 3h 4c", "4d 5c 5d 6d 6h")
"""Three of a kind is not a pair: no six pairs."""
THREE_FLUSHES: Hand = ("8c 9c Tc", "Jc Qc Kc Ac 2c", "8d 9d Td Jd Qd")
"""The back is a straight flush: it counts as a flush."""
THREE_STRAIGHTS: Hand = ("Qc Kd Ah", "5s 6c 7d 8h 9s", "9c Td Jh Qs Kc")
FOULED_FOR_SIX_PAIRS: Hand = ("Qc Qd Qh", "Jc Jd 8c 8d 2s", "Kc Kd Ks Kh 3s")

# A table of four with distinct cards where the third opponent holds six pairs (CHP-6, CHP-7).
D6: Hand = ("Ac 3d 3h", "4c 4d 5d 5h 7d", "7h Tc Ts Jc Jd")
F3: Hand = ("Qc Qd Qh", "Ad Ah 2s 3s 4h", "As 5s 6d 8h 9c")

# Scoops LOW without any bonus (CHP-4).
PLAIN_SCOOPER: Hand = ("Kh Ks 5s", "Ah As 9h Th 3s", "Jh Js 4h 4s 8s")
