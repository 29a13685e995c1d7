import json

from conftest import shared_file

from spg.lint import find_all
from spg.lint.clauses import one_sentence, words
from spg.lint.redundancy import _chooses, _ends_a_limitation, check_redundancy
from spg.parse import parse_claims

STOOL = ("1. A step stool comprising: a front frame and a rear frame joined at the top by a hinge; a lower step "
         "pivoted to the front frame; and a pawl that is a flat steel plate with a hooked lower end.")


def found(text: str, rule: str) -> list[int]:
    return [f.claim for f in check_redundancy(parse_claims(text)) if f.rule == rule]


# duplicate-claim ---------------------------------------------------------------------------------------------------

def test_a_dependent_claim_repeating_a_sibling_word_for_word_is_a_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                    " 3. The step stool of claim 1,  wherein the hinge is made of steel.")
    assert found(text, "duplicate-claim") == [3]


def test_whitespace_numbering_articles_and_citation_wording_are_normalised():
    text = STOOL + (" 2. The step stool of claim 1, wherein a hinge is made of steel."
                    " 3. The step stool according to claim 1 wherein the hinge is made of steel")
    assert found(text, "duplicate-claim") == [3]


def test_the_same_limitations_in_another_order_are_a_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel; and the pawl is painted red."
                    " 3. The step stool of claim 1, wherein the pawl is painted red; and the hinge is made of steel.")
    assert found(text, "duplicate-claim") == [3]


def test_two_identical_independent_claims_are_duplicates():
    assert found(STOOL + " 2. " + STOOL[3:], "duplicate-claim") == [2]


def test_a_copy_of_an_earlier_claim_cut_short_is_a_duplicate():
    # a language model copying a claim it was shown and breaking off mid-sentence (the LLM corpus's train side)
    cut = STOOL[3:].split(" and a pawl")[0]
    assert found(STOOL + " 2. " + cut, "duplicate-claim") == [2]
    message = next(f.message for f in check_redundancy(parse_claims(STOOL + " 2. " + cut)))
    assert "repeats claim 1 (its words, cut short, independent)" in message


def test_a_copy_cut_short_with_its_punctuation_or_case_changed_or_inside_a_word_is_a_duplicate():
    # a copy stops at a clause ("...a front frame;" for "...a front frame and a rear frame") or inside a word
    assert found(STOOL + " 2. A Step Stool comprising: a front frame, and a rear frame joined at the top by a hinge;",
                 "duplicate-claim") == [2]
    assert found(STOOL + " 2. " + STOOL[3:-33], "duplicate-claim") == [2]  # "... a flat ste"
    # the same words going on with other words are no copy cut short
    assert found(STOOL + " 2. A step stool comprising: a front frame and a rear frame joined at the top by a latch;",
                 "duplicate-claim") == []


def test_chat_text_after_a_claims_sentence_limits_nothing():
    text = STOOL + " 2. The step stool of claim 1, wherein the pawl is a flat steel plate. Here is the next claim:"
    assert found(text, "not-further-limiting") == [2]
    assert one_sentence("A stool of claim 1. Here is the next claim:") == "A stool of claim 1."
    assert one_sentence("A solution of 140 mg/L. Here is the next claim:") == "A solution of 140 mg/L."
    # a document's or a figure's abbreviation, or a period before a number or a lower-case word, ends no sentence
    for text in ("A stool as in U.S. Pat. No. 5, wherein the seat is red.", "The seat of Fig. 2 as in Ser. No. 7.",
                 "SEQ ID No. 4 and wt. % of it."):
        assert one_sentence(text) == text


def test_an_earlier_claim_copied_whole_then_chat_text_is_a_duplicate():
    text = STOOL + " 2. " + STOOL[3:] + " This claim is a new claim numbered with the next number."
    assert found(text, "duplicate-claim") == [2]
    assert found(STOOL + " 2. " + STOOL[3:] + " 3. Claim 4 follows.", "duplicate-claim") == [2]


def test_a_claim_going_on_after_an_abbreviation_or_ending_its_sentence_is_no_copy():
    heat = "1. A method of lysing a cell comprising incubating the cell in a droplet at a temperature of 90° C."
    assert found(heat + " 2. " + heat[3:] + " for 5 minutes and cooling it.", "duplicate-claim") == []
    # a complete sentence that an earlier claim goes on from is a broader claim, not a copy cut short
    longer = STOOL + " 2. " + STOOL[3:-1] + ", the pawl being painted red."
    assert found(longer + " 3. " + STOOL[3:], "duplicate-claim") == [3]  # claim 1 again, not a cut-short claim 2
    short = "1. A step stool comprising a front frame and a rear frame. 2. A step stool comprising a front frame"
    assert found(short, "duplicate-claim") == []  # under COPY_SHORTEST words


def test_the_same_words_under_different_parents_are_no_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, further comprising a tray."
                    " 3. The step stool of claim 1, further comprising a handle."
                    " 4. The step stool of claim 2, wherein the hinge is made of steel."
                    " 5. The step stool of claim 3, wherein the hinge is made of steel.")
    assert found(text, "duplicate-claim") == []


def test_claims_of_another_subject_with_the_same_limitation_are_no_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                    " 3. The front frame of claim 1, wherein the hinge is made of steel.")
    assert found(text, "duplicate-claim") == []


def test_claims_too_short_to_compare_are_no_duplicate():
    # granted chemistry claims whose formula was an image: "The method according to claim 1 wherein the compound is"
    text = STOOL + " 2. The step stool of claim 1 wherein the pawl is 3. The step stool of claim 1 wherein the pawl is"
    assert found(text, "duplicate-claim") == []


METHOD = "1. A method of brewing, comprising: heating a mixture of water and malt; and adding hops to the mixture."


def test_further_comprising_and_wherein_the_method_further_comprises_are_one_limitation():
    text = METHOD + (" 2. The method of claim 1, further comprising cooling the mixture in a vessel."
                     " 3. The method of claim 1, wherein the method further comprises cooling said mixture in a vessel.")
    assert found(text, "duplicate-claim") == [3]


def test_includes_for_comprises_and_a_plural_for_a_singular_are_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge comprises a steel pin."
                    " 3. The step stool of claim 1, wherein said hinge includes steel pins.")
    assert found(text, "duplicate-claim") == [3]


def test_adapted_to_for_configured_to_is_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the pawl is configured to engage the lower step."
                    " 3. The step stool of claim 1, wherein the pawl is adapted to engage the lower step.")
    assert found(text, "duplicate-claim") == [3]


def test_formed_of_or_made_from_for_made_of_is_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                    " 3. The step stool of claim 1, wherein the hinge is formed of steel."
                    " 4. The step stool of claim 1, wherein the hinge is made from steel."
                    " 5. The step stool of claim 1, wherein the hinge is formed by bending steel.")
    assert found(text, "duplicate-claim") == [3, 4]


def test_inside_for_within_is_a_reworded_duplicate():
    text = ("1. A vacuum cleaner comprising an agitator and a drive motor. 2. The vacuum cleaner of claim 1, wherein "
            "the drive motor is positioned within the agitator. 3. The vacuum cleaner of claim 1, wherein the drive "
            "motor is located inside the agitator.")
    assert found(text, "duplicate-claim") == [3]


def test_words_of_place_function_and_order_said_another_way_are_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the pawl is formed under the lower step."
                    " 3. The step stool of claim 1, wherein the pawl is disposed beneath the lower step."
                    " 4. The step stool of claim 1, wherein the pawl is suitable for locking the hinge."
                    " 5. The step stool of claim 1, wherein the pawl is configured to lock the hinge."
                    " 6. The step stool of claim 1, wherein the hinge is locked prior to use."
                    " 7. The step stool of claim 1, wherein the hinge is locked before use."
                    " 8. The step stool of claim 1, wherein the lower step is 40 cm wide."
                    " 9. The step stool of claim 1, wherein the lower step is about 40 cm wide.")
    assert found(text, "duplicate-claim") == [3, 5, 7, 9]


def test_the_at_least_one_points_back_as_the_does_but_at_least_one_of_chooses():
    text = ("1. A method comprising applying at least one first component and at least one second component to a "
            "substrate. 2. The method of claim 1, wherein said first component is an electrical component and said "
            "second component is a passive component. 3. The method of claim 1, wherein said at least one first "
            "component is an electrical component and said at least one second component is a passive component. "
            "4. The method of claim 1, wherein at least one of said first component and said second component is "
            "heated. 5. The method of claim 1, wherein said first component and said second component are heated.")
    assert found(text, "duplicate-claim") == [3]


def test_therebetween_for_between_them_is_a_reworded_duplicate():
    text = ("1. A cleaner comprising a housing having a cover and a base. 2. The cleaner of claim 1, wherein a "
            "passage is defined between the cover and the base. 3. The cleaner of claim 1, wherein the cover and the "
            "base define a passage therebetween.")
    assert found(text, "duplicate-claim") == [3]


def test_an_abbreviation_for_its_long_form_is_a_reworded_duplicate():
    text = ("1. A method comprising routing packets through a gateway. 2. The method of claim 1, wherein the gateway "
            "is a Packet Data Network Gateway (P-GW). 3. The method of claim 1, wherein the gateway is a P-GW.")
    assert found(text, "duplicate-claim") == [3]


def test_words_of_one_part_of_a_claim_listing_alternatives_choose_it():
    text = ("1. A method of treatment comprising at least one of: A) treating a subject suffering from a granuloma by "
            "administering a peptide; B) treating a subject suffering from chronic granulomatous disease by "
            "administering the peptide. 2. The method of claim 1, wherein the subject is suffering from chronic "
            "granulomatous disease.")
    assert found(text, "not-further-limiting") == []


def test_a_step_said_again_in_the_passive_does_not_further_limit_but_a_step_for_a_passive_does():
    text = ("1. A method of programming a memory cell, comprising applying a voltage to the cell, and repeating the "
            "programming step for a plurality of programming cycles. 2. The method of claim 1, wherein the "
            "programming step is repeated for a plurality of programming cycles.")
    assert found(text, "not-further-limiting") == [2]
    text = ("1. A method of printing an object, comprising receiving an approximation of a surface of the object, "
            "wherein the approximation is generated from surface data. 2. The method of claim 1, further comprising "
            "generating the approximation from the surface data.")
    assert found(text, "not-further-limiting") == []


def test_a_bound_after_its_number_and_an_irregular_participle_restate_the_parent():
    text = ("1. A panel comprising crystals. 2. The panel of claim 1, wherein the crystals have a particle diameter of "
            "500 or more angstroms. 3. The panel of claim 2, wherein the crystals have a particle diameter of at least "
            "500 angstroms. 4. The panel of claim 1, further comprising a controller sending a control signal to a "
            "heater. 5. The panel of claim 4, wherein the control signal is sent to the heater by the controller.")
    assert found(text, "not-further-limiting") == [3, 5]
    # a bound the other way says something else
    text = ("1. A panel comprising crystals. 2. The panel of claim 1, wherein the crystals have a particle diameter of "
            "500 or more angstroms. 3. The panel of claim 2, wherein the crystals have a particle diameter of at most "
            "500 angstroms.")
    assert found(text, "not-further-limiting") == []
    # "or more" after a number is a bound; after "one" ("one or more dopants, boron, …") it opens alternatives
    assert not _chooses(words("particle diameter of 500 or more angstroms"))
    assert not _chooses(words("a width of 5 mm or less"))
    assert _chooses(words("one or more dopants comprise boron phosphorus"))


def test_those_words_elsewhere_say_something_else():
    # "provided with" has, "formed by" makes, "about" an axis is a place
    text = STOOL + (" 2. The step stool of claim 1, wherein the pawl is provided with a slot."
                    " 3. The step stool of claim 1, wherein the pawl is located at a slot."
                    " 4. The step stool of claim 1, wherein the pawl is formed by stamping."
                    " 5. The step stool of claim 1, wherein the pawl is positioned by stamping."
                    " 6. The step stool of claim 1, wherein the pawl pivots about an axle."
                    " 7. The step stool of claim 1, wherein the pawl pivots on an axle.")
    assert found(text, "duplicate-claim") == []


def test_two_or_more_and_at_least_two_for_a_plurality_are_a_restatement():
    text = ("1. A web expander comprising ribbed rolls, wherein two or more ribbed rolls are used. 2. The web expander "
            "of claim 1, wherein a plurality of ribbed rolls are used. 3. The web expander of claim 1, wherein at "
            "least three ribbed rolls are used.")
    assert found(text, "not-further-limiting") == [2]


def test_at_least_one_or_one_or_more_for_an_article_is_no_duplicate():
    # a pair an applicant writes on purpose (US20190276881, an application on the train or dev side, claims 10 and 11)
    text = METHOD + (" 2. The method of claim 1, wherein a unique anchor probe is used for each mixture."
                     " 3. The method of claim 1, wherein one or more unique anchor probes are used for each mixture.")
    assert found(text, "duplicate-claim") == []


def test_reordered_conjuncts_are_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, further comprising a tray and a handle."
                    " 3. The step stool of claim 1, further comprising a handle and a tray.")
    assert found(text, "duplicate-claim") == [3]


def test_siblings_that_differ_in_a_content_word_are_no_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of copper."
                    " 3. The step stool of claim 1, wherein the hinges are made of aluminium."
                    " 4. The step stool of claim 1, wherein the pawl is configured to engage the lower step."
                    " 5. The step stool of claim 1, wherein the pawl is configured to release the lower step.")
    assert found(text, "duplicate-claim") == []


def test_reworded_claims_under_different_parents_are_no_duplicate():
    text = METHOD + (" 2. The method of claim 1, further comprising stirring the mixture."
                     " 3. The method of claim 1, further comprising filtering the mixture."
                     " 4. The method of claim 2, further comprising cooling the mixture in a vessel."
                     " 5. The method of claim 3, wherein the method further comprises cooling said mixture in a "
                     "vessel.")
    assert found(text, "duplicate-claim") == []


def test_the_llama_3_8b_ft_output_of_the_hupd_dcg_sample_has_13_duplicate_claims():
    record = json.loads(shared_file("hupd-dcg/sample_outputs.json").read_text(encoding="utf-8"))
    findings = find_all(parse_claims(record["Llama-3-8B-FT-claim"]))
    assert [f.claim for f in findings if f.rule == "duplicate-claim"] == list(range(8, 21))


# not-further-limiting ----------------------------------------------------------------------------------------------

def test_a_dependent_restating_a_limitation_of_its_parent_does_not_further_limit():
    text = STOOL + " 2. The step stool of claim 1, wherein the lower step is pivoted to the front frame."
    assert found(text, "not-further-limiting") == [2]  # "a lower step pivoted to …": the copula is no limitation
    text = STOOL + " 2. The step stool of claim 1, wherein the lower step is pivoted to the rear frame."
    assert found(text, "not-further-limiting") == []
    text = STOOL + " 2. The step stool of claim 1, wherein the pawl is a flat steel plate with a hooked lower end."
    assert found(text, "not-further-limiting") == [2]


def test_a_limitation_copied_from_a_grandparent_does_not_further_limit():
    text = STOOL + (" 2. The step stool of claim 1, further comprising a tray hooked onto the rear frame."
                    " 3. The step stool of claim 2, wherein the front frame and the rear frame are joined at the top "
                    "by a hinge.")
    assert found(text, "not-further-limiting") == [3]


def test_a_parent_limitation_restated_in_other_words_does_not_further_limit():
    for again in ("wherein the method further comprises the step of adding hops to said mixture",
                  "wherein the method further includes adding the hops to the mixtures",
                  "further comprising heating the mixture of malt and water"):
        text = METHOD + f" 2. The method of claim 1, {again}."
        assert found(text, "not-further-limiting") == [2], again
    text = STOOL + " 2. The step stool of claim 1, wherein said pawls are flat steel plates with a hooked lower end."
    assert found(text, "not-further-limiting") == [2]


def test_wherein_the_subject_comprises_an_item_of_the_parents_list_chooses_it():
    # without "further", "the composition comprises X" may choose X among the parent's alternatives
    text = ("1. A composition comprising one or more compounds selected from the group consisting of: sodium "
            "lauryl ether sulfate, cocamidopropyl betaine, and sodium chloride brine. 2. The composition of claim 1, "
            "wherein the composition comprises sodium lauryl ether sulfate.")
    assert found(text, "not-further-limiting") == []


def test_choosing_an_item_listed_before_or_narrows():
    # US20050193432 (an application on the train or dev side) claim 58 under claim 43
    text = ("1. A method comprising introducing a composition comprising (1) human mammary epithelial cells; or (2) "
            "human breast stem cells; or (3) a combination thereof. 2. The method of claim 1, wherein the "
            "composition comprises human mammary epithelial cells.")
    assert found(text, "not-further-limiting") == []


def test_a_dependent_whose_list_was_lost_is_not_compared():
    text = ("1. A method of brewing, comprising: heating a mixture; and adding to the mixture one or more of: hops, spices. "
            "2. The method of claim 1, wherein the method further comprises adding to the mixture one or more of:")
    assert found(text, "not-further-limiting") == []


def test_a_restatement_that_changes_a_content_word_further_limits():
    for again in ("wherein the method further comprises adding yeast to said mixture",
                  "further comprising heating the mixture of malt and barley"):
        text = METHOD + f" 2. The method of claim 1, {again}."
        assert found(text, "not-further-limiting") == [], again


# the same words in other forms and order (LLM repetitions written blind: benchmarks/sets/lint_next_claim_devset.jsonl) --

def test_a_sibling_in_another_voice_or_word_form_is_a_reworded_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step contains a rubber pad as a tread."
                    " 3. The step stool of claim 1, wherein a rubber pad is contained in the lower step as a tread."
                    " 4. The step stool of claim 1, wherein the pawl is applied non-uniformly."
                    " 5. The step stool of claim 1, wherein the pawl is applied in a nonuniform manner.")
    assert found(text, "duplicate-claim") == [3, 5]


def test_siblings_giving_two_elements_each_others_role_are_no_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the front frame carries a hook and the rear frame carries"
                    " a loop. 3. The step stool of claim 1, wherein the front frame carries a loop and the rear frame"
                    " carries a hook.")
    assert found(text, "duplicate-claim") == []


def test_derivation_prefix_and_a_closed_transition_tell_siblings_apart():
    text = METHOD + (" 2. The method of claim 1, wherein the malt is human grade. 3. The method of claim 1, wherein the"
                     " malt is humanized grade. 4. The method of claim 1, wherein the malt is non-human grade."
                     " 5. The method of claim 1, wherein the hops comprise the sequence of SEQ ID NO: 1."
                     " 6. The method of claim 1, wherein the hops consist of the sequence of SEQ ID NO: 1.")
    assert found(text, "duplicate-claim") == []


def test_a_sibling_saying_a_word_once_more_or_once_less_is_a_near_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge has time marks and location marks."
                    " 3. The step stool of claim 1, wherein the hinge has time and location marks."
                    " 4. The step stool of claim 1, wherein the front frame is integrally formed and the rear frame is"
                    " integrally formed. 5. The step stool of claim 1, wherein the front and rear frames are each"
                    " respectively integrally formed.")
    assert found(text, "duplicate-claim") == [3, 5]


def test_words_that_change_nothing_and_a_bound_said_two_ways_are_a_near_duplicate():
    text = STOOL + (" 2. The step stool of claim 1, wherein the pawl is plastic."
                    " 3. The step stool of claim 1, wherein the pawl is formed of plastic."
                    " 4. The step stool of claim 1, wherein the lower step is at least 60 mm wide."
                    " 5. The step stool of claim 1, wherein the lower step is equal to or greater than 60 mm wide."
                    " 6. The step stool of claim 1, wherein the hinge is on a front side of the step stool."
                    " 7. The step stool of claim 1, wherein the hinge is on the front side."
                    " 8. The step stool of claim 1, wherein the pawl is engaged with the lower step."
                    " 9. The step stool of claim 1, wherein the pawl is in engagement with the lower step.")
    assert found(text, "duplicate-claim") == [3, 5, 7, 9]


def test_near_duplicates_need_the_same_numbers_scope_and_order():
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step is at least 60 mm wide."
                    " 3. The step stool of claim 1, wherein the lower step is at least 80 mm wide."
                    " 4. The step stool of claim 1, wherein at least one of the frames is made of steel."
                    " 5. The step stool of claim 1, wherein each of the frames is made of steel."
                    " 6. The step stool of claim 1, wherein the pawl is steel and the hinge is brass."
                    " 7. The step stool of claim 1, wherein the hinge is steel and the pawl is brass."
                    " 8. The step stool of claim 1, wherein the hinge is on the lower step of the rear frame."
                    " 9. The step stool of claim 1, wherein the hinge is on the rear frame of the lower step.")
    assert found(text, "duplicate-claim") == []


def test_near_duplicates_must_say_what_each_other_says_word_for_word_or_by_kin():
    # a word left on one side only adds a limitation; two content words that differ are two claims
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is a television receiver."
                    " 3. The step stool of claim 1, wherein the hinge is a television receiver for signals."
                    " 4. The step stool of claim 1, wherein the hinge is an integral casting."
                    " 5. The step stool of claim 1, wherein the hinge is an integral molding.")
    assert found(text, "duplicate-claim") == []


def test_a_sibling_with_only_words_its_chain_says_in_the_same_place_is_a_duplicate():
    # claim 1 pivots the lower step to the front frame, so "to the front frame" adds nothing to claim 2
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step is pivoted by a steel pin."
                    " 3. The step stool of claim 1, wherein the lower step is pivoted to the front frame by a steel"
                    " pin.")
    assert found(text, "duplicate-claim") == [3]


def test_a_sibling_adding_words_said_elsewhere_a_list_member_a_number_or_another_word_narrows():
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step is pivoted by a pin."
                    # "plate" and "lower" are said in claim 1, but not beside "pivoted by a … pin"
                    " 3. The step stool of claim 1, wherein the lower step is pivoted by a plate pin."
                    " 4. The step stool of claim 1, wherein the lower step is pivoted by 2 pins."
                    # a word replaced ("pin" once less), not only added
                    " 5. The step stool of claim 1, wherein the lower step is pivoted by a front frame.")
    assert found(text, "duplicate-claim") == []
    # a member of a Markush group, even one written as a clause of its own
    listed = ("1. A step stool comprising a lower step and a hinge made of a metal selected from the group consisting"
              " of: cast steel; hardened steel; and brass. 2. The step stool of claim 1, wherein the hinge is made of"
              " steel. 3. The step stool of claim 1, wherein the hinge is made of hardened steel.")
    assert found(listed, "duplicate-claim") == []


def test_a_parent_clause_said_again_in_other_words_does_not_further_limit():
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step presents continuously rounded edges."
                    " 3. The step stool of claim 2, wherein each of the lower steps has a continuously rounded edge.")
    assert found(text, "not-further-limiting") == [3]


def test_a_bound_the_dependent_says_again_is_no_choice_but_alternatives_said_again_are():
    text = ("1. A circuit comprising a ring oscillator and at least one native transistor coupled to receive an input "
            "and couple the input to the ring oscillator. 2. The circuit of claim 1, wherein the at least one native "
            "transistor is coupled to receive the input and to couple the input to the ring oscillator.")
    assert found(text, "not-further-limiting") == [2]
    text = ("1. A compound of formula I, wherein n is 0, 1, 2 or 3 and R is methyl. 2. The compound of claim 1, "
            "wherein n is 0 or 1 and R is methyl.")
    assert found(text, "not-further-limiting") == []


def test_an_independent_claims_clause_said_again_with_a_word_less_does_not_further_limit():
    text = ("1. An engine comprising an expansion chamber and introduction ports, wherein each introduction port has a "
            "passage area set smaller than a maximum passage area of the expansion chamber, and a throttle valve. "
            "2. The engine of claim 1, wherein each introduction port has a passage area smaller than the maximum "
            "passage area of the expansion chamber.")
    assert found(text, "not-further-limiting") == [2]


def test_an_independent_claim_is_searched_with_a_tighter_window_than_a_dependent_one():
    # nine words of the dependent in a stretch of eleven: close enough in a dependent parent (CLOSE), not in an
    # independent one, whose length brings a dependent's few words together by chance (CLOSE_INDEPENDENT)
    added = "wherein the lever is pivoted to the front frame by a steel pin near the lower step."
    parent = "a lever pivoted to the front frame by a hardened steel pin located near the lower step"
    independent = f"1. A stool comprising a front frame, a lower step and {parent}. 2. The stool of claim 1, {added}"
    dependent = f"1. A stool comprising a front frame and a lower step. 2. The stool of claim 1, further comprising " \
                f"{parent}. 3. The stool of claim 2, {added}"
    assert found(independent, "not-further-limiting") == []
    assert found(dependent, "not-further-limiting") == [3]


def test_a_use_claim_citing_a_product_claim_is_a_claim_of_its_own():
    text = ("1. An agent for the treatment of fatigue. 2. The use of an agent according to claim 1 for the treatment "
            "of fatigue.")
    assert found(text, "not-further-limiting") == []


def test_a_dependent_choosing_among_or_bounded_by_its_parents_words_narrows():
    text = STOOL + (" 2. The step stool of claim 1, wherein the lower step is fixed to one of the front and rear frames."
                    " 3. The step stool of claim 2, wherein the lower step is fixed to the rear frame."
                    " 4. The step stool of claim 1, wherein the lower step holds a pad of at least 80% rubber by weight."
                    " 5. The step stool of claim 4, wherein the lower step holds a pad of rubber by weight."
                    " 6. The step stool of claim 1, wherein the hinge moves the pawl from the front frame to the rear"
                    " frame. 7. The step stool of claim 6, wherein the hinge moves the pawl from the rear frame to the"
                    " front frame.")
    assert found(text, "not-further-limiting") == []


def test_a_dependent_adding_nothing_does_not_further_limit():
    assert found(STOOL + " 2. The step stool of claim 1.", "not-further-limiting") == [2]


def test_a_dependent_adding_one_new_limitation_beside_a_restated_one_narrows():
    text = STOOL + (" 2. The step stool of claim 1, wherein the pawl is a flat steel plate with a hooked lower end, "
                    "and wherein the hinge is made of brass.")
    assert found(text, "not-further-limiting") == []


def test_choosing_one_of_the_parents_alternatives_narrows():
    text = ("1. A cup comprising a wall, wherein the wall is made of glass or the wall is made of steel. "
            "2. The cup of claim 1, wherein the wall is made of glass.")
    assert found(text, "not-further-limiting") == []


def test_a_claim_of_another_category_citing_one_is_not_read_as_a_dependent_claim():
    text = ("1. A method of brewing, comprising heating water. 2. A non-transitory medium storing instructions "
            "to perform the method of claim 1. 3. At least one processor configured to perform the method of claim 1.")
    assert found(text, "not-further-limiting") == []


def test_a_dependent_opening_with_an_indefinite_article_is_compared_as_a_dependent_claim():
    text = STOOL + " 2. A step stool according to claim 1, wherein the lower step is pivoted to the front frame."
    assert found(text, "not-further-limiting") == [2]


def test_a_claim_naming_a_thing_of_the_claim_it_cites_is_a_claim_of_its_own():
    text = ("1. A method of assaying a sample, comprising contacting the sample with a conjugate of gold particles "
            "and antibodies. 2. A conjugate according to claim 1. 3. A kit holding the conjugate of claim 1. "
            "4. A polynucleotide encoding an antibody of claim 1.")
    assert found(text, "not-further-limiting") == []


def test_a_limitation_of_one_of_the_claims_cited_in_the_alternative_narrows_the_others():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                    " 3. The step stool of claim 1 or 2, wherein the hinge is made of steel."
                    " 4. The step stool of claim 1 or 2, wherein the lower step is pivoted to the front frame.")
    assert found(text, "not-further-limiting") == [4]


def test_a_markush_group_with_fewer_members_narrows_and_with_all_of_them_restates():
    text = ("1. A process comprising hydrogenolysis over a catalyst. 2. The process of claim 1, wherein the catalyst "
            "is selected from the group consisting of ruthenium, palladium, platinum, nickel, and iron; and the "
            "process is run at 20 bar. 3. The process of claim 2, wherein the catalyst is selected from the group "
            "consisting of ruthenium, palladium, and platinum. 4. The process of claim 2, wherein the catalyst is "
            "selected from the group consisting of ruthenium, palladium, platinum, nickel, and iron.")
    assert found(text, "not-further-limiting") == [4]


def test_a_markush_dependent_must_end_where_a_limitation_of_its_chain_ends():
    said = ["catalyst", "selected", "from", "group", "consisting", "of", "ruthenium", "palladium", "and", "platinum"]
    chain = [*said[:7], "|", *said[7:], "|", "run", "at", "20", "bar", "|"]
    assert _ends_a_limitation(said, chain)  # one "|" between two of its words
    assert not _ends_a_limitation(said[:-2], chain)  # "… palladium" ends no limitation
    assert not _ends_a_limitation(said, chain[:-6])  # nor does "… platinum" with nothing after it
    assert not _ends_a_limitation(["ruthenium", "and"], ["ruthenium", "|", "|", "and", "|"])  # one "|" at most
    assert not _ends_a_limitation(["ruthenium", "and"], ["ruthenium", "|", "", "|", "and", "|"])  # "": no word


def test_a_sibling_is_no_parent_chain():
    text = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                    " 3. The step stool of claim 1, further comprising a tray, wherein the hinge is made of steel.")
    assert found(text, "not-further-limiting") == []


# repeated-limitation -----------------------------------------------------------------------------------------------

def test_a_clause_recited_twice_in_one_claim_is_a_repeated_limitation():
    text = ("1. A step stool comprising: a front frame; a pawl is a flat steel plate with a hooked lower end; a pawl "
            "is a flat steel plate with a hooked lower end; and a pawl is a flat steel plate with a hooked lower end.")
    findings = [f for f in check_redundancy(parse_claims(text)) if f.rule == "repeated-limitation"]
    assert [(f.claim, f.term) for f in findings] == [(1, "pawl is flat steel plate with hooked lower end")]


def test_a_clause_restated_with_another_article_or_connective_is_a_repeated_limitation():
    for again in ("; and the lever is pivoted to the front frame.", ", and a lever is pivoted to the front frame.",
                  ", wherein the lever is pivoted to the front frame."):
        text = "1. A stool comprising: a front frame; a lever is pivoted to the front frame" + again
        assert found(text, "repeated-limitation") == [1], again


def test_a_participle_restating_a_relative_clause_is_a_repeated_limitation():
    for first, again in (("a lever that is pivoted to the front frame", "the lever pivoted to the front frame"),
                         ("a lever pivoted to the front frame", "the lever, which is pivoted to the front frame"),
                         ("a housing having a slot in its top wall", "the housing has a slot in its top wall")):
        text = f"1. A stool comprising: a front frame; {first}; and {again}."
        assert found(text, "repeated-limitation") == [1], again


def test_a_clause_joined_to_another_by_and_then_recited_alone_is_a_repeated_limitation():
    joined = "a lever is pivoted to the front frame and a seat is fixed to the lever"
    for text in (f"1. A stool comprising: a front frame; {joined}; and a seat is fixed to the lever.",
                 f"1. A stool comprising: a front frame; a lever is pivoted to the front frame; and {joined}.",
                 "1. A stool comprising: a frame; a lever pivoted to the frame and wherein a seat is fixed to it; and "
                 "a lever pivoted to the frame."):
        assert found(text, "repeated-limitation") == [1], text


def test_two_things_said_alike_of_two_subjects_are_no_repetition():
    text = ("1. A door comprising: first lamps connected with a first switch and disposed at front and rear surfaces "
            "of the door, and second lamps connected with a second switch and disposed at front and rear surfaces "
            "of the door; and a frame and a seat and a lever.")
    assert found(text, "repeated-limitation") == []


def test_a_participle_and_another_verb_are_no_repetition():
    text = ("1. A stool comprising: a front frame; a lever pivoted to the front frame; and a lever pivoting to the "
            "front frame.")
    assert found(text, "repeated-limitation") == []


def test_short_clauses_and_distinct_clauses_are_no_repetition():
    text = ("1. A stool comprising: a frame; a seat; a frame; a pawl of steel with a hooked end; and a pawl of steel "
            "with a hooked top end.")
    assert found(text, "repeated-limitation") == []


def test_a_three_word_statement_of_having_recited_twice_is_a_repeated_limitation():
    # sixth round: "comprises", "includes", "has" state something, as a copula does ("the anolyte is a gel")
    text = "1. The alloy of claim 3, wherein said metal comprises zirconium; and wherein the metal comprises zirconium."
    assert found("1. An alloy comprising a metal.\n" + text.replace("1.", "2.", 1).replace("claim 3", "claim 1"),
                 "repeated-limitation") == [2]
    # naming a short thing twice in a list is still no statement
    assert found("1. A stool comprising: a first frame; a seat; and a first frame.", "repeated-limitation") == []


def test_numbers_abbreviations_and_sequence_names_do_not_cut_clauses():
    text = ("1. An antibody wherein the heavy chain comprises CDR1, CDR2, and CDR3 of SEQ ID NO: 2, and the light "
            "chain comprises CDR1, CDR2, and CDR3 of SEQ ID NO: 36; about 1 wt. % to about 2 wt. % water.")
    assert found(text, "repeated-limitation") == []


def test_markush_alternatives_are_no_repetition():
    text = ("1. A compound selected from the group consisting of: 2-(pyrrolidin-2-yl)benzo[d]oxazole-4-carboxamide; "
            "2-((R)-pyrrolidin-2-yl)benzo[d]oxazole-4-carboxamide; 2-((S)-pyrrolidin-2-yl)benzo[d]oxazole-4-carboxamide.")
    assert found(text, "repeated-limitation") == []


def test_a_variable_defined_twice_in_a_markush_claim_is_a_repeated_limitation():
    # sixth round: "m is 0, 1, 2 or 3" defines a variable, it names no compound whose stereo descriptors were lost
    text = ("1. A compound of formula (I) wherein R7 is selected from the group consisting of: hydrogen; alkyl; and "
            "aryl; m is 0, 1, 2 or 3; p is 0 or 1; and m is 0, 1, 2 or 3.")
    assert found(text, "repeated-limitation") == [1]


def test_the_first_limitation_after_a_preamble_s_own_having_is_a_repeated_limitation():
    # sixth round: the reader cuts the preamble at "having"; the claim's transition is in its first clause
    text = ("1. A method for predicting the progression of fibrosis in a subject having fibrosis, the method "
            "comprising determining the level of expression of TLR9 in a sample; comparing the level with a control; "
            "and determining the level of expression of TLR9 in a sample.")
    assert found(text, "repeated-limitation") == [1]
    # a part of the first element recited for another element is no repetition of it
    text = ("1. A device comprising a first unit including a processor configured to process data; and a second unit "
            "including a processor configured to process data.")
    assert found(text, "repeated-limitation") == []


def test_reference_numerals_do_not_split_or_join_clauses():
    text = ("1. A furnace comprising a melting zone (184; 236) lower than the fining zone (170; 270) and a barrier "
            "wider than the fining zone (170; 270).")
    assert found(text, "repeated-limitation") == []


def test_rules_read_a_partial_claim_set_as_its_prefix_of_the_whole():
    whole = STOOL + (" 2. The step stool of claim 1, wherein the hinge is made of steel."
                     " 3. The step stool of claim 1, wherein the hinge is made of steel."
                     " 4. The step stool of claim 3, wherein the pawl is a flat steel plate with a hooked lower end.")
    every = [(f.rule, f.claim) for f in check_redundancy(parse_claims(whole))]
    assert every == [("duplicate-claim", 3), ("not-further-limiting", 4)]
    prefix = whole[: whole.index(" 4.")]
    assert [(f.rule, f.claim) for f in check_redundancy(parse_claims(prefix))] == [("duplicate-claim", 3)]


def test_a_limitation_restated_after_an_unlettered_list_of_alternatives_is_a_repeated_limitation():
    text = ("1. A device comprising: means for detecting a user action indicating at least one of the following: a "
            "proximity of the device to a user; an on-call status for the device; and an off-call status for the "
            "device; and a processor; and an on-call status for the device.")
    assert found(text, "repeated-limitation") == [1]


def test_lettered_alternatives_after_one_of_the_following_still_restate_what_they_share():
    text = ("1. A protein being any one of the following proteins (a) and (b): (a) a protein having the sequence of "
            "SEQ ID NO: 1 and binding the receptor; (b) a protein having the sequence of SEQ ID NO: 2 and binding "
            "the receptor.")
    assert found(text, "repeated-limitation") == []


def test_a_markush_item_in_words_recited_twice_is_a_repeated_limitation():
    text = ("1. A device wherein the locator is a locating means selected from the group consisting of: satellite "
            "positioning locating means, automated relative positioning means, and user input positioning means; and "
            "satellite positioning locating means, automated relative positioning means, and user input positioning "
            "means.")
    assert set(found(text, "repeated-limitation")) == {1}


def test_a_transition_after_the_preamble_s_own_words_starts_the_first_limitation():
    # "characterized in that" and "which comprises the steps of" end a preamble that names a part of its own, so the
    # first limitation restated on its own is the same limitation
    for text in ("1. A process for preparing a compound having formula I, characterized in that a culture is obtained "
                 "from a plant of Ajuga reptans; and a culture is obtained from a plant of Ajuga reptans.",
                 "1. A process using an enzyme having nitrilase activity, which comprises the steps of treating an "
                 "aldehyde with the enzyme in an aqueous medium; and the steps of treating an aldehyde with the "
                 "enzyme in an aqueous medium."):
        assert found(text, "repeated-limitation") == [1], text


# ---------------------------------------------------------------- work linear in the claim set (issue 42)


def test_a_claim_is_compared_only_with_the_siblings_that_can_repeat_it(monkeypatch):
    # 300 claims citing claim 1, each with its own number: none can repeat another (_near needs the same numbers,
    # _adds_what_its_chain_says a sibling one to three words shorter), so none is compared; every pair was (44,850)
    import spg.lint.redundancy as redundancy

    calls = []
    for name in ("_near", "_adds_what_its_chain_says"):
        real = getattr(redundancy, name)
        monkeypatch.setattr(redundancy, name, lambda *a, real=real, name=name: calls.append(name) or real(*a))
    text = "1. A widget comprising a frame, a lever pivoted to the frame, and a seat fixed to the lever.\n" + "".join(
        f"{k}. The widget of claim 1, wherein the lever is {k} mm long and the seat is padded.\n" for k in range(2, 301))
    assert check_redundancy(parse_claims(text)) == [] and calls == []
    # a sibling that can repeat it still is compared, and found
    text += "301. The widget of claim 1, wherein the lever is 300 mm long and the seat is padded.\n"
    assert [f.claim for f in check_redundancy(parse_claims(text))] == [301]


def test_a_long_clause_of_many_ands_makes_only_the_halves_that_can_repeat_a_clause():
    # each "and" split the clause in two halves as long as the clause: quadratic time and memory (40 kB: 92 MB)
    from spg.lint.redundancy import _joined, _restated, _shape

    said = tuple(words("a lever pivoted to the frame and " + "a seat fixed to the lever and " * 200 + "a bar"))
    assert _joined(said, _restated(said), {_shape(_restated(said))}) == []
    again = tuple(words("a lever pivoted to the frame"))
    assert again in _joined(said, _restated(said), {_shape(_restated(said)), _shape(again)})
    assert found("1. A widget comprising a lever pivoted to the frame and " + "a seat fixed to the lever and " * 200
                 + "a bar; and a lever pivoted to the frame.", "repeated-limitation") == [1]


# the readings the rules compare, as read fast -----------------------------------------------------------------------

def test_gist_reads_a_word_with_the_words_after_it_wherever_it_stands_among_words_read_alone():
    from spg.lint.clauses import gist

    # "step of" dropped, "at least two" a plurality (once, however many of its words are read with the next),
    # "made of"/"formed of" alike, "arranged to" a fitness; between them each word alone, the idle ("being", "is") out
    assert gist(words("the step of heating a wafer made of silicon to at least two hundred degrees")) == (
        "heating", "wafer", "made", "of", "silicon", "to", "plurality", "of", "hundred", "degree")
    assert gist(words("at least two of the bolts being arranged to engage")) == (
        "plurality", "of", "bolt", "configured", "to", "engage")
    assert gist(words("at least one lever which is formed of wood")) == ("at", "least", "one", "lever", "made", "of",
                                                                       "wood")


def test_a_claims_numbers_are_its_words_holding_a_digit_each_counted():
    from spg.lint.redundancy import _numbers

    assert _numbers(("layer", "5", "mm", "x2", "5")) == (("5", 2), ("x2", 1))
    assert _numbers(("layer", "is", "thin")) == ()


def test_the_content_after_an_opening_is_that_of_the_words_after_it_placed_in_the_whole_body():
    from spg.lint.clauses import content
    from spg.lint.redundancy import _content_after

    for body in (words("the stool of claim 1 wherein the step is located in the frame and about 5 mm thick"),
                 words("layers 5 mm or more thick of claim 2 wherein the layer is 10 mm or more thick"),
                 words("a layer of 5 mm or more wherein the layer is made of resin")):
        for start in range(len(body) + 1):
            assert _content_after(body, start) == tuple((i + start, stem) for i, stem in content(body[start:]))


def test_alternatives_are_listed_by_one_of_and_or_as_words_of_their_own():
    from spg.lint.redundancy import _LETTERED_ALTERNATIVES, _LISTS_ALTERNATIVES

    assert _LISTS_ALTERNATIVES.search("comprising at least ONE of: A) treating; B) stabilizing")
    assert _LISTS_ALTERNATIVES.search("one or more of :")
    assert not _LISTS_ALTERNATIVES.search("wherein none of: the layers")  # "none", not "one"
    assert _LETTERED_ALTERNATIVES.search("any one of the following proteins (a), (b) and (c)")
    assert _LETTERED_ALTERNATIVES.search("the protein of (a) OR (b)")
    assert not _LETTERED_ALTERNATIVES.search("none of the following (a)")
    assert not _LETTERED_ALTERNATIVES.search("a means for (b)")  # "for", not "or"
