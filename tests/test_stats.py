import json

import pytest

from spg.data import Record, load_records
from spg.forest import Forest
from spg.stats import Summary, claim_set_text, corpus_stats, hf_token_counter, to_markdown


def doc(texts: list[str], parents: list[list[int]], description: str, gold: bool = False) -> Record:
    return Record(
        id=texts[0] if texts else "empty",
        description=description,
        claims=Forest.from_parents(texts, parents),
        gold_links=gold,
    )


def tiny_corpus() -> list[Record]:
    return [
        # 3 claims, a chain 1 <- 2 <- 3 (depth 3); claim words 6 + 6 + 8 = 20 (numbers count), description 4 words
        doc(
            ["A chair with a seat.", "The chair of claim 1.", "The chair of claim 2, wherein red."],
            [[], [1], [2]],
            "one two three four",
            gold=True,
        ),
        # 2 independent claims (depth 1); 3 + 3 = 6 words; description 2 words
        doc(["A table.", "A lamp."], [[], []], "x y"),
        # no claims at all (depth 0), empty description
        doc([], [], ""),
        # 1 <- 2, 1 <- 3 (depth 2); 3 + 6 + 6 = 15 words; description 6 words
        doc(["A bed.", "The bed of claim 1.", "The bed of claim 1."], [[], [1], [1]], "a b c d e f"),
    ]


def test_rows_match_hand_computed_values_on_a_tiny_corpus():
    s = corpus_stats(tiny_corpus())
    assert (s.documents, s.gold_link_documents, s.claims, s.dependent_claims) == (4, 1, 8, 4)
    assert s.rows == {
        "Claims / doc": Summary(2.0, 2.5, 0, 3),
        "Independent / doc": Summary(1.0, 1.0, 0, 2),
        "Dependent / doc": Summary(1.0, 1.0, 0, 2),
        "Max tree depth": Summary(1.5, 1.5, 0, 3),
        "Claim words": Summary(10.25, 10.5, 0, 20),
        "Desc. words": Summary(3.0, 3.0, 0, 6),
    }
    assert s.depth_histogram == {0: 1, 1: 1, 2: 1, 3: 1}


def test_dependent_ratio_is_pooled_over_claims_not_averaged_over_documents():
    # pooled 4/8; the mean of per-document ratios would be (2/3 + 0 + 2/3) / 3
    assert corpus_stats(tiny_corpus()).dependent_ratio == pytest.approx(0.5)


def test_claim_length_counts_the_claim_set_as_printed():
    f = Forest.from_parents(["A chair.", "The chair of claim 1."], [[], [1]])
    assert claim_set_text(f) == "1. A chair.\n2. The chair of claim 1."


def test_a_custom_length_function_relabels_rows_as_tokens():
    s = corpus_stats(tiny_corpus()[1:2], count=len, unit="tokens (chars)")
    assert s.rows["Claim tokens"] == Summary(22.0, 22.0, 22, 22)  # len("1. A table.\n2. A lamp.")
    assert s.rows["Desc. tokens"].max == 3
    assert "Claim words" not in s.rows


def test_markdown_table_has_the_papers_columns_and_an_honest_unit():
    md = to_markdown(corpus_stats(tiny_corpus()))
    assert "Documents: 4 (1 with gold dependency links); lengths in words" in md
    assert "| | Mean | Med. | Min | Max |" in md
    assert "| Claims / doc | 2.0 | 2.5 | 0 | 3 |" in md
    assert "| Claim words | 10.2 | 10.5 | 0 | 20 |" in md
    assert "Dependent-claim ratio: 50.0% (4 of 8 claims)" in md
    assert "Max tree depth (documents): 0: 1, 1: 1, 2: 1, 3: 1" in md


def test_empty_corpus_gives_zero_rows():
    s = corpus_stats([])
    assert s.documents == 0 and s.dependent_ratio == 0.0 and s.rows["Claims / doc"] == Summary(0.0, 0.0, 0, 0)


def test_shared_corpus_counts_agree_with_the_raw_file(uspto_path):
    raw = [json.loads(line) for line in uspto_path.read_text(encoding="utf-8").splitlines()]
    s = corpus_stats(load_records(uspto_path))
    assert (s.documents, s.gold_link_documents) == (397, 295)
    assert s.claims == sum(len(r["claims"]) for r in raw)
    assert s.rows["Claims / doc"].max == max(len(r["claims"]) for r in raw)
    assert s.rows["Desc. words"].max == max(len(r["description"].split()) for r in raw)


def test_gold_subset_matches_the_corpus_readme(uspto_path):
    # README: 295 gold documents, 16.6 claims per document (median 16), 82.5 % dependent (4,047 of 4,907 claims).
    # Its links come from reference tags, which miss the 15 claims citing "any one of the preceding claims"
    # (benchmarks/parser_accuracy.py GOLD_ERRATA); spg.parse adds those.
    s = corpus_stats(r for r in load_records(uspto_path) if r.gold_links)
    assert s.documents == 295
    assert round(s.rows["Claims / doc"].mean, 1) == 16.6 and s.rows["Claims / doc"].median == 16
    assert round(s.dependent_ratio * 4907) == 4047 + 15


@pytest.mark.slow
def test_embedded_smollm2_tokenizer_counts_tokens_offline():
    count = hf_token_counter("smollm2")
    assert 0 < count("A chair comprising a seat.") < 10
    s = corpus_stats(tiny_corpus()[:1], count=count, unit="tokens (smollm2)")
    assert s.rows["Claim tokens"].max == count(claim_set_text(tiny_corpus()[0].claims))
