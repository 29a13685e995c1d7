import json
import subprocess
import sys

import numpy as np
import pytest

from spg.cli import main
from spg.lint import lint
from spg.lint.clauses import Reading, ancestry, content, read_claims
from spg.lint.meaning.features import FEATURES, SetFeatures, _clause_words, _Read
from spg.lint.meaning.reader import Reader, read_reader, restatement_findings, shipped_reader
from spg.lint.meaning.vectors import DIRECTORY, Vectors, read_vectors
from spg.parse import parse_claims

# a toy table: "wooden" and "wood" point one way, "steel" another, every other word is [UNK]
PIECES = ["[UNK]", "wood", "##en", "steel", "seat", "leg"]
TABLE = np.array([[0, 0, 1], [1, 0, 0], [1, 0.2, 0], [0, 1, 0], [0.5, 0, 0.5], [0.2, 0, 0.9]], np.float16)
STOOL = ("1. A stool comprising a seat and three legs, the seat being made of wood.\n"
         "2. The stool of claim 1, wherein the seat is wooden.\n"
         "3. The stool of claim 1, wherein the legs are made of steel.\n")


def features(text: str, vectors: Vectors | None = None) -> dict[int, dict[str, float]]:
    forest = parse_claims(text)
    read = SetFeatures(forest, read_claims(forest), ancestry(forest), vectors or Vectors(PIECES, TABLE))
    out = {}
    for i, claim in enumerate(forest.claims):
        got = read.features(i)
        if got is not None:
            out[claim.num] = dict(zip(FEATURES, got[0]))
    return out


def test_features_compare_a_dependent_claim_with_its_chain_and_its_sibling():
    x = features(STOOL)
    assert set(x) == {2, 3}  # the independent claim is not read
    assert x[2]["new_chain"] == pytest.approx(0.5)  # "seat" is the chain's, "wooden" is new to the words
    assert x[2]["new_like_chain"] > 0.9  # ... but not to the vectors: "wood" is the chain's
    assert x[3]["new_like_chain"] < 0.5  # "steel" is new to both
    assert x[2]["has_sibling"] == 0 and x[3]["has_sibling"] == 1
    assert x[3]["new_sibling"] == pytest.approx(1.0)  # legs, steel, made: none of them claim 2's
    assert x[3]["lost_sibling"] == pytest.approx(1.0)


def test_a_claim_restating_its_parent_word_for_word_shares_every_word_and_run():
    x = features("1. A stool comprising a leg and a seat, wherein the seat is made of wood.\n"
                 "2. The stool of claim 1, wherein the seat is made of wood.\n")[2]
    assert x["new_chain"] == 0 and x["new_chain_words"] == 0
    assert x["cos_chain"] == pytest.approx(1.0, abs=1e-3) and x["new_like_chain"] == 1.0


def test_a_claim_saying_one_run_again_and_again_has_a_share_of_repeated_runs():
    x = features("1. A stool comprising a seat.\n"
                 "2. The stool of claim 1, comprising a wooden seat leg, a wooden seat leg, a wooden seat leg.\n")[2]
    assert x["self_repeat"] > 0.5
    y = features("1. A stool comprising a seat.\n2. The stool of claim 1, comprising a wooden seat leg.\n")[2]
    assert y["self_repeat"] == 0


def test_the_shipped_vectors_and_reader_load_and_agree_on_their_pieces():
    reader = read_reader(DIRECTORY)
    assert reader.vectors.table.shape[0] == len(read_vectors(DIRECTORY).vocab) > 30000
    assert all(0 <= f < len(FEATURES) for f in reader.feature)
    assert 0 < reader.threshold < 1


def test_the_reader_loads_and_lints_without_torch_or_scikit_learn():
    code = ("import sys; from spg.lint import lint; from spg.parse import parse_claims; "
            f"r = lint(parse_claims({STOOL!r}), restatement='read'); "
            "print(sorted(m for m in ('torch', 'sklearn', 'transformers', 'spg.lint.meaning') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['spg.lint.meaning']"


def test_with_the_switch_off_the_reader_is_not_even_imported():
    code = ("import sys; from spg.lint import lint; from spg.parse import parse_claims; "
            f"lint(parse_claims({STOOL!r})); print('spg.lint.meaning' in sys.modules, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_the_reader_only_adds_restatement_warnings_where_no_repetition_rule_spoke():
    text = STOOL + "4. The stool of claim 1, wherein the seat is wooden.\n"  # claim 2 again: duplicate-claim
    off = lint(parse_claims(text)).findings
    on = lint(parse_claims(text), restatement="read").findings
    assert [f for f in on if f.rule != "restatement"] == off
    assert 4 not in {f.claim for f in on if f.rule == "restatement"}
    assert any(f.rule == "duplicate-claim" and f.claim == 4 for f in off)


def always(threshold: float) -> Reader:
    """A reader of one leaf: every claim it reads scores sigmoid(0) = 0.5."""
    return Reader((0,), (0,), (0.0,), (-1,), (-1,), (0.0,), 0.0, threshold, Vectors(PIECES, TABLE))


def test_the_threshold_decides_and_the_message_names_the_closest_claim():
    forest = parse_claims(STOOL)
    readings, above = read_claims(forest), ancestry(forest)
    assert restatement_findings(forest, readings, above, [], always(0.6)) == []
    found = restatement_findings(forest, readings, above, [], always(0.5))
    assert [(f.rule, f.severity, f.claim) for f in found] == [("restatement", "warning", 2), ("restatement", "warning", 3)]
    assert "claim 1" in found[0].message and "0.50" in found[0].message


def test_the_trees_are_walked_as_scikit_learn_walks_them():
    # one split on new_chain at 0.2: at or below goes left (+2), above goes right (-2)
    reader = Reader((0,), (0, 0, 0), (0.2, 0.0, 0.0), (1, -1, -1), (2, -1, -1), (0.0, 2.0, -2.0), 0.0, 0.5,
                    Vectors(PIECES, TABLE))
    x = [0.0] * len(FEATURES)
    assert reader.probability(x) == pytest.approx(1 / (1 + np.exp(-2)))
    x[0] = 0.2
    assert reader.probability(x) == pytest.approx(1 / (1 + np.exp(-2)))
    x[0] = 0.5
    assert reader.probability(x) == pytest.approx(1 / (1 + np.exp(2)))



def test_trees_of_different_depths_are_each_walked_to_their_own_leaf():
    # tree 0 splits twice on its left (new_chain, then cos_chain) and stops on its right; tree 1 is one leaf
    reader = Reader((0, 5), (0, 2, 0, 0, 0, 0), (0.2, 0.5, 0.0, 0.0, 0.0, 0.0), (1, 3, -1, -1, -1, -1),
                    (2, 4, -1, -1, -1, -1), (0.0, 0.0, -3.0, 1.0, 2.0, 0.5), -0.25, 0.5, Vectors(PIECES, TABLE))

    def walked(x):  # the plain walk, one row and one tree at a time
        z = reader.bias
        for node in reader.roots:
            while reader.left[node] >= 0:
                node = reader.left[node] if x[reader.feature[node]] <= reader.split[node] else reader.right[node]
            z += reader.value[node]
        return 1 / (1 + np.exp(-z))

    rows = [[0.0] * len(FEATURES) for _ in range(4)]
    rows[1][0], rows[2][0], rows[2][2], rows[3][2] = 0.9, 0.1, 0.7, 0.5
    got = reader.probabilities(np.array(rows))
    assert got.tolist() == pytest.approx([walked(x) for x in rows])
    assert len({round(p, 6) for p in got}) == 3  # leaves 3 (rows 0 and 3), 2 (row 1) and 4 (row 2)


def test_a_limitation_reads_the_content_words_content_gives_it_alone():
    # limitations of words content() reads with their neighbours, at either end and inside; each read three ways:
    # alone (content()), from the claim's limitations read together, and from its whole text
    vocab = ["seat", "leg", "5", "mm", "or", "more", "less", "about", "mounted", "on", "formed", "of", "made",
             "configured", "to", "located", "light-emitting", "and"]
    rng = np.random.default_rng(0)
    for _ in range(3000):
        limitations = tuple(tuple(rng.choice(vocab, rng.integers(1, 5))) for _ in range(rng.integers(1, 4)))
        body = ("stool", "of", "claim", "1") + tuple(w for lim in limitations for w in ("wherein", *lim))
        reading = Reading((), (), False, limitations, body)
        alone = [c for c in ([lim[p] for p in dict.fromkeys(p for p, _ in content(lim))] for lim in limitations) if c]
        assert _clause_words(reading, _Read(reading, False), None) == alone, limitations
        assert _clause_words(reading, None, _Read(reading, True)) == alone, limitations

# a sibling said again under its subject's longer name (as SmolLM2 wrote one on a test document): the rules miss it
SILICON = ("1. A composition for forming a silicon film, comprising silicon particles and a silane compound.\n"
           "2. The composition of claim 1, wherein the silicon particles are crystalline.\n"
           "3. The composition of claim 1, wherein the silicon particles have a diameter of 0.001 to 10 um.\n")
RESTATED = SILICON + "4. The silicon-film-forming composition of claim 1, wherein the silicon particles are crystalline.\n"
NARROWED = SILICON + "4. The silicon-film-forming composition of claim 1, wherein the silicon particles are doped with boron.\n"


def test_the_shipped_reader_flags_a_restatement_in_other_words_and_not_a_narrowing_claim():
    reader = shipped_reader()
    for text, flagged in ((RESTATED, True), (NARROWED, False)):
        forest = parse_claims(text)
        assert not any(f.claim == 4 for f in lint(forest).findings)
        scores = {num: p for num, p, _ in reader.scores(forest, read_claims(forest), ancestry(forest))}
        assert (scores[4] >= reader.threshold) is flagged, scores


def test_cli_switch(tmp_path, capsys):
    path = tmp_path / "claims.txt"
    path.write_text(RESTATED, encoding="utf-8")
    code = main(["lint", str(path), "--json", "--restatement", "read"])
    found = json.loads(capsys.readouterr().out)["findings"]
    assert code == 0 and [f["claim"] for f in found if f["rule"] == "restatement"] == [4]
    main(["lint", str(path), "--json"])
    assert "restatement" not in {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}


def test_words_met_together_get_the_rows_and_vectors_they_get_one_at_a_time():
    words = ["wooden", "steel", "wooden", "plank", "seat"] + [f"w{n}" for n in range(1100)]  # past the first room
    together, alone = Vectors(PIECES, TABLE), Vectors(PIECES, TABLE)
    rows = together.ids(words)
    assert rows == [r for w in words for r in alone.ids([w])] and rows[:5] == [0, 1, 0, 2, 3]
    table = TABLE.astype(np.float32)
    assert together.rows[0].tobytes() == table[[1, 2]].mean(0).tobytes()  # "wood" "##en", to the last bit
    assert together.rows[:len(set(words))].tobytes() == alone.rows[:len(set(words))].tobytes()
    assert together.unit_rows[:len(set(words))].tobytes() == alone.unit_rows[:len(set(words))].tobytes()
    assert np.allclose(np.linalg.norm(together.unit_rows[:4], axis=1), 1)
