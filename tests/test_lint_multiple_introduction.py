from spg.lint.antecedent import check_antecedents
from spg.parse import parse_claims


def introduced_again(text: str) -> list[tuple[int, str]]:
    return [(f.claim, f.term) for f in check_antecedents(parse_claims(text)) if f.rule == "multiple-introduction"]


def test_an_element_recited_twice_in_one_claim_is_introduced_again():
    text = ("1. A step stool comprising: a front frame; a lower step is pivoted to the front frame; a lower step is "
            "fixed to the top of the front frame; and a lower step is connected to an upper step.")
    findings = [f for f in check_antecedents(parse_claims(text)) if f.rule == "multiple-introduction"]
    assert [(f.claim, f.term) for f in findings] == [(1, "a lower step")]  # once per element
    claim = parse_claims(text).by_num[1].text
    assert claim[findings[0].start : findings[0].end] == "a lower step"
    assert claim.index("a lower step") < findings[0].start  # at the second introduction


def test_an_element_added_again_at_the_end_of_a_list_is_introduced_again():
    text = "1. A stool comprising: a frame; a seat pivoted to the frame; and a seat."
    assert introduced_again(text) == [(1, "a seat")]


def test_an_element_added_again_after_a_comma_and_a_long_clause_is_introduced_again():
    text = ("1. A probe comprising: a transfer member; a grip; and a controller, the grip being rotatable relative to "
            "the transfer member at the commencement of tracking, and a controller.")
    assert introduced_again(text) == [(1, "a controller")]


def test_an_element_first_read_with_a_postpositive_adjective_is_introduced_again_without_it():
    text = ("1. A ratchet comprising: an inner element rotatable within an outer element; a track formed in the inner "
            "element; and an inner element.")
    assert introduced_again(text) == [(1, "an inner element")]
    assert introduced_again("1. A ratchet comprising: a lever; a pin; and a lever rotatable about the pin.") == [
        (1, "a lever rotatable")
    ]


def test_elements_a_postpositive_adjective_tells_apart_are_distinct():
    text = "1. A ratchet comprising: a lever rotatable about a pin; and a lever rotatable about a shaft."
    assert introduced_again(text) == []
    assert introduced_again("1. A desk comprising: a table; and a turntable on the table.") == []


def test_short_parts_listed_after_a_comma_belong_to_their_owner():
    text = ("1. A trailer comprising: a bumper having a fore side, a rail, and an aft side; and a landing gear having "
            "a fore side, a rail, and an aft side.")
    assert introduced_again(text) == []


def test_the_preamble_may_name_what_the_body_recites():
    text = "1. A wireless network comprising: a wireless network interface; and a wireless network."
    assert introduced_again(text) == []
    assert introduced_again("1. A system for a vehicle, comprising: a vehicle; and a sensor on the vehicle.") == []


def test_first_and_second_elements_are_distinct():
    assert introduced_again("1. A stool comprising: a first leg; a second leg; and a seat on the first leg.") == []


def test_a_part_each_of_two_owners_has_is_no_second_introduction():
    text = ("1. A trailer comprising: a bumper having a fore side and an aft side; and a landing gear having a fore "
            "side and an aft side.")
    assert introduced_again(text) == []


def test_elements_told_apart_by_what_follows_them_are_distinct():
    text = ("1. An apparatus comprising: a means for executing a program; a means for determining a version; and a "
            "pointer to a file, a pointer to an engine.")
    assert introduced_again(text) == []


def test_alternatives_are_no_second_introduction():
    text = ("1. A device comprising: a first electrode that is an anode or a cathode, and a second electrode that is "
            "the other of an anode or a cathode.")
    assert introduced_again(text) == []
    text = "1. A mixture comprising an agent selected from the group consisting of water, a solvent, and a solvent."
    assert introduced_again(text) == []


def test_the_objects_of_actions_are_not_recited_elements():
    text = "1. A method comprising: receiving a signal; filtering the signal; and transmitting a signal to a host."
    assert introduced_again(text) == []


def test_the_antecedent_findings_beside_it_are_unchanged():
    text = "1. A stool comprising: a seat; and a seat, wherein the leg is short."
    rules = [f.rule for f in check_antecedents(parse_claims(text))]
    assert rules == ["multiple-introduction", "antecedent"]


def test_a_markush_group_of_another_wherein_clause_does_not_hide_a_second_introduction():
    text = ("1. A printer comprising: a drum, wherein the drum is made of a metal selected from the group consisting of "
            "iron and steel; a development component to apply toner; and a development component.")
    assert introduced_again(text) == [(1, "a development component")]


def test_an_element_first_read_with_a_participle_is_introduced_again_without_it():
    # "coupling" after an adverb, or before its object, is a participle: the element is "an articulating joint
    # assembly", which the claim then recites again
    for first in ("an articulating joint assembly rotatably coupling the first member to a second member",
                  "an articulating joint assembly coupling the first member to a second member"):
        text = f"1. A machine comprising: a first member; {first}; a probe; and an articulating joint assembly."
        assert introduced_again(text) == [(1, "an articulating joint assembly")], first


def test_a_noun_in_ing_stays_part_of_its_element():
    assert introduced_again("1. A machine comprising: a shaft; a drive coupling; and a drive.") == []


def test_what_the_claimed_thing_itself_has_is_an_element_of_the_claim():
    text = ("1. A step stool comprising: a front frame; a lower step fixed to an upper step; and a hinge, the step "
            "stool having a lower step.")
    assert introduced_again(text) == [(1, "a lower step")]
    text = "1. A step stool comprising: a front frame; a lower step; and a rear frame having a lower step."
    assert introduced_again(text) == []  # a part of another element, which it may have of its own


def test_have_and_has_end_a_preamble_as_having_does():
    # the main job's claim 1 (issue 30): no "comprising", the preamble's "have" opens the elements
    text = ("1. A step stool designed to fold flat for storage and have removable inner lids and a lower step that is "
            "fixed to the upper step, with a locking pin from the rear frame, and a lower step from the front frame "
            "joined to the rear frame, the step stool having a lower step that is pivoted to the front frame.")
    assert introduced_again(text) == [(1, "a lower step")]


def test_a_relative_clause_tells_no_element_apart():
    text = ("1. A step stool comprising: a front frame; a lower step that is fixed to the front frame; and a lower "
            "step that is pivoted to the front frame.")
    assert introduced_again(text) == [(1, "a lower step")]


def test_a_reference_numeral_tells_elements_apart_only_against_another_numeral():
    assert introduced_again("1. A stool comprising: a gear (12) on a shaft; a frame; and a gear (14).") == []
    for text in ("1. A stool comprising: a gear (12) on a shaft; a frame; and a gear (12).",
                 "1. A stool comprising: a gear on a shaft; a frame; and a gear (12).",
                 "1. A stool comprising: a gear (12) on a shaft; a frame; and a gear."):
        assert introduced_again(text) == [(1, "a gear")], text


def test_a_restrictive_relative_clause_of_action_tells_elements_apart():
    text = ("1. A system comprising: a first chip comprising a processor coupled to a sensor interface; and a second "
            "chip comprising a memory, and a processor that processes data signals.")
    assert introduced_again(text) == []
