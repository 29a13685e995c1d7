import pytest

from spg.cli import main
from spg.lint import find_all, lint
from spg.lint.antecedent import check_antecedents
from spg.lint.antecedent.judge import (
    FEATURES,
    Judge,
    _SetCounts,
    grammar_features,
    head_and_modifiers,
    judge_findings,
    priors,
    read_judge,
    shipped_judge,
    tiered,
    wordpieces,
)
from spg.lint.check import antecedent_findings
from spg.lint.rules import RULES
from spg.parse import parse_claims

VOCAB = {"[UNK]": 0, "hum": 1, "##er": 2, "##us": 3, "valve": 4, "the": 5, "outer": 6}
CLAIMS = (
    "1. A pump comprising a housing and a valve.\n"
    "2. The pump of claim 1, wherein the outer surface of the housing is smooth and the lever moves the valve.\n"
    "3. The pump of claim 1, further comprising a spring.\n"
    "4. The pump of claim 2, wherein the spring is steel and said lever is bent.\n"
)


def toy(threshold: float = 0.5, head_valve: float = 0.0) -> Judge:
    n = len(FEATURES)
    head = [0.0] * len(VOCAB)
    head[VOCAB["valve"]] = head_valve
    return Judge((0.0,) * n, (1.0,) * n, (0.0,) * n, 0.0, threshold, VOCAB, head, [0.0] * len(VOCAB),
                 [0.0] * len(VOCAB), 0.0, {}, {})


def test_wordpieces_split_greedily_longest_first_as_bert_does():
    assert wordpieces("humerus", VOCAB, 0) == [1, 2, 3]
    assert wordpieces("valve", VOCAB, 0) == [4]
    assert wordpieces("valves", VOCAB, 0) == [0]  # no piece for "##s": the whole word is unknown, as in BERT


def test_head_and_modifiers_drop_the_determiner():
    assert head_and_modifiers("said outer Surface") == ("surface", ["outer"])
    assert head_and_modifiers("the valve") == ("valve", [])


def test_grammar_features_read_the_message_the_words_and_the_counts():
    forest = parse_claims(CLAIMS)
    found = {f.term: f for f in check_antecedents(forest)}
    x = dict(zip(FEATURES, grammar_features(forest, found["the lever"])))
    assert x["said"] == 0 and x["words"] == 1 and x["no_modifiers"] == 1 and x["independent"] == 0
    assert x["head_before"] == 0 and x["head_after"] > 0  # "said lever" in claim 4 comes after it
    y = dict(zip(FEATURES, grammar_features(forest, found["the spring"], _SetCounts(forest))))
    assert y["introduced_outside"] == 1 and y["closest_in_scope"] == 0  # claim 3 introduces it, a sibling
    assert y["head_before"] > 0


def test_priors_look_up_singular_forms_and_default_to_nothing_known():
    assert priors("valves", ["inlet"], {"valve": 1.5}, {"inlet valve": -2.0}) == (1.5, -2.0)
    assert priors("lever", [], {}, {}) == (0.0, 0.0)


def test_a_score_below_the_threshold_makes_a_note_and_nothing_is_dropped():
    forest = parse_claims(CLAIMS)
    found = check_antecedents(forest)
    low, high = toy(threshold=0.6), toy(threshold=0.4)
    assert all(score == pytest.approx(0.5) for _, score in judge_findings(forest, found, low))
    assert {f.rule for f in tiered(forest, found, low)} == {"antecedent-note"}
    assert tiered(forest, found, high) == found
    notes = tiered(forest, found, low)
    assert [(f.claim, f.start, f.term) for f in notes] == [(f.claim, f.start, f.term) for f in found]
    assert all("judge score 0.50" in f.message for f in notes)


def test_the_head_table_moves_the_score_of_that_head_only():
    forest = parse_claims("1. A pump.\n2. The pump of claim 1, wherein the valve and the lever are shut.")
    scores = {f.term: s for f, s in judge_findings(forest, check_antecedents(forest), toy(head_valve=2.0))}
    assert scores["the valve"] > 0.85 and scores["the lever"] == pytest.approx(0.5)


def test_the_judge_reads_only_antecedent_warnings():
    forest = parse_claims(
        "1. A device comprising a widget, wherein the widget is red.\n"
        "2. The device of claim 1, further comprising a widget.\n3. The device of claim 2, wherein the widget is blue."
    )
    found = check_antecedents(forest)
    # claim 2 introduces claim 1's widget again (multiple-introduction); neither warning is the judge's to read
    assert [f.rule for f in found] == ["multiple-introduction", "antecedent-ambiguous"]
    assert judge_findings(forest, found, toy()) == [(f, None) for f in found]
    assert tiered(forest, found, toy(threshold=1.0)) == found


def test_a_judge_saved_is_read_back_and_one_for_other_features_is_refused(tmp_path):
    judge = toy()
    judge.save(tmp_path / "judge.json")
    again = read_judge(tmp_path / "judge.json")
    assert again.vocab == VOCAB and list(again.head) == list(judge.head) and again.threshold == judge.threshold
    text = (tmp_path / "judge.json").read_text().replace('"no_modifiers"', '"other"')
    (tmp_path / "other.json").write_text(text)
    with pytest.raises(ValueError, match="other features"):
        read_judge(tmp_path / "other.json")


def test_the_shipped_judge_scores_every_warning_between_0_and_1():
    judge = shipped_judge()
    assert 0 < judge.threshold < 1 and len(judge.vocab) == 30522
    forest = parse_claims(CLAIMS)
    scores = [s for _, s in judge_findings(forest, check_antecedents(forest), judge)]
    assert scores and all(0 < s < 1 for s in scores)


def test_lint_reads_by_the_grammar_by_default_and_judges_on_request():
    forest = parse_claims(CLAIMS)
    grammar = antecedent_findings(forest, "grammar")
    judged = antecedent_findings(forest, "judged")
    assert {f.rule for f in grammar} == {"antecedent"} and all(f.severity == "warning" for f in grammar)
    assert [(f.claim, f.term) for f in judged] == [(f.claim, f.term) for f in grammar]
    assert all(RULES[f.rule].severity == f.severity for f in judged)
    assert [f.rule for f in lint(forest).findings] == [f.rule for f in grammar]
    assert find_all(forest, antecedent="judged") == lint(forest, antecedent="judged").findings
    with pytest.raises(ValueError, match="antecedent mode"):
        antecedent_findings(forest, "other")


def test_the_cli_judges_on_request(tmp_path, capsys):
    path = tmp_path / "claims.txt"
    path.write_text(CLAIMS, encoding="utf-8")
    assert main(["lint", str(path)]) == 0
    grammar = capsys.readouterr().out
    assert main(["lint", "--antecedent", "judged", str(path)]) == 0
    judged = capsys.readouterr().out
    assert grammar.count("[antecedent]") == 2 and "[antecedent-note]" not in grammar
    assert judged.count("[antecedent]") + judged.count("[antecedent-note]") == 2
    with pytest.raises(SystemExit):
        main(["lint", "--antecedent", "other", str(path)])
    assert "invalid choice" in capsys.readouterr().err
