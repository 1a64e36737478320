"""LLM claims aligned to their words in the response (rapidfuzz), or kept on their sentence when they cannot be."""

from factscope.claims.span_alignment import aligned_spans
from factscope.core.schema import Claim
from factscope.core.text import sentence_spans

TEXT = "Marie Curie was a Polish-born physicist and chemist. She won the Nobel Prize in 1903 and discovered radium."
SENTENCES = sentence_spans(TEXT)


def spans_of(claim: Claim) -> tuple[list[str], str]:
    located = aligned_spans(TEXT, claim, SENTENCES)
    assert all(TEXT[s.start : s.end] == s.text for s in located["spans"])
    return [s.text for s in located["spans"]], located["spans_cover"]


def test_a_rewritten_claim_is_found_by_its_words_in_its_sentence():
    claim = Claim(text="Marie Curie won the Nobel Prize in 1903.", sentence_ids=[1])
    assert spans_of(claim) == (["won the Nobel Prize in 1903"], "words")


def test_inflected_words_match_and_trailing_function_words_are_dropped():
    triplet = Claim(text="", kind="triplet", triplet=("Curie", "discover", "radium"), sentence_ids=[1])
    assert spans_of(triplet) == (["discovered radium"], "words")
    assert spans_of(Claim(text="Curie was a chemist")) == (["Curie", "chemist"], "words")


def test_numbers_must_be_equal():
    claim = Claim(text="Curie won the Nobel Prize in 1904.", sentence_ids=[1])
    assert spans_of(claim) == (["won the Nobel Prize"], "words")


def test_a_claim_the_sentence_does_not_bear_keeps_its_sentence():
    claim = Claim(text="Pierre Curie taught chemistry in Paris.", sentence_ids=[0])
    assert spans_of(claim) == (["Marie Curie was a Polish-born physicist and chemist."], "sentence")


def test_the_example_of_the_spans_page_prints_what_it_says(tmp_path, capsys):
    from doc_examples import python_blocks, run_block

    block = python_blocks("concepts/spans.md")[0]
    run_block(block, tmp_path)
    said = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# (")]
    printed = capsys.readouterr().out.splitlines()
    assert printed[: len(said)] == said


def test_the_share_of_content_words_a_claim_needs_is_a_parameter(tmp_path, capsys):
    half = Claim(text="Pierre received the Nobel Prize.", sentence_ids=[1])
    assert spans_of(half) == (["the Nobel Prize"], "words"), "two of its four content words: half is enough"
    stricter = aligned_spans(TEXT, half, SENTENCES, min_coverage=0.75)
    assert stricter["spans_cover"] == "sentence"
    assert [s.text for s in stricter["spans"]] == ["She won the Nobel Prize in 1903 and discovered radium."]
    from doc_examples import python_blocks, run_block

    run_block(python_blocks("concepts/spans.md")[1], tmp_path)
    assert capsys.readouterr().out.splitlines() == ["words", "sentence"], (
        "the spans page's example of the parameter"
    )
