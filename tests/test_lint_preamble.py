from spg.lint.preamble import check_preambles
from spg.parse import parse_claims

APPARATUS = "1. A sensor device comprising a housing and a probe held in the housing."
METHOD = "1. A method for sensing, comprising heating a probe and reading the probe."


def found(text: str) -> list[int]:
    return [f.claim for f in check_preambles(parse_claims(text))]


def test_a_method_claim_under_an_apparatus_claim_is_a_category_mismatch():
    findings = check_preambles(parse_claims(APPARATUS + " 2. The method of claim 1, wherein the probe is heated."))
    assert [(f.claim, f.rule, f.term) for f in findings] == [(2, "preamble-mismatch", "method")]
    assert "claims a process" in findings[0].message and "claims a product" in findings[0].message


def test_a_medium_under_a_method_and_an_apparatus_under_a_method_are_mismatches():
    assert found(METHOD + " 2. The computer-readable medium of claim 1, wherein the probe is red.") == [2]
    assert found(METHOD + " 2. The apparatus of claim 1, wherein the probe is red.") == [2]


def test_another_subject_of_the_same_category_is_a_mismatch():
    assert found(APPARATUS + " 2. The vehicle of claim 1, wherein the housing is steel.") == [2]


def test_a_shortened_or_varied_preamble_is_no_mismatch():
    text = APPARATUS + (" 2. The device of claim 1, wherein the housing is steel."
                        " 3. The sensor device according to claim 2, wherein the probe is steel.")
    assert found(text) == []


def test_a_generic_name_of_the_parents_category_is_no_mismatch():
    assert found("1. A garment comprising a sleeve. 2. The device of claim 1, wherein the sleeve is red.") == []
    assert found("1. A garment comprising a sleeve. 2. A device according to claim 1, wherein the sleeve is red.") == []
    assert found("1. A process for brewing, comprising heating water. 2. The method of claim 1, wherein the water "
                 "boils.") == []


def test_an_abbreviation_of_the_parents_subject_is_no_mismatch():
    assert found("1. A light emitting diode (LED) comprising a die. 2. The LED of claim 1, wherein the die is "
                 "blue.") == []


def test_the_subject_is_read_up_the_chain():
    text = APPARATUS + (" 2. The sensor device of claim 1, further comprising a cable."
                        " 3. The sensor of claim 2, wherein the cable is copper.")
    assert found(text) == []


def test_a_claim_of_another_category_citing_one_is_no_mismatch():
    text = METHOD + (" 2. An apparatus for carrying out the method of claim 1, comprising a heater."
                     " 3. Apparatus for carrying out the method according to claim 1, comprising a heater.")
    assert found(text) == []


def test_a_jepson_or_place_first_parent_is_not_compared():
    text = ("1. In an apparatus comprising an engine, an exhaust conduit and a filter, a method of regenerating "
            "the filter comprising heating it. 2. The method of claim 1, wherein the filter is ceramic.")
    assert found(text) == []


def test_a_partial_claim_set_gets_its_prefix_of_the_findings():
    text = APPARATUS + " 2. The method of claim 1, wherein the probe is heated."
    assert found(text) == [2] and found(APPARATUS) == []


def test_a_generic_name_of_matter_under_a_machine_is_a_mismatch():
    assert found("1. A device comprising a lens. 2. The composition of claim 1, wherein the lens is glass.") == [2]
    assert found("1. A composition comprising a resin. 2. The device of claim 1, wherein the resin is red.") == [2]


def test_hyphenation_of_the_subject_is_no_mismatch():
    assert found("1. A step stool comprising a frame. 2. The step-stool of claim 1, wherein the frame is red.") == []
    assert found("1. A step-stool comprising a frame. 2. The stool of claim 1, wherein the frame is red.") == []
    assert found("1. A light-emitting diode comprising a die. 2. The LED of claim 1, wherein the die is blue.") == []


def test_the_chain_stops_at_a_claim_of_another_category_citing_one():
    text = METHOD + (" 2. A non-transitory computer-readable medium storing instructions that cause a processor to"
                     " perform the method of claim 1."
                     " 3. The method of claim 2, wherein the processor is fast."
                     " 4. The medium of claim 2, wherein the processor is slow.")
    assert found(text) == [3]


def test_a_generic_head_after_words_the_chain_does_not_claim_is_a_mismatch():
    assert found("1. A steering wheel having an airbag apparatus, comprising a ring. 2. The airbag apparatus of claim"
                 " 1, wherein the ring is round.") == [2]
    assert found(APPARATUS + " 2. A camera including the sensor device of claim 1. 3. The imaging device of claim 2,"
                 " further comprising a lens.") == [3]


def test_a_generic_head_after_words_of_the_parents_opening_is_no_mismatch():
    assert found("1. An electronic module to substrate interconnecting structure, comprising a layer. 2. The"
                 " interconnecting structure of claim 1, wherein the layer is thin.") == []
    assert found(APPARATUS + " 2. The sensor device of claim 1, wherein the probe is long.") == []


def test_plurals_in_zes_and_zzes_name_their_singular():
    # one plural rule for every drafting rule (spg.lint.clauses.singular): "sizes" is "size", "buzzes" "buzz"
    assert found("1. Prizes comprising a ribbon. 2. The prize of claim 1, wherein the ribbon is red.") == []
    assert found("1. Buzz generators comprising a coil. 2. The buzz generator of claim 1, wherein the coil is"
                 " copper.") == []
    # and the other way round the plural head reads them as the plurals of that singular
    assert found("1. A prize comprising a ribbon. 2. The prizes of claim 1, wherein the ribbon is red.") == [2]
    assert found("1. A buzz generator comprising a coil. 2. The buzz generators of claim 1, wherein the coil is"
                 " copper.") == [2]


def test_an_indefinite_article_before_the_citation_is_still_a_dependent_claim():
    # "A method according to claim 1" (European style) claims what claim 1 claims: here an apparatus
    assert found(APPARATUS + " 2. A method according to claim 1, wherein the probe is heated.") == [2]
    assert found(APPARATUS + " 2. A sensor device as claimed in claim 1, wherein the probe is red.") == []
    # a subject of its own before the citation is another claim that cites one
    assert found(APPARATUS + " 2. A method of calibrating the sensor device according to claim 1, comprising "
                             "heating the probe.") == []
    assert found(APPARATUS + " 2. An in vitro method comprising heating the probe of the sensor device according "
                             "to claim 1.") == []


def test_one_or_more_or_at_least_one_before_the_citation_counts_what_the_claim_claims():
    # "One or more sequences of claim 1" is "A sequence of claim 1" counted: a product under a method claim (a
    # language model's slip on the LLM corpus's dev side), and the same subject under a product claim
    assert found(METHOD + " 2. one or more oligonucleotide sequences of claim 1, wherein the sequence is SEQ ID NO: 9."
                 ) == [2]
    assert found(METHOD + " 2. At least one probe according to claim 1, wherein the probe is steel.") == [2]
    assert found(APPARATUS + " 2. At least one sensor device according to claim 1, wherein the probe is red.") == []
    # a subject of its own that names the parent's thing is still another claim that cites one
    assert found(METHOD + " 2. One or more probes for use in the method of claim 1, wherein the probe is red.") == []


def test_a_compound_or_a_salt_thereof_names_the_compound():
    assert found("1. A compound of formula (I) or a salt thereof. 2. A compound or a salt thereof according to "
                 "claim 1, wherein R1 is methyl.") == []


def test_a_subject_cut_at_a_comma_is_read_whole():
    assert found("1. A non-naturally occurring, pore-forming, 4-helix bundle protein comprising a helix. 2. The "
                 "protein of claim 1, wherein the helix is short.") == []


def test_a_purpose_in_the_parents_opening_is_not_what_it_claims():
    # "A controller for an industrial robot" claims the controller, not the robot system
    assert found("1. A controller for an industrial robot, comprising a processor. 2. The robot system of claim 1, "
                 "wherein the processor is fast.") == [2]


def test_a_hyphenated_transition_word_is_part_of_the_subject():
    assert found("1. A flux-containing composition for brazing, comprising a fluoride flux. 2. The flux-containing "
                 "composition of claim 1, further comprising a powder.") == []


def test_a_plural_of_a_subject_said_in_the_singular_is_a_mismatch():
    # "The widgets" claims several where claim 1 claims one (issue 43's plural subject)
    assert found("1. A widget comprising a sleeve. 2. The widgets of claim 1, wherein the sleeve is red.") == [2]
    assert found(APPARATUS + " 2. The sensor devices as claimed in claim 1, wherein the probe is long.") == [2]
    assert found(APPARATUS + " 2. The devices of claim 1, wherein the probe is long.") == [2]
    # the plural said up the chain, a word whose singular ends in s: no change of number
    assert found("1. Widgets comprising a sleeve. 2. The widgets of claim 1, wherein the sleeve is red.") == []
    assert found("1. A means for heating comprising a coil. 2. The means of claim 1, wherein the coil is red.") == []
    assert found("1. A lens comprising a coating. 2. The lens of claim 1, wherein the coating is thin.") == []


def test_a_definite_opening_of_another_category_citing_a_method_claim_is_a_mismatch():
    # "The system for performing the method of claim 1" presents itself as a dependent of a method claim
    # (issue 43's third kind); "A system for performing …" is a claim of its own that cites one
    assert found(METHOD + " 2. The system of claim 1, wherein the probe is red.") == [2]
    assert found(METHOD + " 2. The system for performing the method of claim 1, comprising a processor.") == [2]
    assert found(METHOD + " 2. The apparatus configured to perform the method of claim 1, comprising a heater.") == [2]
    assert found(METHOD + " 2. The system according to the method of claim 1, comprising a processor.") == [2]
    assert found(METHOD + " 2. The probe produced by the method of claim 1, wherein the probe is red.") == [2]
    assert found(METHOD + " 2. A system for performing the method of claim 1, comprising a processor.") == []
    assert found(METHOD + " 2. The method of heating the probe according to claim 1, comprising a flame.") == []
    # citing a product claim with "the" is not this reading: the cited claim names what is made or used
    assert found(APPARATUS + " 2. The method of making the sensor device of claim 1, comprising a mould.") == []
