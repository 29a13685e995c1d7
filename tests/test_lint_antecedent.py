"""Antecedent basis as the claim checker reads it (spg.lint.antecedent): one test per reading rule."""

from __future__ import annotations

import json
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from spg.forest import Forest
from spg.lint.antecedent import AntecedentFinding, check_antecedents, reference_counts
from spg.lint.antecedent.words import _TOKEN_RE, _offsets, _token_classes
from spg.parse import parse_claims


def _terms(*texts: str, parents: list[list[int]] | None = None) -> list[str]:
    forest = Forest.from_parents(list(texts), parents or [[]] + [[1]] * (len(texts) - 1))
    return [f.term for f in check_antecedents(forest)]


def test_finding_names_claim_offsets_rule_and_closest_introduction():
    forest = Forest.from_parents(["A wall comprising a first panel.", "The wall of claim 1, wherein the second panel is red."], [[], [1]])
    [finding] = check_antecedents(forest)
    assert finding == AntecedentFinding(
        2, 29, 45, "the second panel", "antecedent",
        "'the second panel' has no antecedent basis in claim 2 or the claims it depends on "
        "(closest: 'a first panel' (claim 1))",
    )  # fmt: skip
    assert forest.by_num[2].text[finding.start : finding.end] == finding.term


def test_scope_is_own_earlier_text_and_every_ancestor_not_a_sibling():
    texts = [
        "A door comprising a frame.",
        "The door of claim 1, further comprising a spring.",
        "The door of claim 2, wherein the spring and the frame are steel.",
        "The door of claim 1, wherein the spring is red.",
    ]
    forest = Forest.from_parents(texts, [[], [1], [2], [1]])
    findings = check_antecedents(forest)
    assert [(f.claim, f.term) for f in findings] == [(4, "the spring")]
    assert "'a spring' (claim 2) introduces it, but claim 4 does not depend on that claim" in findings[0].message


def test_scope_follows_a_forward_citation_down_the_real_chain():
    # issue 42: 2 cites 3, which cites 1, so claim 1's "a grinding gap" is in claim 2's scope; the forward reference
    # itself is the structure rule's finding, not a missing antecedent with a false reason
    texts = [
        "A grinder comprising a burr defining a grinding gap.",
        "The grinder of claim 3, further comprising a cup below the grinding gap.",
        "The grinder of claim 1, further comprising a timer, wherein the cup is steel.",
        "The grinder of claim 2, wherein the timer and the cup are steel, and the lid is red.",
    ]
    findings = check_antecedents(parse_claims("\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1))))
    # claim 3 does not reach claim 2's cup; claim 4 reads all three; findings stay in document order
    assert [(f.claim, f.term) for f in findings] == [(3, "the cup"), (4, "the lid")]


def test_a_citation_cycle_keeps_the_earlier_claim_as_the_scope():
    # 2 ⇄ 3 (the structure rules report the cycle): the earlier claim is read first and the later one depends on it,
    # as in document order
    forest = Forest.from_parents(
        ["A door comprising a frame.", "The door of claim 3, further comprising a spring.",
         "The door of claim 2, wherein the spring and the frame are steel."],
        [[], [3], [2]],
    )
    assert [(f.claim, f.term) for f in check_antecedents(forest)] == [(3, "the frame")]


def test_an_introduction_out_of_scope_is_named_by_its_words_not_by_its_head_alone():
    texts = [
        "A stool comprising a front frame and a rear frame.",
        "The stool of claim 1, further comprising a front leg and a rear leg.",
        "The stool of claim 1, wherein the front leg is steel.",
    ]
    findings = check_antecedents(Forest.from_parents(texts, [[], [1], [1]]))
    assert [(f.claim, f.term) for f in findings] == [(3, "the front leg")]
    assert "'a front leg' (claim 2) introduces it" in findings[0].message


def test_a_later_introduction_is_no_basis():
    assert _terms("A door, wherein the spring is steel and has a spring rate.") == ["the spring"]


def test_multiple_dependency_draws_on_every_cited_claim():
    forest = Forest.from_parents(
        ["A door having a frame.", "A door having a spring.", "The door of claim 1 or 2, wherein the spring and the frame are steel."],
        [[], [], [1, 2]],
    )
    assert check_antecedents(forest) == []


def test_noun_phrase_ends_at_a_participle_a_verb_and_a_relative_clause():
    assert _terms(
        "A system comprising a library loader specifying a path, a valve that opens, and a controller, "
        "wherein said library loader reads the path, the valve closes and the controller detects a fault."
    ) == []


def test_participle_compound_before_a_singular_noun_stays_one_phrase():
    # "the latch holding ledge" is one element: a missing "latch holding ledge" is reported, not "the latch".
    assert _terms("A buckle comprising a latch, wherein the latch holding ledge is steel.") == ["the latch holding ledge"]


def test_step_gerund_and_means_references_resolve_against_the_action_they_name():
    assert _terms(
        "A method comprising determining a value, adjusting a gain and loading a file, "
        "wherein the determining step precedes the adjusting, and said loading is repeated; "
        "and notifying means for notifying a user, the notifying means being a lamp."
    ) == []


def test_a_nominalisation_resolves_against_its_action():
    assert _terms("A method comprising determining a value, wherein the determination is repeated.") == []


def test_the_named_action_must_be_in_scope():
    assert _terms("A method comprising heating a wafer, wherein the adjusting step is repeated.") == [
        "the adjusting step"
    ]


def test_bare_plurals_numerals_and_quantifiers_introduce():
    assert _terms(
        "An imager comprising pixels, two imaging devices and at least two longitudinal paths, "
        "wherein the pixels, the imaging devices and the longitudinal paths are aligned."
    ) == []


def test_inherent_parts_and_properties_need_no_introduction():
    assert _terms(
        "A vehicle door comprising a frame, wherein the top end of the frame faces the vehicle, "
        "the beginning of execution is logged and the temperature is low."
    ) == []


def test_an_explicitly_introduced_part_must_match():
    # "the first end of the rod" is inherent, but once the claim names its ends only "a second end" counts.
    assert _terms("A rod having a second end, wherein the first end of the rod is round.") == ["the first end"]


def test_the_full_modifier_sequence_is_compared():
    assert _terms("A display having a first display panel element; the second display panel element is lit.") == [
        "the second display panel element"
    ]
    assert _terms("A mould having an outlet melt channel, wherein the inlet melt channel is heated.") == [
        "the inlet melt channel"
    ]
    assert _terms("A display having a first display panel element, wherein the element and the panel are lit.") == []


def test_a_positional_modifier_is_never_added_freely_but_a_descriptive_one_is():
    # One shaft in scope: "the golf club shaft" can only mean it; "the second shaft" implies a first one.
    assert _terms("A golf club having a shaft, wherein the golf club shaft is steel.") == []
    assert _terms("A golf club having a shaft, wherein the second shaft is steel.") == ["the second shaft"]


def test_coordinated_ordinals_share_their_head():
    assert _terms("A wall having a first layer and a second layer, the first and second layers being thin.") == []
    assert _terms("A wall having a first layer, the first and second layers being thin.") != []


def test_reintroduced_element_makes_a_reference_below_the_reintroducing_claim_ambiguous():
    forest = Forest.from_parents(
        [
            "A device comprising a widget, the widget being red.",
            "The device of claim 1, further comprising a widget.",
            "The device of claim 2, wherein the widget is blue.",
        ],
        [[], [1], [2]],
    )
    again, finding = check_antecedents(forest)
    assert (again.claim, again.term, again.rule) == (2, "a widget", "multiple-introduction")  # where it began
    assert (finding.claim, finding.term, finding.rule) == (3, "the widget", "antecedent-ambiguous")
    assert "'a widget' (claim 1)" in finding.message and "'a widget' (claim 2)" in finding.message


def test_a_reference_after_its_own_claims_reintroduction_means_the_nearest_one():
    # The claim that re-introduces the element and then refers to it means its own introduction.
    texts = [
        "A device comprising a widget, the widget being red.",
        "The device of claim 1, further comprising a widget, wherein the widget is blue.",
        "The device of claim 1, wherein said device comprises a widget and two pins, said widget holding the pins.",
    ]
    found = check_antecedents(Forest.from_parents(texts, [[], [1], [1]]))
    # no antecedent finding; each re-introduction itself is multiple-introduction's (the widget of claim 1 or another?)
    assert [(f.claim, f.term, f.rule) for f in found] == [
        (2, "a widget", "multiple-introduction"),
        (3, "a widget", "multiple-introduction"),
    ]


def test_a_claim_of_another_category_restates_without_ambiguity():
    # An apparatus claim citing a process claim restates its elements; that is not a second column.
    forest = Forest.from_parents(
        [
            "A process using a column, the column being cooled.",
            "An apparatus for carrying out the process of claim 1, comprising a column, wherein the column is steel.",
        ],
        [[], [1]],
    )
    assert check_antecedents(forest) == []


def test_distinguished_introductions_are_not_ambiguous():
    # "the widget" after "a first widget" and "a second widget" speaks of what both share: not reported.
    assert _terms("A device comprising a first widget and a second widget, wherein the widget is red.") == []


def test_claim_subjects_and_set_phrases_are_not_references():
    assert _terms(
        "A compound selected from the group consisting of a salt and an ester.",
        "The compound as claimed in any one of the preceding claims, in the form of a tablet.",
    ) == []


def test_a_missing_antecedent_is_reported_once_per_claim_and_not_again_below():
    assert _terms(
        "A door, wherein the spring is steel and the spring is coiled.",
        "The door of claim 1, wherein the spring is red.",
    ) == ["the spring"]


def test_a_deep_chain_reads_every_ancestor():
    texts = ["A door comprising a frame."] + [f"The door of claim {k}, wherein the frame is red." for k in range(1, 9_999)]
    texts.append("The door of claim 9999, wherein the spring is red.")
    forest = Forest.from_parents(texts, [[]] + [[k] for k in range(1, 10_000)])
    assert [(f.claim, f.term) for f in check_antecedents(forest)] == [(10_000, "the spring")]


def test_reference_counts_agree_with_the_findings():
    forest = Forest.from_parents(
        ["A door comprising a frame and a hinge.", "The door of claim 1, wherein the hinge and the spring are steel."],
        [[], [1]],
    )
    assert reference_counts(forest) == (2, 1)


def test_offsets_are_exact_on_every_real_claim_set(uspto_path):
    for line in uspto_path.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        forest = parse_claims(doc["claims"])
        findings = check_antecedents(forest)
        assert findings == sorted(findings, key=lambda f: ([c.num for c in forest.claims].index(f.claim), f.start))
        for f in findings:
            assert forest.by_num[f.claim].text[f.start : f.end] == f.term, doc["id"]


def test_first_and_second_introduce_each_ordinal_with_the_whole_shared_phrase():
    assert _terms(
        "A hinge comprising first and second hinge pin assemblies, the first hinge pin assembly including a pin."
    ) == []
    assert _terms("A hinge comprising first and second hinge pin assemblies, the third hinge pin assembly being red.") == [
        "the third hinge pin assembly"
    ]


def test_a_bare_verb_after_a_coordinated_or_plural_subject_ends_the_reference():
    assert _terms(
        "A container comprising a hinge portion and a ridge, wherein the hinge portion and the ridge create a wall."
    ) == []
    assert _terms("A device comprising elements, wherein the elements flow into a reactor.") == []
    # without a complement after it the last word stays part of the name: "the ridge wall" is reported
    assert _terms("A container comprising a hinge and a ridge, wherein the hinge and the ridge wall are red.") == [
        "the ridge wall"
    ]


def test_thereof_names_the_owner_of_a_part():
    assert _terms("A piece comprising a plate, the plate being fixed adjacent to the end edge thereof.") == []


def test_a_face_named_after_its_owner_is_that_owners():
    assert _terms("A probe for an organic tissue, comprising zones of the organic tissue surface.") == []
    # a positional modifier is never read as an owner
    assert _terms("A rod having a second end, wherein the first end surface is flat.") == ["the first end surface"]


def test_a_part_named_once_with_a_named_owner_is_inherent_but_a_tracked_noun_is_not():
    assert _terms("A sole which can be coupled to a shoe, the sole engaging the body of said shoe.") == []
    assert _terms(
        "A probe comprising a circuit, wherein the signal of the circuit is amplified and the signal is sent."
    ) == ["the signal"]


def test_a_phrase_defining_a_symbol_is_no_reference():
    assert _terms("A fibre wherein t is the total optical path length and Min is the optical path length.") == []
    assert _terms("A fibre having a core, at a position defined by the distance r from the core.") == []


def test_there_ends_a_noun_phrase():
    assert _terms("A furnace holding a melt, wherein the melt there is stirred.") == []


def test_a_first_one_of_the_members_introduces_the_first_member():
    texts = [
        "A handrail comprising polymer materials, a first one of the polymer materials forming a surface and a second "
        "one of a plurality of layers forming a portion.",
        "The handrail of claim 1, wherein the first polymer material is red and the second layer is thin.",
        "The handrail of claim 1, wherein the third polymer material is red.",
    ]
    terms = [f.term for f in check_antecedents(Forest.from_parents(texts, [[], [1], [1]]))]
    assert terms == ["the third polymer material"]


def test_an_ing_noun_or_irregular_participle_with_a_complement_ends_the_reference():
    assert _terms(
        "A box comprising walls and a lid, said lid fitting onto said walls, a pull bolt, a mechanism holding a "
        "member engaged with the pull bolt held by said mechanism."
    ) == []
    # a noun in "-ing" without a complement stays in the phrase: "the lid fitting" is a fitting, and not introduced
    assert _terms("A box comprising walls and a lid, wherein the lid fitting is brass.") == ["the lid fitting"]


def test_free_ends_a_noun_phrase():
    assert _terms("A line comprising a strip line, an outer portion of the strip line free of encapsulant.") == []


def test_a_comparative_before_than_and_again_end_a_noun_phrase():
    assert _terms("A ring comprising a ring portion, the ring portion thinner than a hub, fed to the ring portion again.") == []


def test_a_noun_whose_of_takes_an_action_names_how_it_is_done():
    assert _terms("A method of bonding a part during the entire process of cutting the part.") == []


def test_geometry_is_a_property_of_its_owner():
    assert _terms("A wheel comprising a support, wherein the geometry of the support is round and the geometry is fixed.") == []


def test_two_coordinated_properties_stand_alone():
    assert _terms("An indicium sized to represent the size and shape of a target.") == []
    # a property before a coordinated compound is a modifier there: "the temperature and pressure sensors"
    assert _terms("A tank wherein the temperature and pressure sensors are fixed.") == ["the temperature"]


def test_cannot_and_due_end_a_noun_phrase():
    assert _terms("A lift comprising an elevator and a tower, so that the elevator cannot move and the tower due to wind tilts.") == []


def test_an_action_noun_in_ment_named_with_its_owner_is_inherent():
    assert _terms("A door comprising a sliding door, a sensor sensing the position of the sliding door based on the "
                  "movement of the sliding door and the movement of the sliding door again.") == []  # fmt: skip


def test_an_adverb_before_the_last_word_makes_that_word_a_predicate():
    assert _terms(
        "A tool comprising a housing and a retention member attached to said housing, said retention member "
        "rotatably moveable about an axis, and a resonator, the level of the resonator substantially constant."
    ) == []


def test_a_bare_verb_after_a_plural_noun_with_its_object_ends_the_reference():
    assert _terms(
        "A valve comprising annular grooves and torsional members each having a free end, wherein said annular "
        "grooves prevent side loading and the free ends engage one another."
    ) == []
    # a noun after a plural modifier stays in the phrase: "the sales tax" is not "the sales" taxing
    assert _terms("A till recording sales, wherein the sales tax is added.") == ["the sales tax"]


def test_a_postpositive_word_ends_the_reference():
    assert _terms(
        "A cleaner comprising a nozzle assembly, a control device and a voltage controller setting a command "
        "voltage, an agitator drawing the nozzle assembly forward, said control device able to stop the agitator, "
        "and the controller holding the command voltage irrespective of a load."
    ) == []


def test_a_verb_after_a_reference_with_an_added_participle_ends_it():
    # "opened film tube": the participle opens no phrase, so the introduction is "film tube"
    assert _terms(
        "A machine advancing a length of opened film tube, wherein an end of the opened film tube subsequently "
        "drops onto a container, and storing washing water, wherein the washing water penetrates through laundry."
    ) == []


def test_a_plural_after_an_ed_participle_is_a_noun_not_a_verb():
    assert _terms("A glove comprising separate elongated sections, a top side of said elongated sections to receive fingers.") == []


def test_using_ends_a_noun_phrase():
    assert _terms("A method comprising generating an image, and displaying the image using multi-slice imaging.") == []


def test_a_coordinated_word_without_an_ordinal_after_it_is_read_alone_too():
    # "a front and a rearward end" shares the head "end"; "the input and the network" does not share one
    assert _terms(
        "A machine comprising a chassis having a front and a rearward end, an input, a network and a module "
        "coupled to the input and the network, moving said chassis from said rearward end towards said front end."
    ) == []
    assert _terms("A system comprising an input and a model to receive the input and generate information.") == []


def test_british_and_american_spellings_name_one_thing():
    assert _terms(
        "A process feeding a first oxygen-lean vapour stream and a stabiliser to a centre column, wherein the first "
        "oxygen-lean vapor stream, the stabilizer and the center column are cooled."
    ) == []
    # a respelt word is still compared: "the second vapor stream" has no basis
    assert _terms("A process feeding a first vapour stream, wherein the second vapor stream is cooled.") == [
        "the second vapor stream"
    ]


def test_a_compound_may_be_written_open_hyphenated_or_closed():
    assert _terms(
        "A binding comprising a footplate, a strip line and a man-machine interface, wherein the foot plate, the "
        "strip-line and the machine interface are fixed."
    ) == []
    # the letters must start at a word boundary of the introduction: "the airline" is no "hair line"
    assert _terms("A comb forming a hair line, wherein the airline is straight.") == ["the airline"]


def test_an_abbreviation_defined_in_the_claims_names_its_long_form():
    assert _terms(
        "A node comprising a radio frequency (RF) section, a source Mobility Management Network Element (MMNE) and a "
        "private branch exchange, hereafter PBX, telephony circuit, wherein the RF section, the source MMNE and said "
        "PBX telephony circuit are linked, and the radio frequency section is shielded."
    ) == []
    # letters that spell no long form define nothing
    assert _terms("A node comprising a radio frequency (XQ) section and a power section, the XQ section shielded.") == [
        "the XQ section"
    ]


def test_comma_separated_modifiers_introduce_one_phrase():
    assert _terms(
        "A cork extractor comprising a first half-cylinder shell and a second, complementary half-cylinder shell, "
        "said cork being guided along said second half-cylinder shell."
    ) == []
    assert _terms("An extractor comprising a second, complementary shell, wherein the first shell is red.") == [
        "the first shell"
    ]


def test_a_first_plurality_of_members_introduces_the_first_members_not_a_first_member():
    assert _terms(
        "A charge comprising a first plurality of elongated tubular receptacles, each of said first elongated "
        "tubular receptacles having a cavity."
    ) == []
    # a group's ordinal is not its members': "the first current source" does not say which one is meant
    assert _terms("A circuit comprising a first set of current sources, wherein the first current source is on.") == [
        "the first current source"
    ]


def test_a_count_gives_its_members_ordinals_unless_the_claims_name_them_themselves():
    assert _terms(
        "A carding machine comprising at least two opening cylinders or briseurs and a pair of arms, the first "
        "briseur being upstream of the second briseur and the second arm being short."
    ) == []
    assert _terms("A machine comprising two briseurs, wherein the third briseur is idle.") == ["the third briseur"]
    # a claim set that introduces "a first strap section" itself counts explicitly: a first/second slip is found
    assert _terms(
        "A protector comprising two strap sections, a first strap section having an end and a first strap section "
        "having an end, wherein the second strap section is joinable."
    ) == ["the second strap section"]


def test_a_parent_cited_by_its_number_alone_is_the_claims_scope():
    forest = parse_claims(
        "1. A thermal printhead comprising a notch.\n"
        "2. The thermal printhead according to 1, wherein said notch is long.\n"
        "3. The printhead of 2 wherein said notch is deep and the spring is red."
    )
    assert [(f.claim, f.term) for f in check_antecedents(forest)] == [(3, "the spring")]


def test_a_nominalisation_with_a_positional_modifier_is_no_named_action():
    # "the determination" names the action "determining"; "the first position" is one of several positions
    assert _terms("A method comprising positioning a lever and extending an arm, wherein the first position is set.") == [
        "the first position"
    ]


def test_a_tooth_is_an_element_not_anatomy():
    assert _terms("A buckle comprising a frame, wherein the tooth engages the frame.") == ["the tooth"]
    assert _terms("A toothbrush comprising bristles for brushing the teeth.") == []


def test_two_positional_nouns_each_with_its_article_are_read_alone():
    assert _terms("A case comprising a housing having a top, a front, a rear and sides between the front and the rear.") == []
    assert _terms("A case comprising a housing having a top and sides between the front and the rear.") == [
        "the front", "the rear"
    ]


def test_a_step_named_by_its_action_and_object_resolves_against_the_action():
    assert _terms(
        "A method comprising the step of adding weight to a rest.",
        "The method of claim 1 wherein said adding weight step comprises placing a bag on the rest.",
    ) == []
    # the object must be in scope too
    assert _terms("A method comprising the step of adding weight to a rest, wherein said adding salt step is slow.") == [
        "said adding salt step"
    ]


def test_a_name_given_in_place_defines_what_it_names():
    assert _terms(
        "A medium engraved to the first depth d1 by a beam, wherein the first depth is less than the pump P3 allows."
    ) == []


def test_units_formulae_and_reference_directions_are_not_elements():
    assert _terms(
        "A foil wherein the ratio is 3:1 based on the parts by weight, an anhydride represented by the formula "
        "HOOC-R, and a burner at an angle of 30° to the horizontal."
    ) == []


def test_for_the_action_of_names_a_purpose_not_an_element():
    assert _terms(
        "A feeder comprising a wall defining an enclosure for the reception therein of feed, and a network for the "
        "automated processing of calls."
    ) == []
    # without "for" the action noun of a named thing is still read as a reference where it names no part
    assert _terms("A feeder comprising a wall, wherein the reception area is wide.") == ["the reception area"]


def test_a_positional_part_named_after_its_owner_is_that_owners():
    assert _terms(
        "A dome assembly comprising a dome plate having an inner portion and an outer portion, a line connected to "
        "said dome plate outer portion."
    ) == []
    # the part must be introduced with its positional modifier
    assert _terms("A dome assembly comprising a dome plate having an inner portion, a line on said dome plate outer portion.") == [
        "said dome plate outer portion"
    ]


def test_a_compound_spelt_another_way_is_read_before_the_verb_it_ran_into():
    assert _terms("A device in the housing of a man-machine interface, wherein the machine interface controls at least a TV.") == []


def test_a_relation_between_named_things_and_a_statistic_of_them_are_inherent():
    assert _terms(
        "A device comprising a hook and a base, means for adjusting the distance between said hook and said base, "
        "the ratio of a blend to the weighted average of its polymers, and the cross-sectional area of the base."
    ) == []
    # a relation with a positional modifier is one of several and needs an introduction
    assert _terms("A device comprising a hook and a base, the first distance between said hook and said base.") == [
        "the first distance"
    ]


def test_the_resulting_product_of_a_step_is_introduced_by_it():
    assert _terms("A method comprising mixing water and keratin, wherein the resulting solution contains keratin.") == []


# Round 3 (branch ante3): boundaries and introductions the grammar read wrongly.


def test_adjacent_or_opposite_after_ordinals_modifies_the_noun_that_follows():
    assert _terms(
        "A holder having first and second adjacent corners and a third corner opposite said first corner, "
        "wherein said second corner is folded."
    ) == []
    # after a noun it still starts a predicate: "a wall adjacent" names the wall
    assert _terms("A box having a lid and a wall adjacent the lid, wherein the wall is thin.") == []


def test_a_verb_right_before_coordinated_ordinals_is_not_part_of_their_phrase():
    assert _terms(
        "A cannula having compartments which respectively define first and second flow paths, "
        "wherein the first flow path is open."
    ) == []


def test_an_irregular_participle_after_a_noun_ends_the_phrase():
    # "a body made of" introduces "a body"; "set" may be a noun ("a data set") and is left in its phrase
    assert _terms("A muffler comprising a body made of foam, wherein said body is round.") == []
    assert _terms("A store comprising a data set from a sensor, wherein the data set is logged.") == []
    assert _terms(
        "A method comprising sending information to a pump, and receiving the information sent in the sending step."
    ) == []


def test_a_determiner_with_only_participles_or_a_pronoun_hands_the_reference_to_the_noun_after():
    assert _terms(
        "A method comprising identifying one or more computers and displaying PCDs, then sending data to each of "
        "the identified one or more computers and selecting a PCD from the displayed other PCDs."
    ) == []
    # the noun after still needs an introduction
    assert _terms("A method comprising sending data to the identified one or more computers.") == ["computers"]
    assert _terms("A stack of covers comprising an upper cover, wherein the fallen upper one of the covers is held.") == []


def test_an_ive_adjective_after_its_noun_is_a_predicate():
    assert _terms(
        "A device comprising an interface and a counter, wherein gas passes through the interface responsive to "
        "a signal, and a switch makes the counter inoperative."
    ) == []
    # the reading needs an introduction ending at the noun: a swapped head is still found
    assert _terms("A device comprising an interface gasket, wherein the interface responsive to a signal is lit.") != []


def test_a_bare_verb_before_a_determiner_ends_the_subject():
    assert _terms(
        "A pad having a posterior region, wherein thicknesses of the posterior region satisfy the relation T1>T2."
    ) == []
    # after a preposition the phrase is a fronted adverbial and its noun a noun: "in said step a mixture is used"
    assert _terms("A process comprising mixing, wherein in said pre-treatment step a mixture is used.") == [
        "said pre-treatment step"
    ]


def test_an_ing_participle_with_its_object_and_to_ends_the_phrase():
    assert _terms("A muffler comprising a body and a chamber, with openings in said body allowing access to said chamber.") == []
    # a compound noun before an infinitive is one phrase
    assert _terms("A method comprising applying an image to a screen, wherein the image partitioning process to sort is fast.") == [
        "the image partitioning process"
    ]


def test_a_plural_subject_with_a_bare_verb_and_an_adverb_of_relation():
    assert _terms("A caster comprising a housing and a plurality of side plates, wherein the side plates move relative to the housing.") == []


def test_the_object_of_a_verb_a_reference_ran_into_is_introduced():
    # "the transmitter sends instructions": "instructions" is a bare noun phrase and introduces itself
    assert _terms(
        "A patch comprising a transmitter and a receiver, wherein the transmitter sends instructions and "
        "the receiver receives said instructions."
    ) == []


def test_a_word_that_may_modify_heads_its_phrase_when_nothing_follows_it():
    # "individual" before a verb or punctuation is the noun: introduced by "an individual", needed by "the individual"
    assert _terms("A method of treating an individual comprising administering a drug to the individual.") == []
    assert _terms("A method comprising administering a drug to a subject, wherein the individual is human.") == [
        "the individual"
    ]
    assert _terms("A method comprising testing a first individual, wherein the first individual is human.") == []
    # before its noun it is still a modifier the reference may drop: "the respective layers"
    assert _terms("A wall having layers, wherein the respective layers are thin and the corresponding said layers are dry.") == []


def test_a_symbol_defined_as_a_quantity_introduces_that_quantity():
    texts = [
        "A device having layers, wherein t is the total optical path length of the layers.",
        "The device of claim 1, wherein the total optical path length is adjusted.",
    ]
    assert _terms(*texts) == []
    # a symbol defined as a thing classifies it: "the side chain" later still needs an introduction
    assert _terms("A compound, wherein R is the side chain.", "The compound of claim 1, wherein the side chain is short.") == [
        "the side chain"
    ]


def test_a_part_named_after_its_owner_has_basis_when_introduced_as_the_owners():
    texts = [
        "A bias circuit comprising a voltage follower having an input connected to a bus and an output connected to a load.",
        "The bias circuit of claim 1, further comprising a source connected between the voltage follower output and ground.",
    ]
    assert _terms(*texts) == []
    # an output introduced as another element's is not the follower's (with two outputs in scope, which one?)
    assert _terms(
        "A circuit comprising a voltage follower, an amplifier output and a bus having an output, "
        "wherein the voltage follower output is low."
    ) == [
        "the voltage follower output"
    ]


def test_a_positional_noun_after_a_preposition_of_place_is_an_adverbial():
    # the README's main job: "joined at the top by a hinge" says where, it names no element
    assert _terms("A stroller comprising a front frame and a rear frame joined at the top by a hinge.") == []
    assert _terms("A box having a lid, wherein the lid is viewed from the top and tilts to the side.") == []
    # with an owner it is a part and needs its owner: "the top of the box" is inherent, "the top wall" an element
    assert _terms("A box having a lid, wherein the lid is joined at the top wall by a hinge.") == ["the top wall"]


def test_the_nouns_of_a_hyphenated_noun_compound_are_named_by_it():
    assert _terms("A web of core-sheath type fibers, wherein the core is polyester and the sheath is polyethylene.") == []
    assert _terms("A process comprising an air-fuel combustion, wherein the air is preheated.") == []
    # a prefixed word or an adjective compound names no noun of its own
    assert _terms("A film of a co-polymer, wherein the polymer is dry.") == ["the polymer"]
    assert _terms("A film of a water-soluble resin, wherein the water is removed.") == ["the water"]


def test_last_and_next_in_a_reference_pick_one_of_what_is_named():
    assert _terms("A reader detecting successive transitions of marks, wherein it stops at the last transition.") == []
    # in an introduction they set an element apart: no re-introduction of "an organ recipient"
    forest = Forest.from_parents(
        [
            "A method comprising notifying an organ recipient, the organ recipient being listed.",
            "The method of claim 1, further comprising selecting a next organ recipient.",
            "The method of claim 2, further comprising notifying the next organ recipient.",
        ],
        [[], [1], [2]],
    )
    assert check_antecedents(forest) == []


def test_a_product_by_process_names_its_process_before_a_colon():
    assert _terms("A pot holder made by the process of: providing a cloth; and folding the cloth.") == []


def test_coordinated_ordinals_missing_together_are_reported_once():
    assert _terms("A joint comprising a ball, wherein the ball passes between the first and second elements.") == ["the first"]


def test_prepositions_and_conjunctions_end_a_phrase():
    assert _terms(
        "A method comprising heating a body with gases, and a link to an endpoint, as the heated gases pass "
        "throughout the body; the link to the endpoint though a gateway; dosing the body once a day."
    ) == []
    assert "the endpoint though" not in _terms("A link to an endpoint, then a link to the endpoint though a gateway.")
    assert _terms("A method of dosing an individual, wherein a drug is given to the individual once a day.") == []


def test_an_able_adjective_with_its_complement_and_used_after_a_noun_end_the_phrase():
    assert _terms("A medium storing program code, the program code executable by a processor.") == []
    assert _terms("A method using a spectrometry, wherein the spectrometry used is MALDI.") == []
    # alone an "-able" word may be the noun: "the control variable" is one phrase
    assert _terms("A loop having a control, wherein the control variable is high.") == ["the control variable"]


def test_only_an_element_recited_again_makes_a_later_reference_ambiguous():
    # "configured to receive a rail member" names what the claim has, as the object of a function
    forest = Forest.from_parents(
        [
            "A siderail comprising a rail member, the rail member being steel.",
            "The siderail of claim 1, wherein a body has an aperture configured to receive a rail member.",
            "The siderail of claim 2, wherein the rail member extends within the aperture.",
        ],
        [[], [1], [2]],
    )
    assert check_antecedents(forest) == []
    # "further comprises (e) a coupler compound" recites one again
    forest = Forest.from_parents(
        [
            "A material comprising a coupler compound, the coupler compound being yellow.",
            "The material of claim 1, which further comprises (e) a coupler compound.",
            "The material of claim 2, wherein the coupler compound is red.",
        ],
        [[], [1], [2]],
    )
    assert [f.rule for f in check_antecedents(forest)] == ["antecedent-ambiguous"]


def test_a_set_phrase_head_with_a_modifier_that_sets_it_apart_names_an_element():
    # "event" and "equation" once modified name an element, as "step" does
    assert _terms("A method wherein a recombinase catalyses the recombination event.") == ["the recombination event"]
    assert _terms("A system wherein the stress equilibration equation is solved.") == ["the stress equilibration equation"]
    # any set-phrase head with a positional modifier: "the second wavelength range" after "a first wavelength range"
    assert _terms("A lamp emitting in a first wavelength range, wherein the second wavelength range is green.") == [
        "the second wavelength range"
    ]
    # unmodified or descriptively modified they stay set phrases: "in the range of", "in the temperature range"
    assert _terms("A process carried out in the temperature range from 20 to 70 C, in the event of a fault.") == []


def test_a_plural_before_an_adverb_and_a_participle_keeps_its_number():
    # "members integrally attached" is a reduced relative clause: the plural introduces "said retention member"
    assert _terms(
        "A port comprising a housing having a base member, and a plurality of retention members integrally "
        "attached to said housing, each said retention member having a state."
    ) == []


def test_the_closed_class_of_irregular_participles_ends_a_phrase():
    assert _terms("A holder wherein a napkin is clamped and the napkin slid from between the jaws.") == ["the jaws"]
    assert _terms("A pump having a shaft, the shaft bent by a press.") == []


def test_a_verb_in_s_before_a_gerund_ends_the_phrase():
    assert _terms("A device having means for reproducing a scene, wherein said reproducing means starts reproducing.") == []
    # a phrase with no basis of its own is still reported
    assert _terms("A device having means for reproducing a scene, wherein said display means starts reproducing.") == [
        "said display means starts"
    ]


def test_a_comparative_with_its_dimension_ends_the_phrase():
    assert _terms(
        "A rack comprising a second plurality of tubular receptacles shorter in length than a tube, each of said "
        "second tubular receptacles having a cavity."
    ) == []


def test_a_participle_compound_names_its_agent_or_object():
    assert _terms("A bearing comprising at least one spring-loaded ball, wherein the spring is steel.") == []
    assert _terms("A process for recovering from a dyestuff-containing layer the dyestuff contained in said layer.") == []
    # an adjective or manner names no noun: "well-defined", "T-shaped", "cup-shaped", "double-sided"
    assert _terms("A part having a well-defined edge and a cup-shaped slot, wherein the well and the cup are deep.") == [
        "the well",
        "the cup",
    ]


def test_a_positional_noun_before_of_heads_an_introduction():
    assert _terms("A circuit coupled to an output of a region and receiving a signal on the output.") == []
    # the output of another element is no introduction of "an output" of its own
    assert _terms("A circuit coupled to a region, wherein the output of a region is read and the output is low.") == [
        "the output"
    ]


def test_a_part_a_named_owner_was_given_has_basis():
    texts = [
        "A system for an elevator, said elevator having a permanent magnet motor or an asynchronous motor, and a "
        "drive for controlling the motor.",
        "The system of claim 1, wherein the drive is integrated with the elevator motor.",
    ]
    assert _terms(*texts) == []
    # a part the owner was not given still needs an introduction
    texts[1] = "The system of claim 1, wherein the drive is integrated with the elevator gearbox."
    assert _terms(*texts) == ["the elevator gearbox"]
    # an element that is not a part must follow the verb directly: "contact with the object" gives contact no signal
    texts[0] = "A hand having a sensor to detect contact with an object and produce a pressure signal, and a drive receiving a proximity signal."
    texts[1] = "The hand of claim 1, wherein the drive is stopped upon the contact signal."
    assert _terms(*texts) == ["the contact signal"]


def test_latest_in_a_reference_picks_one_of_what_is_named():
    assert _terms("A method comprising listing a plurality of sites so that the latest accessed site is on top.") == []


def test_an_ordinal_after_a_noun_opens_a_second_object():
    assert _terms(
        "A method comprising a first remote server, and receiving from the first remote server first information "
        "that is valid, wherein the first information is stored."
    ) == []
    # a part named after its owner keeps its ordinal: "said housing first end" needs "a first end" of it
    assert _terms("A housing having a wall, wherein said housing first end is round.") == ["said housing first end"]


def test_a_nominalised_action_with_step_names_the_action():
    assert _terms("A method comprising communicating a file.", "The method of claim 1, prior to the communication step.") == []
    assert _terms("A method comprising sending a file.", "The method of claim 1, prior to the communication step.") == [
        "the communication step"
    ]


def test_coordinate_adjectives_before_a_noun_lend_it_the_first():
    assert _terms(
        "A suit comprising an outer layer, and an inner, three-dimensional, insulating, polyester layer attached "
        "on an inside of the outer layer, wherein the inner layer is flexible."
    ) == []


def test_output_with_an_agent_after_it_is_a_participle():
    assert _terms("A decoder receiving data and decrypting the data output by a demultiplexer.") == []
    assert _terms("A decoder receiving data, wherein the data output is low.") == ["the data output"]


def test_a_gerund_picked_by_last_with_its_of_names_an_event():
    assert _terms("A vehicle having a unit measuring time since the last turning off of ignition.") == []
    assert _terms("A vehicle having a unit measuring time since the last turning wheel stopped.") == ["the last turning wheel"]


def test_a_plural_reference_to_a_positional_plurality_may_add_a_description():
    assert _terms(
        "A rack comprising a second plurality of tubular receptacles shorter in length than a tube.",
        "The rack of claim 1, wherein said second shorter tubular receptacles are formed with the tube.",
    ) == []


def test_an_introduction_cut_at_a_participle_is_also_read_whole():
    assert _terms("A tray having a continuous recessed strip portion, wherein said continuous strip portion is wide.") == []
    assert _terms("A cell comprising a first lithium ion conducting separator layer, wherein the first layer is thin.") == []
    # the positional modifier is still compared: "the second layer" has no basis
    assert _terms("A cell comprising a first lithium ion conducting separator layer, wherein the second layer is thin.") == [
        "the second layer"
    ]


def test_an_element_named_with_of_may_be_referred_to_as_a_compound():
    intro = "A binding comprising a retainer flange and a pin mounting a right segment of the retainer flange upon a plate."
    assert _terms(intro, "The binding of claim 1, wherein the right retainer flange segment is steel.") == []
    assert _terms("A substrate having a layer of a thermal oxide and a layer of a dielectric.", "The substrate of claim 1, wherein the thermal oxide layer is thin.") == []
    # a modifier the introduction lacks or sets against it is still reported
    assert _terms(intro, "The binding of claim 1, wherein the left retainer flange segment is steel.") == ["the left retainer flange segment"]
    no_side = intro.replace("a right segment", "a segment")
    assert _terms(no_side, "The binding of claim 1, wherein the right retainer flange segment is steel.") == ["the right retainer flange segment"]


def test_the_same_modifiers_in_another_order_name_the_same_element():
    intro = "A sheet comprising non cellulosic fibrous material and an upper first layer."
    assert _terms(intro, "The sheet of claim 1, wherein the fibrous non-cellulosic material is wet.") == []
    assert _terms(intro, "The sheet of claim 1, wherein the first upper layer is wet and the second upper layer is dry.") == [
        "the second upper layer"
    ]


def test_a_plural_possessive_names_its_plural_owner():
    intro = "A binding comprising left and right stops."
    assert _terms(intro, "The binding of claim 1, wherein the stops' extensions are red.") == []
    assert _terms(intro, "The binding of claim 1, wherein the gates' extensions are red.") == ["the gates'"]


def test_a_parent_cited_with_a_misspelt_claim_word_the_links_miss_is_the_claims_scope():
    # the corpus's gold links (USPTO reference tags) leave "The fastener of clam 27" independent; its scope is claim 1
    texts = [
        "A fastener comprising side supports, each side support having a cushion member.",
        "The fastener of clam 1, wherein the cushion members are joined and the bridge is thin.",
    ]
    forest = Forest.from_parents(texts, [[], []])
    assert [(f.claim, f.term) for f in check_antecedents(forest)] == [(2, "the bridge")]


def test_incident_after_a_noun_is_a_postpositive_adjective():
    intro = "A detector for a light, comprising a glass substrate."
    assert _terms(intro, "The detector of claim 1, wherein the light incident on the glass substrate is reflected.") == []
    beam = "A detector for a beam, comprising a glass substrate."
    assert _terms(beam, "The detector of claim 1, wherein the light incident on the glass substrate is reflected.") != []


def test_previous_picks_one_of_what_is_named_as_last_and_next_do():
    assert _terms("An apparatus scanning regions, wherein each successive region is smaller than the previous region.") == []
    assert _terms("An apparatus comprising a lens, wherein the previous region is small.") == ["the previous region"]


def test_a_gerund_naming_an_action_before_a_participle_is_the_phrase():
    assert _terms("A method comprising towing a cable, wherein the towing performed by a vessel is slow.") == []
    assert _terms("A method comprising pulling a cable, wherein the towing performed by a vessel is slow.") == [
        "the towing performed"
    ]
    assert _terms("A method comprising flanking a gene with DNA, wherein the flanking regions are long.") == ["the flanking regions"]


def test_a_formula_after_a_colon_defines_the_phrase_in_place():
    claim = "A process comprising heating a salt with water in excess of the amount needed for the reaction: {}."
    assert _terms(claim.format("xCaCl2+ySiO2 → HCl")) == []
    assert _terms(claim.format("heating the salt")) == ["the reaction"]


def test_an_element_placed_at_its_owner_may_be_named_after_it():
    intro = "A catheter comprising a distal tip and a contact electrode at said distal tip."
    assert _terms(intro, "The catheter of claim 1, wherein said distal tip contact electrode is gold.") == []
    assert _terms(intro, "The catheter of claim 1, wherein said distal tip ring electrode is gold.") == [
        "said distal tip ring electrode"
    ]


def test_a_phrase_ending_word_ends_the_phrase_hyphenated_too():
    claim = "A head comprising a bottom shield and a dielectric layer over said bottom shield, the dielectric layer {} with said bottom shield."
    assert _terms(claim.format("co-planar")) == _terms(claim.format("coplanar")) == []
    assert _terms(claim.replace("a dielectric layer", "a dielectric film").format("co-planar")) == ["the dielectric layer"]


def test_an_ing_participle_after_a_plural_noun_starts_a_reduced_relative_clause():
    claim = "A caster comprising a first tab and a second tab, said first and second tabs facilitating location of said caster."
    assert _terms(claim) == []
    # only an introduction ending at the plural noun as written gives basis
    assert _terms(claim.replace(" tab,", " tab holder,").replace(" tab and", " tab holder and")) == ["said first"]


def test_proximate_after_a_noun_is_a_preposition_as_adjacent():
    assert _terms("A mask comprising a central portion of the mask proximate the mouth of a wearer.") == []
    assert _terms("A system comprising a strap, wherein the mask proximate the mouth is soft.") == ["the mask"]


def test_coordinate_participles_after_the_article_go_on_to_the_noun():
    assert _terms("A leash comprising an elongate pliable strand, wherein a portion of said stretched, flattened strand is locked.") == []
    assert _terms("A leash comprising an elongate pliable rope, wherein a portion of said stretched, flattened strand is locked.") == [
        "strand"
    ]


def test_a_verb_in_s_after_a_singular_noun_takes_a_preposition_of_level():
    claim = "A furnace wherein {} measured by a sensor exceeds a maximum, and said measured oxygen content falls below a minimum."
    assert _terms(claim.format("the oxygen content")) == ["the oxygen content"]
    assert _terms(claim.format("an oxygen content")) == []
    assert _terms("A stack comprising a layer, wherein the electrodes below the layer are thin.") == ["the electrodes"]


def test_a_relation_between_named_things_may_say_its_quantity():
    assert _terms("A cell comprising an anode and a cathode, wherein the potential difference between the anode and the cathode is low.") == []
    assert _terms("A package comprising a first substrate and a second substrate, wherein the space between the first substrate and the second substrate is filled.") == []
    # a modifier that is no quantity names an element that needs an introduction
    assert _terms("A cell comprising an anode and a cathode, wherein the oxide difference between the anode and the cathode is low.") == [
        "the oxide difference"
    ]


def test_absolute_is_a_measure_a_property_standing_alone_may_carry():
    assert _terms("A method of measuring flow, wherein the absolute velocity is below a threshold.") == []
    assert _terms("A method of measuring flow, wherein the blood velocity is below a threshold.") == ["the blood velocity"]


def test_a_word_alone_before_a_comma_and_an_adjective_is_a_coordinate_adjective():
    claim = "A bag comprising a {}, absorbent material and a liquid repellant material, wherein the soft absorbent material is white."
    assert _terms(claim.format("soft")) == []
    # the words still must match: another coordinate adjective is no basis
    assert _terms(claim.format("hard")) == ["the soft absorbent material"]
    # a list of nouns, each with its article, lends nothing
    assert _terms(claim.format("soft").replace(", absorbent", ", an absorbent")) == ["the soft absorbent material"]


def test_coordinate_predicate_adjectives_share_the_complement_after_the_second():
    claim = "A device comprising a first panel and a second {}, said second panel openable and closeable with respect to said first panel."
    assert _terms(claim.format("panel")) == []
    # read only against an introduction ending at the noun as written: a swapped head is still found
    assert _terms(claim.format("door")) != []


def test_comparison_is_the_nominalisation_of_comparing():
    claim = "A method comprising sensing temperatures; {} the sensed temperatures; and sending a signal in response to the comparison."
    assert _terms(claim.format("comparing")) == []
    assert _terms(claim.format("averaging")) == ["the comparison"]


def test_coordinated_parts_share_the_owner_after_the_last():
    assert _terms("A reactor comprising a chamber and a cover for the lateral circumference and upper portion of said chamber.") == []
    assert _terms("A method for the detection and treatment of disordered breathing.") == []
    assert _terms("An agent for the treatment and/or prevention of a disorder.") == []
    # a conjunct with its own determiner, or a compound of its own, is a phrase the owner may belong to alone
    assert _terms("A node including the transmit power level and said location information of a node.") == ["the transmit power level"]
    assert _terms("A network wherein the sparse structure and weight values of a layer are frozen.") == ["the sparse structure"]


def test_a_count_of_times_is_an_adverbial_not_part_of_the_phrase():
    assert _terms("A method comprising providing a trained classifier and running the trained classifier multiple times.") == []
    assert _terms("A method comprising running the trained classifier multiple times.") == ["the trained classifier"]


def test_different_from_follows_the_noun_it_qualifies():
    assert _terms("A method comprising imaging a subject, wherein the subject different from a patient is scanned.") == []
    assert _terms("A method comprising imaging a patient, wherein the subject different from the patient is scanned.") == ["the subject"]


def test_a_short_adverb_in_ly_is_skipped_as_a_long_one_is():
    assert _terms("A method comprising receiving a new data cube; and storing the newly received data cube.") == []
    assert _terms("A method comprising storing the newly received data cube.") == ["the newly received data cube"]


def test_an_adverb_after_a_participle_keeps_the_phrase_open_for_the_next_participle():
    assert _terms(
        "A method comprising forming a randomly initialized resolution model and a second model; and storing the trained "
        "randomly initialized resolution model."
    ) == []
    # after a noun the adverb and participle start a reduced relative clause, as before
    assert _terms("A method wherein cells of an individual are used, said individual genetically modified to express a gene.") == []


def test_an_ordinal_after_a_participle_opens_its_object():
    assert _terms("A battery comprising an electrolyte, the electrolyte defining first and second regions.") == []
    assert _terms("A battery comprising a cell, the electrolyte defining first and second regions.") == ["the electrolyte"]


def test_seen_participles_end_the_phrase():
    assert _terms("A method comprising reacting compounds, wherein the compounds foreseen in the general formula are pure.") == []
    assert _terms("A method comprising reacting compounds, wherein the salts foreseen in the general formula are pure.") == ["the salts"]


def test_a_markush_group_by_any_name_is_no_element():
    assert _terms("A composition comprising a cell selected from the list consisting of neutrophils and eosinophils.") == []
    # "consisting of" after an element that is not a group picked from is still a reference
    assert _terms("A device comprising a base extending from the housing consisting of steel.") == ["the housing"]


def test_a_name_of_letters_and_digits_after_the_noun_defines_it_in_place():
    assert _terms("A bacterium that is a member of the order RF39.") == []
    assert _terms("An antibody comprising the substitution S252Y in a heavy chain.") == []
    assert _terms("An antibody comprising the amino acid sequence SEQ ID NO: 18.") == []
    # not the object of a verb the phrase ran into, nor an ordinal element named with a digit
    assert _terms("A method wherein the cells express CD133.") == ["the cells express CD133"]
    assert _terms("A method wherein the gene encoding CCL7 is cut.") == ["the gene encoding CCL7"]
    assert _terms("A device comprising a first MP3 player and the second MP3 player.") == ["the second MP3 player"]


def test_ordinals_listed_with_commas_share_the_head_after_the_last():
    assert _terms("A device comprising first, second, and third layers, wherein the third layer and the first layer are thin.") == []
    assert _terms("A device comprising first, second and third layers, wherein the second layer is thin.") == []
    assert _terms("A device comprising first, second and third layers, wherein the fourth layer is thin.") == ["the fourth layer"]
    assert _terms("A device comprising a layer, wherein the first, second, and third layers are thin.") == ["the first"]
    assert _terms("A device comprising the first, second and third layers.") == ["the first"]


def test_latin_plurals_in_ices_are_the_plurals_of_ix_and_ex():
    assert _terms("A method comprising factorizing a tensor into first, second, and third matrices, wherein the third matrix is sparse.") == []
    assert _terms("A mesh comprising vertices, wherein the vertex is shared.") == []
    assert _terms("A press comprising devices, wherein the device is shut.") == []
    assert _terms("A press comprising vertices, wherein the device is shut.") == ["the device"]


# text a claim set may hold: words, numbers, possessives, hyphens, punctuation, letters beyond ASCII and every kind of
# white space str.split and the regular expression's \s know (tab, no-break space, line and paragraph separators)
_CLAIM_TEXT = st.text(alphabet=st.sampled_from(list("aA1-'’s.,;:()é°≥") + [" ", "\t", "\n", "\xa0", "\u2028", "\u3000", "\x1c"]))


@settings(max_examples=300, deadline=None)
@given(_CLAIM_TEXT)
def test_tokens_and_their_offsets_read_word_by_word_are_the_token_expressions(text):
    # the reader takes a claim's tokens from its words' (str.split, each word's cached) and finds each token's offsets
    # from the one before: both must be what the token expression finds in the whole text
    read = _token_classes(text)
    assert read.tokens == tuple(_TOKEN_RE.findall(text))
    spans = array("q")
    _offsets(text, read.tokens, spans, len(read.tokens) // 2)
    _offsets(text, read.tokens, spans, len(read.tokens))  # extended where a later finding needs more
    assert list(spans) == [at for m in _TOKEN_RE.finditer(text) for at in m.span()]
