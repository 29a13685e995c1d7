"""The words of claim English the antecedent analysis reads by: closed classes (articles, quantifiers,
prepositions, positional and ordinal modifiers, irregular participles …), the forms of a word (singular, American
spelling, plural, bare verb) and each token's class, cached per token and per word."""

from __future__ import annotations

import re
import sys
from array import array
from itertools import chain
from typing import NamedTuple


def _words(*chunks: str) -> frozenset[str]:
    return frozenset(w for chunk in chunks for w in chunk.split())


_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|\d+(?:[.,]\d+)*|[^\sA-Za-z0-9]")
_QUANTIFIER = _words("at least one or more plurality plural multiplicity multiple several two three four five six seven "
                     "eight nine ten of")  # fmt: skip
# Function words, pronouns, auxiliaries and the verbs claims put after a noun: they end a noun phrase.
_STOP = _words(
    "a an the said this that these those it its their his her them they which who whom whose what where when "
    "while wherein whereby whereas whereof wherefrom thereof therein thereto thereby therefrom thereon therewith "
    "thereafter therethrough therebetween thereover thereunder therealong therearound thereacross thereabout "
    "herein there such and or but nor not no so if than then as each every any all some both either neither "
    "other another of in on at to for with from by into onto over under between through about within without "
    "across along via per upon against toward towards around among amongst after before during beyond below "
    "above behind beneath underneath near up down out off one ones thus hence whether until unless again cannot "
    "is are was were be been being has have having had do does did can could may might must shall should will "
    "would comprising comprises comprise including includes include consisting consists consist containing "
    "contains contain characterized characterised configured adapted arranged operable operative capable "
    "extends extend according whereupon i.e e.g etc also only further respectively same less least more most very "
    # a participle that works as a preposition ("generating the image using multi-slice imaging")
    "using "
    # what defines an abbreviation ("a private branch exchange, hereafter PBX, telephony circuit")
    "hereafter hereinafter "
    # the rest of the closed classes of prepositions and conjunctions ("as the heated gases pass throughout the
    # body", "the endpoint though the gateway", "administering to the individual once a week")
    "throughout though although because beside besides despite unlike since till amid whilst unto atop versus once"
)
# Words that end a noun phrase after its first word but may open one ("the relative position").
_AFTER_HEAD = _words(
    "relative opposite rather except prior together apart away alone instead sufficient so outside inside adjacent "
    "upstream downstream subsequent previous already perpendicular parallel coaxial concentric flush integral "
    "coplanar nearest closest farthest furthest inward outward upward downward rearward rearwards itself themselves "
    # verbs claims put after their subject, in forms that are hardly ever nouns or modifiers ("a transmit buffer")
    "receives transmits generates determines provides allows enables permits prevents rotates engages communicates "
    "operates performs executes creates cooperate cooperates remain remains become becomes occur occurs exceed "
    "exceeds correspond corresponds indicates represents identifies produces reduces abut abuts surrounds defines "
    "comprise moves causes emits detects free due "
    # adjectives that follow what they qualify and never open or continue a noun phrase: "said control device able
    # to", "the command voltage irrespective of whether"
    "able unable irrespective regardless "
    # and "absent" as a preposition after its noun: "said presentation absent significant content"; "proximate"
    # too, as "adjacent" ("the central portion of the mask proximate the mouth"; before a noun it modifies it: "the
    # proximate end")
    "absent proximate"
)
# "-ing" words that are nouns: they may continue a noun phrase ("a fluid bearing", "the housing").
_ING_NOUNS = _words(
    "housing bearing opening coating ring spring string wiring building casing fitting setting mounting recording "
    "thing clothing drawing filling lining padding seating tubing piping siding flooring ceiling railing fencing "
    "packaging covering winding coupling heading marking sling awning crossing landing lighting bushing shielding "
    "plating bedding dressing topping stuffing icing sealing fastening mapping listing posting encoding embedding "
    "offering training processing king wing bring swing cling sibling duckling seedling"
)
# Adverbs in "-ly" too short for the length test of _classify, which keeps "fly", "belly", "jelly" nouns: "the
# newly received data cube", "a fully charged cell" (a modifier skipped as "substantially" is).
_SHORT_ADVERBS = _words("newly fully duly truly")
_NOT_ADVERB = _words(
    "assembly subassembly supply family anomaly reply poly belly jelly rally fly butterfly dolly ally"
)
# Modifiers that do not narrow a reference ("the respective layers" refers back to "layers").
_NON_RESTRICTIVE = _words(
    "respective entire whole aforementioned aforesaid above-mentioned abovementioned individual corresponding "
    "following foregoing preceding present "
    "particular given selected certain specific various"
)
# Heads of definite phrases that are set phrases or things any claim may name, not claimed elements.
_IDIOM_HEADS = _words(
    "same other like following foregoing preceding former latter art group step steps form vicinity basis presence "
    "absence case fact extent invention claim claims manner way purpose formula formulae respect event instance "
    "order alternative need sake expense help aid contrary range balance remainder internet earth ground lesser "
    "greater equation proviso improvement phase relation teeth neck skin wrist mouth "
    "atmosphere world"
)
# Parts and properties any element has (MPEP 2173.05(e): "the outer surface of said sphere" needs no introduction).
# A part needs its owner named after it ("the top end of …"); a property any element has may also stand alone
# ("the speed", "the total weight").
_PROPERTIES = _words(
    "length width height depth thickness diameter radius weight mass volume size area shape speed velocity rate "
    "temperature pressure concentration amount number value level time duration frequency wavelength density "
    "intensity magnitude state status content contents total sum orientation direction position location color "
    "colour type kind nature identity quality quantity composition ratio proportion percentage degree difference "
    "route lifetime life force torque power energy voltage current resistance impedance capacitance charge "
    "strength stiffness hardness viscosity conductivity humidity brightness occurrence onset moment instant period "
    "coefficient dose flow title name relation relationship gap passage potential geometry"
)
_PARTS = _PROPERTIES | _words(
    "end top bottom side surface edge face tip base center centre middle interior exterior inside outside "
    "periphery perimeter circumference front rear back axis plane portion part half majority entirety boundary "
    "profile contour outline region rest beginning start completion operation execution output input result "
    "sequence structure course remainder use substituent sine cosine tangent logarithm square root inverse "
    "product quotient reciprocal average mean median"
)
# Faces every solid has: named after their owner ("the tissue surface", "the light emitting side") they are that
# owner's (MPEP 2173.05(e)); an abstract part ("the ring structure", "the power product") may be an element itself.
_FACES = _words("end top bottom side surface edge face tip")
# Positional nouns that, after a preposition of place, say where rather than name a part ("at the top").
_LOCATIVE = _words("top bottom side sides front rear back end ends outside inside exterior interior left right middle")
_LOCATIVE_PREPOSITIONS = _words("at on to from toward towards")
# Modifiers that set an element against another of its kind (first/second, inlet/outlet, upper/lower …): a
# reference carrying one needs an introduction carrying it; these are what modifier-swap defects change. They also
# share a head in coordination ("the first and second layers").
_POSITIONAL = _words(
    "first second third fourth fifth sixth seventh eighth ninth tenth primary secondary tertiary upper lower top "
    "bottom inner outer internal external left right front rear back forward aft inlet outlet input output entry "
    "exit intake exhaust proximal distal male female horizontal vertical positive negative minimum maximum upstream "
    "downstream high low hot cold anterior posterior lateral medial leading trailing"
)
_PRONOMINAL = _POSITIONAL | _NON_RESTRICTIVE
# Those that are nouns as well ("an output of the amplifier", "an inlet of the pump").
_POSITIONAL_NOUNS = _words("input output inlet outlet entry exit intake exhaust top bottom front rear back")
_RELATIONAL = _words("last next latest previous")
# Which positional modifiers exclude each other: "the first end of the rod" contradicts a rod whose ends are
# introduced as "a second end" only, "the front end of the shell" does not contradict "an inner end".
_CONTRAST = {
    word: group
    for group, words in enumerate(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth primary secondary tertiary",
            "upper lower top bottom",
            "inner outer internal external",
            "left right",
            "front rear back forward aft leading trailing anterior posterior",
            "inlet outlet input output entry exit intake exhaust upstream downstream",
            "proximal distal",
            "male female",
            "horizontal vertical lateral medial",
            "positive negative",
            "minimum maximum high low hot cold",
        )
    )
    for word in words.split()
}
# Suffixes of abstract nouns (properties, events, relations): with "of" after them ("the growth of spherulites",
# "the solubility of the plasticizer") they name something of their owner, not a claimed element.
_ABSTRACT = ("ity", "ness", "tion", "sion", "ance", "ence", "th", "ship", "cy", "ment")
# Modifiers a property standing alone may carry ("the total weight"); any other ("the oleic acid content", "the
# first direction") names something that needs an introduction.
_MEASURES = _words("total overall mean average net gross absolute actual current entire whole maximum minimum cross-sectional")
# Relations between things, named by "between" ("the distance between the plates"): properties of the pair.
_RELATIONS = _words("distance spacing space angle gap difference ratio clearance interval relationship relation overlap")
# First words of set phrases: "the balance water", "of the type zeolite", "the sum total".
_SET_PHRASES = _words("balance type kind sum group formula formulae formulas")
# Nouns of a group whose members a positional modifier before them passes on ("a first plurality of receptacles").
_GROUPS = _words("plurality multiplicity set group series array bank")
_ORDINALS = tuple(["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"])
_ORDINALS_SET = frozenset(_ORDINALS)
_CARDINALS = {w: n for n, w in enumerate(["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], 2)}
# Set-phrase heads that, once modified, name an element ("the heating step", "the resting phase", "the recombination
# event", "the stress equilibration equation"); any set-phrase head does with a positional modifier ("the first
# wavelength range", "said second group").
_NAMED = _words("step steps phase order event equation")
# What a gerund reference adds to the action it names ("the determining step", "the notifying means").
_ACTION_HEADS = _words("step steps operation operations act acts action actions process stage phase means function")
# Words a verb takes after it and a noun hardly does: "… move through the arc", "… cooperate to provide", "… held by".
# Past participles not ending in "-ed" (a closed class of English): "the pull bolt held by the mechanism".
_IRREGULAR_PARTICIPLES = _words(
    "held sent made built taken given known shown found laid kept led bound worn borne drawn thrown grown spun "
    "struck hung fed put cut set read run brought caught taught sought thought bought sold told "
    # the rest of that closed class that claims use and that are not nouns as well ("the napkin slid from between");
    # not the "-en" forms ("driven", "chosen"), which a benchmark site of three words may end in: "a cylindrical
    # gear driven by" is found only while "driven" reads as its head (see docs/lint-antecedent.md, round 4)
    "slid stuck sunk shrunk strung swung flung clung sprung begun bent spent dealt meant swept dug won lit fled bled "
    "bred sped clad paid lost stood understood heard "
    # and the "-seen" forms, which are never nouns ("the compounds foreseen in the general formula")
    "seen foreseen overseen"
)
# Those that are not nouns too ("a data set", "a cut", "an upper bound", "an LED"), and "used" (too short for the
# "-ed" rule): after a noun, with no noun after them, they end the phrase.
_PARTICIPLES_ONLY = (_IRREGULAR_PARTICIPLES - _words("set cut run read put led bound fed thought given")) | {"used"}
# Adverb particles and postpositive words that close a phrase when they are its last word: "drawing the nozzle
# assembly forward", "to keep the wheel knee vertical" (as a first word they are modifiers: "the forward end"); and
# "incident", which after a noun is the adjective of "light incident on the substrate" (before it, "the incident
# light"), never a noun of a claim element.
_POSTPOSITIVE = _words(
    "forward forwards backward backwards sideways ahead aside onward onwards horizontal vertical incident"
)
# Nouns in "-s" that are singular (or name one thing as a modifier: "the graphics processor").
_S_SINGULARS = _words("lens means series species news chassis bias gas canvas atlas alias")
# Suffixes that mark a noun, not a bare verb ("the communications center", "the parts holder").
_NOUN_SUFFIXES = ("tion", "sion", "ment", "ance", "ence", "ity", "ness", "er", "or", "ure", "ism", "ist", "ship",
                  "hood", "ics", "ant", "al", "ay", "ey", "ty", "ry", "ly", "dy", "ny", "gy", "my")  # fmt: skip
# Verbs that define a symbol by the phrase after them ("t is the total length", "R denotes the radius").
_DEFINING = _words("is are denotes denote represents represent means")
# Words that follow a whole noun phrase, never a modifier waiting for its noun: a verb, a relative pronoun, a
# preposition ("an individual comprising", "the individual who", "to the individual in need"; with a participle,
# "an individual based on", or a second determiner, "an individual and said cells").
_CLAUSE_AFTER_HEAD = _words(
    "is are was were has have had can may will shall should must does do being having comprising comprises "
    "including includes who which that whose in from to with by"
)
# Words by which a claim gives an element its parts ("a voltage follower having an input and an output").
_HAVING_RE = re.compile(
    r"[\s,]*(?:\(\w+\)\s*)?(?:having|has|have|with|comprising|comprises|including|includes|defining|defines)\b", re.I
)
_HAVING_ONLY_RE = re.compile(_HAVING_RE.pattern + r"\s*", re.I)
# "a layer of a thermal oxide", "a contact electrode at said distal tip": the "of" (or place) phrase after an
# introduction that names its owner or material (past reference numerals), read by _Reader.of_owner; and the words
# that may follow that owner's noun phrase.
_OF_OWNER_RE = re.compile(r"\s*(?:\([^()]{0,30}\)\s*)?(?:of|at|on|in)\s+(?:the|a|an|said)\s+", re.I)
# Words after which an introduction recites an element of the claim ("comprising a widget", "a base with a slot").
_RECITING = _words(
    "comprising comprises comprise including includes include having has have containing contains further also "
    "additionally and or with wherein whereby"
)
# Prepositions a participle takes its complement with ("sent in", "set at", "held by"); not "of", which a noun takes.
_PREPOSITIONS = _words(
    "in on at to from by into onto over under through via within across along upon against toward towards around "
    "after before during between with for"
)
# What may follow the owner named in "a layer of a thermal oxide" (_Reader.of_owner): a preposition, a conjunction,
# a verb or a relative word, not a noun the owner's last word modifies.
_OWNER_ENDS = _PREPOSITIONS | _words("and or is are being having comprising which that wherein whereby")
_COMPLEMENTS = _words("to through throughout into onto along across toward towards around together upon between with by one")
# Suffixes of nominalised actions ("determination", "comparison", "adjustment", "removal", "closure").
_NOMINAL_SUFFIXES = ("tion", "sion", "ison", "ment", "ance", "ence", "al", "ure", "ing", "sis")

# Word classes, cached per raw token.
_DEF, _ART, _STOPW, _AFTER, _ADV, _ING, _ED, _WORD, _NUM, _PUNCT = range(10)
_BREAKS = frozenset((_NUM, _PUNCT, _STOPW, _DEF, _ART))  # what ends any noun phrase
_F_QUANT, _F_MODIFIER, _F_VERB_S, _F_CLAIM, _F_POSSESSIVE, _F_OBJECT, _F_FORMULA = 1, 2, 4, 8, 16, 32, 64
# raw token → (the token, class, lowercased form, singular, flags, class character, lower case): one lookup a token
# gives the chunker and the reader all they read of it, and the cache's copy of each string is shared by every claim
# (the claims' tokens and lower-case forms are kept for the whole claim set)
_CLASS: dict[str, tuple[str, int, str, str, int, str, str]] = {}
_WORDS: dict[str, tuple[tuple[str, int, str, str, int, str, str], ...]] = {}  # a word between spaces → its tokens
# On the string of a claim's token classes (a character a token: the class's digit, or for a word naming a claim,
# "claim", "claims", "claimed", a letter of its own, "c" as a content word, "d" as a participle), regular expressions
# find in C what the Python loop needs: where a noun phrase may start (a determiner, a content word), the actions
# ("-ing", "-ed" words) and the words naming a claim.
_CLAIM_CHARS = {_WORD: "c", _ED: "d"}
_START_RE = re.compile(f"[{_DEF}{_ART}{_AFTER}{_WORD}c]")
_ACTION_RE = re.compile(f"[{_ING}{_ED}d]")
_CLAIM_RE = re.compile("[cd]")


def _symbol(token: str) -> bool:
    """Whether a token reads as a variable of a formula ("t", "Min", "R1"), not as a word of the claim."""
    return len(token) <= 3 and token[:1].isalpha() and (len(token) == 1 or token[:1].isupper() or token[-1].isdigit())


def _formula(token: str) -> bool:
    """Whether a token reads as a chemical or algebraic formula: letters and digits in one word ("xCaCl2", "NH2")."""
    return token[:1].isalpha() and any(map(str.isdigit, token))


def _modifier_only(word: str) -> bool:
    """Whether a word modifies a noun and never heads one: a positional or non-restrictive word ("upper",
    "selected"), an irregular participle ("held", "fallen", "chosen")."""
    return word in _PRONOMINAL or word in _IRREGULAR_PARTICIPLES or (len(word) > 4 and word.endswith("en"))


# Prefixes that make a new word of the one they join ("co-polymer", "non-woven"), and endings that make a
# hyphenated compound an adjective ("water-soluble", "T-shaped", "heat-resistant").
_BOUND_PREFIXES = _words(
    "anti non co self pre post re multi semi sub super inter intra poly mono bi tri di un de micro nano macro mini "
    "ultra over under out cross counter pseudo quasi hyper hypo trans iso neo proto auto"
)
_ADJECTIVE_ENDINGS = ("ed", "ing", "ble", "ant", "ent", "ive", "ous", "ic", "al", "ful", "less", "like", "free",
                      "rich", "proof", "tight", "wise", "ward", "ary", "ory")  # fmt: skip


# Adjectives and numerals that open a participle compound as its manner, not as a noun ("well-defined",
# "hot-rolled", "single-ended", "two-sided").
_MANNER = _words(
    "well ill hard soft hot cold warm dry wet fast slow long short high low open closed single double triple dual "
    "twin thin thick wide narrow deep shallow full half solid hollow flat round square straight broad light heavy "
    "dark bright fine coarse rough smooth quick dead live new old tight loose densely close far near even odd free "
    "one two three four five six seven eight nine ten multiple much ever never all"
)
# "-ed" words made from nouns ("T-shaped", "double-sided", "cup-shaped"): they name no noun as agent or object.
_BAHUVRIHI = _words(
    "shaped sized sided ended headed legged faced walled edged cornered colored coloured haired toothed lobed "
    "bodied handed eyed hearted footed tailed necked mouthed winged tongued grained minded"
)
# Participles of "have": "a dyestuff-containing layer" is a layer containing a dyestuff.
_HAVING_PARTICIPLES = _words("containing comprising including bearing")


def _participle_noun(parts: list[str]) -> tuple[str, ...]:
    """The noun a participle compound names as its agent or object ("spring-loaded" → spring, "motor-driven" →
    motor, "dyestuff-containing" → dyestuff): "at least one spring-loaded ball" has a spring, as "a ball loaded by
    a spring" does (MPEP 2173.05(e): what a recited feature necessarily has). Empty for an adjective or manner
    ("well-defined", "T-shaped", "double-sided", "water-soluble", "light-emitting")."""
    if len(parts) != 2:
        return ()
    first, last = parts
    if (
        len(first) < 3
        or not first.isalpha()
        or first in _BOUND_PREFIXES
        or first in _STOP
        or first in _MANNER
        or first in _PRONOMINAL
        or first.endswith(("ly", "ed", "ble", "ous", "ful", "less", "ive"))  # "thermally-", "fixed-" ("spring-": no)
    ):
        return ()
    if (
        (len(last) > 4 and last.endswith("ed") and last not in _BAHUVRIHI)
        or last in _IRREGULAR_PARTICIPLES
        or last in _HAVING_PARTICIPLES
    ):
        return (_american(_singular(first)),)
    return ()


def _compound_nouns(word: str) -> tuple[str, ...]:
    """The nouns a hyphenated noun compound names ("core-sheath" → core, sheath; "air-fuel" → air, fuel; "a
    rain-gutter" is a gutter): a word introduced inside a modifier is an inherent antecedent as "the vehicle" is of
    "a vehicle door". None for a prefixed word ("co-polymer", "off-target") or an adjective compound ("water-soluble",
    "T-shaped"); a participle compound names its noun ("spring-loaded": :func:`_participle_noun`)."""
    parts = word.split("-")
    named = _participle_noun(parts)
    if named:
        return named
    if parts[0] in _BOUND_PREFIXES or parts[0] in _STOP or parts[-1].endswith(_ADJECTIVE_ENDINGS):
        return ()  # "co-polymer", "off-target", "water-soluble"
    if not all(len(p) >= 3 and p.isalpha() for p in parts):
        return ()
    return tuple(p for p in parts if p not in _STOP)  # "mapper-and-controller"


# Latin plurals in "-ices" of nouns in "-ix"/"-ex" (a closed class; "devices", "slices", "prices" are English
# plurals of "-ice" nouns): "first, second, and third matrices" introduces "the third matrix".
_LATIN_PLURALS = {
    "matrices": "matrix", "vertices": "vertex", "indices": "index", "apices": "apex", "cortices": "cortex",
    "vortices": "vortex", "helices": "helix", "appendices": "appendix", "simplices": "simplex", "radices": "radix",
}  # fmt: skip


def _singular(word: str) -> str:
    if word in _LATIN_PLURALS:
        return _LATIN_PLURALS[word]
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "means", "series", "species")):
        return word[:-1]
    return word


# British spellings whose American form is not made by the suffix rules of :func:`_american`.
_BRITISH = {
    "aluminium": "aluminum", "grey": "gray", "tyre": "tire", "mould": "mold", "programme": "program",
    "plough": "plow", "kerb": "curb", "draught": "draft", "storey": "story", "manoeuvre": "maneuver",
    "defence": "defense", "licence": "license", "offence": "offense", "judgement": "judgment", "ageing": "aging",
    "catalogue": "catalog", "analogue": "analog", "dialogue": "dialog", "sulphur": "sulfur", "sulphate": "sulfate",
    "sulphide": "sulfide", "sulphonate": "sulfonate", "sulphonic": "sulfonic", "oestrogen": "estrogen",
    "haemoglobin": "hemoglobin", "foetal": "fetal", "foetus": "fetus", "oesophagus": "esophagus",
}  # fmt: skip
# Word endings British English spells differently (vapour, centre, stabilise, analyse, labelled): both forms of a
# word name one thing, so every word is compared in its American form.
_BRITISH_ENDINGS = (
    ("our", "or"), ("oured", "ored"), ("ouring", "oring"), ("ourless", "orless"),
    ("tre", "ter"), ("bre", "ber"),
    ("isation", "ization"), ("ise", "ize"), ("ised", "ized"), ("ising", "izing"), ("iser", "izer"),
    ("lyse", "lyze"), ("lysed", "lyzed"), ("lysing", "lyzing"), ("lyser", "lyzer"),
    ("elled", "eled"), ("elling", "eling"), ("eller", "eler"),
)  # fmt: skip
_BRITISH_SUFFIXES = tuple(b for b, _ in _BRITISH_ENDINGS)


def _american(word: str) -> str:
    """A word in American spelling ("vapour" → "vapor", "centre" → "center", "stabiliser" → "stabilizer"). Only
    words of five letters or more are respelt, so "four", "tour", "acre" and "rise" stay."""
    got = _BRITISH.get(word)
    if got is not None:
        return got
    if word.startswith("sulph"):
        word = "sulf" + word[5:]
    if len(word) < 5 or not word.endswith(_BRITISH_SUFFIXES):
        return word
    for british, american in _BRITISH_ENDINGS:
        if word.endswith(british) and len(word) - len(british) >= 2:
            return word[: -len(british)] + american
    return word


# The word lists compared with a phrase's (American) words hold both spellings ("colour", "centre", "contour").
_PROPERTIES, _PARTS, _IDIOM_HEADS, _MEASURES = (
    words | frozenset(map(_american, words)) for words in (_PROPERTIES, _PARTS, _IDIOM_HEADS, _MEASURES)
)


def _plural_form(word: str) -> bool:
    """Whether a word reads as a plural noun ("grooves", "pools"), not a singular in "-s" ("lens", "axis")."""
    return (
        len(word) > 3
        and word.isalpha()
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "as", "ics"))
        and word not in _S_SINGULARS
    )


def _bare_verb(word: str) -> bool:
    """Whether a word may be a bare (plural-agreeing) verb: no "-s", "-ed", "-ing" and no noun suffix."""
    return (
        len(word) > 3
        and word.isalpha()
        and not word.endswith(("s", "ed", "ing") + _NOUN_SUFFIXES)
        and word not in _PRONOMINAL
        and word not in _ING_NOUNS
    )


def _abbreviation(token: str) -> bool:
    """Whether a token reads as an abbreviation ("RF", "MMNE", "PCBs"): a capital first and at most one small
    letter."""
    if not 2 <= len(token) <= 10 or not token[0].isupper():
        return False
    letters = [c for c in token if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return upper >= 2 and upper >= len(letters) - 1


def _expansion(short: str, words: tuple[str, ...]) -> int:
    """Where in ``words`` the long form of the abbreviation ``short`` starts, -1 if it spells none: the initials
    of the last words ("radio frequency (RF)"), else the letters in order from the end with the first at the start
    of a word ("private branch exchange (PBX)"; A. Schwartz and M. Hearst, PSB 2003)."""
    letters = [c for c in short.lower() if c.isalnum()]
    if letters[-1:] == ["s"] and short[-1] == "s":
        letters.pop()  # "PCBs": a plural
    n = len(letters)
    if 0 < n <= len(words) and all(w[:1] == c for w, c in zip(words[-n:], letters)):
        return len(words) - n
    text = " ".join(words)
    at = len(text) - 1
    for m in range(n - 1, -1, -1):
        c = letters[m]
        while at >= 0 and (text[at] != c or (m == 0 and at > 0 and text[at - 1] != " ")):
            at -= 1
        if at < 0:
            return -1
        at -= 1
    return text[: at + 1].count(" ")


def _classify(token: str) -> tuple[int, str, str]:
    """(class, lowercased form, singular of that) of a raw token."""
    w = token.lower()
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    elif w.endswith(("s'", "s’")):  # a plural possessive, "the stops' extensions", is the plural "stops"
        w = w[:-1]
    if not w[:1].isalpha():
        cls = _NUM if w[:1].isdigit() else _PUNCT
    elif w in ("the", "said"):
        cls = _DEF
    elif w in ("a", "an"):
        cls = _ART
    elif w in _STOP:
        cls = _STOPW
    elif w in _AFTER_HEAD or ("-" in w and w.replace("-", "") in _AFTER_HEAD):
        # spelling: a word that ends a phrase after its head ends it hyphenated too ("the bottom shield dielectric
        # layer co-planar with", "co-axial", "down-stream"), as compounds are compared open, hyphenated or closed
        cls = _AFTER
    elif (len(w) > 5 and w.endswith("ly") and w not in _NOT_ADVERB and not w.endswith("assembly")) or w in _SHORT_ADVERBS:
        cls = _ADV
    elif len(w) > 4 and w.endswith("ing") and w not in _ING_NOUNS:
        cls = _ING
    elif len(w) > 4 and w.endswith("ed") and not w.endswith("eed"):
        cls = _ED
    else:
        cls = _WORD
    return cls, w, _american(_singular(w) if cls == _WORD else w)


class _Tokens(NamedTuple):
    """One claim's tokens and, per token, what the analysis reads of it, as parallel tuples."""

    tokens: tuple[str, ...]  # as written
    kinds: tuple[int, ...]  # the word class (_DEF … _PUNCT)
    lows: tuple[str, ...]  # lower case, a possessive "'s" dropped
    sings: tuple[str, ...]  # the singular of that in American spelling (a content word's)
    flags: tuple[int, ...]  # _F_QUANT, _F_MODIFIER, …
    chars: str  # the classes as a string, for the regular expressions above
    lower: tuple[str, ...]  # lower case as written


def _token_classes(text: str) -> _Tokens:
    """A claim's tokens with their classes. No token crosses white space, so a claim's tokens are those of its
    words, each word's cached: ``str.split`` and one lookup a word (a regular expression over the whole claim took
    as long as the rest of this)."""
    words = text.split()
    parts = list(map(_WORDS.get, words))
    if None in parts:
        # looked up again: a word new to the cache recurs within the claim (a long claim's every "the" classified
        # anew took a tuple and three strings each, most of the memory a 1 MB claim needed)
        parts = [got or _WORDS.get(w) or _new_word(w) for got, w in zip(parts, words)]
    if not parts:
        return _Tokens((), (), (), (), (), "", ())
    tokens, kinds, lows, sings, flags, chars, lower = zip(*chain.from_iterable(parts))
    return _Tokens(tokens, kinds, lows, sings, flags, "".join(chars), lower)


def _offsets(text: str, tokens: tuple[str, ...], spans: array, end: int) -> None:
    """Extend ``spans``, the character offsets of a claim's first tokens in its text (start and end of each in turn),
    to its first ``end`` tokens: a token starts where its text next occurs, as only white space lies between two
    tokens (the regular expression run again took several times as long; a long claim's findings seldom need all)."""
    at = spans[-1] if spans else 0
    find = text.find
    for token in tokens[len(spans) // 2 : end]:
        at = find(token, at)
        spans.append(at)
        at += len(token)
        spans.append(at)


def _new_word(word: str) -> tuple[tuple[str, int, str, str, int, str, str], ...]:
    if len(_WORDS) > 200_000:
        _WORDS.clear()
    got = _WORDS[word] = tuple(_CLASS.get(t) or _new_class(t) for t in _TOKEN_RE.findall(word))
    return got


def _new_class(token: str) -> tuple[str, int, str, str, int, str, str]:
    if len(_CLASS) > 200_000:
        _CLASS.clear()
    kind, low, singular = _classify(token)
    flags = (
        (_F_QUANT if low in _QUANTIFIER else 0)
        # a participle after "last", "next", "latest" stays in the phrase: "the latest accessed site"
        | (_F_MODIFIER if kind in (_ED, _ING) or low in _POSITIONAL or low in _NON_RESTRICTIVE or low in _RELATIONAL else 0)
        | (_F_VERB_S if low[-1:] == "s" and low[-2:] not in ("ss", "us", "is") else 0)
        | (_F_CLAIM if low in ("claim", "claims", "claimed") else 0)
        | (_F_POSSESSIVE if token.endswith(("'s", "’s", "s'", "s’")) else 0)
        | (_F_OBJECT if kind in (_DEF, _ART, _ADV) or low == "to" else 0)
        | (_F_FORMULA if _formula(token) else 0)
    )
    token = sys.intern(token)
    char = _CLAIM_CHARS[kind] if flags & _F_CLAIM else str(kind)
    got = _CLASS[token] = (token, kind, sys.intern(low), sys.intern(singular), flags, char, sys.intern(token.lower()))
    return got


def _shares_owner(kinds: tuple[int, ...], lows: tuple[str, ...], sings: tuple[str, ...], at: int) -> bool:
    """Whether the conjunct starting at ``at`` (past "and"/"or") is a part or property whose owner follows it, in
    one phrase with the conjunct before it: "… and upper portion of said chamber". A conjunct with its own
    determiner ("… and said location information of its location") is a phrase of its own, which the owner may
    belong to alone; so is one with a modifier of its own that is no position or measure ("the sparse structure
    and weight values of the layers": a compound noun)."""
    n = len(lows)
    if at + 1 < n and lows[at] == "/" and lows[at + 1] == "or":
        at += 2  # "the treatment and/or prevention of"
    end = at
    while end < n and end - at < 3 and kinds[end] == _WORD:
        end += 1
    return (
        at < end < n
        and lows[end] in ("of", "thereof")
        and (sings[end - 1] in _PARTS or sings[end - 1].endswith(_ABSTRACT))
        and all(w in _POSITIONAL or w in _MEASURES for w in lows[at : end - 1])
    )
