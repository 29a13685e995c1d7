"""Preference-pair construction (paper §3.3) on hand-made candidate scores, and the resumable pairs file."""

from __future__ import annotations

import json

import pytest

from spg.data import Record
from spg.evaluate import Prediction, System, evaluate
from spg.forest import Forest
from spg.metrics.patentscore import READINGS
from spg.train.pairs import build_pairs, count_types, load_pairs, reward, write_pairs

GT = "<ind>A chair comprising a seat.</ind><eot>"


def by_type(pairs):
    return {p.pair_type: p for p in pairs}


def test_all_three_pairs_when_both_margins_are_exceeded():
    pairs = by_type(build_pairs(GT, 4.2, [("low", 1.0), ("high", 3.0)], kappa=0.3, delta=0.1))
    assert set(pairs) == {"gt-vs-worst", "best-vs-worst", "gt-vs-best"}
    assert (pairs["gt-vs-worst"].chosen, pairs["gt-vs-worst"].rejected) == (GT, "low")
    assert (pairs["best-vs-worst"].chosen, pairs["best-vs-worst"].rejected) == ("high", "low")
    assert (pairs["gt-vs-best"].chosen, pairs["gt-vs-best"].rejected) == (GT, "high")
    assert (pairs["best-vs-worst"].chosen_score, pairs["best-vs-worst"].rejected_score) == (3.0, 1.0)


def test_worst_and_best_do_not_depend_on_candidate_order():
    forward = build_pairs(GT, 4.2, [("low", 1.0), ("high", 3.0)])
    backward = build_pairs(GT, 4.2, [("high", 3.0), ("low", 1.0)])
    assert forward == backward


def test_weight_is_one_minus_rejected_score_over_ps_max():
    pairs = by_type(build_pairs(GT, 4.2, [("low", 0.9), ("high", 3.6)]))
    assert pairs["gt-vs-worst"].weight == pytest.approx(1 - 0.9 / 4.5)
    assert pairs["best-vs-worst"].weight == pytest.approx(1 - 0.9 / 4.5)
    assert pairs["gt-vs-best"].weight == pytest.approx(1 - 3.6 / 4.5)


def test_best_vs_worst_needs_a_gap_strictly_above_kappa():
    at_kappa = build_pairs(GT, 4.5, [("a", 2.0), ("b", 2.5)], kappa=0.5, delta=0.1)
    above_kappa = build_pairs(GT, 4.5, [("a", 2.0), ("b", 2.5)], kappa=0.49, delta=0.1)
    assert "best-vs-worst" not in by_type(at_kappa)
    assert "best-vs-worst" in by_type(above_kappa)


def test_gt_vs_best_needs_a_gap_strictly_above_delta():
    at_delta = build_pairs(GT, 3.5, [("a", 1.0), ("b", 3.0)], kappa=0.3, delta=0.5)
    above_delta = build_pairs(GT, 3.5, [("a", 1.0), ("b", 3.0)], kappa=0.3, delta=0.49)
    assert "gt-vs-best" not in by_type(at_delta)
    assert "gt-vs-best" in by_type(above_delta)


def test_gt_vs_best_gap_is_signed_so_a_candidate_beating_the_reference_is_not_rejected():
    pairs = by_type(build_pairs(GT, 3.0, [("a", 1.0), ("b", 4.0)]))
    assert "gt-vs-best" not in pairs
    assert set(pairs) == {"gt-vs-worst", "best-vs-worst"}


def test_gt_vs_worst_is_built_even_when_the_worst_candidate_outscores_the_reference():
    pairs = build_pairs(GT, 2.0, [("a", 3.0), ("b", 3.05)])
    assert [p.pair_type for p in pairs] == ["gt-vs-worst"]
    assert pairs[0].rejected == "a"


def test_single_candidate_gives_no_duplicate_gt_vs_best():
    pairs = build_pairs(GT, 4.5, [("only", 1.0)])
    assert [p.pair_type for p in pairs] == ["gt-vs-worst"]


def test_tied_candidates_are_still_two_candidates():
    pairs = by_type(build_pairs(GT, 4.5, [("a", 2.0), ("b", 2.0)]))
    assert set(pairs) == {"gt-vs-worst", "gt-vs-best"}
    assert {pairs["gt-vs-worst"].rejected, pairs["gt-vs-best"].rejected} == {"a", "b"}


def test_candidate_identical_to_the_reference_is_never_rejected_against_it():
    pairs = build_pairs(GT, 4.5, [(GT, 1.0), ("other", 3.0)])
    assert all(p.chosen != p.rejected for p in pairs)
    assert {p.pair_type for p in pairs} == {"best-vs-worst", "gt-vs-best"}


def test_no_candidates_no_pairs():
    assert build_pairs(GT, 4.5, []) == []


def _items():
    return [("d1", "prompt 1", GT, "1. A chair."), ("d2", "prompt 2", GT, "1. A chair.")]


def _fake_sampler(calls):
    def sample(prompts):
        calls.extend(prompts)
        return [["cand-low", "cand-high"] for _ in prompts]

    return sample


def _fake_score(text, reference):
    return {"cand-low": 1.0, "cand-high": 3.0}.get(text, 4.4)


def test_pairs_file_loads_with_datasets_and_counts_types(tmp_path):
    path = tmp_path / "pairs.jsonl"
    counts = write_pairs(_items(), _fake_sampler([]), _fake_score, path)
    assert counts == {"gt-vs-worst": 2, "best-vs-worst": 2, "gt-vs-best": 2}
    assert count_types(path) == counts
    dataset = load_pairs(path)
    assert len(dataset) == 6
    row = dataset[0]
    assert row["id"] == "d1" and row["prompt"] == "prompt 1" and row["pair_type"] == "gt-vs-worst"
    assert row["weight"] == pytest.approx(1 - 1.0 / 4.5)


def test_resuming_skips_descriptions_already_written(tmp_path):
    path = tmp_path / "pairs.jsonl"
    write_pairs(_items()[:1], _fake_sampler([]), _fake_score, path)
    calls: list[str] = []
    counts = write_pairs(_items(), _fake_sampler(calls), _fake_score, path, batch_size=1)
    assert calls == ["prompt 2"]
    assert sum(counts.values()) == 3
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]
    assert ids == ["d1"] * 3 + ["d2"] * 3


def test_description_without_pairs_is_recorded_so_it_is_not_resampled(tmp_path):
    path = tmp_path / "pairs.jsonl"
    def identical(prompts):  # the only candidate equals the reference: no usable pair
        return [[GT] for _ in prompts]

    counts = write_pairs(_items()[:1], identical, _fake_score, path)
    assert counts == {"no-pair": 1}
    calls: list[str] = []
    write_pairs(_items()[:1], _fake_sampler(calls), _fake_score, path)
    assert calls == []
    assert len(load_pairs(path)) == 0


def test_pairs_file_is_also_readable_by_load_dataset(tmp_path):
    from datasets import load_dataset

    path = tmp_path / "pairs.jsonl"
    write_pairs(_items(), _fake_sampler([]), _fake_score, path)
    dataset = load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache"))
    assert len(dataset) == 6 and set(dataset["pair_type"]) == {"gt-vs-worst", "best-vs-worst", "gt-vs-best"}


def test_spg_pairs_without_a_stage1_model_exits_2_with_a_message(capsys, uspto_path):
    from spg.cli import main

    assert main(["pairs", f"data={uspto_path}"]) == 2
    assert "model is not set: `model` is the Stage I artefact" in capsys.readouterr().err


@pytest.mark.parametrize("reading", READINGS)
def test_reward_is_the_patentscore_spg_evaluate_reports_for_the_same_output(reading):
    gold = Forest.from_parents(["A chair comprising: a seat; and a leg.", "The chair of claim 1, wherein the seat is red."],
                               [[], [1]])
    reference = "1. A chair comprising: a seat; and a leg.\n2. The chair of claim 1, wherein the seat is red."
    candidate = "<ind>A chair comprising: a seat.</ind><dep>The chair, wherein the seat is red.</dep><eot>"
    record = Record(id="d", description="", claims=gold)
    system = System("spg", {"d": Prediction("unused rendering", raw=candidate, pointer=[None, 0])}, "test")
    doc = evaluate([system], [record], bertscore=False, progress=False, patentscore=reading).documents[0]
    assert reward(candidate, reference, reading) == doc.ps_total
