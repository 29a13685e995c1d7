"""Text in a claim's place that is a writer's commentary, not a claim: ``not-a-claim``.

A claim is one sentence that states what is claimed (37 CFR 1.75(a); MPEP 608.01(m)). A language model asked for a
claim often writes about claims instead ("Here is the next claim:", "This claim refers to …", "The present invention
relates to …", "I hope this helps"). Such text defines nothing: what the antecedent analysis would say of its "the
…" is noise (on the LLM corpus's train and dev sides this rule takes 72 of the 230 antecedent warnings its candidates
drew, none on a term both readers list; docs/lint.md, "Commentary in a claim's place"). So a claim whose first
sentence says what only a writer says gets one ``not-a-claim`` warning, and the antecedent findings on it are
dropped (:func:`spg.lint.check.find_all`).

The signs were read off the train side of the LLM corpus and kept where they fired on none of its error-free claims
and on at most a claim in ten thousand of the shared set's and Pap2Pat's train and dev claims (2 of 27,228: "we set
it at 1" in a formula, "includes our exteriorly mounted coupler", both a first person a drafter would strike). Only
the first sentence is read: a claim the model runs on after ("… 100 to 140 mg/L. Here is the additional claim:") is
still a claim (:func:`spg.lint.clauses.one_sentence`). "I" is read only before a verb: formula I, group I, LFA-I.
"""

from __future__ import annotations

import re

from spg.forest import Forest
from spg.lint.clauses import one_sentence
from spg.lint.finding import Finding

# (what the sign shows; cues, one of which the claim's text holds, in lower case with a space put before it, wherever
# the sign's words are in it: a substring search costs a tenth of a regular expression's, so the words are looked for
# only then; the words that show the sign, in the claim's first sentence). The first sign found is the one named.
SIGNS = (
    ("a first or second person", ("you", "my", " i'", " i am", " i have", " i will", " i would", " i think", " i hope",
                                  " i want", " i need", " i can", " i do", " we ", " we,", " we'", " our ", " me ",
                                  " me,", " me."),
     # words of their own; "I" only before a verb (formula I, LFA-I), "me" not "Me" (methyl), and the words common
     # inside others ("we", "our", "me": "lower", "four", "member") after a space only
     r"\b(?:[Yy]our?|my)\b|(?<![^ ])(?:I(?:'m|'ve|'ll|'d| am| have| will| would| think| hope| want| need| can| do)\b"
     r"|[Ww]e(?=[ ,'])|our(?= )|me(?=[ ,.]))"),
    ("talk about claims", ("this claim", "next claim", "following claim", "the claim", "these claims", "dependent claim"),
     r"(?i)\b(?:this claim(?! \d)|the next claim|next claim|the following claim"
     r"|the claim (?:is|was|does|refers|in question|with)|these claims|the claims (?:are|in)"
     r"|dependent claim|independent claim)"),
    ("talk about the invention", ("invention", "this patent", "patent application", "purpose of this"),
     r"(?i)\b(?:the present invention|(?:the|this) invention relates|this invention (?:is|provides)|purpose of this"
     r"|this patent|patent application)"),
    ("words to a reader", ("here is", "here's", "sure", "please", "note:"),
     r"(?i)\b(?:here is|here's|sure\b|please\b|note:)"),
)
_SIGNS = [(name, cues, re.compile(words)) for name, cues, words in SIGNS]
# the analysis whose findings mean nothing in commentary
ANTECEDENT_RULES = frozenset({"antecedent", "antecedent-ambiguous", "antecedent-note", "multiple-introduction"})


def check_commentary(forest: Forest) -> list[Finding]:
    """One ``not-a-claim`` warning for each claim whose first sentence shows a sign of :data:`SIGNS`, placed on it."""
    found = []
    for claim in forest.claims:
        lower = " " + claim.text.lower()
        signs = [(name, sign) for name, cues, sign in _SIGNS if any(cue in lower for cue in cues)]
        sentence = one_sentence(claim.text) if signs else ""
        for name, sign in signs:
            if (m := sign.search(sentence)) is not None:
                found.append(Finding(
                    "not-a-claim", "warning", claim.num,
                    f"this reads as commentary, not a claim ({name}: \"{m.group(0)}\"); no antecedent "
                    "basis is read in it", m.start(), m.end()))
                break
    return found
