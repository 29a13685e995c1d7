from spg.lint import find_all
from spg.lint.contradiction import check_contradictions
from spg.lint.rules import RULES
from spg.parse import parse_claims

STOOL = ("1. A step stool, comprising: (a) a front frame and a rear frame joined at the top with a hinge; and (b) an "
         "upper step that is fixed to the front frame and is connected to the rear frame by a pair of links, so "
         "that opening the frames swings the upper step into a horizontal position.")


def found(text: str) -> list[int]:
    return [f.claim for f in check_contradictions(parse_claims(text))]


def test_a_dependent_saying_pivoted_where_its_parent_says_fixed_to_the_same_frame_is_a_finding():
    # the main job's claim 2 (issue 36)
    text = STOOL + (" 2. The step stool of claim 1, wherein the upper step is pivoted to the front frame and is "
                    "connected to the rear frame by a pair of links.")
    findings = check_contradictions(parse_claims(text))
    assert [(f.claim, f.rule, f.severity) for f in findings] == [(2, "contradicts-parent", "warning")]
    assert "'upper step is pivoted to front frame'" in findings[0].message
    assert "claim 1 says 'upper step is fixed to front frame'" in findings[0].message
    assert findings[0].term == "upper step is pivoted to front frame"
    assert RULES["contradicts-parent"].severity == "warning"
    assert [f.claim for f in find_all(parse_claims(text)) if f.rule == "contradicts-parent"] == [2]


def test_a_contradiction_two_claims_up_the_chain_and_in_adverbs_is_a_finding():
    text = ("1. A vise comprising a base and a jaw fixedly attached to the base. 2. The vise of claim 1, further "
            "comprising a screw. 3. The vise of claim 2, wherein the jaw is pivotally connected to the base.")
    assert found(text) == [3]


def test_a_predicate_that_narrows_or_restates_its_parents_is_no_finding():
    # "welded to" under "fixed to" narrows; "hinged" under "pivoted" is of the same group
    assert found(STOOL + " 2. The step stool of claim 1, wherein the upper step is welded to the front frame.") == []
    assert found("1. A box comprising a body and a lid pivoted to the body. 2. The box of claim 1, wherein the lid "
                 "is hinged to the body.") == []


def test_the_same_predicate_of_another_object_or_subject_is_no_finding():
    assert found(STOOL + " 2. The step stool of claim 1, wherein the upper step is pivoted to the rear frame.") == []
    assert found(STOOL + " 2. The step stool of claim 1, wherein the lower step is pivoted to the front frame.") == []


def test_alternatives_in_the_parent_or_the_dependent_are_no_finding():
    text = ("1. A stool comprising a frame and a step that is fixed or pivoted to the frame. 2. The stool of claim 1, "
            "wherein the step is pivoted to the frame.")
    assert found(text) == []
    assert found(STOOL + " 2. The step stool of claim 1, wherein the upper step is pivoted or welded to the front "
                 "frame.") == []


def test_a_negation_is_no_finding():
    assert found(STOOL + " 2. The step stool of claim 1, wherein the upper step is not pivoted to the front "
                 "frame.") == []
    text = ("1. A stool comprising a frame and a step that is not fixed to the frame. 2. The stool of claim 1, "
            "wherein the step is pivoted to the frame.")
    assert found(text) == []


def test_a_condition_or_a_state_is_no_finding():
    text = ("1. A valve comprising a body and a gate, wherein the gate is closed. 2. The valve of claim 1, wherein "
            "when the lever is raised, the gate is open.")
    assert found(text) == []
    text = ("1. A valve comprising a body and a gate, wherein the gate is closed. 2. The valve of claim 1, wherein "
            "the gate is open in a second position.")
    assert found(text) == []
    assert found("1. A valve comprising a body and a gate, wherein the gate is closed. 2. The valve of claim 1, "
                 "wherein the gate is open.") == [2]


def test_a_predicate_qualified_in_one_direction_is_no_finding():
    # "axially fixed" and "rotatable" hold together; "rotatably fixed" is fixed against rotation
    text = ("1. A drive comprising a housing and a shaft axially fixed to the housing. 2. The drive of claim 1, "
            "wherein the shaft is rotatable relative to the housing.")
    assert found(text) == []
    text = ("1. A drive comprising a hub and a gear rotatably fixed to the hub. 2. The drive of claim 1, wherein the "
            "gear is fixed to the hub.")
    assert found(text) == []


def test_a_word_of_the_table_used_as_a_name_is_no_statement():
    text = ("1. A stool comprising a fixed frame and a seat. 2. The stool of claim 1, wherein the seat is pivoted to "
            "the fixed frame.")
    assert found(text) == []


def test_moving_together_with_an_element_or_to_a_place_is_no_finding():
    text = ("1. A press comprising a rod and a cam fixed to the rod. 2. The press of claim 1, wherein the cam is "
            "rotatable with the rod.")
    assert found(text) == []


def test_exclusive_properties_and_places_are_findings():
    assert found("1. A tool comprising a handle and a shaft, wherein the shaft is hollow. 2. The tool of claim 1, "
                 "wherein the shaft is solid.") == [2]
    assert found("1. A filter assembly comprising a pump and a filter disposed upstream of the pump. 2. The filter "
                 "assembly of claim 1, wherein the filter is disposed downstream of the pump.") == [2]
    assert found("1. A lamp comprising a base and a cover integral with the base. 2. The lamp of claim 1, wherein "
                 "the cover is detachable from the base.") == [2]


def test_independent_claims_and_sibling_dependents_are_not_compared():
    text = ("1. A stool comprising a frame and a step fixed to the frame. 2. A stool comprising a frame and a step "
            "pivoted to the frame. 3. The stool of claim 1, wherein the step is welded to the frame. 4. The stool "
            "of claim 1, wherein the frame is hollow. 5. The stool of claim 1, wherein the frame is solid.")
    assert found(text) == []


def test_the_ways_claims_word_a_predicate_are_read():
    # an adjective after the noun it speaks of, past a preposition
    assert found("1. A saw comprising a rail and a guide on a plane parallel to the rail. 2. The saw of claim 1, "
                 "wherein the guide is arranged on a plane perpendicular to the rail.") == [2]
    # a participle after a comma speaks of the element the segment before opens with
    assert found("1. A diode comprising: a substrate; a glass layer for limiting ion transport, positioned above "
                 "the substrate. 2. The diode of claim 1, wherein the glass layer is positioned below the "
                 "substrate.") == [2]
    # an object two prepositions share; an adverb after its participle's object; "assembly" is no adverb
    assert found("1. A truck comprising a flange and stops fixedly attached to and extending from the flange. 2. The "
                 "truck of claim 1, wherein the stops are pivotally attached to the flange.") == [2]
    assert found("1. A filter comprising a frame and a layer located in the frame detachably. 2. The filter of claim "
                 "1, wherein the layer is permanently located in the frame.") == [2]
    assert found("1. A tractor comprising a front frame and a mounting frame assembly pivotably attached to the front "
                 "frame. 2. The tractor of claim 1, wherein the mounting frame assembly is rigidly attached to the "
                 "front frame.") == [2]


def test_a_participle_after_a_preposition_is_not_read_as_said_of_its_object():
    # which is fixed to the base, the lever or the frame, the words do not tell
    text = ("1. A press comprising a base, a frame and a lever extending from the frame fixed to the base. 2. The "
            "press of claim 1, wherein the frame is pivoted to the base.")
    assert found(text) == []
