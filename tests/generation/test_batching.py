from __future__ import annotations

from rucola.generation.batching import iter_token_budget_batches, token_budget_batches


def test_batches_cover_every_input_once_longest_first_within_budget():
    lengths = [5, 40, 12, 12, 3, 30, 7, 25, 18, 9]
    batches = token_budget_batches(lengths, budget=80, width=2)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    for batch in batches:
        assert len(batch) == 1 or max(lengths[i] for i in batch) * len(batch) * 2 <= 80


def test_an_input_longer_than_the_budget_gets_its_own_batch():
    assert token_budget_batches([100, 2, 2], budget=10) == [[0], [1, 2]]


def test_a_shrinking_budget_applies_to_later_batches():
    budget = [64]
    batches = []
    for batch in iter_token_budget_batches([4] * 32, lambda: budget[0]):
        batches.append(batch)
        budget[0] = 16
    assert [len(b) for b in batches[:2]] == [16, 4]
