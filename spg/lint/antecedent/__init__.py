"""Antecedent basis as an examiner reads it (35 USC 112(b), MPEP 2173.05(e)): the analysis behind ``spg lint``.

Every definite reference ("the X", "said X") needs basis in its scope: the claim's own earlier text plus the full
text of every claim it depends on, transitively (never a sibling claim). :func:`check_antecedents` reports a
reference with no basis (rule ``antecedent``) and one that could mean either of two introductions (rule
``antecedent-ambiguous``). PatentScore's ``precise`` reading of AC counts with :func:`reference_counts`.

Why a claim grammar of our own and not a statistical tagger: the analysis must run at thousands of claims a second
in process on a 2-core CPU (the goal is 5,000). spaCy-class taggers tag a few thousand words a second there, i.e.
some tens to hundreds of claims, and their English models are GitHub release assets, not PyPI packages, so
``scripts/setup.sh`` could not install them offline. Claim language is a narrow register whose noun phrases are
bounded by a small closed class of words and a few suffixes; that is what this package encodes. Each choice is a
reading of claim practice:

* A noun phrase (chunk) is a run of content words; it ends at a function word, punctuation or a number, and after
  its first word at a participle ("a library loader specifying …"), at a verb with an object ("the controller
  detects a …") and at "relative", "opposite", "rather", …; adverbs ("substantially") are skipped.
* Every chunk not opened by "the"/"said" introduces its words: "a widget", bare plurals ("pixels"), numerals and
  quantifiers ("two imaging devices", "at least two longitudinal paths"), "means for …".
* A reference (modifiers M, head h) has basis in an earlier chunk of its scope holding h (singular or plural) with
  every word of M before it. So the FULL modifier sequence is compared ("the second display panel element" needs
  "second", "display", "panel" before "element" in one introduction; "a first display panel element" is no basis), a
  reference may drop modifiers ("the layer" ← "a first layer"), and a word introduced as a modifier is an inherent
  antecedent ("the vehicle" ← "a vehicle door"). Participle modifiers may be added ("the heated gas" ← "a gas"). A
  reference that ran into a verb ("the oxygen content falls") is read again without it; so is one that ran into a
  bare verb after a coordinated or plural subject ("the hinge portion and the ridge create a wall"), an "-ing" noun
  or an irregular participle with its complement after it ("said lid fitting onto", "the pull bolt held by"). A
  comparative before "than" ends a phrase ("the ring portion thinner than"); so do an adverb before the last word,
  which makes it a predicate ("said member rotatably moveable about"), a bare verb after a plural noun with its
  object ("said grooves prevent side loading"), postpositive words ("said device able to", "the voltage irrespective
  of", "drawing the nozzle assembly forward") and "using". A predicate after the noun ends it too, read only against
  an introduction that ends there as written (so a swapped head is still found): an irregular participle with its
  preposition ("the information sent in"), an "-ive" adjective ("the interface responsive to", "making the counter
  inoperative"), an "-able" one with its complement ("the program code executable by"; coordinated, "said panel
  openable and closeable with respect to"), a bare verb before a determiner ("the posterior region satisfy the
  relation") and an "-ing" verb with its object before "to the" ("said body allowing access to said chamber"). The
  bare object of the verb a reference ran into introduces itself ("the transmitter sends instructions … said
  instructions"). An irregular participle after a noun ends an introduction as well ("a body made of"), and so does
  a participle after a word that may be a noun ("an output connected to"). "The" before a pronoun's modifiers or
  participles alone goes to the noun after ("the identified one or more computers", "the displayed other PCDs", "the
  fallen upper one of the covers"). Ordinals before "adjacent" or "opposite" modify the noun after ("first and
  second adjacent corners"), and a verb right before coordinated ordinals is no part of their phrase ("respectively
  define first and second flow paths"). Every preposition and conjunction ends a phrase ("as the gases pass
  throughout", "once a day"). So do an irregular participle of the closed class ("the napkin slid from"), a verb in
  "-s" before a gerund ("said reproducing means starts reproducing"), a comparative with its dimension ("receptacles
  shorter in length than"), "output" with its agent ("the data output by") and an ordinal opening a verb's second
  object ("receiving from the first server first information"; not a part named after its owner, "said housing first
  end"). A plural before an adverb and a participle is the head ("retention members integrally attached"). An "-ing"
  participle right after a plural noun starts a reduced relative clause, read only against an introduction ending at
  that noun ("said first and second tabs facilitating location of"); a phrase-ending word ends the phrase hyphenated
  as well ("the dielectric layer co-planar with"), and "proximate" after a noun is a preposition, as "adjacent" is
  ("the mask proximate the mouth"). Coordinate participles after "the"/"said" go on to the noun ("said stretched,
  flattened strand"). A verb in "-s" after a singular noun ends the phrase before "below", "above", "beneath" ("said
  measured oxygen content falls below"; after a plural noun they are the noun's: "the electrodes below"). So do a
  count before "times" ("running the trained classifier multiple times") and "different"/"distinct" with its
  complement ("the subject different from the patient"). "-ly" adverbs too short for the length test ("newly",
  "fully") are skipped as the longer ones are, and an adverb after a participle keeps the phrase open for the
  participle after it ("the trained randomly initialized model"; after a noun it still starts a reduced relative
  clause). An ordinal after an "-ing" participle opens its object, never ends a compound ("the electrolyte defining
  first and second regions"), and the "-seen" participles join the closed class ("the compounds foreseen in").
* Spelling does not tell two elements apart: words are compared in American spelling ("vapour"/"vapor", "centre",
  "stabiliser"), Latin plurals in "-ices" are those of "-ix"/"-ex" nouns ("matrices", "vertices") and a compound may
  be written open, hyphenated or closed ("the foot plate" ← "a footplate", "the machine interface" ← "a man-machine
  interface").
* "first and second hinge pin assemblies" introduces each ordinal with the whole shared phrase, up to its first
  plural noun (a plural ends a compound: "the first and second networks feature …"); ordinals listed with commas
  ("first, second, and third matrices") share it as two do ("the input and the network", with no ordinal after
  "and", is also read word by word), and "a first one of the polymer materials" introduces "the first polymer
  material". More introductions claims write: an abbreviation whose letters spell its long form ("a radio frequency
  (RF) section", "a private branch exchange, hereafter PBX, telephony circuit"), comma-separated modifiers ("a
  second, complementary shell"), "a first plurality of receptacles" (for "said first receptacles", not for a
  singular "the first receptacle") and a count ("at least two briseurs", "a pair of arms": "the second briseur"),
  unless the claims introduce ordinals of that noun themselves. A symbol defined as a quantity introduces that
  quantity ("wherein t is the total optical path length"; "R is the side chain" does not), a hyphenated noun
  compound names its nouns ("core-sheath type fibers": the core, the sheath; not "co-polymer", "water-soluble"), and
  a word that may be a modifier heads a phrase that ends before punctuation or a verb ("an individual", "the
  individual is"). A positional word that is a noun as well heads an introduction before "of" ("an output of the
  region"); coordinate adjectives lend the first word to the noun ("a soft, absorbent material", "an inner,
  three-dimensional, insulating, polyester layer"); an introduction cut at a participle is read whole too ("a
  continuous recessed strip portion", "a first lithium ion conducting separator layer"); a plural reference may
  describe the members of "a second plurality of X" ("said second shorter tubular receptacles"); and a nominalised
  action with "step" or "process" names the action ("the communication step" ← "communicating"). "X of the Y" (or "X
  at/on/in the Y") introduces the compound "the Y X" too ("the right retainer flange segment" ← "a right segment of
  the retainer flange", "the thermal oxide layer" ← "a layer of a thermal oxide", "said distal tip contact
  electrode" ← "a contact electrode at said distal tip"), and the same modifiers in another order name the same
  element ("the fibrous non-cellulosic material" ← "non cellulosic fibrous material"); a plural possessive is its
  plural noun ("the stops' extensions").
* Inherent parts and properties (MPEP 2173.05(e): "the outer surface of said sphere"): a part, property or abstract
  noun followed by "of" ("the top end of", "the beginning of execution", "the solubility of"), a property standing
  alone ("the temperature") and anything "of a …" ("the steering wheel of a vehicle") need no introduction, unless a
  positional modifier contradicts the explicit introductions of that noun in scope ("the first end of the rod" when
  only "a second end" is introduced), so first/second slips are still found. "thereof" names the owner as "of" does,
  and coordinated parts share the owner after the last ("the lateral circumference and upper portion of said
  chamber", "the detection and treatment of"; not a conjunct with its own determiner or compound noun); a face named
  after its owner ("the organic tissue surface") is that owner's; an "of" that takes an action ("the process of
  cutting") names a manner. "the body of said shoe" has basis when "body" occurs nowhere else in the claim set: a
  noun the claims return to is an element they track. A part named after its owner ("said dome plate outer portion")
  is the owner's when both are introduced, and so is one the claim gave that owner ("the voltage follower output" ←
  "a voltage follower having an input … and an output"), whatever the part and whether the owner is introduced there
  or named by a reference ("the elevator motor" ← "said elevator having a … motor"); a participle compound names its
  agent or object ("the spring" ← "at least one spring-loaded ball", "the dyestuff" ← "a dyestuff-containing layer";
  not "well-defined", "T-shaped"); a relation "between" named things ("the distance between", "the space between",
  with its quantity: "the potential difference between"), "for the <nominalisation> of" (a purpose), "the process
  of:" (product by process) and "the resulting solution" need none. A positional noun alone after a preposition of
  place is an adverbial, not a part ("joined at the top by a hinge", "viewed from the top", "exposed to the
  outside"). In a reference "last", "next", "latest" and "previous" pick one of what is named ("the last transition"
  of "successive transitions", "the latest accessed site", "smaller than the previous region"), and "the last
  turning off of ignition" is an event.
* A definite phrase defining a symbol is no reference ("wherein t is the total optical path length"); one naming a
  symbol in place introduces it ("the distance r", "the first depth d1"). Units, formulae and reference directions
  are not elements ("the parts by weight", "the formula HOOC-…", "to the horizontal"), nor is a Markush group by any
  name ("selected from the list consisting of", MPEP 2173.05(h)); a name of letters and digits after the noun
  defines it in place as a symbol does ("the order RF39", "the genes PPP3CC", "the sequence SEQ ID NO: 4"; not the
  object of a verb the phrase ran into, "the cells express CD133"), and a formula after a colon defines the phrase
  in place ("the reaction: xCaCl2+ySiO2 → …").
* One element of a kind in scope and a reference that adds a descriptive modifier ("the golf club shaft" when the
  claim has one shaft) has basis: the referent is clear (Energizer v. ITC). A positional or ordinal modifier is
  never added freely ("the second shaft" after "a shaft" is reported).
* Actions: "the determining step", "the adjusting", "said loading", "the notifying means" and "said adding weight
  step" (its object introduced) resolve against an earlier "determining", "adjusting", … in scope, and "the
  determination" against "determining", "the comparison" against "comparing" (not "the first position" against
  "positioned"); such a gerund ends the phrase before a participle or verb ("the towing performed by", "the
  annealing takes place"), as "incident" does after a noun ("the light incident on").
* Scope follows a parent cited by its number alone ("The printhead according to 1, wherein", :func:`spg.parse.
  bare_citation`), which the parser, like the corpus's gold links, leaves independent, and a citation in the opening
  of a claim the gold links leave independent ("The fastener of clam 27", a misspelt "claim").
* Not references: the subject of a dependent claim and anything naming a claim ("The method of claim 1"), set
  phrases ("the same", "the group consisting of", "the art", "the range"), and a few things every claim may name
  ("the Internet", "the ground"). Some set-phrase heads name an element once modified ("the heating step", "the
  recombination event", "the stress equilibration equation"); any does with a positional modifier ("the second
  wavelength range").
* A missing antecedent is reported once: the first occurrence in a claim; it then serves as the introduction for the
  rest of that claim and the claims depending on it. "said first and second members" with neither introduced is one
  phrase, reported once.
* Ambiguity is reported where a dependent claim re-introduces an element its ancestors introduced and referred to
  ("a widget … the widget" in claim 1, "further comprising a widget" in claim 2) and a claim below it refers to it
  ("the widget" in claim 3); the re-introducing claim's own reference means its own, nearest introduction. Only an
  element recited again re-introduces it (after "comprising", "having", "with", "and", a comma or a list label:
  "further comprises (e) a coupler compound"); as the object of an action or a function ("configured to receive a
  rail member", "by forming an organic layer") it names what the claim has. A restatement inside one claim ("a
  wireless network" in the preamble and again in the body, often with reference numerals) is left alone: granted
  claims are full of it; so is "the widget" after "a first widget" and "a second widget": the modifiers keep those
  apart and granted claims use the short form for what both share. A plural reference, or one followed by "of", is
  never ambiguous ("the lower side of the first substrate"), and neither is a claim of another category that cites
  one ("An apparatus for carrying out the process of claim 1, comprising a column …").

* An element introduced twice in one claim's body, word for word, each time recited as an element of its own
  (after a semicolon, colon, comma, "and", "comprising" or "wherein": "…; a lower step pivoted to the front frame;
  a lower step fixed to …"), is reported at the second introduction (rule ``multiple-introduction``, once per
  element and claim): a later "the lower step" could mean either. The reading keeps what granted claims write: the
  preamble may name what the body recites; parts each of two owners has ("a bumper having a fore side …, a landing
  gear having a fore side"; a list opened by "having", "with", "including" or "of" lists parts; "an address of the
  client"); alternatives ("an anode or a cathode, … the other of an anode or a cathode", an item of a comma list
  ending in "or", a Markush group); two introductions each followed by a restrictive phrase of its own ("a means
  for executing …; a means for determining …", "a pointer to a file, a pointer to an engine"); "a first X" and "a
  second X". A phrase cut at a participle ("an electric" of "an electric powered brake system") is compared by the
  words after it. A dependent claim reciting, as an element of its own, what a claim it depends on (in the scope of
  every claim it cites) introduced so is reported the same way ("3. The stool of claim 1, further comprising a
  frame"), the next 8 words compared, not 3 (a dependent claim's element has a longer phrase of its own); a
  dependent claim restating its parent's words around an element is not read (granted claims do it too often).
  Every other finding of this module is untouched by it.

Claims are read in an order that puts each after every claim it cites, document order otherwise, so the scope is
the real dependency chain however the claims are ordered ("2. The grinder of claim 3" with 3 citing claim 1 reads
claim 1 for claim 2); the forward reference itself is the structure rule's finding (``forward-reference``), and a
citation cycle keeps, for each claim in it, only the claims read before. Findings come out in claim order.

Scope costs O(1) per test and linear time overall: a claim whose ancestors each cite one parent is tested with the
pre/post-order interval of a depth-first walk of the dependency tree (a 9,999-deep chain stays linear); only claims
under a multiple dependency get an explicit ancestor set (a bit set).

The modules, one concept each, in the order a claim set meets them: ``words`` (the closed classes of claim
language), ``chunks`` (a claim's noun phrases), ``order`` (the reading order and who is whose ancestor),
``support`` (whether an introduction's words support a reference's), ``index`` (the introductions read so far,
their scope, an element introduced twice), ``reader`` (the judge of one reference), ``findings`` (the pass over
the claims and the two public readers) and ``judge`` (the learned judge of the warning tier).
"""

from spg.lint.antecedent.findings import AntecedentFinding, check_antecedents, reference_counts

__all__ = ["AntecedentFinding", "check_antecedents", "reference_counts"]
