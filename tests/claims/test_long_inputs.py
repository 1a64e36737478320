"""Texts of any length are parsed: one over the parser's piece size is cut at sentence starts, the pieces parsed
and joined back, with the claims, sentence numbers and character offsets of a text parsed whole; a 1 MB response
is checked end to end."""

from __future__ import annotations

import itertools
import json

import pytest
import spacy

from factscope.checkers.segmented import SegmentedChecker
from factscope.claims.clause_facts import ClauseFactExtractor
from factscope.claims.parsing import parse_batch
from factscope.claims.rule_triplets import RuleTripletExtractor
from factscope.claims.sentences import SentenceExtractor
from factscope.core.text import piece_ranges, sentence_spans
from factscope.hf.embedded import load_spacy
from factscope.refchecker.data import CheckRecords
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CHECK
from fake_scorers import KeywordScorer, plain_options

TEXT = (
    "## Summary\n\nMarie Curie was born in Warsaw in 1867. She moved to Paris in 1891 and studied physics.\n"
    "- **Pierre Curie** married her in 1895.\n- They co-discovered polonium and radium.\n\n"
    "The well-known physicist won the Nobel Prize in Physics in 1903. She won a second Nobel Prize in 1911. "
    "Her daughter Irene also won a Nobel Prize. Is that not remarkable? I hope this helps."
)


def _claims(extractor, text: str, piece_chars: int) -> list[tuple[str, list[int], list[tuple[int, int]]]]:
    docs = parse_batch(extractor.nlp, [text], extractor.batch_size, piece_chars=piece_chars)
    return [(c.text, c.sentence_ids, [(s.start, s.end) for s in c.spans]) for c in extractor.doc_claims(docs[0])]


def test_a_text_parsed_in_pieces_gives_the_sentence_claims_of_the_text_parsed_whole():
    extractor = SentenceExtractor(load_spacy())
    whole = _claims(extractor, TEXT, len(TEXT))
    assert len(whole) == 7
    for piece_chars in (60, 150):
        assert _claims(extractor, TEXT, piece_chars) == whole


@pytest.mark.parametrize("extractor_type", [RuleTripletExtractor, ClauseFactExtractor])
def test_parsing_in_pieces_changes_no_claim_away_from_a_cut(extractor_type):
    """The tagger reads a few words around each word, so the sentences on either side of a cut may be tagged
    differently; every other sentence gives the claims it gives in the text parsed whole."""
    extractor = extractor_type(load_spacy())
    spans = [(span.start, span.end) for span in sentence_spans(TEXT)]
    limit = len(TEXT) // 2 + 20
    ((_, cut), _) = piece_ranges(TEXT, spans, limit)
    after = next(index for index, (start, _) in enumerate(spans) if start == cut)
    beside = {after - 1, after}
    whole, pieces = _claims(extractor, TEXT, len(TEXT)), _claims(extractor, TEXT, limit)
    assert [c for c in pieces if c[1][0] not in beside] == [c for c in whole if c[1][0] not in beside]
    assert len([c for c in whole if c[1][0] not in beside]) >= 4
    for _, (sentence,), claim_spans in pieces:
        assert all(spans[sentence][0] <= start < end <= spans[sentence][1] for start, end in claim_spans)


def test_pieces_are_cut_at_sentence_starts_else_after_whitespace():
    spans = [(span.start, span.end) for span in sentence_spans(TEXT)]
    ranges = piece_ranges(TEXT, spans, 100)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(TEXT)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert all(end - start <= 100 for start, end in ranges)
    assert all(start in {s for s, _ in spans} for start, _ in ranges[1:])
    long_sentence = "word " * 50
    cut = piece_ranges(long_sentence, [(0, len(long_sentence) - 1)], 23)
    assert [long_sentence[start:end] for start, end in cut][:2] == ["word word word word ", "word word word word "]
    assert piece_ranges("a" * 10, [(0, 10)], 4) == [(0, 4), (4, 8), (8, 10)]


def test_a_text_over_the_parsers_max_length_is_parsed():
    nlp = spacy.blank("en")
    nlp.max_length = 50
    docs = parse_batch(nlp, ["Paris is old. " * 10], 8)
    assert docs[0].text == "Paris is old. " * 10 and len(list(docs[0].sents)) == 10


SENTENCE = (
    "Paris, the capital of France, lies on the Seine and has been the seat of the national government, its "
    "parliament and most of its ministries for many centuries. "
)


def _fast_pipeline():
    """A spaCy pipeline with a rule-based tagger (attribute_ruler: capitalised words are proper nouns) and no
    parser: SentenceExtractor needs only the sentence boundaries, set before parsing, and content words."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"IS_TITLE": True}]], {"POS": "PROPN", "TAG": "NNP"})
    return nlp


def test_a_one_megabyte_response_is_checked_end_to_end(tmp_path):
    response = SENTENCE * (1_000_000 // len(SENTENCE) + 1)
    assert len(response) > 1_000_000
    records = tmp_path / "records.jsonl"
    records.write_text(
        json.dumps({"id": "long", "response": response, "references": [SENTENCE.strip()]}) + "\n",
        encoding="utf-8",
    )
    output = tmp_path / "out.jsonl"
    checker = SegmentedChecker(KeywordScorer(), plain_options())
    spec = CheckSpec(extractor=SentenceExtractor(_fast_pipeline()), checker=checker)
    run = CHECK.run(spec, CheckRecords(records), output=output)
    assert run.failed == 0
    (row,) = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    claims = row["claims"]
    assert not row["extraction_failed"] and len(claims) == response.count(SENTENCE)
    assert {claim["verdict"]["label"] for claim in claims} == {"Entailment"}
    for checked in (claims[0], claims[len(claims) // 2], claims[-1]):
        (span,) = checked["claim"]["spans"]
        assert response[span["start"] : span["end"]] == SENTENCE.strip()
        assert span["start"] == checked["claim"]["sentence_ids"][0] * len(SENTENCE)
