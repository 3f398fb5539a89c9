"""Hypothesis strategies for hands: distinct cards 0..51."""

from __future__ import annotations

from hypothesis import strategies as st


def hands(size: int, max_size: int | None = None) -> st.SearchStrategy[list[int]]:
    """Lists of distinct cards, ``size`` to ``max_size`` long (exactly ``size`` by default)."""
    return st.lists(st.integers(0, 51), min_size=size, max_size=max_size or size, unique=True)


def deals(*sizes: int) -> st.SearchStrategy[list[list[int]]]:
    """Disjoint hands of the given sizes, drawn from one shuffled deck."""
    total = sum(sizes)

    def split(deck: list[int]) -> list[list[int]]:
        out, start = [], 0
        for size in sizes:
            out.append(deck[start : start + size])
            start += size
        return out

    return st.permutations(list(range(52))).map(lambda deck: split(list(deck[:total])))
