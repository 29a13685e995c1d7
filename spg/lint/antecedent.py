"""Antecedent basis as an examiner reads it (35 USC 112(b), MPEP 2173.05(e)): the analysis behind ``spg lint``.

Every definite reference ("the X", "said X") needs basis in its scope: the claim's own earlier text plus the full
text of every claim it depends on, transitively (never a sibling claim). :func:`check_antecedents` reports a
reference with no basis (rule ``antecedent``) and one that could mean either of two introductions (rule
``antecedent-ambiguous``). PatentScore's ``precise`` reading of AC counts with :func:`reference_counts`.

Why a claim grammar of our own and not a statistical tagger: the analysis must run at thousands of claims a second
in process on a 2-core CPU (the goal is 5,000). spaCy-class taggers tag a few thousand words a second there, i.e. some tens to hundreds of claims,
and their English models are GitHub release assets, not PyPI packages, so ``scripts/setup.sh`` could not install
them offline. Claim language is a narrow register whose noun phrases are bounded by a small closed class of words
and a few suffixes; that is what this module encodes. Each choice is a reading of claim practice:

* A noun phrase (chunk) is a run of content words; it ends at a function word, punctuation or a number, and after
  its first word at a participle ("a library loader specifying …"), at a verb with an object ("the controller
  detects a …") and at "relative", "opposite", "rather", …; adverbs ("substantially") are skipped.
* Every chunk not opened by "the"/"said" introduces its words: "a widget", bare plurals ("pixels"), numerals and
  quantifiers ("two imaging devices", "at least two longitudinal paths"), "means for …".
* A reference (modifiers M, head h) has basis in an earlier chunk of its scope holding h (singular or plural) with
  every word of M before it. So the FULL modifier sequence is compared ("the second display panel element" needs
  "second", "display", "panel" before "element" in one introduction; "a first display panel element" is no basis),
  a reference may drop modifiers ("the layer" ← "a first layer"), and a word introduced as a modifier is an inherent
  antecedent ("the vehicle" ← "a vehicle door"). Participle modifiers may be added ("the heated gas" ← "a gas").
  A reference that ran into a verb ("the oxygen content falls") is read again without it; so is one that ran into
  a bare verb after a coordinated or plural subject ("the hinge portion and the ridge create a wall"), an "-ing"
  noun or an irregular participle with its complement after it ("said lid fitting onto", "the pull bolt held by").
  A comparative before "than" ends a phrase ("the ring portion thinner than"); so do an adverb before the last
  word, which makes it a predicate ("said member rotatably moveable about"), a bare verb after a plural noun with
  its object ("said grooves prevent side loading"), postpositive words ("said device able to", "the voltage
  irrespective of", "drawing the nozzle assembly forward") and "using". A predicate after the noun ends it too,
  read only against an introduction that ends there as written (so a swapped head is still found): an irregular
  participle with its preposition ("the information sent in"), an "-ive" adjective ("the interface responsive to",
  "making the counter inoperative"), an "-able" one with its complement ("the program code executable by"; coordinated, "said panel openable
  and closeable with respect to"), a
  bare verb before a determiner ("the posterior region satisfy the relation") and an "-ing" verb with its object
  before "to the" ("said body allowing access to said chamber"). The bare object of the verb a reference ran into
  introduces itself ("the transmitter sends instructions … said instructions"). An irregular participle after a
  noun ends an introduction as well ("a body made of"), and so does a participle after a word that may be a noun
  ("an output connected to"). "The" before a pronoun's modifiers or participles alone goes to the noun after
  ("the identified one or more computers", "the displayed other PCDs", "the fallen upper one of the covers").
  Ordinals before "adjacent" or "opposite" modify the noun after ("first and second adjacent corners"), and a verb
  right before coordinated ordinals is no part of their phrase ("respectively define first and second flow
  paths"). Every preposition and conjunction ends a phrase ("as the gases pass throughout", "once a day"). So do
  an irregular participle of the closed class ("the napkin slid from"), a verb in "-s" before a gerund ("said
  reproducing means starts reproducing"), a comparative with its dimension ("receptacles shorter in length than"),
  "output" with its agent ("the data output by") and an ordinal opening a verb's second object ("receiving from
  the first server first information"; not a part named after its owner, "said housing first end"). A plural
  before an adverb and a participle is the head ("retention members integrally attached"). An "-ing" participle
  right after a plural noun starts a reduced relative clause, read only against an introduction ending at that
  noun ("said first and second tabs facilitating location of"); a phrase-ending word ends the phrase hyphenated
  as well ("the dielectric layer co-planar with"), and "proximate" after a noun is a preposition, as "adjacent" is
  ("the mask proximate the mouth"). Coordinate participles after "the"/"said" go on to the noun ("said stretched,
  flattened strand"). A verb in "-s" after a singular noun ends the phrase before "below", "above", "beneath"
  ("said measured oxygen content falls below"; after a plural noun they are the noun's: "the electrodes below").
* Spelling does not tell two elements apart: words are compared in American spelling ("vapour"/"vapor",
  "centre", "stabiliser") and a compound may be written open, hyphenated or closed ("the foot plate" ← "a
  footplate", "the machine interface" ← "a man-machine interface").
* "first and second hinge pin assemblies" introduces each ordinal with the whole shared phrase ("the input and the
  network", with no ordinal after "and", is also read word by word), and "a first one of the polymer materials"
  introduces "the first polymer material". More introductions claims write: an abbreviation whose letters spell
  its long form ("a radio frequency (RF) section", "a private branch exchange, hereafter PBX, telephony circuit"),
  comma-separated modifiers ("a second, complementary shell"), "a first plurality of receptacles" (for "said first
  receptacles", not for a singular "the first receptacle") and a count ("at least two briseurs", "a pair of arms":
  "the second briseur"), unless the claims introduce ordinals of that noun themselves. A symbol defined as a
  quantity introduces that quantity ("wherein t is the total optical path length"; "R is the side chain" does
  not), a hyphenated noun compound names its nouns ("core-sheath type fibers": the core, the sheath; not
  "co-polymer", "water-soluble"), and a word that may be a modifier heads a phrase that ends before punctuation or
  a verb ("an individual", "the individual is"). A positional word that is a noun as well heads an introduction
  before "of" ("an output of the region"); coordinate adjectives lend the first word to the noun ("a soft, absorbent material", "an inner,
  three-dimensional, insulating, polyester layer"); an introduction cut at a participle is read whole too ("a
  continuous recessed strip portion", "a first lithium ion conducting separator layer"); a plural reference may
  describe the members of "a second plurality of X" ("said second shorter tubular receptacles"); and a
  nominalised action with "step" or "process" names the action ("the communication step" ← "communicating").
  "X of the Y" (or "X at/on/in the Y") introduces the compound "the Y X" too ("the right retainer flange segment" ←
  "a right segment of the retainer flange", "the thermal oxide layer" ← "a layer of a thermal oxide", "said distal
  tip contact electrode" ← "a contact electrode at said distal tip"), and the same modifiers in another order name
  the same element ("the fibrous non-cellulosic material" ← "non cellulosic fibrous material"); a plural
  possessive is its plural noun ("the stops' extensions").
* Inherent parts and properties (MPEP 2173.05(e): "the outer surface of said sphere"): a part, property or abstract
  noun followed by "of" ("the top end of", "the beginning of execution", "the solubility of"), a property standing
  alone ("the temperature") and anything "of a …" ("the steering wheel of a vehicle") need no introduction, unless
  a positional modifier contradicts the explicit introductions of that noun in scope ("the first end of the rod"
  when only "a second end" is introduced), so first/second slips are still found. "thereof" names the owner as
  "of" does, and coordinated parts share the owner after the last ("the lateral circumference and upper portion of
  said chamber", "the detection and treatment of"; not a conjunct with its own determiner or compound noun); a face named after its owner ("the organic tissue surface") is that owner's; an "of" that takes an
  action ("the process of cutting") names a manner. "the body of said shoe" has basis when "body" occurs nowhere
  else in the claim set: a noun the claims return to is an element they track. A part named after its owner
  ("said dome plate outer portion") is the owner's when both are introduced, and so is one the claim gave that owner
  ("the voltage follower output" ← "a voltage follower having an input … and an output"), whatever the part and
  whether the owner is introduced there or named by a reference ("the elevator motor" ← "said elevator having a
  … motor"); a participle compound names its agent or object ("the spring" ← "at least one spring-loaded ball",
  "the dyestuff" ← "a dyestuff-containing layer"; not "well-defined", "T-shaped"); a relation "between"
  named things ("the distance between", "the space between", with its quantity: "the potential difference between"), "for the <nominalisation> of" (a purpose), "the process of:" (product by
  process) and "the resulting solution" need none. A positional noun alone after a preposition of place is an
  adverbial, not a part ("joined at the top by a hinge", "viewed from the top", "exposed to the outside"). In a
  reference "last", "next", "latest" and "previous" pick one of what is named ("the last transition" of
  "successive transitions", "the latest accessed site", "smaller than the previous region"), and "the last turning
  off of ignition" is an event.
* A definite phrase defining a symbol is no reference ("wherein t is the total optical path length"); one naming a
  symbol in place introduces it ("the distance r", "the first depth d1"). Units, formulae and reference directions
  are not elements ("the parts by weight", "the formula HOOC-…", "to the horizontal"), and a formula after a colon
  defines the phrase in place ("the reaction: xCaCl2+ySiO2 → …").
* One element of a kind in scope and a reference that adds a descriptive modifier ("the golf club shaft" when the
  claim has one shaft) has basis: the referent is clear (Energizer v. ITC). A positional or ordinal modifier is never
  added freely ("the second shaft" after "a shaft" is reported).
* Actions: "the determining step", "the adjusting", "said loading", "the notifying means" and "said adding weight
  step" (its object introduced) resolve against an earlier "determining", "adjusting", … in scope, and "the
  determination" against "determining", "the comparison" against "comparing" (not "the first position" against
  "positioned"); such a gerund ends the phrase before a participle or verb ("the towing performed by", "the
  annealing takes place"), as "incident" does after a noun ("the light incident on").
* Scope follows a parent cited by its number alone ("The printhead according to 1, wherein", :func:`spg.parse.
  bare_citation`), which the parser, like the corpus's gold links, leaves independent, and a citation in the
  opening of a claim the gold links leave independent ("The fastener of clam 27", a misspelt "claim").
* Not references: the subject of a dependent claim and anything naming a claim ("The method of claim 1"), set
  phrases ("the same", "the group consisting of", "the art", "the range"), and a few things every claim may name
  ("the Internet", "the ground"). Some set-phrase heads name an element once modified ("the heating step", "the
  recombination event", "the stress equilibration equation"); any does with a positional modifier ("the second
  wavelength range").
* A missing antecedent is reported once: the first occurrence in a claim; it then serves as the introduction for
  the rest of that claim and the claims depending on it. "said first and second members" with neither introduced
  is one phrase, reported once.
* Ambiguity is reported where a dependent claim re-introduces an element its ancestors introduced and referred to
  ("a widget … the widget" in claim 1, "further comprising a widget" in claim 2) and a claim below it refers to it
  ("the widget" in claim 3); the re-introducing claim's own reference means its own, nearest introduction. Only an
  element recited again re-introduces it (after "comprising", "having", "with", "and", a comma or a list label:
  "further comprises (e) a coupler compound"); as the object of an action or a function ("configured to receive a
  rail member", "by forming an organic layer") it names what the claim has. A restatement inside one claim ("a wireless network" in the preamble and again in the body, often with reference numerals) is left
  alone: granted claims are full of it; so is "the widget" after "a first widget" and "a second widget": the
  modifiers keep those apart and granted claims use the short form for what both share. A plural reference, or one
  followed by "of", is never ambiguous ("the lower side of the first substrate"), and neither is a claim of another
  category that cites one ("An apparatus for carrying out the process of claim 1, comprising a column …").

Scope costs O(1) per test and linear time overall: a claim whose ancestors each cite one parent is tested with the
pre/post-order interval of a depth-first walk of the dependency tree (a 9,999-deep chain stays linear); only claims
under a multiple dependency get an explicit ancestor set (a bit set).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spg.forest import Forest
from spg.parse import bare_citation, claim_parents


@dataclass(frozen=True)
class AntecedentFinding:
    """A reference without (or with ambiguous) antecedent basis: ``forest.by_num[claim].text[start:end] == term``."""

    claim: int
    start: int
    end: int
    term: str
    rule: str  # "antecedent" or "antecedent-ambiguous"
    message: str


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
    "bred sped clad paid lost stood understood heard"
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
_F_QUANT, _F_MODIFIER, _F_VERB_S, _F_CLAIM, _F_POSSESSIVE, _F_OBJECT = 1, 2, 4, 8, 16, 32
_CLASS: dict[str, tuple[int, str, str, int, str]] = {}
# On the string of class digits of a claim's tokens, regular expressions find in C what the Python loop needs:
# where a noun phrase may start (a determiner, a content word) and the actions ("-ing", "-ed" words).
_START_RE = re.compile(f"[{_DEF}{_ART}{_AFTER}{_WORD}]")
_ACTION_RE = re.compile(f"[{_ING}{_ED}]")


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


def _singular(word: str) -> str:
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
    elif len(w) > 5 and w.endswith("ly") and w not in _NOT_ADVERB and not w.endswith("assembly"):
        cls = _ADV
    elif len(w) > 4 and w.endswith("ing") and w not in _ING_NOUNS:
        cls = _ING
    elif len(w) > 4 and w.endswith("ed") and not w.endswith("eed"):
        cls = _ED
    else:
        cls = _WORD
    return cls, w, _american(_singular(w) if cls == _WORD else w)


class _Chunk:
    """A noun phrase of claim ``claim`` (index into forest.claims): tokens ``start``..``end`` (exclusive),
    ``words`` singularised with non-restrictive modifiers dropped, head last."""

    __slots__ = ("claim", "start", "end", "words", "definite", "article", "preamble", "subject", "inherent", "raw",
                 "taken", "reintroduces", "clean", "singular", "plural_subject", "complement", "of_named", "forms",
                 "adverb_last", "alone", "same", "implied",
                 "collective", "after", "before", "defines", "parts", "partner", "recited")  # fmt: skip

    def __init__(self, claim: int, start: int, end: int, words: tuple[str, ...], raw: tuple[str, ...]) -> None:
        self.claim, self.start, self.end, self.words, self.raw = claim, start, end, words, raw
        self.definite = self.article = self.preamble = self.subject = self.inherent = self.taken = False
        self.clean = False  # ends where the phrase surely ends (punctuation or a function word next, not "of")
        self.singular = True
        # what a last word read as a bare verb needs: a plural subject ("the arm and the ridge", "the pools") and a
        # complement after it ("… create a wall", "… move through")
        self.plural_subject = self.complement = False
        self.after = ""  # the token right after the phrase (past reference numerals), lower case
        self.before = ""  # the token right before it
        self.defines = False  # it defines a symbol: "wherein t is the total length"
        self.parts: tuple[str, ...] = ()  # nouns a hyphenated compound of it names: "core-sheath" → core, sheath
        self.partner: _Chunk | None = None  # the first conjunct of "the first and second layers", for the second
        self.recited = True  # an introduction recited as an element, not as the object of an action
        self.of_named = False  # "the X of the Y" / "of said Y": X named with an owner the claims name
        self.forms = words  # singular forms aligned with ``raw`` (``words`` drops non-restrictive modifiers)
        self.adverb_last = False  # an adverb stands right before the last word ("said member rotatably moveable")
        self.alone: tuple | None = None  # (words, raw, forms) before a coordination lent it a head it may not share
        self.same: _Chunk | None = None  # the phrase this one reads another way ("a radio frequency (RF) section")
        self.implied = False  # an ordinal a count implies ("two arms": "a first arm")
        self.collective = False  # "first receptacles" from "a first plurality of receptacles": plural references only
        self.reintroduces: _Chunk | None = None


def _token_classes(tokens: list[str]) -> tuple[tuple, ...]:
    """Per-token (class, lowercased form, singular, flags, class as a digit) as five parallel tuples; classes are
    cached per token."""
    classes = list(map(_CLASS.get, tokens))
    if None in classes:
        classes = [c or _new_class(t) for c, t in zip(classes, tokens)]
    return tuple(zip(*classes)) if classes else ((), (), (), (), ())


def _new_class(token: str) -> tuple[int, str, str, int, str]:
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
    )
    got = _CLASS[token] = (kind, low, singular, flags, str(kind))
    return got


def _chunks(tokens: list[str], claim: int, dependent: bool) -> tuple[list[_Chunk], list[tuple[str, int]]]:
    """The noun phrases of one claim's tokens in order, and its action words ("-ing" words used as verbs) with
    their token positions."""
    kinds, lows, sings, flags, digits = _token_classes(tokens)
    digits = "".join(digits)
    n = len(tokens)
    claim_at = _positions(lows, "claim") + _positions(lows, "claims") + _positions(lows, "claimed")
    claim_at.sort()
    first_claim = claim_at[0] if claim_at and dependent else -1
    # "An apparatus for carrying out the process of claim 1": a claim of another category restates what it cites
    restating = dependent and n > 0 and kinds[0] == _ART
    out: list[_Chunk] = []
    actions = [(lows[m.start()], m.start()) for m in _ACTION_RE.finditer(digits)]
    pending: _Chunk | None = None  # "the first and" waits for its head
    one_of: list[tuple[str, ...]] | None = None  # "a first one of", "a pair of" wait for the phrase they pick from
    counted: _Chunk | None = None  # "two cylinders" lends its count to "or briseurs"
    carry = -1  # a noun phrase starting up to here takes the "the" of a phrase with no head before it
    pair = collective = False  # one_of holds the ordinals "a pair of" implies, or a group's ordinal
    # what a phrase lends the one after it: "a second, complementary shell", "a radio frequency (RF) section",
    # "a private branch exchange, hereafter PBX, telephony circuit": (where it must start, the readings it lends)
    lend: tuple[int, list[tuple[str, ...]]] | None = None
    joint: tuple[int, _Chunk] | None = None  # an introduction cut at a participle, and where its noun would start
    search = _START_RE.search
    i = 0
    while True:
        start = search(digits, i)
        if start is None:
            break
        i = start.start()
        cls = kinds[i]
        j = i
        if cls in (_DEF, _ART):
            j = i + 1
            while j + 1 < n and flags[j] & _F_QUANT and (kinds[j + 1] not in _BREAKS or flags[j + 1] & _F_QUANT):
                j += 1  # "a plurality of", "the at least one", "one or more", "two"
        k = j
        while k < n and kinds[k] == _ADV:
            k += 1
        if k >= n or kinds[k] in _BREAKS:
            i = k if k > i else i + 1
            continue
        k += 1
        while k < n and k - j < 8 and not flags[k - 1] & _F_POSSESSIVE:  # "the user's skin": the user is meant
            c = kinds[k]
            if c == _WORD:
                if (
                    k + 1 < n
                    and flags[k + 1] & _F_OBJECT
                    and (flags[k] ^ flags[k - 1]) & _F_VERB_S
                    and kinds[k - 1] != _ED
                    # an adverb and a participle after a plural noun are a reduced relative clause, not a verb's
                    # object: "a plurality of retention members integrally attached to said housing"
                    and not (flags[k] & _F_VERB_S and kinds[k + 1] == _ADV and k + 2 < n and kinds[k + 2] == _ED)
                ):
                    # a verb with its object, agreeing with its noun: "the controller detects a signal", "the
                    # loss calculators receive an input"; not after an "-ed" participle, which modifies the noun that
                    # follows it ("said elongated sections to receive")
                    break
                if k + 1 < n and lows[k + 1] == "than":  # a comparative: "the ring portion thinner than …"
                    break
                if k + 3 < n and lows[k + 1] == "in" and lows[k + 3] == "than" and lows[k].endswith("er"):
                    break  # and one with its dimension: "tubular receptacles shorter in length than …"
                if lows[k] in _PARTICIPLES_ONLY and (k + 1 >= n or kinds[k + 1] in _BREAKS):
                    # an irregular past participle after a noun, with no noun after it, is a reduced relative
                    # clause as an "-ed" participle is: "a body made of", "the information sent in", "the
                    # welder set at" (read in judge) — not part of the noun phrase
                    break
            elif c == _ADV:
                pass
            elif c == _AFTER and k + 1 < n and kinds[k + 1] == _WORD and _POSITIONAL.issuperset(lows[j:k]):
                # after ordinals alone, "adjacent", "opposite", … modify the noun that follows: "first and second
                # adjacent corners", "a second opposite end" (after a noun they start a predicate: "a wall adjacent")
                pass
            elif c in _BREAKS or c == _AFTER:
                break
            elif (
                not flags[k - 1] & _F_MODIFIER
                # after a word that may be a noun too, a participle with no noun after it starts a reduced
                # relative clause: "an individual based on", "an output connected to the bus"
                or (c == _ED and lows[k - 1] in _PRONOMINAL and (k + 1 >= n or kinds[k + 1] not in (_WORD, _ED, _ING)))
            ) and not (
                c == _ING
                and k + 1 < n
                and kinds[k + 1] == _WORD
                and not flags[k + 1] & _F_VERB_S
                and (k + 2 >= n or kinds[k + 2] != _WORD)
            ):
                # a participle ends the phrase ("a layer deposited on", "a loader specifying the …") unless it
                # follows a modifier ("the selected decoded stream", "the first cutting edge") or stands in a
                # compound before a last singular noun ("the latch holding ledge", "the exception handling routine")
                break
            k += 1
        adverb_last = False
        if _ADV in kinds[j:k]:
            raw = tuple(lows[m] for m in range(j, k) if kinds[m] != _ADV)
            kept = tuple(sings[m] for m in range(j, k) if kinds[m] != _ADV)
            adverb_last = kinds[k - 2] == _ADV and len(raw) > 1
        else:
            raw, kept = lows[j:k], sings[j:k]
        forms = kept
        nxt = lows[k] if k < n else ""
        if nxt == "(":  # reference numerals: "a first portion (108) of …" reads on after them
            close = next((m for m in range(k + 1, min(n, k + 12)) if lows[m] == ")"), -1)
            nxt = lows[close + 1] if 0 < close < n - 1 else nxt
        if (
            cls not in (_DEF, _ART)
            and nxt in ("and", "or")
            and raw[-1] in _ORDINALS_SET
            and k + 1 < n
            and lows[k + 1] in _ORDINALS_SET
            and len(raw) == k - j
            and not _ORDINALS_SET.issuperset(raw)
        ):
            # an ordinal coordinated with another opens a noun phrase of its own ("first and second flow paths"):
            # the word before it, with no article between, is the verb that takes that phrase ("the compartments
            # respectively define first and second flow paths", "each having first and second ends")
            m = len(raw)
            while raw[m - 1] in _ORDINALS_SET:
                m -= 1
            i = j = j + m
            raw, kept, forms = raw[m:], kept[m:], forms[m:]
        # a phrase of words that may be modifiers or nouns has a head when it ends before punctuation or a verb:
        # "administering to an individual", "the individual is human" (the idioms, "the foregoing", are set
        # phrases below)
        noun = _NON_RESTRICTIVE.issuperset(raw) and (
            k >= n
            or kinds[k] in (_PUNCT, _ED)
            or nxt in _CLAUSE_AFTER_HEAD
            or nxt in _IRREGULAR_PARTICIPLES
            or (nxt in ("and", "or") and k + 1 < n and kinds[k + 1] in (_DEF, _ART))
            or (nxt == "at" and k + 1 < n and lows[k + 1] not in ("least", "most"))
            or (nxt == "of" and cls == _ART)  # "an individual of": an article's phrase before "of" has its noun
        )
        # a positional word that is a noun too heads an introduction before "of": "an output of the region" is
        # an output, where "a first of" is a pronoun
        noun = noun or (cls == _ART and nxt == "of" and len(raw) == 1 and raw[0] in _POSITIONAL_NOUNS)
        if not noun and (
            (nxt in ("one", "ones", "of") and _PRONOMINAL.issuperset(raw)) or _NON_RESTRICTIVE.issuperset(raw)
        ):
            i = k  # "the first of", "the selected ones", "the corresponding said areas": pronouns, not noun phrases
            if cls == _ART and _POSITIONAL.issuperset(kept):
                one_of = [kept]  # "a first one of the polymer materials" introduces "a first polymer material"
            continue
        if (
            cls == _DEF
            and k < n
            and all(kinds[m] in (_ED, _ADV) or _modifier_only(lows[m]) for m in range(j, k))
            and (
                nxt in ("one", "ones")
                or (kinds[k - 1] == _ED and (nxt in ("other", "and", "or") or kinds[k] == _NUM))
                # coordinate participles, a comma between: "said stretched, flattened strand"
                or (kinds[k - 1] == _ED and nxt == "," and k + 2 < n and kinds[k + 1] == _ED and kinds[k + 2] == _WORD)
            )
        ):
            # "the" opens a phrase whose head comes later: before "one", the words are a pronoun's modifiers ("the
            # fallen upper one of the covers", "the identified one or more computers"); participles alone have no
            # head ("the displayed other PCDs", "the captured 360 video content", "the compressed and encoded
            # video", "said stretched, flattened strand"). The noun phrase that follows, if it has no determiner, is
            # the reference.
            carry = k + 4
            i = k
            continue
        if not _NON_RESTRICTIVE.isdisjoint(raw):
            kept = tuple(w for w, r in zip(kept, raw) if r not in _NON_RESTRICTIVE) or kept[-1:]
            if raw[-1] in _NON_RESTRICTIVE and kept[-1] != forms[-1] and _PRONOMINAL.issuperset(raw):
                kept += forms[-1:]  # "the first individual": the last word is the head ("the amount present": no)
        if cls == _DEF and raw[-1] not in _RELATIONAL and not _RELATIONAL.isdisjoint(raw):
            # in a reference, "last", "next" and "previous" pick one of what is named ("the last light/dark
            # transition" of "successive transitions", "the next frame", "each successive region is smaller than the
            # previous region"); in an introduction they set it apart ("a next recipient")
            kept = tuple(w for w in kept if w not in _RELATIONAL)
        ch = _Chunk(claim, i, k, kept, raw)
        ch.forms, ch.adverb_last = forms, adverb_last
        ch.definite = cls == _DEF or (cls != _ART and i <= carry)
        carry = -1
        ch.article = cls == _ART and j == i + 1
        ch.preamble = i < first_claim or restating
        if ch.article:
            # recited as an element of its own: after "comprising", "having", "with", "and", a comma or a list
            # label ("further comprises (e) a coupler compound"); not the object of an action or a function ("to
            # receive a rail member", "by forming an organic layer"), which names what the claim already has
            b = i - 1
            if b > 0 and lows[b] == ")":
                b = next((m - 1 for m in range(b - 1, max(b - 6, -1), -1) if lows[m] == "("), b)
            ch.recited = b < 0 or kinds[b] == _PUNCT or lows[b] in _RECITING
        ch.clean = (k >= n or kinds[k] in _BREAKS) and not flags[k - 1] & _F_POSSESSIVE and nxt != "of"
        last = k - 1
        if kinds[last] == _ADV:
            while last > i and kinds[last] == _ADV:
                last -= 1  # "retention members integrally attached": the noun, not the adverb after it, has the number
        ch.singular = not flags[last] & _F_VERB_S
        if ch.definite:
            ch.of_named = nxt == "of" and k + 1 < n and kinds[k + 1] == _DEF
            ch.plural_subject = (i > 0 and lows[i - 1] == "and") or (k - j > 1 and bool(flags[k - 2] & _F_VERB_S))
            ch.complement = k < n and (kinds[k] in (_DEF, _ART, _ADV) or lows[k] in _COMPLEMENTS)
            ch.after, ch.before = nxt, lows[i - 1] if i > 0 else ""
            if nxt == "to" and k + 1 < n and kinds[k + 1] in (_DEF, _ART):
                ch.after = "to the"  # a preposition, not the infinitive's "to"
            elif (
                nxt in ("and", "or")
                and k + 2 < n
                and all(len(w) > 6 and w.endswith(("able", "ible")) for w in (lows[k - 1], lows[k + 1]))
            ):
                # coordinate predicate adjectives share the complement after the second: "said second panel
                # openable and closeable with respect to said first panel" (read as "openable with respect to")
                ch.after = lows[k + 2]
            # a definition, not a reference: "wherein t is the total optical path length"; a quantity it defines
            # is introduced by it, for the claim and the claims depending on it ("the total optical path length
            # (t) is adjusted" in a dependent claim)
            ch.defines = i > 1 and lows[i - 1] in _DEFINING and _symbol(tokens[i - 2]) and lows[i - 2] not in _STOP
            ch.subject = (
                ch.defines
                or "following" in raw
                or raw[0] in _SET_PHRASES
                or (dependent and i == 0)
                or (bool(claim_at) and _names_claim(kinds, k, claim_at))
                # a reference direction: "at an angle of 30° to the horizontal"
                or raw in (("horizontal",), ("vertical",))
                # a unit, not an element: "based on the parts by weight"
                or (nxt == "by" and k + 1 < n and lows[k + 1] in ("weight", "mass", "volume"))
            )
            head = ch.words[-1]
            owned = nxt == "of" and k + 1 < n and kinds[k + 1] == _ART  # "the steering wheel of a vehicle"
            ch.inherent = (
                owned
                # "the end edge thereof" names its owner as "the end edge of …" does
                or (nxt in ("of", "thereof") and (head in _PARTS or head.endswith(_ABSTRACT)))
                # coordinated parts share the owner after the last: "the lateral circumference and upper portion
                # of said treatment chamber", "the start and end of diastasis"
                or (
                    nxt in ("and", "or")
                    and (head in _PARTS or head.endswith(_ABSTRACT))
                    and _shares_owner(kinds, lows, sings, k + 1)
                )
                or (
                    head in _PROPERTIES
                    and _MEASURES.issuperset(ch.words[:-1])
                    # "the temperature and pressure sensors" names sensors; "the size and shape" two properties
                    and (
                        nxt not in ("and", "or")
                        or (k + 2 < n and sings[k + 1] in _PROPERTIES and kinds[k + 2] in _BREAKS)
                    )
                )
                or (nxt == "of" and kinds[j] == _ING and k == j + 1)  # "the playing of the message"
                # and one picked by "last", "next", with its particle: "the last turning off of ignition" is an event
                or (
                    kinds[k - 1] == _ING
                    and k - j > 1
                    and _RELATIONAL.issuperset(lows[j : k - 1])
                    and (nxt == "of" or (nxt in ("off", "on", "up", "down", "out") and k + 1 < n and lows[k + 1] == "of"))
                )
                # a positional noun alone after a preposition of place, with no owner after it, is an adverbial of
                # place, not an element: "joined at the top by a hinge", "viewed from the top", "tilt to the side",
                # "exposed to the outside"
                or (
                    k == j + 1
                    and head in _LOCATIVE
                    and i > 0
                    and lows[i - 1] in _LOCATIVE_PREPOSITIONS
                    and nxt not in ("of", "thereof")
                    and (k >= n or kinds[k] in (_PUNCT, _STOPW, _AFTER))
                )
                # a relation of the things named after it: "the distance between said means and the object"; a
                # property before it says what quantity it relates ("the potential difference between the anode
                # and the cathode", "the temperature difference between"), which is no element either
                or (
                    nxt == "between"
                    and head in _RELATIONS
                    and all(w in _MEASURES or w in _PROPERTIES for w in ch.words[:-1])
                )
                # a noun whose "of" takes an action names how something is done: "the entire process of cutting"
                or (nxt == "of" and k + 1 < n and kinds[k + 1] == _ING)
                # the same with its list of actions after a colon: "a pot holder made by the process of: providing
                # a cloth; folding …" (product-by-process)
                or (nxt == "of" and k + 2 < n and lows[k + 1] == ":" and kinds[k + 2] == _ING)
                # a purpose, "for the <action> of": "an enclosure for the reception therein of feed", "a network for
                # the automated processing of calls" names what is done, not an element
                or (
                    i > 0
                    and lows[i - 1] == "for"
                    and head.endswith(_NOMINAL_SUFFIXES)
                    and (nxt == "of" or (nxt[:5] == "there" and k + 1 < n and lows[k + 1] == "of"))
                )
            )
        if (
            ch.definite
            and len(raw) > 1
            and (len(raw[-1]) == 1 or (len(raw[-1]) <= 3 and raw[-1][-1].isdigit()) or raw[0] == "resulting")
        ):
            # a name given in place defines what it names: "the distance r", "the first depth d1", "the pump P3";
            # "the resulting solution" names what the step just recited yields
            ch.definite = False
        elif ch.definite and nxt == ":" and k + 1 < n and _formula(tokens[k + 1]):
            # a formula after a colon defines what the phrase names in place: "the reaction: xCaCl2+ySiO2 → …"
            # (a list after a colon, "the steps of: providing …", starts with a word)
            ch.definite = False
        if pending is not None:  # "the first and second layers": each ordinal takes the shared head
            if i <= pending.end + 2 and ch.words[-1] not in _POSITIONAL:
                if ch.words[0] not in _POSITIONAL:
                    # "a front and a rearward end" shares a head, "the input and the convolutional network" does
                    # not: without an ordinal opening the second conjunct, the word alone is read too
                    pending.alone = (pending.words, pending.raw, pending.forms)
                # the ordinal takes everything the second conjunct names after its own ordinals: "first and second
                # hinge pin assemblies" introduces "a first hinge pin assembly" and "a second hinge pin assembly"
                lead = next(m for m, w in enumerate(ch.words) if w not in _POSITIONAL)
                lead_raw = next(m for m, w in enumerate(raw) if w not in _POSITIONAL)
                pending.words, pending.raw = pending.words + ch.words[lead:], pending.raw + raw[lead_raw:]
                pending.forms = pending.forms + forms[lead_raw:]
                ch.definite = ch.definite or (pending.definite and pending.alone is None)
                ch.partner = pending  # one phrase: reported once
            elif i > pending.end + 2 or not ch.definite:
                # "the first or, if present, fourth columns": too far to read, so not judged
                pending.subject = True
            # else two positional nouns, each with its article ("the front and the rear"): each is read alone
            pending = None
        if nxt in ("and", "or") and _POSITIONAL.issuperset(ch.words):
            pending = ch
        out.append(ch)
        if joint is not None:
            if i == joint[0] and not ch.definite and not ch.article:
                # the participle was a modifier inside one compound after all: "a continuous recessed strip
                # portion", "a first lithium ion conducting separator layer" are read whole too, so "said continuous
                # strip portion" and "the first layer" have basis (a verb and its object read so name nothing a
                # reference would name)
                before = joint[1]
                part = _Chunk(claim, before.start, k, before.words + (sings[i - 1],) + ch.words, before.raw + raw)
                part.article, part.same = before.article, ch
                out.append(part)
            joint = None
        if not ch.definite and k + 1 < n and kinds[k] in (_ED, _ING) and kinds[k + 1] == _WORD and "-" not in lows[k]:
            joint = k + 1, ch
        if one_of is not None:
            if not ch.singular:
                for picked in one_of:
                    part = _Chunk(claim, i, k, picked + tuple(w for w in ch.words if w not in _POSITIONAL), raw)
                    part.article, part.same, part.implied, part.collective = True, ch, pair, collective
                    out.append(part)
            one_of, pair, collective = None, False, False
        if lend is not None and i >= lend[0]:
            relay = None
            if i == lend[0] and not ch.definite and not ch.article and ch.words[0] not in _POSITIONAL:
                for lead in lend[1]:
                    part = _Chunk(claim, i, k, lead + ch.words, raw)
                    part.article, part.same = True, ch
                    out.append(part)
                if len(raw) == 1 and raw[0].endswith(_ADJECTIVE_ENDINGS) and k + 2 < n and lows[k] == ",":
                    # coordinate adjectives go on to the noun: "an inner, three-dimensional, insulating, polyester
                    # layer" is an inner polyester layer
                    relay = _past_adjectives(kinds, lows, k + 1), [lead + ch.words for lead in lend[1]]
            lend = relay
        if lend is None and not ch.definite and k + 2 < n and lows[k] in ("(", ","):
            lend = _lends(ch, tokens, kinds, lows, k)
            if lend is not None and lend[1] and lend[1][-1][-1] != ch.words[-1]:
                # the abbreviation names the phrase it follows: "a source Mobility Management Network Element
                # (MMNE)" introduces "a source MMNE"
                part = _Chunk(claim, i, k, lend[1][-1], raw)
                part.article = True
                out.append(part)
        if cls == _ART and nxt == "of" and len(kept) > 1 and kept[-1] in _GROUPS and _POSITIONAL.issuperset(kept[:-1]):
            # "a first plurality of receptacles" introduces "first receptacles": "said first receptacles" are its
            # members, but "the first receptacle" would not say which one
            one_of, collective = [kept[:-1]], True
        elif cls == _ART and nxt == "of" and kept == ("pair",):
            one_of = [("first",), ("second",)]  # "a pair of arms": a first and a second arm
            pair = True
        if not ch.definite and not ch.singular:
            # a count gives its members ordinals (MPEP 2173.05(e) accepts "the second briseur" after "at least two
            # briseurs"): "two imaging devices" introduces "a first imaging device" and "a second imaging device";
            # the count reaches a plural coordinated right after it ("two opening cylinders or briseurs")
            count = _CARDINALS.get(raw[0], 0)
            if not count and counted is not None and i == counted.end + 1 and lows[i - 1] in ("or", "and"):
                count = _CARDINALS[counted.raw[0]]
                rest = ch.words
            else:
                rest = ch.words[1:]
            if count and rest:
                for ordinal in _ORDINALS[:count]:
                    part = _Chunk(claim, i, k, (ordinal,) + rest, raw)
                    part.article, part.same, part.implied = True, ch, True
                    out.append(part)
                counted = ch if raw[0] in _CARDINALS else counted
        i = k + 1 if k < n and lows[k] in _PARTICIPLES_ONLY and kinds[k] == _WORD else k  # not a phrase of its own
    if actions:  # an "-ing" word inside a noun phrase ("a loading station") names no action
        inside = {m for ch in out for m in range(ch.start, ch.end)}
        actions = [a for a in actions if a[1] not in inside]
        # a participle compound outside any phrase ("at least one spring-loaded ball", "from dyestuff-containing
        # media") still names its noun: an introduction of it, in its place
        count = len(out)
        for w, t in actions:
            if "-" in w:
                out.extend(_Chunk(claim, t, t + 1, (noun,), (noun,)) for noun in _participle_noun(w.split("-")))
        if len(out) > count:
            out.sort(key=lambda c: c.start)
    return out, actions


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


def _past_adjectives(kinds: tuple[int, ...], lows: tuple[str, ...], at: int) -> int:
    """Where the phrase after a comma starts once coordinate participles, each with its comma, are passed: "an
    inner, insulating, polyester layer"."""
    while at + 1 < len(lows) and kinds[at] in (_ING, _ED) and lows[at + 1] == ",":
        at += 2
    return at


def _lends(ch: _Chunk, tokens: list[str], kinds: tuple[int, ...], lows: tuple[str, ...], k: int) -> tuple[int, list[tuple[str, ...]]] | None:
    """What an introduction ending at token ``k`` lends the phrase right after a comma, a parenthesised
    abbreviation or ", hereafter ABBR,": (the token that phrase must start at, the words it takes before its own).
    When an abbreviation is defined, the last reading is the phrase with the abbreviation for its long form."""
    after = lows[k]
    if after == "," and _POSITIONAL.issuperset(ch.words) and ch.article:
        # coordinate modifiers: "a second, complementary half-cylinder shell" is a second half-cylinder shell
        return _past_adjectives(kinds, lows, k + 1), [ch.words]
    if (
        after == ","
        and ch.article
        and len(ch.words) == 1
        and k + 2 < len(lows)
        and kinds[k + 1] not in _BREAKS
        and lows[k + 1].endswith(_ADJECTIVE_ENDINGS)
    ):
        # a word alone after its article and before a comma and an adjective is a coordinate adjective ("a soft,
        # absorbent material" is a soft absorbent material): nouns in a list each take their own article
        return k + 1, [ch.words]
    if after == "(" and lows[k + 2] == ")" and _abbreviation(tokens[k + 1]):
        short, start = tokens[k + 1], k + 3
    elif after == "," and lows[k + 1] in ("hereafter", "hereinafter") and k + 3 < len(lows):
        if not _abbreviation(tokens[k + 2]) or lows[k + 3] != ",":
            return None
        short, start = tokens[k + 2], k + 4
    else:
        return None
    forms = [w for w, r in zip(ch.forms, ch.raw) if r not in _NON_RESTRICTIVE]
    at = _expansion(short, tuple(ch.raw))
    if at < 0 or len(forms) != len(ch.raw):
        return None
    return start, [ch.words, tuple(forms[:at]) + (_american(_singular(short.lower())),)]


def _positions(words: tuple[str, ...], word: str) -> list[int]:
    """Every index of ``word`` in ``words`` (tuple.index searches in C)."""
    out: list[int] = []
    at = -1
    try:
        while True:
            at = words.index(word, at + 1)
            out.append(at)
    except ValueError:
        return out


def _names_claim(kinds: tuple[int, ...], k: int, claim_at: list[int]) -> bool:
    """Whether "claim(s)" follows within nine tokens without punctuation: "The method of claim 1", "the apparatus
    as claimed in any preceding claim"."""
    at = next((m for m in claim_at if m >= k), -1)
    return 0 <= at - k < 9 and all(kinds[m] != _PUNCT for m in range(k, at))


class _Ancestry:
    """``is_ancestor(a, c)`` for claim indices in O(1): tree intervals, bit sets under multiple dependency."""

    def __init__(self, forest: Forest) -> None:
        index = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
        self.parents = [
            sorted({index[p] for p in c.parents if p in index and index[p] < i}) for i, c in enumerate(forest.claims)
        ]
        for i, c in enumerate(forest.claims):
            if not self.parents[i]:
                # "The printhead according to 1, wherein said notch …": a parent cited by its number alone is the
                # claim's scope all the same (the parser leaves such a claim independent, as the gold links do)
                cited = bare_citation(c.text, c.num)
                if cited is not None and cited in index and index[cited] < i:
                    self.parents[i] = [index[cited]]
                elif "cl" in c.text[:60].lower():
                    # "The fastener of clam 27, wherein the cushion members …": a citation in the opening that the
                    # gold links (USPTO reference tags) do not know, a misspelt "claim", is the claim's scope too;
                    # the parser reads it (claim_parents), only the links handed to it leave the claim independent
                    self.parents[i] = sorted(
                        {index[n] for n in claim_parents(c.text[:60], c.num) if n in index and index[n] < i}
                    )
        n = len(self.parents)
        children: list[list[int]] = [[] for _ in range(n)]
        self.multi = [False] * n  # the claim or one of its ancestors cites several parents
        for i, ps in enumerate(self.parents):
            self.multi[i] = len(ps) > 1 or any(self.multi[p] for p in ps)
            if len(ps) == 1:
                children[ps[0]].append(i)
        self.tin, self.tout = [0] * n, [0] * n
        clock = 0
        for root in range(n):
            if len(self.parents[root]) == 1:
                continue
            stack = [(root, False)]
            while stack:  # iterative: a 9,999-deep chain must not hit the recursion limit
                node, done = stack.pop()
                if done:
                    self.tout[node] = clock
                else:
                    self.tin[node] = clock
                    stack.append((node, True))
                    stack.extend((child, False) for child in children[node])
                clock += 1
        self.bits: dict[int, int] = {}

    def bits_of(self, c: int) -> int:
        """Ancestors of a claim under a multiple dependency, as a bit set (memoised, walked without recursion)."""
        stack = [c]
        while stack:
            node = stack[-1]
            if node in self.bits:
                stack.pop()
                continue
            pending = [p for p in self.parents[node] if p not in self.bits]
            if pending:
                stack.extend(pending)
                continue
            got = 0
            for p in self.parents[node]:
                got |= (1 << p) | self.bits[p]
            self.bits[node] = got
            stack.pop()
        return self.bits[c]

    def is_ancestor(self, a: int, c: int) -> bool:
        if a >= c:
            return False
        if not self.multi[c]:
            return self.tin[a] < self.tin[c] and self.tout[c] < self.tout[a]
        return bool(self.bits_of(c) >> a & 1)


def _contradicts(mods: tuple[str, ...], introduced: list[_Chunk]) -> bool:
    """Whether a positional modifier of a reference excludes every introduction of its head in scope."""
    for m in mods:
        group = _CONTRAST.get(m)
        if (
            group is not None
            and not any(m in c.words for c in introduced)
            and any(_CONTRAST.get(w) == group for c in introduced for w in c.words[:-1])
        ):
            return True
    return False


def _ends_with(words: tuple[str, ...], head: str) -> bool:
    """Whether a phrase ends in ``head``, or would have but for a participle after it ("a layer covering …")."""
    last = len(words) - 1
    return any(w == head and (j == last or words[j + 1].endswith(("ing", "ed"))) for j, w in enumerate(words))


def _supports(intro: _Chunk, head: str, mods: tuple[str, ...]) -> bool:
    """Whether ``intro`` holds ``head`` with every modifier in ``mods`` before it ("a first panel element" supports
    "the element", "the panel" and "the first panel element", not "the second panel element")."""
    words = intro.words
    if not mods:
        return head in words or head in intro.parts
    for j in range(len(words) - 1, 0, -1):
        if words[j] == head:
            before = words[:j]
            if not [m for m in mods if m not in before]:
                return True
    return False


def _spells(words: tuple[str, ...], target: str, headed: bool = False) -> bool:
    """Whether consecutive words (or hyphenated parts) of ``words``, ending at the end of a word (with ``headed``,
    of the last word), join to ``target``."""
    parts = [(part, m == len(w.split("-")) - 1) for w in words for m, part in enumerate(w.split("-"))]
    for end in range(len(parts) - 1, -1, -1):
        if not parts[end][1]:
            continue
        if headed and end < len(parts) - 1:
            break
        joined = ""
        for i in range(end, -1, -1):
            joined = parts[i][0] + joined
            if joined == target:
                return True
            if len(joined) >= len(target):
                break
    return False


def _stem(verb: str) -> str:
    """ "determining", "determined" → "determin": what a gerund, a participle and a nominalisation share."""
    return verb[:-3] if verb.endswith("ing") else verb[:-2] if verb.endswith("ed") else verb


class _Reader:
    """One forest's state while its claims are read in order."""

    def __init__(self, forest: Forest) -> None:
        self.claims = forest.claims
        self.ancestry = _Ancestry(forest)
        self.index: dict[str, list[_Chunk]] = {}  # word → introductions holding it, in reading order
        self.acted: dict[str, list[tuple[int, int, str]]] = {}  # action prefix → (claim, token, word)
        self.spans: dict[int, list[tuple[int, int]]] = {}  # claim → character offsets of its tokens
        self.text = ""  # the whole claim set in lower case, joined only where a finding needs it
        self.named: dict[tuple[int, int], _Chunk] = {}  # (claim, end token) → a definite reference with basis

    def mentions(self, word: str) -> int:
        """How often ``word`` occurs in the claim set (as a substring: an over-count only keeps a finding)."""
        if not self.text:
            self.text = " ".join(c.text for c in self.claims).lower()
        return self.text.count(word)

    def span(self, ch: _Chunk) -> tuple[int, int]:
        """Character offsets of a chunk in its claim's text (tokens are only located where a finding needs them)."""
        spans = self.spans.get(ch.claim)
        if spans is None:
            spans = self.spans[ch.claim] = [m.span() for m in _TOKEN_RE.finditer(self.claims[ch.claim].text)]
        return spans[ch.start][0], spans[ch.end - 1][1]

    def quote(self, ch: _Chunk) -> str:
        start, end = self.span(ch)
        return f"'{self.claims[ch.claim].text[start:end]}' (claim {self.claims[ch.claim].num})"

    def in_scope(self, claim: int, token: int, ref: _Chunk) -> bool:
        return (claim == ref.claim and token < ref.start) or self.ancestry.is_ancestor(claim, ref.claim)

    def introduce(self, ch: _Chunk) -> None:
        if ch.article and ch.clean and not ch.preamble and ch.recited:
            earlier = self.matches(ch, ch.words[-1], ch.words[:-1], exact=True)
            if earlier and earlier[0].taken and earlier[0].claim != ch.claim and earlier[0].same is None:
                ch.reintroduces = earlier[0]
        index = self.index
        for w in ch.words:  # a word twice in one phrase lists it twice: harmless, matches() stops at two
            got = index.get(w)
            if got is None:
                index[w] = [ch]
            else:
                got.append(ch)
            if "-" in w:  # "a strip-line" is found for "the strip line" too (compounded())
                index.setdefault(w.replace("-", ""), []).append(ch)
                parts = _compound_nouns(w)
                if parts:
                    ch.parts += parts
                    for part in parts:
                        index.setdefault(part, []).append(ch)

    def act(self, claim: int, actions: list[tuple[str, int]]) -> None:
        for word, token in actions:
            stem = _stem(word)
            if len(stem) > 2:
                self.acted.setdefault(stem[:3], []).append((claim, token, stem))

    def matches(
        self,
        ref: _Chunk,
        head: str,
        mods: tuple[str, ...],
        exact: bool = False,
        headed: bool = False,
        explicit: bool = False,
        ending: bool = False,
    ) -> list[_Chunk]:
        """Introductions in ``ref``'s scope that support (head, mods), most recent first (at most two); ``exact``:
        only those reading exactly so, ``headed``: only those whose head is ``head``, ``explicit``: not the
        ordinals a count implies, ``ending``: only those whose last word is ``head``."""
        out = []
        claim, start, anc, singular = ref.claim, ref.start, self.ancestry, ref.singular
        # the scope test of in_scope, unrolled: it runs for every candidate of every reference
        multi = anc.multi[claim]
        bits = anc.bits_of(claim) if multi else 0
        tin, tout = anc.tin, anc.tout
        tin_c, tout_c = tin[claim], tout[claim]
        for c in reversed(self.index.get(head, ())):
            cc = c.claim
            if cc == claim:
                if c.start >= start:
                    continue
            elif multi:
                if not bits >> cc & 1:
                    continue
            elif not (tin[cc] < tin_c and tout_c < tout[cc]):
                continue
            if (headed and not _ends_with(c.words, head)) or (explicit and c.implied) or (c.collective and singular):
                continue
            if ending and c.words[-1] != head:
                continue
            if (c.words[-1] == head and c.words[:-1] == mods) if exact else _supports(c, head, mods):
                out.append(c)
                if len(out) == 2:
                    break
        return out

    def find(self, ref: _Chunk, head: str, mods: tuple[str, ...], explicit: bool = False) -> list[_Chunk]:
        """:meth:`matches`, and if none, again without the reference's participle modifiers ("the heated gas" ←
        "a gas")."""
        found = self.matches(ref, head, mods, explicit=explicit)
        if not found and any(r.endswith(("ed", "ing")) for r in ref.raw[:-1]):
            plain = tuple(w for w, r in zip(mods, ref.raw) if not r.endswith(("ed", "ing")))
            found = self.matches(ref, head, plain, explicit=explicit)
        return found

    def ordinals_named(self, ref: _Chunk, head: str) -> bool:
        """Whether an explicit introduction in ``ref``'s scope gives ``head`` an ordinal ("a first strap section")."""
        return any(
            not c.implied
            and c.words[-1] == head
            and not _ORDINALS_SET.isdisjoint(c.words)
            and self.in_scope(c.claim, c.start, ref)
            for c in self.index.get(head, ())
        )

    def owned_part(self, ref: _Chunk, words: tuple[str, ...]) -> bool:
        """ "said dome plate outer portion" ← "a dome plate having … an outer portion": a part named after its owner
        (the outer portion of said dome plate) has basis when the owner is an element in scope and the part, with
        its positional modifiers, is introduced in scope. The owner carries no positional modifier of its own."""
        for s in range(1, len(words) - 1):
            owner, part = words[:s], words[s:]
            if not _POSITIONAL.isdisjoint(owner):
                break
            if _POSITIONAL.isdisjoint(part[:-1]):
                continue  # an unmodified face is the rule above
            if self.matches(ref, owner[-1], owner[:-1], headed=True, explicit=True) and self.matches(
                ref, part[-1], part[:-1], explicit=True
            ):
                return True
        return False

    def has_part(self, ref: _Chunk, owner: tuple[str, ...], in_scope: list[_Chunk]) -> bool:
        """ "the voltage follower output" ← "a voltage follower having an input and an output": a part named after
        its owner has basis when the claim introduced the part as the owner's: the owner's introduction followed
        by "having", "comprising", "with" … and, within a few words, the part (MPEP 2173.05(e)). The owner may be
        named by a reference with basis as well ("said elevator having a … motor": "the elevator motor"), and the
        part may be any element, not only a part or property: what a claim says an element has is that element's.
        Such an element must follow the verb directly ("having a … motor"): "detect contact with the object and
        produce a pressure signal" gives "contact" no signal."""
        direct = ref.words[-1] not in _PARTS
        parts = [c for c in in_scope if not c.definite and not c.implied]
        if not parts:
            return False
        pairs = [
            (o, c)
            for o in self.matches(ref, owner[-1], owner[:-1], headed=True, explicit=True, ending=True)
            for c in parts
            if c.claim == o.claim and o.end <= c.start <= o.end + 20
        ]
        # an owner named by a reference, looked up by where it ends (a constant number of places per part: no scan
        # of every reference of the claim set)
        named = self.named
        for c in parts:
            for end in range(c.start, max(c.start - 21, 0), -1):
                d = named.get((c.claim, end))
                if d is not None and d.words == owner and self.in_scope(d.claim, d.start, ref):
                    pairs.append((d, c))
        for o, c in pairs:
            text = self.claims[c.claim].text
            between = text[self.span(o)[1] : self.span(c)[0]]
            if direct:
                if _HAVING_ONLY_RE.fullmatch(between):
                    return True
            elif _HAVING_RE.match(between) and not re.search(r"[;.]", between):
                return True
        return False

    def of_owner(self, ref: _Chunk, in_scope: list[_Chunk]) -> bool:
        """ "the right retainer flange segment" ← "a right segment of the retainer flange", "the thermal oxide layer"
        ← "a layer of a thermal oxide": "X of the Y" and the compound "the Y X" are one element (a noun names its
        owner or material before it or after it with "of"; MPEP 2173.05(e) asks only that the referent be clear), and
        so are "X at/on/in the Y" and "the Y X" ("said distal tip contact electrode" ← "a contact electrode at said
        distal tip"). The reference must read the introduction's modifiers and the owner as the introduction's
        phrase writes it, whole, the owner before or after those modifiers, then its head: a swapped or added
        first/second, inlet/outlet … modifier still finds nothing."""
        words = ref.words
        for c in in_scope:
            k = len(c.words) - 1
            if c.definite or c.implied or len(words) - 1 <= k:
                continue
            if words[:k] == c.words[:-1]:
                owner = words[k:-1]  # "the right retainer flange segment" ← "a right segment of the retainer flange"
            elif words[-k - 1 :] == c.words:
                owner = words[: -k - 1]  # "said distal tip contact electrode" ← "a contact electrode at said distal tip"
            else:
                continue
            text = self.claims[c.claim].text
            end = self.span(c)[1]
            got = _OF_OWNER_RE.match(text, end)
            if got is None:
                continue
            tail = _TOKEN_RE.findall(text[got.end() : got.end() + 120])
            n = len(owner)
            if (
                len(tail) >= n
                and tuple(_american(_singular(t.lower())) for t in tail[:n]) == owner
                # the owner ends there: punctuation, a function word or nothing after it, not a noun it modifies
                and (len(tail) == n or not tail[n][0].isalpha() or tail[n].lower() in _OWNER_ENDS)
            ):
                return True
        return False

    def reordered(self, ref: _Chunk, in_scope: list[_Chunk]) -> bool:
        """ "the fibrous non-cellulosic material" ← "non cellulosic fibrous material": the same modifiers in another
        order (a hyphen or a space between the parts of one) name the same element; a modifier added, dropped or
        swapped ("the second upper layer" after "an upper first layer") is no reordering."""
        words = ref.words
        key = sorted(p for w in words[:-1] for p in w.split("-") if p)
        return any(
            c.words != words and not c.implied and sorted(p for w in c.words[:-1] for p in w.split("-") if p) == key
            for c in in_scope
        )

    def acted_before(self, ref: _Chunk, gerund: str) -> bool:
        """Whether the claim, in ``ref``'s scope, performs the action ``gerund`` names ("determining …")."""
        named = _stem(gerund)
        return any(w == named and self.in_scope(c, t, ref) for c, t, w in self.acted.get(named[:3], ()))

    def named_action(self, ref: _Chunk) -> bool:
        """ "the determining step" after "determining …"; "the determination" after "determining …"."""
        words = ref.words
        head = words[-1]
        if ref.raw[0].endswith("ing") and (
            len(words) == 1
            or (
                head in _ACTION_HEADS
                # the action's object may stand between ("said adding weight step" after "the step of adding weight")
                and all(w in _ACTION_HEADS or self.matches(ref, w, ()) for w in words[1:-1])
            )
        ):
            return self.acted_before(ref, ref.raw[0])
        if len(words) == 2 and head in _ACTION_HEADS:
            # "the communication step" after "communicating …": the nominalisation names the action, as "the
            # communicating step" would
            head = ref.raw[0]
        if len(head) > 5 and head.endswith(_NOMINAL_SUFFIXES) and _POSITIONAL.isdisjoint(words):
            # a positional modifier names one of several things ("the first position", "the right vertical
            # extension"), not the action "positioned", "extending" names
            for c, t, stem in self.acted.get(head[:3], ()):
                common = next((m for m, (x, y) in enumerate(zip(stem, head)) if x != y), min(len(stem), len(head)))
                if common >= max(3, len(stem) - 2) and self.in_scope(c, t, ref):
                    return True
        return False

    def compounded(self, ref: _Chunk, words: tuple[str, ...], headed: bool = False) -> bool:
        """Whether an introduction in scope spells ``words`` as one compound, written open, hyphenated or closed
        ("the foot plate" ← "a footplate", "the strip-line" ← "a strip line", "the machine interface" ← "a
        man-machine interface"): the same letters, from the start of a word (or of a hyphenated part) to the end
        of a word of the introduction (with ``headed``, of its last word)."""
        target = "".join(words).replace("-", "")
        if len(target) < 6:
            return False
        index = self.index
        for p in range(len(target) - 2):
            for c in index.get(target[p:], ()):
                if c.implied or (c.collective and ref.singular):
                    continue
                if _spells(c.words, target, headed) and self.in_scope(c.claim, c.start, ref):
                    return True
        return False

    def based(self, ref: _Chunk, cut: int, loose: bool = True, strict: bool = False) -> bool:
        """Whether the first ``cut`` words of ``ref`` have basis as a phrase of their own, ending at an
        introduction's head; with ``loose``, a participle modifier may be added as in :meth:`judge` ("the opened
        film tube" ← "opened film tube", whose participle opens no phrase); with ``strict``, only an introduction
        that ends there, as written, counts ("said body allowing access" ← "a body", not "a body holding ledge")."""
        forms = [(r, w) for r, w in zip(ref.raw[:cut], ref.forms[:cut]) if r not in _NON_RESTRICTIVE]
        if not forms:
            return False
        head = forms[-1][1]
        mods = tuple(w for _, w in forms[:-1])
        if (
            len(forms) == 1
            and forms[0][0].endswith("ing")
            and forms[0][0] not in _ING_NOUNS
            and not (cut == len(ref.raw) - 1 and ref.after in ("is", "are", "was", "were", "being"))
            # "the towing performed by", "the annealing takes place": an action named by its gerund ("towing the
            # cable …") is the phrase, as named_action reads "the towing" alone; a word the verb "are" follows is
            # the head, not a verb ("the flanking regions are", after "DNA flanking the gene")
            and self.acted_before(ref, forms[0][0])
        ):
            return True
        if strict:
            return bool(self.matches(ref, head, mods, headed=True, explicit=True, ending=True))
        if self.matches(ref, head, mods, headed=True, explicit=True):
            return True
        # "the machine interface controls" ← "a man-machine interface"
        if self.compounded(ref, mods + (head,), headed=True):
            return True
        if not loose:
            return False
        plain = tuple(w for r, w in forms[:-1] if not r.endswith(("ed", "ing")))
        return plain != mods and bool(self.matches(ref, head, plain, headed=True, explicit=True))

    def object_of(self, ref: _Chunk, cut: int) -> None:
        """A reference read up to the verb at ``cut``: the words after that verb are its object, a noun phrase with
        no determiner, which introduces them as any bare noun phrase does ("the narrowband transmitter sends
        instructions", then "said instructions"; "the first assignment representing initial clustering")."""
        tail = tuple(w for r, w in zip(ref.raw[cut + 1 :], ref.forms[cut + 1 :]) if r not in _NON_RESTRICTIVE)
        if tail:
            part = _Chunk(ref.claim, ref.end - 1, ref.end, tail, ref.raw[cut + 1 :])
            part.singular = ref.singular
            self.introduce(part)
        return None

    def judge(self, ref: _Chunk) -> tuple[str, list[_Chunk]] | None:
        """None when ``ref`` has basis; else ("antecedent", [closest]) or ("antecedent-ambiguous", [two])."""
        words = ref.words
        head, mods = words[-1], words[:-1]
        found = self.find(ref, head, mods)
        if found and found[0].implied and self.ordinals_named(ref, head):
            # a claim set that introduces "a first strap section" itself counts its members explicitly: "two strap
            # sections" then implies no ordinal (a first/second slip there is still found)
            found = self.find(ref, head, mods, explicit=True)
        if found:
            latest = found[0]
            latest.taken = True
            if (
                latest.reintroduces is not None
                and latest.claim != ref.claim
                and latest.words == words
                and ref.clean
                and ref.singular
            ):
                # a claim that re-introduces an element and then refers to it means its own, nearest introduction
                # ("further comprising a widget, wherein the widget is blue"; "said hinge assembly comprises a
                # hinge body …, said hinge body being …"); a claim below it may mean either
                return "antecedent-ambiguous", [latest.reintroduces, latest]
            return None
        same_head = [c for c in reversed(self.index.get(head, ())) if c.words[-1] == head]
        in_scope = [c for c in same_head if self.in_scope(c.claim, c.start, ref)]
        if ref.inherent and not _contradicts(mods, in_scope):
            return None
        base = (in_scope[0].same or in_scope[0]).words if in_scope else ()  # what was written, not a reading of it
        # "a second plurality of tubular receptacles" writes "second" for its members, as a plural reference
        # reads them ("said second shorter tubular receptacles"; a singular one does not say which)
        if (
            not ref.singular
            and in_scope
            and any(
                all(m in words or m not in _POSITIONAL for m in mods)
                for words in [base] + [c.words for c in in_scope if c.collective]
            )
        ):
            return None  # a plural reference to what several introductions of its head share: "the ASIC chips"
        if self.named_action(ref) or self.compounded(ref, words):
            return None
        if ref.of_named and self.mentions(head) == 1:
            # "the body of said shoe": a part named once, with its owner, is that owner's (MPEP 2173.05(e)); a noun
            # the claims return to is an element they track, and it needs an introduction of its own
            return None
        if (
            mods
            and head in _FACES
            and _POSITIONAL.isdisjoint(mods)
            and self.matches(ref, mods[-1], mods[:-1], headed=True)
        ):
            return None  # a face of an element named before it: "the organic tissue surface" ← "an organic tissue"
        if head in _PARTS and len(mods) > 1 and self.owned_part(ref, words):
            return None
        if mods and _POSITIONAL.isdisjoint(mods) and self.has_part(ref, mods, in_scope):
            return None
        if len(mods) > 1 and (self.of_owner(ref, in_scope) or self.reordered(ref, in_scope)):
            return None
        raw = ref.raw
        if ref.adverb_last and self.based(ref, len(raw) - 1):
            # an adverb before the last word: that word is a predicate, not a head ("said retention member
            # rotatably moveable about an axis"); an adverb modifies a verb or adjective, never a head noun
            return None
        for cut in range(len(raw) - 1, 0, -1):
            # it ran into a verb ("the oxygen content falls", "the third layer employs RTCP"): read up to it
            verb = raw[cut]
            last = cut == len(raw) - 1
            ran_into_verb = (
                (last and verb.endswith(("ed", "ing")) and (verb not in _ING_NOUNS or ref.complement))
                # an irregular participle with its complement: "the pull bolt held by", "the address sent to"
                or (last and verb in _IRREGULAR_PARTICIPLES and ref.complement)
                # a bare verb agreeing with a plural or coordinated subject, with its complement after it: "the
                # arm and the ridge create a wall", "the microcarrier elements flow into", "the brushhead move"
                or (last and ref.plural_subject and ref.complement)
                # a postpositive adjective or adverb particle closing the phrase: "drawing the nozzle assembly
                # forward and …"
                or (last and verb in _POSTPOSITIVE)
                # a bare verb right after a plural noun it agrees with, with its object or complement after it:
                # "said annular grooves prevent side loading", "the elements instantiate engines"
                or (_plural_form(raw[cut - 1]) and _bare_verb(verb) and (not last or ref.complement))
                # a verb in "-s" with its object or complement: "the washing water penetrates through"
                or (verb.endswith("s") and not verb.endswith("ss") and (not last or ref.complement))
                # and one after a singular noun with a preposition of level ("said measured oxygen content falls
                # below a minimum"): a plural noun takes those itself ("the electrodes below the layer"), a singular
                # one is not written in "-s"
                or (
                    last
                    and verb.endswith("s")
                    and not verb.endswith(("ss", "us", "is"))
                    and ref.after in ("below", "above", "beneath")
                    and not raw[cut - 1].endswith("s")
                )
                # one in "-s" taking a gerund: "said reproducing means starts reproducing said scene"
                or (
                    last
                    and verb.endswith("s")
                    and not verb.endswith("ss")
                    and len(ref.after) > 4
                    and ref.after.endswith("ing")
                    and ref.after not in _ING_NOUNS
                )
            )
            if ran_into_verb and self.based(ref, cut):
                self.object_of(ref, cut)
                return None
            if (
                # an irregular participle with a prepositional complement: "the information sent in the sending
                # step", "the welder set at about 7" (a noun takes "of": "the data set of", never read so)
                (last and verb in _IRREGULAR_PARTICIPLES and ref.after in _PREPOSITIONS)
                # "output" and "input" are participles too, and with an agent after them nothing else: "the data
                # output by the demultiplexer"
                or (last and verb in ("output", "input") and ref.after == "by")
                # a predicate adjective in "-ive" after its noun, alone or with its complement: "the interface
                # responsive to", "making the counter inoperative", "the network indicative of"
                or (last and len(verb) > 6 and verb.endswith("ive") and verb not in _POSITIONAL)
                # and one in "-able"/"-ible" with its complement (alone it is as often a noun, "the variable"):
                # "the program code executable by a processor", "the marker detectable in"
                or (last and len(verb) > 6 and verb.endswith(("able", "ible")) and ref.after in _PREPOSITIONS)
                # a bare verb before a determiner: a noun phrase never runs into "the", "a" or "said" (a missing
                # semicolon or agreement: "the posterior region satisfy the relation", "the second cluster
                # calculate a combined workload")
                # (a fronted prepositional phrase before its subject is not one: "in said pre-treatment step a
                # mixture is used")
                or (last and ref.after in ("the", "a", "an", "said") and _bare_verb(verb) and ref.before not in _PREPOSITIONS)
                # an "-ing" participle with its object and "to" before a noun phrase: "said body allowing access
                # to said chamber" (a compound noun is written so too, "the heat treating region", but hardly ever
                # right before the preposition "to"; "the image partitioning process to generate" is infinitive)
                or (
                    cut == len(raw) - 2
                    and verb.endswith("ing")
                    and verb not in _ING_NOUNS
                    and ref.after == "to the"
                )
                # a bare verb after a plural noun with an adverb of relation after it: "the side plates move
                # relative to the housing", "the arms move apart"
                or (last and _plural_form(raw[cut - 1]) and _bare_verb(verb) and ref.after in _AFTER_HEAD)
                # an "-ing" participle right after a plural noun, with its object after it: a reduced relative clause
                # ("said first and second tabs facilitating location of said device"); a plural noun is seldom a
                # modifier of a compound ("the tab facilitating location" would be read as before)
                or (
                    not last
                    and verb.endswith("ing")
                    and verb not in _ING_NOUNS
                    and raw[cut - 1] != ref.forms[cut - 1]
                    and _plural_form(raw[cut - 1])
                )
            ) and self.based(ref, cut, strict=True):
                # each reads the phrase up to that word only against an introduction ending there as written, so
                # a swapped head ("a body holding gasket" for "a body holding ledge") is still found
                self.object_of(ref, cut)
                return None
            if (
                # an ordinal after a noun opens a second noun phrase, the object of a verb taking two ("receiving from
                # the first remote server first information", "sending the client second data"); a part named after
                # its owner keeps it ("said housing first end"), and so does a modifier before it ("the upper first")
                not last
                and verb in _ORDINALS_SET
                and not _modifier_only(raw[cut - 1])
                and not raw[cut - 1].endswith(("ed", "ing"))
                and ref.forms[-1] not in _PARTS
                and self.based(ref, cut, strict=True)
            ):
                self.object_of(ref, cut - 1)
                return None
            # a last word in "-s" may be a verb or a plural head ("the background labels"): read up to it, but
            # then only as the introduction reads (a phrase ran_into_verb found no basis for has none so either)
            if not ran_into_verb and verb.endswith("s") and not verb.endswith("ss") and self.based(ref, cut, loose=False):
                return None
        # One element of that kind in scope and modifiers that set it against nothing: the referent is clear
        # ("the golf club shaft" when the claim has one shaft; Energizer v. ITC, MPEP 2173.05(e)). A positional
        # or ordinal modifier the introduction lacks ("the second layer" after "a layer") is never added freely.
        if (
            in_scope
            and len({(c.same or c).words for c in in_scope}) == 1
            and all(m in base or m not in _POSITIONAL for m in mods)
        ):
            return None
        return "antecedent", in_scope[:1] or [c for c in same_head if not c.definite][:1]


def _read(forest: Forest, report: bool) -> tuple[list[AntecedentFinding], int, int]:
    """(findings when ``report``, definite references, those with basis) — one pass for both public readers."""
    reader = _Reader(forest)
    claims = forest.claims
    findings: list[AntecedentFinding] = []
    total = resolved = 0
    for ci, claim in enumerate(claims):
        chunks, actions = _chunks(_TOKEN_RE.findall(claim.text), ci, bool(reader.ancestry.parents[ci]))
        reader.act(ci, actions)
        reported: set[tuple[str, ...]] = set()
        flagged: set[int] = set()  # chunks reported in this claim, by id
        for ch in chunks:
            if not ch.definite:
                reader.introduce(ch)
                continue
            if ch.subject or (
                ch.words[-1] in _IDIOM_HEADS
                and (len(ch.words) == 1 or (ch.words[-1] not in _NAMED and _POSITIONAL.isdisjoint(ch.words)))
            ):
                if ch.defines and ch.words[-1] in _PROPERTIES:
                    # a symbol defined as a quantity names that quantity ("t is the total optical path length");
                    # one defined as a thing classifies it ("R is the aliphatic side chain") and introduces nothing
                    reader.introduce(ch)
                continue
            total += 1
            verdict = reader.judge(ch)
            if verdict is not None and ch.alone is not None:
                shared = ch.words, ch.raw, ch.forms
                ch.words, ch.raw, ch.forms = ch.alone
                if reader.judge(ch) is None:
                    verdict = None
                else:
                    ch.words, ch.raw, ch.forms = shared
            if verdict is None:
                resolved += 1
                reader.named[ch.claim, ch.end] = ch  # an owner for has_part ("said elevator having a motor")
                continue
            rule, related = verdict
            if rule == "antecedent":
                reader.introduce(ch)  # reported once: later mentions here and in dependent claims lean on it
            if report and ch.words not in reported and not (ch.partner is not None and id(ch.partner) in flagged):
                # "said first and second members" with neither introduced is one missing phrase, reported once
                reported.add(ch.words)
                flagged.add(id(ch))
                findings.append(_finding(reader, ch, rule, related))
    return findings, total, resolved


def _finding(reader: _Reader, ref: _Chunk, rule: str, related: list[_Chunk]) -> AntecedentFinding:
    num = reader.claims[ref.claim].num
    start, end = reader.span(ref)
    term = reader.claims[ref.claim].text[start:end]
    if rule == "antecedent-ambiguous":
        a, b = related
        message = (
            f"'{term}' in claim {num} could refer to {reader.quote(a)} or to {reader.quote(b)}, which introduces "
            "it again after it was referred to"
        )
    else:
        message = f"'{term}' has no antecedent basis in claim {num} or the claims it depends on"
        if related and reader.in_scope(related[0].claim, related[0].start, ref):
            message += f" (closest: {reader.quote(related[0])})"
        elif related:
            message += f" ({reader.quote(related[0])} introduces it, but claim {num} does not depend on that claim)"
    return AntecedentFinding(num, start, end, term, rule, message)


def check_antecedents(forest: Forest) -> list[AntecedentFinding]:
    """Every definite reference without antecedent basis, or ambiguous between two introductions, in claim order
    and then by position (how claims are read: the module docstring)."""
    return _read(forest, True)[0]


def reference_counts(forest: Forest) -> tuple[int, int]:
    """(definite references, those with unambiguous antecedent basis), as :func:`check_antecedents` reads them."""
    _, total, resolved = _read(forest, False)
    return total, resolved
