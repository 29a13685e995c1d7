"""The noun phrases (chunks) of one claim, read with the rules in the package docstring: where a phrase starts and
ends, what it introduces or refers to, and the action words ("-ing" verbs) a claim names."""

from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter

from spg.lint.antecedent.words import (
    _ABSTRACT,
    _ACTION_RE,
    _ADJECTIVE_ENDINGS,
    _ADV,
    _AFTER,
    _ART,
    _BREAKS,
    _CARDINALS,
    _CLAIM_RE,
    _CLAUSE_AFTER_HEAD,
    _COMPLEMENTS,
    _DEF,
    _DEFINING,
    _ED,
    _F_FORMULA,
    _F_MODIFIER,
    _F_OBJECT,
    _F_POSSESSIVE,
    _F_QUANT,
    _F_VERB_S,
    _GROUPS,
    _ING,
    _IRREGULAR_PARTICIPLES,
    _LOCATIVE,
    _LOCATIVE_PREPOSITIONS,
    _MEASURES,
    _NOMINAL_SUFFIXES,
    _NON_RESTRICTIVE,
    _NUM,
    _ORDINALS,
    _ORDINALS_SET,
    _PARTICIPLES_ONLY,
    _PARTS,
    _POSITIONAL,
    _POSITIONAL_NOUNS,
    _PRONOMINAL,
    _PROPERTIES,
    _PUNCT,
    _RECITING,
    _RELATIONAL,
    _RELATIONS,
    _S_SINGULARS,
    _SET_PHRASES,
    _START_RE,
    _STOP,
    _STOPW,
    _WORD,
    _abbreviation,
    _american,
    _expansion,
    _formula,
    _modifier_only,
    _participle_noun,
    _plural_form,
    _shares_owner,
    _singular,
    _symbol,
    _Tokens,
)

_START = attrgetter("start")
# what follows a word that ends a noun phrase with it: a comparative ("thinner than", "shorter in length than"), a
# count of times ("multiple times"), an adjective with its complement ("different from"); one set test of the word
# after passes most words by all four readings
_COMPARING = frozenset({"than", "times", "from", "in"})


class _Chunk:
    """A noun phrase of claim ``claim`` (index into forest.claims): tokens ``start``..``end`` (exclusive),
    ``words`` singularised with non-restrictive modifiers dropped, head last."""

    __slots__ = ("claim", "start", "end", "words", "definite", "article", "preamble", "subject", "inherent", "raw",
                 "taken", "reintroduces", "clean", "singular", "plural_subject", "complement", "of_named", "forms",
                 "adverb_last", "alone", "same", "implied", "markush", "collective", "after", "before", "defines",
                 "parts", "partner", "recited", "joined", "element", "site")  # fmt: skip

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
        self.element: bool | None = None  # recited as an element of its claim's own (index.recited_alone), once asked
        self.markush: bool | None = None  # listed as an alternative of a Markush group (index.in_markush), once asked
        self.collective = False  # "first receptacles" from "a first plurality of receptacles": plural references only
        self.reintroduces: _Chunk | None = None
        # read whole across a participle inside a compound ("a gas supplying means"): the element's own reading,
        # where the other readings ``same`` marks are alternatives of one phrase (a count's ordinals, an abbreviation)
        self.joined = False
        self.site: tuple | None = None  # a reference's place in its claim, until _context has read it


def _chunks(read: _Tokens, claim: int, dependent: bool) -> tuple[list[_Chunk], list[tuple[str, int]]]:
    """The noun phrases of one claim's tokens (:func:`_token_classes`) in order, and its action words ("-ing" words
    used as verbs) with their token positions."""
    tokens, kinds, lows, sings, flags, chars, _ = read
    n = len(tokens)
    claim_at = [m.start() for m in _CLAIM_RE.finditer(chars)]  # "claim", "claims", "claimed"
    first_claim = claim_at[0] if claim_at and dependent else -1
    # "An apparatus for carrying out the process of claim 1": a claim of another category restates what it cites
    restating = dependent and n > 0 and kinds[0] == _ART
    out: list[_Chunk] = []
    actions = [(lows[m.start()], m.start()) for m in _ACTION_RE.finditer(chars)]
    pending: _Chunk | None = None  # "the first and" waits for its head
    series: list[_Chunk] = []  # the conjuncts before it in "first, second, and third matrices"
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
        start = search(chars, i)
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
                    # a singular in "-s" is the noun itself: "a cylindrical lens to focus …", "a fastening means to
                    # secure …" (read whole, as a drafter's "…; and a cylindrical lens." is)
                    and lows[k] not in _S_SINGULARS
                    and kinds[k - 1] != _ED
                    # an adverb and a participle after a plural noun are a reduced relative clause, not a verb's
                    # object: "a plurality of retention members integrally attached to said housing"
                    and not (flags[k] & _F_VERB_S and kinds[k + 1] == _ADV and k + 2 < n and kinds[k + 2] == _ED)
                ):
                    # a verb with its object, agreeing with its noun: "the controller detects a signal", "the
                    # loss calculators receive an input"; not after an "-ed" participle, which modifies the noun that
                    # follows it ("said elongated sections to receive")
                    break
                if k + 1 < n and lows[k + 1] in _COMPARING:
                    if lows[k + 1] == "than":  # a comparative: "the ring portion thinner than …"
                        break
                    if flags[k] & _F_QUANT and lows[k + 1] == "times":
                        # a count of times is an adverbial of frequency: "running the trained classifier multiple
                        # times"
                        break
                    if lows[k] in ("different", "distinct") and lows[k + 1] == "from":
                        # an adjective with its complement follows the noun it qualifies, as a comparative does: "the
                        # subject different from the patient" (before a noun it modifies it: "a different subject")
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
                # an adverb between modifies the participle after it, so a participle before the adverb keeps the
                # phrase open: "the trained randomly initialized model" ("retention members integrally attached",
                # "said individual genetically modified": a noun before it ends the phrase)
                not flags[k - 1] & _F_MODIFIER
                and not (kinds[k - 1] == _ADV and k - 2 >= j and kinds[k - 2] in (_ED, _ING))
                # after a word that may be a noun too, a participle with no noun after it starts a reduced
                # relative clause: "an individual based on", "an output connected to the bus"
                or (c == _ED and lows[k - 1] in _PRONOMINAL and (k + 1 >= n or kinds[k + 1] not in (_WORD, _ED, _ING)))
            ) and not (
                c == _ING
                and k + 1 < n
                and kinds[k + 1] == _WORD
                and not flags[k + 1] & _F_VERB_S
                and (k + 2 >= n or kinds[k + 2] != _WORD)
                # an ordinal opens the participle's object, never ends a compound: "the electrolyte defining first
                # and second regions"
                and lows[k + 1] not in _ORDINALS_SET
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
            window = lows[k + 1 : k + 12]
            close = k + 1 + window.index(")") if ")" in window else -1
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
        # (its head tested first: the set test builds a set of the phrase's words)
        pronoun = raw[-1] in _NON_RESTRICTIVE and _NON_RESTRICTIVE.issuperset(raw)
        noun = pronoun and (
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
            (nxt in ("one", "ones", "of") and raw[-1] in _PRONOMINAL and _PRONOMINAL.issuperset(raw)) or pronoun
        ):
            i = k  # "the first of", "the selected ones", "the corresponding said areas": pronouns, not noun phrases
            if cls == _ART and _POSITIONAL.issuperset(kept):
                one_of = [kept]  # "a first one of the polymer materials" introduces "a first polymer material"
            continue
        if (
            cls == _DEF
            and k < n
            and (
                nxt in ("one", "ones")
                or (kinds[k - 1] == _ED and (nxt in ("other", "and", "or") or kinds[k] == _NUM))
                # coordinate participles, a comma between: "said stretched, flattened strand"
                or (kinds[k - 1] == _ED and nxt == "," and k + 2 < n and kinds[k + 1] == _ED and kinds[k + 2] == _WORD)
            )
            and all(kinds[m] in (_ED, _ADV) or _modifier_only(lows[m]) for m in range(j, k))
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
                or (bool(claim_at) and claim_at[-1] >= k and _names_claim(kinds, k, claim_at))
                # a reference direction: "at an angle of 30° to the horizontal"
                or raw in (("horizontal",), ("vertical",))
                # a unit, not an element: "based on the parts by weight"
                or (nxt == "by" and k + 1 < n and lows[k + 1] in ("weight", "mass", "volume"))
                # a Markush group by whatever noun it is called (MPEP 2173.05(h)): "selected from the list
                # consisting of A and B" is "the group consisting of"; the group is the list that follows
                or (
                    nxt == "consisting"
                    and i > 1
                    and lows[i - 1] == "from"
                    and lows[i - 2] in ("selected", "chosen")
                    and k + 1 < n
                    and lows[k + 1] == "of"
                )
            )
            # what the judge reads of a reference only when no introduction supports it (most have one): read
            # from this place in the claim then (:func:`_context`), in the words the phrase has here
            ch.site = j, k, nxt, ch.words
        if (
            ch.definite
            and len(raw) > 1
            and (
                len(raw[-1]) == 1
                or (len(raw[-1]) <= 3 and raw[-1][-1].isdigit())
                or raw[0] == "resulting"
                # a name of letters and digits after the noun is one too ("the order RF39", "the modifications
                # T366I"), and a sequence identifier (37 CFR 1.821): "the amino acid sequence SEQ ID NO: 18"
                or (flags[k - 1] & _F_FORMULA and _named_in_place(tokens, kinds, flags, lows, j, k))
                or (raw[-2:] == ("seq", "id") and nxt == "no")
            )
        ):
            # a name given in place defines what it names: "the distance r", "the first depth d1", "the pump P3";
            # "the resulting solution" names what the step just recited yields
            ch.definite = False
        elif ch.definite and nxt == ":" and k + 1 < n and _formula(tokens[k + 1]):
            # a formula after a colon defines what the phrase names in place: "the reaction: xCaCl2+ySiO2 → …"
            # (a list after a colon, "the steps of: providing …", starts with a word)
            ch.definite = False
        if (
            pending is not None
            and i <= pending.end + 2
            and lows[pending.end] == ","
            and (_series(ch, lows, k, nxt) or (nxt in ("and", "or") and _series(ch, lows, k, ",")))
        ):
            # "first, second, and third matrices": an ordinal between commas waits for the head with the others
            series.append(pending)
            pending = ch
            out.append(ch)
            i = k
            continue
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
                opening = series[0] if series else pending
                # the ordinals share the head up to its first plural noun: a plural ends a compound, so a word after
                # it is the verb the phrase ran into ("the first and second networks feature discriminators", "the
                # first, second, and third IR experiments split over"; judge reads the last conjunct again without it)
                # (a participle after the plural is read in judge, against introductions ending at the plural)
                # (only where no adverb was dropped, so that raw[m] is token j + m)
                aligned = len(raw) == k - j
                cut = next(
                    (
                        m + 1
                        for m in range(lead_raw, len(raw) - 1)
                        if aligned and _plural_form(raw[m]) and kinds[j + m + 1] == _WORD
                    ),
                    len(raw),
                )
                shared, shared_raw = ch.words[lead : len(ch.words) - len(raw) + cut], raw[lead_raw:cut]
                for before in (*series, pending):
                    before.words, before.raw = before.words + shared, before.raw + shared_raw
                    before.forms = before.forms + forms[lead_raw:cut]
                    if before is not opening:  # "the first, second and third layers": one phrase, one article
                        before.partner, before.definite = opening, opening.definite
                if cut < len(raw) and len(ch.words) == len(raw):
                    # and the last conjunct ends there as well, so that all are read alike
                    k = j + cut  # the words after it are read on as phrases of their own
                    raw, forms, nxt = raw[:cut], forms[:cut], lows[k]
                    ch.words, ch.raw, ch.forms, ch.end = ch.words[:cut], raw, forms, k
                    ch.clean, ch.singular, ch.after = False, False, nxt
                ch.definite = ch.definite or (opening.definite and pending.alone is None)
                ch.partner = opening  # one phrase: reported once
            elif i > pending.end + 2 or not ch.definite:
                # "the first or, if present, fourth columns": too far to read, so not judged
                for before in (*series, pending):
                    before.subject = True
            # else two positional nouns, each with its article ("the front and the rear"): each is read alone
            pending = None
            series = []
        if (
            ch.words[-1] in _POSITIONAL
            and (nxt in ("and", "or") or (nxt == "," and _series(ch, lows, k, nxt)))
            and _POSITIONAL.issuperset(ch.words)
        ):
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
                part.article, part.same, part.joined = before.article, ch, True
                out.append(part)
            joint = None
        if k + 1 < n and kinds[k] in (_ED, _ING) and kinds[k + 1] == _WORD and "-" not in lows[k] and not ch.definite:
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
        if nxt == "of" and cls == _ART:
            if len(kept) > 1 and kept[-1] in _GROUPS and _POSITIONAL.issuperset(kept[:-1]):
                # "a first plurality of receptacles" introduces "first receptacles": "said first receptacles" are
                # its members, but "the first receptacle" would not say which one
                one_of, collective = [kept[:-1]], True
            elif kept == ("pair",):
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
        i = k + 1 if k < n and kinds[k] == _WORD and lows[k] in _PARTICIPLES_ONLY else k  # not a phrase of its own
    if actions:  # an "-ing" word inside a noun phrase ("a loading station") names no action
        actions = _outside(actions, out)
        # a participle compound outside any phrase ("at least one spring-loaded ball", "from dyestuff-containing
        # media") still names its noun: an introduction of it, in its place
        count = len(out)
        for w, t in actions:
            if "-" in w:
                out.extend(_Chunk(claim, t, t + 1, (noun,), (noun,)) for noun in _participle_noun(w.split("-")))
        if len(out) > count:
            out.sort(key=lambda c: c.start)
    return out, actions


def _context(ch: _Chunk, read: _Tokens) -> None:
    """What a definite phrase's place in its claim says of it, read once, where the judge found no introduction in
    scope for it (:meth:`_Reader.judge`; nine references in ten have one, and reading this for each in the chunker
    took 6 % of its instructions): whether "of" names its owner, whether it is a plural or coordinated subject with
    a complement after it, and whether it names an inherent part or property (``inherent``), all in the words the
    phrase had where the chunker read it (``site``; a coordination may lend it a head later). ``read``: the claim's
    tokens, read while the claim is judged."""
    if ch.site is None:
        return
    j, k, nxt, words = ch.site
    ch.site = None
    _, kinds, lows, sings, flags, _, _ = read
    n, i = len(lows), ch.start
    ch.of_named = nxt == "of" and k + 1 < n and kinds[k + 1] == _DEF
    ch.plural_subject = (i > 0 and lows[i - 1] == "and") or (k - j > 1 and bool(flags[k - 2] & _F_VERB_S))
    ch.complement = k < n and (kinds[k] in (_DEF, _ART, _ADV) or lows[k] in _COMPLEMENTS)
    head = words[-1]
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
            and _MEASURES.issuperset(words[:-1])
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
            and all(w in _MEASURES or w in _PROPERTIES for w in words[:-1])
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


def _outside(actions: list[tuple[str, int]], out: list[_Chunk]) -> list[tuple[str, int]]:
    """The actions (in token order) that no phrase covers: one sweep over the phrases by their start, each action
    covered when a phrase starting at or before it reaches past it (a set of every covered token cost a long claim
    each token of its phrases)."""
    kept = []
    phrases = sorted(out, key=_START)
    reach = at = 0
    last = len(phrases)
    for action in actions:
        token = action[1]
        while at < last and phrases[at].start <= token:
            end = phrases[at].end
            if end > reach:
                reach = end
            at += 1
        if token >= reach:
            kept.append(action)
    return kept


def _named_in_place(tokens: tuple[str, ...], kinds: tuple[int, ...], flags: tuple[int, ...], lows: tuple[str, ...], j: int, k: int) -> bool:
    """Whether the phrase ``j``..``k``, whose last token reads as a formula, ends in a name of letters and digits given
    right after its noun ("the order RF39", "the genes PPP3CC", "the modifications T366I"). Not the object of a verb
    the phrase ran into: "the cells express CD133" (a bare verb after a plural), "the plasmid targets KU80-1" (a verb
    in "-s" after a singular), "the gene encoding CCL7" — there the subject is a reference of its own."""
    name = tokens[k - 1]
    if k - j < 2 or name.islower() or kinds[k - 2] != _WORD or lows[k - 2].endswith("ing"):
        return False
    if k - j > 2 and not flags[k - 3] & _F_POSSESSIVE:
        before = lows[k - 2].replace("-", "")
        if bool(flags[k - 3] & _F_VERB_S) != bool(flags[k - 2] & _F_VERB_S) and before.isalpha():
            return False
    return True


def _series(ch: _Chunk, lows: tuple[str, ...], k: int, nxt: str) -> bool:
    """Whether ``ch`` (ending at token ``k``) is an ordinal alone followed by a comma and the next ordinal of a list:
    "first, second, and third matrices", "first, second and third layers"."""
    if nxt != "," or not _ORDINALS_SET.issuperset(ch.raw):
        return False
    after = lows[k + 1] if k + 1 < len(lows) else ""
    if after in ("and", "or") and lows[k] == ",":
        after = lows[k + 2] if k + 2 < len(lows) else ""
    return after in _ORDINALS_SET


def _past_adjectives(kinds: tuple[int, ...], lows: tuple[str, ...], at: int) -> int:
    """Where the phrase after a comma starts once coordinate participles, each with its comma, are passed: "an
    inner, insulating, polyester layer"."""
    while at + 1 < len(lows) and kinds[at] in (_ING, _ED) and lows[at + 1] == ",":
        at += 2
    return at


def _lends(ch: _Chunk, tokens: tuple[str, ...], kinds: tuple[int, ...], lows: tuple[str, ...], k: int) -> tuple[int, list[tuple[str, ...]]] | None:
    """What an introduction ending at token ``k`` lends the phrase right after a comma, a parenthesised
    abbreviation or ", hereafter ABBR,": (the token that phrase must start at, the words it takes before its own).
    When an abbreviation is defined, the last reading is the phrase with the abbreviation for its long form."""
    after = lows[k]
    if after == "," and ch.article and ch.words[-1] in _POSITIONAL and _POSITIONAL.issuperset(ch.words):
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


def _names_claim(kinds: tuple[int, ...], k: int, claim_at: list[int]) -> bool:
    """Whether "claim(s)" follows within nine tokens without punctuation: "The method of claim 1", "the apparatus
    as claimed in any preceding claim"."""
    x = bisect_left(claim_at, k)
    return x < len(claim_at) and claim_at[x] - k < 9 and all(kinds[m] != _PUNCT for m in range(k, claim_at[x]))
