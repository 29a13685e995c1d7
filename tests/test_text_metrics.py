import math

import pytest

from spg.metrics.text import (
    bertscore_f1,
    bertscore_layers,
    default_bertscore_model,
    hf_bleu,
    nmt_bleu,
    per_claim_f1,
    rouge1_f,
    rouge1_per_doc,
    sacrebleu_corpus,
    sacrebleu_signature,
    sentence_bleu,
    tokenize_13a,
)

CAT = "the cat sat on the mat"
CAT_REF = "the cat sat on a mat"


def test_hf_bleu_is_the_geometric_mean_of_clipped_precisions():
    # 1-grams 5/6 ("the" clipped to 1), 2-grams 3/5, 3-grams 2/4, 4-grams 1/3; equal lengths, no penalty.
    expected = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert hf_bleu([CAT], [CAT_REF]) == pytest.approx(expected)
    assert sacrebleu_corpus([CAT], [CAT_REF]) == pytest.approx(expected)


def test_hf_bleu_brevity_penalty_is_exp_one_minus_reference_over_candidate_length():
    assert hf_bleu(["the cat sat on"], [CAT_REF]) == pytest.approx(100 * math.exp(1 - 6 / 4))


def test_hf_bleu_is_zero_without_smoothing_when_a_precision_is_zero_unlike_sacrebleu():
    pred = "the cat on a mat"  # no 4-gram of it is in the reference
    assert hf_bleu([pred], [CAT_REF]) == 0.0
    assert sacrebleu_corpus([pred], [CAT_REF]) > 0.0  # sacrebleu's default "exp" smoothing


def test_nmt_bleu_pools_ngram_counts_over_the_corpus():
    stats = nmt_bleu([[CAT_REF.split()], [["a", "b", "c", "d"]]], [CAT.split(), ["a", "b", "c", "d"]])
    assert stats.precisions == pytest.approx((9 / 10, 6 / 8, 4 / 6, 2 / 4))
    assert stats.bleu == pytest.approx((9 / 10 * 6 / 8 * 4 / 6 * 2 / 4) ** 0.25)


def test_13a_tokenisation_splits_punctuation_but_keeps_decimals():
    assert tokenize_13a("a seat, about 2.5 mm; and (b) legs.") == [
        "a", "seat", ",", "about", "2.5", "mm", ";", "and", "(", "b", ")", "legs", ".",
    ]  # fmt: skip


def test_sacrebleu_signature_names_tokenizer_and_reference_count():
    sig = sacrebleu_signature()
    assert "tok:13a" in sig and "nrefs:1" in sig


def test_sentence_bleu_of_identical_text_is_100():
    assert sentence_bleu(CAT, CAT) == pytest.approx(100.0)


def test_prediction_and_reference_counts_must_match():
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        hf_bleu(["a", "b"], ["a"])


def test_rouge1_is_unigram_f_measure():
    # overlap {the, cat} = 2; P = 2/3, R = 2/4, F = 2PR/(P+R) = 4/7
    assert rouge1_per_doc(["the cat sat"], ["The cat ran away"]) == [pytest.approx(100 * 4 / 7)]
    assert rouge1_f(["the cat sat", "x"], ["The cat ran away", "x"]) == pytest.approx((100 * 4 / 7 + 100) / 2)


def test_per_claim_f1_is_the_harmonic_mean_of_greedy_claim_precision_and_recall():
    f1 = [[0.9, 0.2], [0.1, 0.5], [0.3, 0.4]]  # rows: predicted claims, columns: reference claims
    precision, recall = (0.9 + 0.5 + 0.4) / 3, (0.9 + 0.5) / 2
    assert per_claim_f1(f1) == pytest.approx(2 * precision * recall / (precision + recall))
    assert per_claim_f1([]) == 0.0


def test_bertscore_layer_follows_bert_score_table_by_name_and_the_last_layer_otherwise():
    assert bertscore_layers("roberta-large") == 17
    assert bertscore_layers("/models/roberta-large") == 17
    assert bertscore_layers(str(default_bertscore_model())) == 6


@pytest.mark.slow
def test_bertscore_default_model_runs_offline_and_scores_identity_as_one():
    scores = bertscore_f1(["A chair comprising a seat.", ""], ["A chair comprising a seat.", "A table."])
    assert scores[0] == pytest.approx(1.0, abs=1e-4)
    assert scores[1] == 0.0  # an empty prediction scores zero, it is not dropped


@pytest.mark.slow
def test_bertscore_per_claim_sees_claims_past_the_510_token_window():
    long_claim = (
        "1. A device comprising: " + " ".join(f"a part {i} coupled to a frame;" for i in range(120)) + " and a base."
    )
    ref = long_claim + " 2. The device of claim 1, wherein the frame is made of steel."
    pred = long_claim + " 2. The device of claim 1, further comprising a purple umbrella over the lake."
    whole = bertscore_f1([pred], [ref])[0]
    per_claim = bertscore_f1([pred], [ref], per_claim=True)[0]
    assert whole == pytest.approx(1.0, abs=1e-4)  # the differing claim lies beyond the truncation
    assert per_claim < 0.99


ODD_TEXTS = ["a-\n", "x &amp; y <skipped> z-\n", "  ", "", "the cat sat-\n", "A\n\nB  ", "the cat &quot;sat&quot; on",
             "1. A seat, about 2.5 mm; and (b) legs.\n2. The seat of claim 1."]


def test_bleu_scores_equal_sacrebleus_own_13a_tokenisation():
    import sacrebleu
    from sacrebleu.metrics import BLEU

    preds, refs = ODD_TEXTS, ODD_TEXTS[::-1]
    assert sacrebleu_corpus(preds, refs) == BLEU().corpus_score(preds, [refs]).score
    for pred, ref in zip(preds, refs, strict=True):
        assert sentence_bleu(pred, ref) == sacrebleu.sentence_bleu(pred, [ref]).score
