"""Distractor settings: gold documents excluded, token budget, gold position, seeded random placement."""

import random

from factscope.grounding.data import GroundExample
from factscope.grounding.distractors import (
    DistractorSettings,
    add_corpus_distractors,
    add_distractors,
    is_gold,
    place_gold,
    select_distractors,
)
from factscope.retrieve.corpus import BM25Retriever, Corpus, Document, Hit

GOLD = ["Title: Corvel \n\n Corvel is a market town. The Lenne flows through Corvel."]


def test_gold_documents_are_excluded_by_title_or_text():
    assert is_gold(Hit("d1", "Anything at all.", 1.0, "Corvel"), GOLD)
    assert is_gold(Hit("d2", "The Lenne flows through Corvel.", 1.0, "Other"), GOLD)
    assert not is_gold(Hit("d3", "Astry has a bridge.", 1.0, "Astry"), GOLD)


def test_budget_keeps_rank_order_and_stops_at_the_first_overrun():
    hits = [
        Hit("g", "gold text", 9.0, "Corvel"),
        Hit("a", "one two three", 3.0, "A"),  # "Title: A \n\n one two three" = 6 words
        Hit("b", "four five", 2.0, "B"),  # 5 words: 6 + 5 = 11 <= 11
        Hit("c", "six", 1.0, "C"),  # 4 words: 15 > 11 -> stop
    ]
    chosen = select_distractors(hits, GOLD, budget=11)
    assert chosen == ["Title: A \n\n one two three", "Title: B \n\n four five"]


def test_gold_positions():
    gold, dist = ["G1", "G2"], ["D1", "D2", "D3"]
    assert place_gold(gold, dist, "beginning") == ["G1", "G2", "D1", "D2", "D3"]
    assert place_gold(gold, dist, "end") == ["D1", "D2", "D3", "G1", "G2"]
    assert place_gold(gold, dist, "middle") == ["D1", "G1", "G2", "D2", "D3"]
    shuffled = place_gold(gold, dist, "random", random.Random(3))
    assert sorted(shuffled) == sorted(gold + dist)
    assert [c for c in shuffled if c.startswith("D")] == dist
    assert shuffled == place_gold(gold, dist, "random", random.Random(3))


def test_add_distractors_with_bm25_over_a_corpus():
    corpus = Corpus(
        [
            Document("corvel", "Corvel is a market town. The Lenne flows through Corvel.", "Corvel"),
            Document("astry", "Astry is a village on the Lenne river with a bridge.", "Astry"),
            Document("owl", "The marsh owl hunts at dusk.", "Marsh owl"),
        ]
    )
    example = GroundExample(
        "q3", "Which river flows through Corvel?", list(GOLD), ["The Lenne flows through Corvel."]
    )
    [updated] = add_distractors(
        [example], BM25Retriever(corpus), budget=100, gold_position="beginning", depth=3
    )
    assert updated.contexts[0] == GOLD[0]
    assert updated.contexts[1].startswith("Title: Astry")
    assert all("Title: Corvel" not in c for c in updated.contexts[1:])
    assert updated.metadata["distractors"] == len(updated.contexts) - 1
    assert example.contexts == GOLD


def test_distractors_from_a_corpus_file_as_the_settings_say(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        '{"id": "astry", "title": "Astry", "text": "Astry is a village on the Lenne river with a bridge."}\n'
        '{"id": "owl", "title": "Marsh owl", "text": "The marsh owl hunts at dusk."}\n',
        encoding="utf-8",
    )
    example = GroundExample("q3", "Which river flows through Corvel?", list(GOLD), [])
    settings = DistractorSettings(retriever="bm25", budget=100, gold_position="beginning", depth=1)
    [updated] = add_corpus_distractors([example], corpus, settings)
    assert updated.contexts[0] == GOLD[0] and updated.contexts[1].startswith("Title: Astry")
    assert updated.metadata == {"distractors": 1, "gold_position": "beginning"}
    assert settings.describe() == "bm25, 100 tokens, gold at beginning"
