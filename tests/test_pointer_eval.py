import json

import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer

from spg.cli import main
from spg.data import load_records
from spg.forest import Forest
from spg.linearize import linearize
from spg.metrics.structure import DEA, dependency_edge_accuracy
from spg.model.batch import Collator, build_example
from spg.model.spg_model import SPGConfig, SPGModel
from spg.pointer_eval import kept_forest, teacher_forced_dea

# Gold-linked USPTO documents whose serialised forests (2.5-3.6k bytes) reach depth 4 or 5.
DOC_IDS = ("US11147202B2", "US11646472B2", "US20010000001A1")
MAX_LENGTH, MAX_TARGET = 4300, 4000  # the tiny tokenizer is byte-level: every document fits whole


@pytest.fixture(scope="module")
def artefact(tmp_path_factory) -> str:
    """A tiny random SPG model saved with save_pretrained, its pointer head randomised away from I/√d.

    Large initial weights make the hidden states of different positions differ enough that the pointer's
    choice depends on which ``<dep>`` asks (at 0.02 the closing-tag states alone decide it).
    """
    root = tmp_path_factory.mktemp("pointer_eval")
    tiny_llama(seed=1, initializer_range=1.0).save_pretrained(root / "base")
    tiny_tokenizer().save_pretrained(root / "base")
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(base_model=str(root / "base"), lora_r=4, lora_alpha=8, lora_dropout=0.0))
    with torch.no_grad():
        model.pointer.weight.normal_()
    model.save_pretrained(root / "model")
    return str(root / "model")


@pytest.fixture(scope="module")
def records(uspto_path):
    found = {r.id: r for r in load_records(uspto_path) if r.id in DOC_IDS}
    assert set(found) == set(DOC_IDS), f"{uspto_path} lacks {set(DOC_IDS) - set(found)}"
    return [found[i] for i in DOC_IDS]


def direct_parents(model: SPGModel, record, max_target: int = MAX_TARGET) -> dict[int, int | None]:
    """Argmax of model.score_parents over the gold candidates of each claim, from a plain forward of the model."""
    example = build_example(model.tokenizer, record.description, record.claims, MAX_LENGTH, max_target)
    batch = Collator(model.tokenizer.pad_token_id)([example])
    with torch.no_grad():
        hidden = model(**batch, structure=False).hidden[0]
    order = linearize(record.claims).claims
    trees = example["claim_tree"]
    parents: dict[int, int | None] = {}
    for i, (open_pos, tree) in enumerate(zip(example["claim_open"], trees)):
        candidates = [j for j in range(i) if trees[j] == tree]
        if not candidates:
            parents[order[i]] = None
            continue
        scores = model.score_parents(hidden[open_pos], hidden[[example["claim_close"][j] for j in candidates]])
        parents[order[i]] = order[candidates[int(scores.argmax())]]
    return parents


def test_runner_dea_equals_argmax_of_score_parents_over_gold_candidates(artefact, records):
    model = SPGModel.from_pretrained(artefact)
    result = teacher_forced_dea(model, records, batch_size=2, max_length=MAX_LENGTH, max_target_tokens=MAX_TARGET,
                                progress=False)
    assert [d.id for d in result.documents] == list(DOC_IDS)
    direct = [direct_parents(model, r) for r in records]
    assert [d.predicted for d in result.documents] == direct
    expected = sum((dependency_edge_accuracy(r.claims, p) for r, p in zip(records, direct)), DEA())
    assert result.dea == expected and result.dea_all == expected
    assert result.truncated == []
    # The random pointer is neither always right nor always wrong, so the comparison above is not vacuous.
    assert 0 < result.dea.correct.hits < result.dea.correct.total
    assert any(  # some pointers choose a dependent claim, not the root
        p is not None and not r.claims.by_num[p].independent for r, d in zip(records, result.documents)
        for p in d.predicted.values()
    )


def test_equal_scores_point_at_the_root_so_only_depth_two_claims_are_right(artefact, records):
    model = SPGModel.from_pretrained(artefact)
    with torch.no_grad():
        model.pointer.weight.zero_()  # every candidate scores 0; argmax takes the first, the tree's root
    dea = teacher_forced_dea(model, records, max_length=MAX_LENGTH, max_target_tokens=MAX_TARGET, progress=False).dea
    depths = [r.claims.depth(c.num) for r in records for c in r.claims if not c.independent]
    counts = dea.counts
    assert counts["d2"] == (depths.count(2), depths.count(2))
    for bucket, depth in (("d3", 3), ("d4", 4), ("d5", 5)):
        assert counts[bucket] == (0, depths.count(depth))
    assert counts["d3"][1] > 0 and counts["d4"][1] > 0 and counts["d5"][1] > 0
    assert dea.overall == pytest.approx(depths.count(2) / len(depths))


def test_truncated_documents_are_listed_and_their_cut_claims_scored_wrong_in_the_all_claims_dea(artefact, records):
    model = SPGModel.from_pretrained(artefact)
    cut = 1800
    result = teacher_forced_dea(model, records, max_length=MAX_LENGTH, max_target_tokens=cut, progress=False)
    assert result.truncated == list(DOC_IDS)
    for record, doc in zip(records, result.documents):
        order = linearize(record.claims).claims
        assert 0 < doc.kept < doc.claims == len(order)
        assert doc.predicted == direct_parents(model, record, cut)
        assert doc.dea == dependency_edge_accuracy(kept_forest(record.claims, order[: doc.kept]), doc.predicted)
        assert doc.dea_all == dependency_edge_accuracy(record.claims, doc.predicted)
    assert result.dea_all.correct.total == sum(r.claims.num_dependent for r in records)
    assert result.dea.correct.total < result.dea_all.correct.total
    assert result.dea_all.coverage == pytest.approx(result.dea.correct.total / result.dea_all.correct.total)


def test_records_without_claims_are_counted_not_fed(artefact, records):
    model = SPGModel.from_pretrained(artefact)
    empty = type(records[0])(id="empty-1", description="nothing claimed", claims=Forest())
    result = teacher_forced_dea(model, [empty, records[1]], max_length=MAX_LENGTH, max_target_tokens=MAX_TARGET,
                                progress=False)
    assert result.no_claims == ["empty-1"]
    assert [d.id for d in result.documents] == [records[1].id]


def test_cli_prints_the_depth_table_and_json_report(artefact, uspto_path, tmp_path, capsys):
    base = ["dea", "--model", artefact, str(uspto_path), "--gold-links-only", "--limit", "3", "--batch-size", "2",
            "--max-length", str(MAX_LENGTH), "--max-target-tokens", "3000", "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "out")]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| | Overall | d2 | d3 | d4 | d5 | d6+ |")
    assert "| DEA | " in table and "Teacher-forced over 3 documents" in table
    assert main([*base, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 3
    assert set(report["dea"]) == {"overall", "d2", "d3", "d4", "d5", "d6+", "coverage", "counts"}
    hits, total = report["dea"]["counts"]["all"]
    assert total > 0 and report["dea"]["overall"] == pytest.approx(hits / total)
    assert report["truncated"] == ["US10000000B2", "US11147203B2"]  # 9k and 14k bytes: over 3,000 target tokens
    assert json.loads((tmp_path / "out" / "dea.json").read_text())["dea"] == report["dea"]
    lines = (tmp_path / "out" / "documents.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["US10000000B2", "US11147202B2", "US11147203B2"]


def test_cli_rejects_a_directory_that_is_no_spg_model(tmp_path, uspto_path, capsys):
    assert main(["dea", "--model", str(tmp_path), str(uspto_path), "--no-progress"]) == 2  # bad input
    assert "not an SPG model directory" in capsys.readouterr().err


def test_cli_takes_a_shipped_models_name_as_spg_generate_does(artefact, uspto_path, monkeypatch, capsys):
    # issue 41: `spg dea --model spg-smollm2` was refused ("not an SPG model directory"); a name in spg.pretrained's
    # SHIPPED resolves to its artefact directory (an absolute one here: the tiny model)
    import spg.pretrained

    monkeypatch.setitem(spg.pretrained.SHIPPED, "spg-tiny", artefact)
    base = ["dea", str(uspto_path), "--gold-links-only", "--limit", "1", "--max-length", "512", "--json", "--no-progress"]
    assert main([*base, "--model", "spg-tiny"]) == 0
    by_name = json.loads(capsys.readouterr().out)
    assert main([*base, "--model", artefact]) == 0
    assert by_name["dea"] == json.loads(capsys.readouterr().out)["dea"]


def test_stage2_settings_take_a_shipped_models_name():
    from spg.train.config import Stage2Config

    Stage2Config(model="spg-smollm2").check_available()  # spg pairs and spg train stage2 read `model` from these
