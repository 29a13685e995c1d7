from spg.lint.abbreviations import defined, spelled_out
from spg.lint.clauses import words


def test_an_abbreviation_in_parentheses_is_matched_to_the_words_before_it():
    found = defined(["the information comprises Packet Data Network Gateway (P-GW) information",
                     "binds TRAIL Receptor-2 (TR-2)", "a piezoelectric transducer (PET) on the wall"])
    assert found["p-gw"] == ("packet", "data", "network", "gateway")
    assert found["tr-2"] == ("trail", "receptor-2")
    assert found["pet"] == ("piezoelectric", "transducer")


def test_labels_numerals_descriptors_and_unmatched_letters_define_nothing():
    # a list label, a reference numeral, a stereo descriptor, one capital, letters the words before do not give
    assert defined(["step (a) heating the body (12)", "the (R)-isomer", "a fragment (Fab)",
                    "a neodymium-iron-boron (NdFeB) magnet", "the housing (XYZ) is"]) == {}


def test_an_abbreviation_is_spelled_out_singular_or_plural_and_left_out_after_its_definition():
    found = defined(["separate Virtual Routing Functions (VRFs) in a router"])
    assert spelled_out(words("each VRF and the VRFs"), found) == ("each", "virtual", "routing", "functions", "and",
                                                                   "virtual", "routing", "functions")
    assert spelled_out(words("separate Virtual Routing Functions (VRFs)"), found) == (
        "separate", "virtual", "routing", "functions")
