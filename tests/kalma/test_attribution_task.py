"""The attribute task: graph preparation (gold, removal, swaps), generation and scoring with a fake LLM,
G-Eval judging, evolutionary question generation, and the CLI end to end."""

import json
import math

import pytest
from typer.testing import CliRunner

import repo_paths
from factscope import attribute
from factscope.core.errors import ConfigError
from factscope.core.schema import Label, Verdict
from factscope.kalma.answers import AnswerRecord
from factscope.kalma.data import AttributionQuestion, read_questions
from factscope.kalma.generation import AnswerWriter, generation_prompt
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.graphs import prepare, removed_knowledge
from factscope.kalma.question_evolution import EvolutionSeed, QuestionWriter, parse_generated
from factscope.kalma.report import record_html
from factscope.kalma.scores import AttributionScore, score_crashed, score_failed
from factscope.kalma.text_quality import continuation_logprob, judge_text_quality
from factscope.kalma.totals import AttributionTotals, summarize
from factscope.kg.graph import Triple
from factscope.kg.loaders import load_graph
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail, Logprobs
from fake_scorers import ValueInSentence

DATA = repo_paths.DATA / "attribute"
EXAMPLES = repo_paths.EXAMPLES / "attribute"
GRAPH = load_graph(DATA / "graph.jsonl")


def client(server):
    return LLMClient(LLMConfig(base_url=server.base_url, model="fake", max_retries=0, concurrency=4))


def question(qid="a", minimum=None):
    minimum = minimum or [Triple("Q1", "place of birth", "London"), Triple("Q1", "father", "Lord Byron"),
                          Triple("Q2", "occupation", "poet")]
    return AttributionQuestion(qid, "Who was Ada Lovelace's father?", minimum)


def test_gold_graph_is_the_one_hop_subgraphs_of_minimum_entities():
    items, warnings = prepare([question()], kg=GRAPH)
    graph = items[0].graph
    assert sorted(graph.entities) == ["Q1", "Q2"] and not warnings
    assert Triple("Q1", "occupation", "writer") in graph.triples()  # beyond the minimum set


def test_removal_is_nested_and_seeded():
    one = removed_knowledge(question(), 1, seed=3)
    two = removed_knowledge(question(), 2, seed=3)
    assert two[:1] == one and len(set(two)) == 2
    items, warnings = prepare([question(), question("b", [Triple("Q4", "occupation", "mathematician")])],
                              kg=GRAPH, remove=2, seed=3)
    assert [i.question.id for i in items] == ["a"] and "cannot remove 2" in warnings[0]
    for triple in two:
        assert triple not in items[0].graph.triples()


def test_retrieval_accuracy_swaps_a_nested_share_for_unrelated_graphs(tmp_path):
    questions = [AttributionQuestion(f"q{i}", "?", [Triple(f"Q{i}", "r", "v")]) for i in range(10, 20)]
    eighty, _ = prepare(questions, retrieval_accuracy=0.8, seed=1)
    forty, _ = prepare(questions, retrieval_accuracy=0.4, seed=1)
    swapped80 = {i.question.id for i in eighty if i.replaced_with}
    swapped40 = {i.question.id for i in forty if i.replaced_with}
    assert len(swapped80) == 2 and len(swapped40) == 6 and swapped80 <= swapped40
    for item in forty:
        if item.replaced_with:
            assert f"Q{item.question.id[1:]}" not in item.graph


@pytest.mark.parametrize("share", [-0.1, 1.5, math.nan])
def test_a_retrieval_accuracy_outside_0_to_1_is_refused_by_its_name(share):
    questions = [AttributionQuestion("q1", "?", [Triple("Q1", "r", "v")])]
    with pytest.raises(ConfigError, match="`retrieval_accuracy` must be between 0 and 1"):
        prepare(questions, retrieval_accuracy=share)


def test_generation_prompt_has_demonstration_graph_and_question():
    prompt = generation_prompt("Who was Ada's father?", GRAPH.subgraph(["Q1"]))
    assert "[NA]" in prompt and prompt.count("Question: Considering the information:") == 2
    assert "{name: Ada Lovelace, instance of: human, occupation: mathematician" in prompt
    assert prompt.rstrip().endswith("Who was Ada's father?\n\nAnswer:")


def test_generate_writes_resumes_and_keeps_failures(fake_llm, tmp_path):
    out = tmp_path / "answers.jsonl"
    fake_llm.responder = lambda request: (
        Fail(400, "bad request") if "Babbage" in request["messages"][0]["content"]
        else "Answer: Ada's father was Lord Byron [Q1, father: Lord Byron].")
    babbage = AttributionQuestion("b", "What did Charles Babbage design?", [Triple("Q4", "notable work",
                                                                                  "Analytical Engine")])
    items, _ = prepare([question(), babbage], kg=GRAPH)
    run = AnswerWriter().write(AnswerGenerationSettings(), items, llm=client(fake_llm), output=out)
    assert (run.new_records, run.failed, run.resumed_records) == (2, 1, 0)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["answer"] == "Ada's father was Lord Byron [Q1, father: Lord Byron]."
    assert rows[1]["failed"] and rows[1]["answer"] is None and "HTTP 400" in rows[1]["error"]
    sent = len(fake_llm.requests)
    again = AnswerWriter().write(AnswerGenerationSettings(), items, llm=client(fake_llm), output=out)
    assert again.resumed_records == 2 and len(fake_llm.requests) == sent


def record(answer, removed=()):
    return AnswerRecord("r1", "Who was Ada's father?", answer, GRAPH,
                        [Triple("Q1", "father", "Lord Byron"), Triple("Q1", "place of birth", "London")],
                        list(removed))


def test_score_alignment_and_na_hand_computed(tmp_path):
    answer = ("Ada was born in London [Q1, place of birth: London, occupation: writer]. "
              "Her father was a poet [Q2, occupation: poet] [NA]. She loved numbers [NA].")
    # removed: father (absent from the graph the model saw)
    checker = ValueInSentence()
    out = tmp_path / "scores.jsonl"
    attribute([record(answer, [Triple("Q1", "father", "Lord Byron")])], checker=checker, output=out)
    row = json.loads(out.read_text())
    # alignment pairs: (s0, London) yes, (s0, writer) no, (s1, poet) yes -> 2/3
    assert row["alignment"] == [True, False, True]
    # [NA] sentences s1, s2 vs removed 'father: Lord Byron': neither contains 'Lord Byron' -> precision 0/2,
    # recall 0/1
    assert row["na"] == {"na_sentences": 2, "na_precise": 0, "absent": 1, "absent_recalled": 0, "undecided": 0}
    # citations: 3, all correct; precise: London only (1); knowledge 2, recalled 1 (London)
    assert row["counts"] == {"citations": 3, "correct": 3, "precise": 1, "knowledge": 2, "recalled": 1}
    figures = summarize([AttributionScore.model_validate(row)])["removed=1"]
    assert figures["alignment_value"] == pytest.approx(2 / 3)
    assert figures["na_precision"] == 0.0 and figures["na_recall"] == 0.0
    assert figures["micro_precision"] == pytest.approx(1 / 3) and figures["micro_recall"] == pytest.approx(1 / 2)


def test_failed_checks_are_counted_not_scored(tmp_path):
    out = tmp_path / "scores.jsonl"
    attribute([record("Born in London [Q1, place of birth: London, occupation: writer].")],
          checker=ValueInSentence(fail_on="writer"), output=out)
    figures = summarize([AttributionScore.model_validate_json(out.read_text())])["removed=0"]
    assert (figures["alignment_value"], figures["alignment_pairs"], figures["alignment_failed"]) == (1.0, 1, 1)


def test_an_answer_not_scored_is_counted_failed_left_out_of_the_figures_and_shown_with_its_reason():
    (scored,) = attribute([record("Born in London [Q1, place of birth: London].")], checker=ValueInSentence()).results
    crashed = score_crashed(record("Born in Paris [Q1, place of birth: Paris]."), "it ended its worker")
    totals = AttributionTotals()
    for row in (scored, crashed):
        totals.add(AttributionScore.model_validate_json(row.model_dump_json()))
    assert score_failed(crashed) and not score_failed(scored) and totals.failed == 1
    assert list(totals.groups) == [0] and totals.groups[0].citations.answers == 1
    assert totals.summary() == summarize([scored])
    assert "not scored:</b> it ended its worker" in record_html(crashed, "a")


def test_geval_scores_failures_and_weighted_score(fake_llm):
    def responder(request):
        if "prompt" in request:  # completions: echo the prompt and give the score token a probability
            prompt = request["prompt"]
            head, score_token = prompt.rsplit(" ", 1)
            p = {"4": 0.6, "5": 0.2}.get(score_token, 0.05)
            return Logprobs([head, " " + score_token], [None, math.log(p)])
        content = request["messages"][0]["content"]
        return "Score: 4" if "Coherence (1-5)" in content else "not sure"

    fake_llm.responder = responder
    judged = judge_text_quality([record("Ada's father was Lord Byron [Q1, father: Lord Byron].")],
                                client(fake_llm), aspects=["coherence", "fluency"], weighted=True)[0]
    assert judged["coherence"]["score"] == 4 and not judged["coherence"]["failed"]
    assert judged["fluency"] == {"score": None, "raw": "not sure", "failed": True,
                                 "error": "no 1-5 score in the reply", "weighted": judged["fluency"]["weighted"]}
    # p = {1: .05, 2: .05, 3: .05, 4: .6, 5: .2}: (.05 + .1 + .15 + 2.4 + 1.0) / .95 = 3.7 / .95
    assert judged["coherence"]["weighted"] == pytest.approx(3.7 / 0.95)


def test_continuation_logprob_sums_tokens_after_the_prompt():
    from factscope.llm.client import CompletionReply

    reply = CompletionReply("Score: 4!", tokens=["Score", ":", " 4", "!"], token_logprobs=[None, -1.0, -0.5, -0.25])
    # tokens after the 6 characters of 'Score:' are ' 4' and '!': -0.5 + -0.25
    assert continuation_logprob("Score:", reply) == pytest.approx(-0.75)


def test_parse_generated():
    assert parse_generated("Generated Answer: A [qid: Q1, x: y].\n\nGenerated Question: Why?") == (
        "A [qid: Q1, x: y].", "Why?")
    assert parse_generated("A [qid: Q1, x: y].\nGenerated Question: Why?\nextra") == ("A [qid: Q1, x: y].", "Why?")
    assert parse_generated("no question here") is None


def test_evolution_builds_the_minimum_set_round_by_round(fake_llm, tmp_path):
    def responder(request):
        content = request["messages"][0]["content"]
        if "Question Generator" in content:
            return ("Ada Lovelace [qid: Q1, name: Ada Lovelace] was born in London [qid: Q1, place of birth: "
                    "London], daughter of Lord Byron [qid: Q1, father: Lord Byron].\nGenerated Question: Who is Ada?")
        knowledge = content.rsplit("knowledge: ", 1)[1].split("\n")[0]
        relation, value = knowledge.strip("{}").split(", ")[-1].split(": ")
        return (f"Generated Answer: Ada text [qid: Q1, {relation}: {value}].\n"
                f"Generated Question: Who is Ada, and what about her {relation}?")

    fake_llm.responder = responder
    seeds = [EvolutionSeed("ada", "Ada Lovelace was born in London to Lord Byron.", GRAPH.subgraph(["Q1"]))]
    out = tmp_path / "questions.jsonl"
    QuestionWriter().write(EvolutionSettings(rounds=3, seed=0), seeds, llm=client(fake_llm), output=out)
    row = json.loads(out.read_text())
    minimum = [Triple(*t) for t in row["minimum"]]
    # round 1 cites place of birth and father (name is identity, not knowledge); rounds 2-3 inject one each
    assert minimum[:2] == [Triple("Q1", "place of birth", "London"), Triple("Q1", "father", "Lord Byron")]
    assert len(minimum) == 4 and len(set(minimum)) == 4
    assert all(t.relation not in {"instance of", "name"} for t in minimum)
    assert [r["round"] for r in row["rounds"]] == [1, 2, 3] and row["rounds"][2]["cited"] is True
    assert not row["failed"] and row["question"].startswith("Who is Ada, and what about her")
    # the output is a questions file for `attribute generate`
    (_, loaded), = read_questions(out)
    assert loaded.minimum == minimum


def test_evolution_unreadable_reply_is_kept_raw_and_marked(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "I cannot do that."
    seeds = [EvolutionSeed("ada", "Ada Lovelace was born in London.", GRAPH.subgraph(["Q1"]))]
    out = tmp_path / "questions.jsonl"
    assert QuestionWriter().write(EvolutionSettings(rounds=2), seeds, llm=client(fake_llm), output=out).failed == 1
    row = json.loads(out.read_text())
    assert row["failed"] and row["raw"] == "I cannot do that." and "round 1" in row["error"]
    (_, error), = read_questions(out)
    assert "failed" in str(error)


@pytest.fixture
def cli(monkeypatch, app):
    """The CLI with `attribute score` checking by ValueInSentence. The `app` fixture imports every command module
    first, so modules that import `make_checker` at their top keep the real one."""
    from factscope.checkers import registry

    monkeypatch.setattr(registry, "make_checker", lambda spec, **kw: ValueInSentence())
    return lambda args: CliRunner().invoke(app, args, catch_exceptions=False)


def test_cli_generate_then_score_end_to_end(cli, fake_llm, tmp_path):
    fake_llm.responder = lambda request: (
        "Marie Curie married Pierre Curie [Q7186, spouse: Pierre Curie] and studied radioactivity [NA].")
    answers, scores, summary = tmp_path / "a.jsonl", tmp_path / "s.jsonl", tmp_path / "summary.json"
    llm = ["--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    result = cli(["attribute", "generate", str(EXAMPLES / "questions.jsonl"), "--graph",
                  str(EXAMPLES / "graph.jsonl"), "-o", str(answers), "--remove", "1", *llm])
    assert result.exit_code == 0, result.output
    assert len(answers.read_text().splitlines()) == 4
    result = cli(["attribute", "score", str(answers), "-o", str(scores), "--summary", str(summary)])
    assert result.exit_code == 0, result.output
    figures = json.loads(summary.read_text())["removed=1"]
    # every answer cites 'spouse: Pierre Curie' of Q7186: correct only where Q7186 is in the graph (curie-1)
    assert figures["citations"] == 4 and figures["correctness"] == pytest.approx(1 / 4)
    assert figures["na_sentences"] == 4


def test_cli_score_example_answers_and_bad_rows(cli, tmp_path):
    bad = tmp_path / "answers.jsonl"
    bad.write_text((EXAMPLES / "answers.jsonl").read_text() + '{"id": "x", "answer": "text"}\n{broken\n')
    summary = tmp_path / "summary.json"
    result = cli(["attribute", "score", str(bad), "-o", str(tmp_path / "s.jsonl"), "--summary", str(summary)])
    assert result.exit_code == 0
    figures = json.loads(summary.read_text())["removed=0"]
    # examples/attribute/answers.jsonl: 18 citations, 16 correct (one not in the graph, one without a qid),
    # 12 precise; 15 minimum-set triples, 12 recalled
    assert (figures["citations"], figures["knowledge"]) == (18, 15)
    assert figures["correctness"] == pytest.approx(16 / 18)
    assert figures["micro_precision"] == pytest.approx(12 / 18) and figures["micro_recall"] == pytest.approx(12 / 15)


def test_cli_score_example_with_removed_knowledge(cli, tmp_path):
    summary = tmp_path / "summary.json"
    cli(["attribute", "score", str(EXAMPLES / "answers_removed1.jsonl"), "-o", str(tmp_path / "s.jsonl"),
         "--summary", str(summary)])
    figures = json.loads(summary.read_text())["removed=1"]
    # 12 citations, all correct against the reduced graphs, 11 precise (occupation: mathematician is not needed);
    # 11 of 15 minimum-set triples recalled (the 4 removed ones cannot be)
    assert (figures["citations"], figures["correctness"]) == (12, 1.0)
    assert figures["micro_precision"] == pytest.approx(11 / 12) and figures["micro_recall"] == pytest.approx(11 / 15)
    # value-in-sentence checker: 'radioactivity', 'Pierre Curie', 'poet' occur in their [NA] sentences; 'Analytical
    # Engine' does not occur in the Babbage [NA] sentence -> [NA] precision 3/4, recall 3/4
    assert figures["na_precision"] == pytest.approx(3 / 4) and figures["na_recall"] == pytest.approx(3 / 4)


def test_cli_make_questions(cli, fake_llm, tmp_path):
    fake_llm.responder = lambda request: "Generated Answer: Text [qid: Q7259, father: Lord Byron].\nGenerated Question: Q?"
    out = tmp_path / "q.jsonl"
    result = cli(["attribute", "make-questions", str(EXAMPLES / "seeds.jsonl"), "--graph", str(EXAMPLES / "graph.jsonl"),
                  "--rounds", "2", "-o", str(out), "--llm-base-url", fake_llm.base_url, "--llm-model", "fake",
                  "--llm-cache", "off"])
    assert result.exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["lovelace", "curie"] and all(len(r["minimum"]) >= 1 for r in rows)


def test_cli_generate_without_llm_names_the_setting(cli, tmp_path, monkeypatch):
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    from factscope.core.errors import ConfigError

    (tmp_path / "none.toml").write_text("")
    with pytest.raises(ConfigError, match="--llm-base-url"):
        cli(["attribute", "generate", str(EXAMPLES / "questions.jsonl"), "-o", str(tmp_path / "a.jsonl"),
             "--llm-config", str(tmp_path / "none.toml")])


def test_hypothesis_template_with_entity_name(tmp_path):
    seen = []

    class Recording(ValueInSentence):
        def check(self, tasks):
            seen.extend(t.claim for t in tasks)
            return [Verdict(label=Label.NEUTRAL) for _ in tasks]

    attribute([record("Ada's father was Lord Byron [Q1, father: Lord Byron].")], checker=Recording(),
          output=tmp_path / "s.jsonl", template="{name} {relation} {value}")
    assert seen == ["Ada Lovelace father Lord Byron"]


def test_bad_hypothesis_template_is_a_config_error(tmp_path):
    from factscope.core.errors import ConfigError

    with pytest.raises(ConfigError, match="subject"):
        attribute([record("x [Q1, father: Lord Byron].")], checker=ValueInSentence(), output=tmp_path / "s.jsonl",
              template="{subject}: {value}")


def test_cli_refuses_a_bad_hypothesis_template_while_parsing(cli, tmp_path):
    scores = tmp_path / "s.jsonl"
    result = cli(["attribute", "score", str(EXAMPLES / "answers.jsonl"), "-o", str(scores), "--hypothesis",
                  "{subject}: {value}"])
    assert result.exit_code == 2 and "Invalid value for '--hypothesis'" in " ".join(result.output.split())
    assert not scores.exists()


def test_cli_score_with_geval_judge(cli, fake_llm, tmp_path):
    fake_llm.responder = lambda request: "5" if "Fluency (1-5)" in request["messages"][0]["content"] else "Score: 3"
    summary = tmp_path / "summary.json"
    result = cli(["attribute", "score", str(EXAMPLES / "answers.jsonl"), "-o", str(tmp_path / "s.jsonl"), "--geval",
                  "--summary", str(summary), "--llm-base-url", fake_llm.base_url, "--llm-model", "fake",
                  "--llm-cache", "off"])
    assert result.exit_code == 0
    figures = json.loads(summary.read_text())["removed=0"]
    assert (figures["fluency"], figures["coherence"], figures["relevance_failed"]) == (5.0, 3.0, 0)
    # 4 answers x 4 aspects; the consistency prompt carries the graph
    prompts = [r["json"]["messages"][0]["content"] for r in fake_llm.requests]
    assert len(prompts) == 16
    assert all(("qid: Q" in p) == ("Consistency (1-5)" in p) for p in prompts)


def test_cli_generate_with_local_retrieval(cli, fake_llm, tmp_path):
    fake_llm.responder = lambda request: "An answer [NA]."
    out = tmp_path / "a.jsonl"
    result = cli(["attribute", "generate", str(EXAMPLES / "questions.jsonl"), "--graph", str(EXAMPLES / "graph.jsonl"),
                  "--retrieve", "local", "-o", str(out), "--llm-base-url", fake_llm.base_url, "--llm-model", "fake",
                  "--llm-cache", "off"])
    assert result.exit_code == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    # 'What did Charles Babbage design ...' -> NER finds Charles Babbage -> his one-hop subgraph
    assert [e["qid"] for e in rows["babbage-1"]["graph"]] == ["Q46633"]


@pytest.mark.parametrize("bias, expected", [([6.0, 0.0, 0.0], 1.0), ([0.0, 6.0, 0.0], 0.0)])
def test_alignment_through_a_real_nli_checker(tmp_path, bias, expected):
    from factscope.checkers.registry import make_checker
    from tiny_models import build_nli_classifier

    folder = build_nli_classifier(tmp_path / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"}, bias=bias)
    out = tmp_path / "s.jsonl"
    answer = "Ada was born in London [Q1, place of birth: London]. She wrote notes [NA]."
    checker = make_checker(f"nli:{folder}", relevance="off", mismatch="off")
    attribute([record(answer, [Triple("Q1", "father", "Lord Byron")])], checker=checker, output=out)
    figures = summarize([AttributionScore.model_validate_json(out.read_text())])["removed=1"]
    # with the relevance filter and value checks off, a classifier fixed on Entailment (Neutral) entails every
    # pair (none)
    assert (figures["alignment_value"], figures["alignment_pairs"]) == (expected, 1)
    assert (figures["na_precision"], figures["na_recall"]) == (expected, expected)
