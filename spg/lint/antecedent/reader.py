"""Judging each definite reference against the introductions in its scope (the claim and every claim it depends
on): the examiner's readings of :class:`_Reader` (the module docstring of :mod:`spg.lint.antecedent`)."""

from __future__ import annotations

import re

from spg.lint.antecedent.chunks import _Chunk, _context
from spg.lint.antecedent.index import _Index
from spg.lint.antecedent.support import _contradicts, _spells, _stem
from spg.lint.antecedent.words import (
    _ACTION_HEADS,
    _AFTER_HEAD,
    _FACES,
    _HAVING_ONLY_RE,
    _HAVING_RE,
    _ING_NOUNS,
    _IRREGULAR_PARTICIPLES,
    _NOMINAL_SUFFIXES,
    _NON_RESTRICTIVE,
    _OF_OWNER_RE,
    _ORDINALS_SET,
    _OWNER_ENDS,
    _PARTS,
    _POSITIONAL,
    _POSTPOSITIVE,
    _PREPOSITIONS,
    _TOKEN_RE,
    _american,
    _bare_verb,
    _modifier_only,
    _plural_form,
    _singular,
)


class _Reader(_Index):
    """The judge of one definite reference against the introductions in its scope (:meth:`judge`), with the
    readings it tries before it reports one."""

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
            if self.links is not None:
                self.links.append((ref, latest))
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
        _context(ref, self.read)  # what its place says of it: read only now that no introduction supports it
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
        # out of scope, the message names the introduction the claim would need: the same words if written, not
        # merely the latest of that head ("a front frame" for "the front frame", not the "a rear frame" after it)
        elsewhere = [c for c in same_head if not c.definite]
        return "antecedent", in_scope[:1] or ([c for c in elsewhere if c.words == words] or elsewhere)[:1]
