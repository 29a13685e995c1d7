"""Prompt lookup drafts (spg.generation.drafts): what follows the latest earlier occurrence of the last tokens."""

import torch

from spg.generation.drafts import RecentLookup


def drafted(lookup: RecentLookup, ids: list[int]) -> list[int]:
    candidates, logits = lookup.get_candidates(torch.tensor([ids]))
    assert logits is None and candidates[0, : len(ids)].tolist() == ids
    return candidates[0, len(ids) :].tolist()


def test_the_draft_follows_the_latest_earlier_occurrence_of_the_last_tokens():
    #        0  1  2  3  4  5  6  7  8  9 10 11 12
    ids = [1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 1, 2, 3]
    assert drafted(RecentLookup(3, 3, 100), ids) == [7, 8, 1]  # not [4, 5, 9], after the first occurrence


def test_shorter_ngrams_are_tried_when_the_longest_never_occurred():
    assert drafted(RecentLookup(2, 3, 100), [5, 6, 7, 8, 6, 9, 9, 6]) == [9, 9]  # only "6" occurred before


def test_nothing_is_drafted_for_tokens_never_seen_or_without_room_in_the_budget():
    assert drafted(RecentLookup(4, 3, 100), [1, 2, 3, 4]) == []
    # the checking forward's last position predicts the token at 8 + drafted tokens, which must lie before max_length
    assert drafted(RecentLookup(4, 3, 10), [1, 2, 3, 1, 2, 3, 1, 2]) == [3]
    assert drafted(RecentLookup(4, 3, 9), [1, 2, 3, 1, 2, 3, 1, 2]) == []


def test_reading_the_sequence_as_it_grows_drafts_what_reading_it_at_once_does():
    torch.manual_seed(0)
    ids = torch.randint(0, 6, (60,)).tolist()
    growing = RecentLookup(5, 3, 1000)
    for end in range(1, len(ids) + 1):
        assert drafted(growing, ids[:end]) == drafted(RecentLookup(5, 3, 1000), ids[:end]), end


def test_an_occurrence_just_before_the_end_drafts_the_repetition():
    assert drafted(RecentLookup(5, 3, 100), [5, 1, 2, 1, 2, 1, 2]) == [1, 2, 1, 2, 1]
    assert drafted(RecentLookup(4, 3, 100), [7, 3, 3, 3, 3]) == [3, 3, 3, 3]


def test_a_rejected_attempt_is_drafted_from_first_and_only_up_to_its_end():
    # a redraw rewriting the attempt the checker rejected: "... 1 2 3" was followed by 4 5 there, by 7 8 in the sequence
    ids = [1, 2, 3, 7, 8, 1, 2, 3]
    assert drafted(RecentLookup(4, 3, 100, rejected=[[9, 1, 2, 3, 4, 5]]), ids) == [4, 5]
    assert drafted(RecentLookup(4, 3, 100), ids) == [7, 8, 1, 2]
    # of two attempts, the later; the draft never runs from one attempt into the next
    assert drafted(RecentLookup(4, 3, 100, rejected=[[1, 2, 3, 6], [1, 2, 3, 5]]), ids) == [5]
    # the longest n-gram first, wherever it occurred: "1 2 3" is in the sequence, only "2 3" in the attempt
    assert drafted(RecentLookup(4, 3, 100, rejected=[[2, 3, 6]]), ids) == [7, 8, 1, 2]
    # n-grams the attempts lack are drafted from the sequence as before
    assert drafted(RecentLookup(4, 3, 100, rejected=[[6, 6, 6]]), ids) == [7, 8, 1, 2]
