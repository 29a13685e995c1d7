import pytest

from spg.lint import lint
from spg.lint.commentary import SIGNS, check_commentary
from spg.parse import parse_claims

LAMP = "1. A lamp comprising a bulb and a base.\n"


def rules(text: str) -> list[tuple[int, str]]:
    return [(f.claim, f.rule) for f in lint(parse_claims(text)).findings]


# examples of every row of SIGNS (a chat model's next claims, written again in their manner)
EXAMPLES = [
    ("I hope the following adds the shade to the lamp of claim 1.", "a first or second person"),
    ("Your lamp of claim 1 has the shade on the base.", "a first or second person"),
    ("This claim is a new dependent claim that refers to the lamp of claim 1.", "talk about claims"),
    ("The present invention relates to the lamp of claim 1 with the shade.", "talk about the invention"),
    ("Here is the lamp of claim 1 with the shade.", "words to a reader"),
]


def test_every_sign_has_an_example():
    assert {sign for _, sign in EXAMPLES} == {name for name, _, _ in SIGNS}


@pytest.mark.parametrize("sentence, sign", EXAMPLES)
def test_each_sign_of_commentary_is_found(sentence, sign):
    findings = check_commentary(parse_claims(LAMP + "2. " + sentence))
    assert [(f.claim, f.rule) for f in findings] == [(2, "not-a-claim")]
    assert sign in findings[0].message
    assert sentence[findings[0].start:findings[0].end].lower() in sentence.lower()


def test_commentary_gets_no_antecedent_warning_while_the_same_words_as_a_claim_do():
    chat = LAMP + "2. Here is the next claim: the lamp of claim 1, wherein the shade is red."
    claim = LAMP + "2. The lamp of claim 1, wherein the shade is red."
    assert rules(chat) == [(2, "not-a-claim")]
    assert rules(claim) == [(2, "antecedent")]


def test_a_claim_that_runs_on_into_chat_after_its_end_is_still_a_claim():
    text = LAMP + "2. The lamp of claim 1, wherein the bulb is red. Here is the additional claim:"
    assert check_commentary(parse_claims(text)) == []


@pytest.mark.parametrize("claim", [
    "2. The lamp of claim 1, wherein the bulb holds a compound of formula I and group I salts.",
    "2. The lamp of claim 1, wherein the base is coated with OCH2CH2OMe.",
    "2. The lamp of claim 1, wherein the bulb binds LFA-I, and the lamp of this claim 1 is red.",
    "2. The lamp of claim 1, wherein the bulb relates to the base, as the invention is coupled to it.",
    "2. The lamp of claim 1, wherein the base is a pressure plate and the bulb is surely fixed.",
])
def test_what_real_claims_write_is_no_commentary(claim):
    assert check_commentary(parse_claims(LAMP + claim)) == []
