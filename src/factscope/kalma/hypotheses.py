"""Citations as NLI pairs (KaLMA A.3): a sentence is the premise, a cited or removed triple, written by the
hypothesis template, the hypothesis; and the checker's entailment decisions on them."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.checkers.base import Checker, CheckTask
from factscope.core.schema import Label
from factscope.kalma.spec import DEFAULT_HYPOTHESIS
from factscope.kg.citations import ParsedAnswer
from factscope.kg.graph import KnowledgeGraph, Triple


def hypothesis(template: str, qid: str | None, relation: str, value: str, graph: KnowledgeGraph) -> str:
    """Fill the hypothesis template; ``{name}`` is the entity's name in ``graph``, else its qid."""
    entity = graph.get(qid) if qid else None
    name = entity.name if entity is not None and entity.name else (qid or "")
    return template.format(qid=qid or "", name=name, relation=relation, value=value).strip()


def alignment_pairs(parsed: ParsedAnswer, graph: KnowledgeGraph,
                    template: str = DEFAULT_HYPOTHESIS) -> list[tuple[str, str]]:
    """(sentence, hypothesis) for every citation that names a relation and a value."""
    return [(parsed.sentences[c.sentence], hypothesis(template, c.qid, c.relation, c.value, graph))
            for c in parsed.citations if c.relation and c.value and c.sentence < len(parsed.sentences)]


def na_pairs(parsed: ParsedAnswer, removed: Sequence[Triple], graph: KnowledgeGraph,
             template: str = DEFAULT_HYPOTHESIS) -> list[tuple[str, str]]:
    """(sentence marked [NA], hypothesis of a removed triple) for every such combination."""
    return [(parsed.sentences[i], hypothesis(template, t.qid, t.relation, t.value, graph))
            for i in parsed.na_sentences if i < len(parsed.sentences) for t in removed]


def entailment_decisions(checker: Checker, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], bool | None]:
    """Whether each premise entails its hypothesis (None: the check failed); identical pairs are checked
    once. Premise = the sentence, hypothesis = the citation (KaLMA A.3)."""
    unique = list(dict.fromkeys(pairs))
    verdicts = checker.check([CheckTask(claim=h, references=(p,)) for p, h in unique]) if unique else []
    return {pair: (None if v.failed or v.label is None else v.label == Label.ENTAILMENT)
            for pair, v in zip(unique, verdicts)}
