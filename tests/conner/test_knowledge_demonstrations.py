"""The few-shot demonstrations of knowledge generation, per task (conner.demonstrations): random ones, or the best
by Q_know of a sample, each task drawing only on its own examples."""

import pytest

from factscope.conner.data import KnowledgeRecord
from factscope.conner.demonstrations import choose_demonstrations, run_demonstrations
from factscope.conner.scores import KnowledgeScores
from factscope.core.errors import ConfigError

POOL = [
    *(KnowledgeRecord(id=f"q{i}", query=f"question {i}", knowledge="k" * (i + 1), task="qa") for i in range(5)),
    *(KnowledgeRecord(id=f"d{i}", query=f"turn {i}", knowledge="k" * (i + 1), task="dialogue") for i in range(3)),
]


class RankByLength:
    """An evaluator stand-in whose Q_know is the knowledge length."""

    def score(self, records, pool=None):
        return [KnowledgeScores(id=r.id, q_know=float(len(r.knowledge))) for r in records]


def test_random_demonstrations_come_from_each_task_in_sorted_order_and_are_seeded():
    chosen = choose_demonstrations(["qa", "dialogue", "qa"], POOL, shots=2, seed=3)
    assert [r.task for r in chosen.examples] == ["dialogue", "dialogue", "qa", "qa"]
    assert chosen.choices == {}
    assert chosen == choose_demonstrations(["dialogue", "qa"], POOL, shots=2, seed=3)


def test_demonstrations_chosen_by_q_know_are_the_best_of_the_sample_and_say_so():
    chosen = choose_demonstrations(["qa"], POOL, shots=2, select_from=5, evaluator=RankByLength())
    assert [r.id for r in chosen.examples] == ["q4", "q3"]
    assert chosen.choices["qa"].selected == ["q4", "q3"]
    assert set(chosen.choices["qa"].scores) == {f"q{i}" for i in range(5)}
    assert chosen.choice_lines() == ["qa demonstrations chosen by Q_know: q4, q3"]


def test_random_demonstrations_have_no_choice_to_tell_and_an_empty_choice_says_none():
    assert choose_demonstrations(["qa"], POOL, shots=2).choice_lines() == []
    chosen = choose_demonstrations(["dialogue"], POOL[:5], shots=2, select_from=5, evaluator=RankByLength())
    assert chosen.choice_lines() == ["dialogue demonstrations chosen by Q_know: none"]


def test_a_task_without_examples_gets_none():
    assert choose_demonstrations(["qa"], POOL[5:], shots=2).examples == []


def test_a_run_reads_its_demonstrations_from_the_train_file_only_when_it_needs_them(tmp_path):
    train = tmp_path / "train.jsonl"
    rows = [record.model_dump_json() for record in POOL] + ['{"id": "bad"}']
    train.write_text("\n".join(rows) + "\n", encoding="utf-8")
    skipped = []
    chosen = run_demonstrations(
        ["qa"], train, mode="few", answer=False, shots=2, seed=3, skipped=skipped.append
    )
    assert chosen == choose_demonstrations(["qa"], POOL, shots=2, seed=3)
    assert len(skipped) == 1 and "train.jsonl:9: field 'query': missing" in str(skipped[0])
    absent = tmp_path / "absent.jsonl"
    assert run_demonstrations(["qa"], absent, mode="zero", answer=False, shots=2).examples == []
    assert run_demonstrations(["qa"], None, mode="zero", answer=True, shots=2).examples == []


def test_few_shot_knowledge_without_a_train_file_is_refused_naming_the_parameters():
    with pytest.raises(ConfigError, match=r"^`mode='few'` needs `train`"):
        run_demonstrations(["qa"], None, mode="few", answer=False, shots=2)
