"""Issue 13, the public API: claim sets nobody would write on purpose give diagnostics, never exceptions.

Each test is one item of the issue, named for the behaviour it pins down; the CLI side is in
tests/test_cli_errors.py, results files in tests/test_results_file.py, the property suite in tests/test_fuzz.py.
"""

from __future__ import annotations

import subprocess
import sys

from spg.data import Record
from spg.evaluate import Prediction, System, evaluate
from spg.forest import Claim, Forest
from spg.linearize import canonical, linearize
from spg.parse import extract_references, parse_claims, unread_citations
from spg.render import render

# Issue 13, item 1: claims 1; 2→1; 3→2; 4→5; 5→4; and a second, independent claim 5.
DUPLICATE_AND_CYCLE = Forest.from_claims([
    Claim(1, "A widget."),
    Claim(2, "The widget of claim 1.", (1,)),
    Claim(3, "The widget of claim 2.", (2,)),
    Claim(4, "The widget of claim 5.", (5,)),
    Claim(5, "The widget of claim 4.", (4,)),
    Claim(5, "A gadget."),
])  # fmt: skip


def codes(forest: Forest) -> set[str]:
    return {d.code for d in forest.diagnostics()}


def test_a_duplicate_number_and_a_cycle_are_diagnosed_and_rendered_without_the_broken_claims():
    assert {"duplicate-number", "forward-reference", "broken-parent"} <= codes(DUPLICATE_AND_CYCLE)
    assert render(DUPLICATE_AND_CYCLE) == "1. A widget.\n2. The widget of claim 1.\n3. The widget of claim 2."
    assert linearize(DUPLICATE_AND_CYCLE).claims == [1, 2, 3]
    assert [c.num for c in canonical(DUPLICATE_AND_CYCLE)] == [1, 2, 3]


def test_a_duplicate_number_names_the_first_claim_with_it_and_the_second_stays_outside_every_tree():
    forest = Forest.from_claims([Claim(1, "A widget."), Claim(2, "The widget of claim 1.", (1,)), Claim(2, "A cup.")])
    assert forest.roots == [1] and forest.trees() == [[1, 2]]


def test_any_preceding_claim_in_the_first_claim_renders_with_its_other_citation_renumbered():
    forest = parse_claims([
        {"num": 2, "text": "A widget."},
        {"num": 1, "text": "The widget of claim 2 or any preceding claim."},
    ])  # fmt: skip
    assert render(forest) == "1. A widget.\n2. The widget of claim 1 or any preceding claim."


def test_evaluate_scores_a_reference_with_a_duplicate_number_and_a_cycle():
    record = Record("d", "A widget.", DUPLICATE_AND_CYCLE, gold_links=True)
    system = System("s", {"d": Prediction("<ind>A widget.</ind><dep>The widget of claim 1.</dep><eot>")}, "test")
    (row,) = evaluate([system], [record], bertscore=False, progress=False).rows
    assert row.n == 1 and row.valid == 1.0


def test_plain_generation_result_of_a_claim_set_with_a_duplicate_and_a_cycle():
    from spg.generation.generator import plain_result
    from spg.generation.pointer_decode import Generated

    text = "1. A widget.\n2. The widget of claim 1.\n3. The widget of claim 2.\n4. The widget of claim 5.\n" \
           "5. The widget of claim 4.\n5. A gadget."
    result = plain_result(Generated([], text, None))
    assert result["claims_text"].splitlines()[0] == "1. A widget." and len(result["forest"]) == 6


def test_a_claim_numbered_one_hundred_million_lints_in_little_memory():
    """Missing numbers are counted gap by gap; the old ``set(range(1, 10**8 + 1))`` needs over 4 GB. The child
    process gets 1 GiB of address space, so that a regression fails here instead of exhausting the machine."""
    script = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({1 << 30}, {1 << 30})); "
        "from spg.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    records = '[{"num": 1, "text": "A widget."}, {"num": 100000000, "text": "The widget of claim 1."}]'
    done = subprocess.run(
        [sys.executable, "-c", script, "lint", "-"], input=records, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    missing = "claim numbers missing from the sequence: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 … [missing-number]"
    assert missing in done.stdout


def test_claim_numbers_below_one_are_warned_about():
    forest = parse_claims([{"num": 0, "text": "A widget."}, {"num": -5, "text": "The widget of claim 0."}])
    warned = [(d.code, d.claim, d.severity) for d in forest.diagnostics() if d.code == "bad-number"]
    assert warned == [("bad-number", 0, "warning"), ("bad-number", -5, "warning")]


def test_claims_numbered_out_of_order_one_per_line_are_read_as_written():
    forest = parse_claims("1. A widget.\n3. The widget of claim 1, wherein it is red.\n2. The widget of claim 1.\n")
    assert [(c.num, c.parents) for c in forest] == [(1, ()), (3, (1,)), (2, (1,))]
    assert codes(forest) == {"out-of-order"}


def test_a_first_claim_numbered_zero_is_a_claim_of_its_own():
    for text in ("0. A widget.\n1. The widget of claim 0.\n2. The widget of claim 1.\n",
                 "0. A widget. 1. The widget of claim 0. 2. The widget of claim 1."):
        forest = parse_claims(text)
        assert [(c.num, c.parents) for c in forest] == [(0, ()), (1, (0,)), (2, (1,))], text


def test_numbered_lines_that_continue_a_claim_are_not_claims_of_their_own():
    forest = parse_claims("1. A sheet having a thickness of about\n2. 5 mm.\n2. The sheet of claim 1.\n")
    assert [(c.num, c.parents) for c in forest] == [(1, ()), (2, (1,))]


def test_a_citation_of_a_five_digit_claim_number_is_read():
    assert extract_references("The widget of claim 10000.")[0].nums == (10000,)
    assert codes(parse_claims("1. A widget.\n2. The widget of claim 10000.\n")) == {"missing-parent"}


def test_a_range_or_any_preceding_claim_names_at_most_500_claims():
    assert len(extract_references("The widget of claims 1 to 400 or 401 to 800.")[0].nums) <= 500
    assert extract_references("The widget of any preceding claim.", 10**8)[0].nums == tuple(range(1, 501))


def test_a_misspelt_claim_the_parser_does_not_read_is_warned_about():
    forest = parse_claims("1. A widget comprising a frame.\n2. The widget according to cam 1, wherein it is red.\n")
    assert forest.by_num[2].independent
    assert [(d.code, d.claim, d.severity) for d in unread_citations(forest)] == [("unread-citation", 2, "warning")]
    assert not unread_citations(parse_claims("1. A widget.\n2. A cam having a lobe, the lobe of cam 1 in a slot.\n"))
