"""Token-budget batches from length-sorted input.

Sorting by length before batching means a batch pads to nearly its own length instead of
the longest sentence in a random mix, and beams in one batch tend to finish together. The
budget bounds padded tokens in flight (sequences x beams x longest input), so a batch of
short sentences is large and a batch of long ones small, at the same memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence


def iter_token_budget_batches(
    lengths: Sequence[int], budget: Callable[[], int], width: int = 1
) -> Iterator[list[int]]:
    """Index lists, longest inputs first, each within ``budget()`` padded tokens x ``width``.

    The budget is read before every batch, so a caller that halves it after running out
    of memory gets smaller batches from then on. A single input longer than the budget
    still gets a batch of its own: refusing it would lose a sentence.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    position = 0
    while position < len(order):
        limit = budget()
        longest = max(1, lengths[order[position]])  # sorted: the first is the longest
        size = max(1, limit // (longest * width))
        yield order[position : position + size]
        position += size


def token_budget_batches(lengths: Sequence[int], budget: int, width: int = 1) -> list[list[int]]:
    """All batches for a fixed budget (see ``iter_token_budget_batches``)."""
    return list(iter_token_budget_batches(lengths, lambda: budget, width))
