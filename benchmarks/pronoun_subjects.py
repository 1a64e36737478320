"""Claims whose subject names the wrong entity, on responses whose pronoun sentences have a known subject.

Each response is built from Wikipedia evidence sentences about one entity (FM2, Apache-2.0, grouped by its
``wikipedia_page``; FEVER dev, CC BY-SA 3.0, grouped by the name a lead sentence "<Name> is a ..." gives): a
sentence A that opens with the entity's name and is about it (every main-clause subject lies in the name); where
the evidence has one, a sentence whose subject the entity owns ("<Name>'s <noun> ..." with the name replaced by
"Its / His / Her / Their", or a real sentence opening with that possessive); then a sentence B about the entity,
its opening name replaced by the fitting pronoun (he or she from the pronouns the evidence uses for a person,
"they" before a plural verb, "it" otherwise). The subject of B's opening pronoun is the entity.

Two sets are measured: ``own_evidence`` (the owned sentence only where the entity's evidence has one) and
``possessive_sentence`` (every response gets one: where its evidence has none, a real sentence of the data that
opens with the fitting possessive is borrowed, chosen by the entity's name; its owner is then the entity).

A claim of sentence B is judged when its subject is not made of B's own words (a clause of B about something
else, "after his parents divorced", is not the pronoun's claim): it is right when it names the entity (a word of
its name) or keeps the pronoun, wrong otherwise. The figure is the share of judged claims that are wrong, for
the rule triplets (``rules``, the triplet's subject) and the clause facts (``facts``, the fact's opening words).
``--baseline`` copies the figures of an earlier results file (for instance one written by this script at an
older commit) into ``baseline`` with its commit. Figures go to ``benchmarks/results/pronoun_subjects.json``.

    HF_HUB_OFFLINE=1 python benchmarks/pronoun_subjects.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claim_families import default_data_dir
from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"])")
LEAD = re.compile(
    r"^((?:[A-Z][\w'.&-]*)(?: (?:[A-Z0-9][\w'.&-]*|of|the|and|de|von|van|la|le))*) (?:is|was|are|were) (?:a|an|the|one) "
)
POSSESSIVES = {"it": "Its", "he": "His", "she": "Her", "they": "Their"}
PLURAL_VERBS = frozenset({"are", "were", "have", "do"})
NAME_STOPWORDS = frozenset({"the", "of", "and", "a", "an", "de", "von", "van", "la", "le"})


@dataclass(frozen=True)
class PronounResponse:
    """A response whose last sentence opens with ``pronoun`` standing for ``entity``."""

    entity: str
    pronoun: str
    sentences: tuple[str, ...]
    possessive: bool

    @property
    def text(self) -> str:
        """The response: its sentences joined by spaces."""
        return " ".join(self.sentences)


def words(text: str) -> set[str]:
    """The lower-cased words of a text."""
    return set(re.findall(r"[\w'-]+", text.lower()))


def name_words(entity: str) -> set[str]:
    """The lower-cased words of an entity's name that name it on their own ("Willie Stargell" -> willie, stargell)."""
    return {w for w in words(entity) if w not in NAME_STOPWORDS and len(w) > 1}


def subject_verdict(subject: str, pronoun_sentence: str, entity: str, pronoun: str) -> str | None:
    """``"right"``, ``"kept"`` or ``"wrong"`` for a claim subject of the pronoun sentence; None when the subject
    is made of the pronoun sentence's own words (a clause about something else, not the pronoun's claim)."""
    lowered = subject.strip().lower()
    if lowered == pronoun:
        return "kept"
    if words(lowered) <= words(pronoun_sentence):
        return None
    if name_words(entity) & words(lowered):
        return "right"
    return "wrong"


def fact_subject(fact: str, pronoun_sentence: str, entity: str, pronoun: str) -> str:
    """The opening of a clause fact that stands for its subject: the pronoun, the entity's name as written in
    the fact, or else its longest opening of at most four words that is a phrase of the pronoun sentence (the
    first word when none is)."""
    words = fact.rstrip(".").split()
    if words and words[0].lower() == pronoun:
        return words[0]
    for size in range(min(4, len(words)), 0, -1):
        opening = " ".join(words[:size])
        if subject_verdict(opening, pronoun_sentence, entity, pronoun) is None:
            return opening
    return " ".join(words[:3])


def split_sentences(text: str) -> list[str]:
    """Evidence text cut into sentences at a full stop, question or exclamation mark before a capital."""
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def load_entities(data_dir: Path) -> dict[str, set[str]]:
    """Entity name -> the evidence sentences of its page (FM2) or that mention it (FEVER dev)."""
    pools: dict[str, set[str]] = defaultdict(set)
    fm2 = data_dir / "claims" / "fm2.jsonl"
    fever = data_dir / "claims" / "fever_dev.jsonl"
    for path in (fm2, fever):
        if not path.is_file():
            raise SystemExit(f"{path} not found; pass the shared data folder with --data")
    with fm2.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            name = re.sub(r"\s*\(.*\)$", "", row["wikipedia_page"]).strip()
            pools[name].update(split_sentences(row["premise"]))
    fever_sentences: set[str] = set()
    with fever.open(encoding="utf-8") as handle:
        for line in handle:
            fever_sentences.update(split_sentences(json.loads(line)["premise"]))
    leads = {m.group(1) for s in fever_sentences if (m := LEAD.match(s))}
    by_first_word: dict[str, list[str]] = defaultdict(list)
    for sentence in fever_sentences:
        first = sentence.split(" ", 2)
        by_first_word[first[1] if first[0] == "The" and len(first) > 1 else first[0]].append(sentence)
    for name in leads - set(pools):
        pools[name].update(by_first_word[name.split()[0]])
    return pools


def opening_name(sentence: str, names: tuple[str, ...]) -> str | None:
    """The name (with a leading "The") a sentence opens with, followed by a lower-case word; else None."""
    for name in names:
        match = re.match(rf"((?:The )?{re.escape(name)}) (?!and |or )[a-z]", sentence)
        if match:
            return match.group(1)
    return None


def main_clause_subjects(doc: Any) -> list[Any]:
    """The subjects of a parsed sentence's main clause and of the clauses coordinated with it."""
    found = []
    for token in doc:
        if token.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        verb = token.head
        while verb.dep_ in {"conj", "parataxis"} and verb.head.i != verb.i:
            verb = verb.head
        if verb.dep_ == "ROOT":
            found.append(token)
    return found


def is_about(doc: Any, opened: str) -> bool:
    """Whether a parsed sentence is about the name it opens with: every subject of its main clauses lies in that
    name or is a pronoun ("Google bought YouTube; YouTube now operates ..." is about two entities)."""
    subjects = main_clause_subjects(doc)
    return bool(subjects) and all(t.idx < len(opened) or t.pos_ == "PRON" for t in subjects)


def choose_pronoun(entity: str, openers: list[Any], pool: set[str]) -> str | None:
    """he / she for a PERSON (the tagger's majority over the sentences that open with the name; the pronouns of
    the evidence that mentions the name decide which, None when they do not settle it), "they" when the name
    takes a plural verb, "it" otherwise."""
    labels = [
        doc.ents[0].label_
        for doc in openers
        if doc.ents and doc.ents[0].start == 0 and doc[0].lower_ != "the"
    ]
    if labels and labels.count("PERSON") * 2 > len(labels):
        surname = entity.split()[-1]
        text = " ".join(s for s in pool if entity in s or surname in s).lower()
        male = len(re.findall(r"\b(he|his|him)\b", text))
        female = len(re.findall(r"\b(she|her|hers)\b", text))
        if male >= 2 * female and male > 0:
            return "he"
        if female >= 2 * male and female > 0:
            return "she"
        return None
    first = openers[0]
    after = first.text[len(opening_name(first.text, (entity,)) or entity) :].split()
    return "they" if after and after[0] in PLURAL_VERBS else "it"


def owned_sentences(pool: list[str], names: tuple[str, ...], owner: str) -> list[str]:
    """Sentences whose subject the entity owns: "<Name>'s <noun> ..." with the name replaced by ``owner``, and
    those that open with ``owner`` already."""
    named = "|".join(re.escape(n) for n in names)
    return [
        re.sub(rf"^(?:The )?(?:{named})'s ", f"{owner} ", s)
        for s in pool
        if re.match(rf"(?:(?:The )?(?:{named})'s|{owner}) [a-z]", s)
    ]


def build_response(
    entity: str, pool: set[str], nlp: Any, borrowed: dict[str, list[str]] | None = None
) -> PronounResponse | None:
    """One response for an entity (see the module docstring), or None when its evidence gives none. With
    ``borrowed`` (possessive -> sentences), a response whose evidence has no owned sentence takes one of those,
    chosen by the entity's name, so that every response has one."""
    ordered = sorted(pool)
    candidates = [s for s in ordered if opening_name(s, (entity,))][:6]
    if len(entity) < 3 or not candidates:
        return None
    openers = [doc for doc in nlp.pipe(candidates) if is_about(doc, opening_name(doc.text, (entity,)) or "")]
    if not openers:
        return None
    pronoun = choose_pronoun(entity, openers, pool)
    if pronoun is None:
        return None
    sentence_a = openers[0].text
    names = (entity,) if pronoun not in {"he", "she"} or " " not in entity else (entity, entity.split()[-1])
    later = [s for s in ordered if s != sentence_a and opening_name(s, names)][:6]
    chosen = [doc.text for doc in nlp.pipe(later) if is_about(doc, opening_name(doc.text, names) or "")]
    if not chosen:
        return None
    opened = opening_name(chosen[0], names) or entity
    sentence_b = pronoun.capitalize() + chosen[0][len(opened) :]
    owner = POSSESSIVES[pronoun]
    owned = owned_sentences([s for s in ordered if s not in {sentence_a, chosen[0]}], names, owner)
    if not owned and borrowed is not None and borrowed[owner]:
        owned = [borrowed[owner][sum(map(ord, entity)) % len(borrowed[owner])]]
    middle = tuple(owned[:1])
    return PronounResponse(entity, pronoun, (sentence_a, *middle, sentence_b), bool(middle))


def judge(response: PronounResponse, claims: list[Any], kind: str) -> dict[str, int]:
    """Counts of right / kept / wrong / unjudged subjects among the claims of the response's last sentence."""
    last = len(response.sentences) - 1
    pronoun_sentence = response.sentences[-1]
    counts = {"right": 0, "kept": 0, "wrong": 0, "unjudged": 0}
    for claim in claims:
        if last not in claim.sentence_ids:
            continue
        if kind == "rules" and claim.triplet is not None:
            subject = claim.triplet[0]
        else:
            subject = fact_subject(claim.text, pronoun_sentence, response.entity, response.pronoun)
        verdict = subject_verdict(subject, pronoun_sentence, response.entity, response.pronoun)
        counts[verdict or "unjudged"] += 1
    return counts


def same_sentence_count(responses: list[PronounResponse], extractor: Any) -> list[PronounResponse]:
    """The responses the extractor splits into as many sentences as they were built from (others are dropped:
    an abbreviation cut differently would misplace the pronoun sentence)."""
    from factscope.claims.parsing import sentences

    docs = extractor.nlp.pipe([r.text for r in responses])
    return [r for r, doc in zip(responses, docs) if len(list(sentences(doc))) == len(r.sentences)]


def summary(rows: list[tuple[PronounResponse, dict[str, int]]]) -> dict[str, Any]:
    """Totals and the wrong-subject share (wrong / judged) of a list of judged responses."""
    totals = {key: sum(counts[key] for _, counts in rows) for key in ("right", "kept", "wrong", "unjudged")}
    judged = totals["right"] + totals["kept"] + totals["wrong"]
    return {
        "responses": len(rows),
        "judged_claims": judged,
        **totals,
        "wrong_share": round(totals["wrong"] / judged, 4) if judged else None,
        "kept_share": round(totals["kept"] / judged, 4) if judged else None,
        "responses_with_a_wrong_subject": sum(1 for _, counts in rows if counts["wrong"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=default_data_dir(),
        help="the shared data folder (default ../shared/data)",
    )
    parser.add_argument("--limit", type=int, default=0, help="at most this many responses (default all)")
    parser.add_argument(
        "--examples", type=int, default=10, help="wrong subjects listed in the results (default 10)"
    )
    parser.add_argument("--baseline", type=Path, help="an earlier results file whose figures are copied in")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.claims.clause_facts import ClauseFactExtractor
    from factscope.claims.rule_triplets import RuleTripletExtractor

    rules = RuleTripletExtractor()
    facts = ClauseFactExtractor(rules.nlp)
    pools = load_entities(args.data)
    every = sorted({s for pool in pools.values() for s in pool})
    borrowed = {owner: [s for s in every if re.match(f"{owner} [a-z]", s)] for owner in POSSESSIVES.values()}
    figures: dict[str, Any] = {}
    for variant, lending in (("own_evidence", None), ("possessive_sentence", borrowed)):
        built = [r for e in sorted(pools) if (r := build_response(e, pools[e], rules.nlp, lending))]
        responses = same_sentence_count(built, rules)[: args.limit or None]
        texts = [r.text for r in responses]
        measured: dict[str, Any] = {
            "responses_built": len(built),
            "responses_measured": len(responses),
            "with_possessive_sentence": sum(r.possessive for r in responses),
            "pronouns": {p: sum(r.pronoun == p for r in responses) for p in POSSESSIVES},
        }
        for name, extractor in (("rules", rules), ("facts", facts)):
            results = extractor.extract(texts)
            rows = [(r, judge(r, result.claims, name)) for r, result in zip(responses, results)]
            measured[name] = {
                "all": summary(rows),
                "with_possessive_sentence": summary([row for row in rows if row[0].possessive]),
                "wrong_examples": [
                    {
                        "response": r.text,
                        "claims": [c.text for c in result.claims if len(r.sentences) - 1 in c.sentence_ids],
                    }
                    for (r, counts), result in zip(rows, results)
                    if counts["wrong"]
                ][: args.examples],
            }
            print(variant, name, json.dumps(measured[name]["all"]))
        figures[variant] = measured
    if args.baseline is not None:
        earlier = json.loads(args.baseline.read_text(encoding="utf-8"))
        figures["baseline"] = {
            "git_commit": earlier["git_commit"],
            "date": earlier["date"],
            "figures": earlier["figures"],
        }
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
