"""The LLM checker: RefChecker Figure 16 prompt, strict label parsing, joint mode with fallback, A.3 merging."""

import pytest

from command_line import command_line
from factscope.checkers.base import CheckTask
from factscope.checkers.llm import (
    LABEL_TOKENS,
    LINE_TOKENS,
    LLMChecker,
    parse_joint_labels,
    parse_label,
    render_claim,
)
from factscope.checkers.options import CheckerOptions
from factscope.core.errors import ConfigError
from factscope.core.schema import Claim, Label
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION
SINGLE = CheckerOptions(llm_mode="single")
JOINT = CheckerOptions(llm_mode="joint")


@pytest.fixture
def client(fake_llm):
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", max_retries=0))


def prompt_of(request):
    return request["messages"][0]["content"]


def reference_of(request):
    return prompt_of(request).split("### Reference:\n")[1].split("\n\n### Claim")[0]


@pytest.mark.parametrize(
    ("reply", "label"),
    [("Entailment", E), (" **Neutral**.\n", N), ("Answer: Contradiction", C), ("'entailment'", E)],
)
def test_parse_label_accepts_one_label_with_safe_trimming(reply, label):
    assert parse_label(reply) is label


@pytest.mark.parametrize(
    "reply", ["", "Entailment, because the passage says so", "Supported", "Neutral or Entailment"]
)
def test_parse_label_rejects_anything_else(reply):
    with pytest.raises(ValueError, match="not one of"):
        parse_label(reply)


def test_parse_joint_labels_uses_the_numbers():
    assert parse_joint_labels("```\n2. Neutral\n1) Entailment\n\n3: contradiction\n```", 3) == [E, N, C]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("1. Entailment", "no answer for claim.*2"),
        ("1. Entailment\n1. Neutral", "repeated"),
        ("1. Entailment\n3. Neutral", "not in 1..2"),
        ("Here are my answers:\n1. Entailment\n2. Neutral", "not an answer line"),
        ("1. Entailment\n2. Probably neutral", "not one of"),
    ],
)
def test_parse_joint_labels_is_strict(reply, message):
    with pytest.raises(ValueError, match=message):
        parse_joint_labels(reply, 2)


def test_render_claim_writes_triplets_in_the_paper_format():
    claim = Claim(text="x", kind="triplet", triplet=("Paris", "capital of", "France"))
    assert render_claim(claim) == '("Paris", "capital of", "France")'
    assert render_claim(Claim(text="Paris is in France.")) == "Paris is in France."


def test_single_mode_prompt_and_verdict(fake_llm, client):
    fake_llm.script(["Contradiction"])
    task = CheckTask(
        claim='("Paris", "capital of", "Spain")',
        references=("Paris is the capital of France.",),
        question="Where is Paris?",
    )
    (verdict,) = LLMChecker(client, SINGLE).check([task])
    assert (verdict.label, verdict.failed, verdict.raw, verdict.evidence_reference) == (
        C,
        False,
        "Contradiction",
        0,
    )
    prompt = prompt_of(fake_llm.requests[0]["json"])
    assert "### Question: Where is Paris?" in prompt
    assert "### Reference:\nParis is the capital of France.\n" in prompt
    assert '### Claim: ("Paris", "capital of", "Spain")' in prompt
    assert "do not use what you know yourself" in prompt


def test_unparsable_reply_gives_a_failed_verdict_with_the_raw_text(fake_llm, client):
    fake_llm.script(["I think it is probably true."])
    (verdict,) = LLMChecker(client, SINGLE).check([CheckTask(claim="c", references=("r",))])
    assert verdict.label is None and verdict.failed
    assert verdict.raw == "I think it is probably true." and "not one of" in verdict.error


def test_failed_call_gives_a_failed_verdict(fake_llm, client):
    fake_llm.script([Fail(500, "down")])
    (verdict,) = LLMChecker(client, SINGLE).check([CheckTask(claim="c", references=("r",))])
    assert verdict.failed and verdict.label is None and "LLM call failed" in verdict.error


def answer_by_passage(mapping):
    def responder(request):
        return mapping[reference_of(request)]

    return responder


@pytest.mark.parametrize(
    ("answers", "label", "evidence"),
    [
        (["Neutral", "Contradiction", "Entailment"], E, 2),  # entailed by any passage
        (["Neutral", "Contradiction", "Neutral"], C, 1),  # none entails, one contradicts
        (["Neutral", "Neutral", "Neutral"], N, None),
    ],
)
def test_each_passage_is_checked_and_merged_by_seed_004_a3(fake_llm, client, answers, label, evidence):
    passages = ("passage one.", "passage two.", "passage three.")
    fake_llm.responder = answer_by_passage(dict(zip(passages, answers, strict=True)))
    (verdict,) = LLMChecker(client, SINGLE).check([CheckTask(claim="c", references=passages)])
    assert (verdict.label, verdict.evidence_reference) == (label, evidence)
    assert len(fake_llm.requests) == 3
    assert verdict.raw.splitlines()[0] == f"[passage 1] {answers[0]}"


def test_a_failed_passage_fails_the_verdict_unless_another_passage_entails(fake_llm, client):
    fake_llm.responder = answer_by_passage({"p1.": "Neutral", "p2.": "no idea", "p3.": "Entailment"})
    undecided, entailed = LLMChecker(client, SINGLE).check(
        [CheckTask(claim="c", references=("p1.", "p2.")), CheckTask(claim="c", references=("p2.", "p3."))]
    )
    assert undecided.failed and undecided.label is None and undecided.error.startswith("passage 2:")
    assert entailed.label is E and not entailed.failed and entailed.evidence_reference == 1


def test_together_mode_sends_all_passages_in_one_prompt(fake_llm, client):
    fake_llm.script(["Entailment"])
    (verdict,) = LLMChecker(client, CheckerOptions(llm_mode="single", llm_passages="together")).check(
        [CheckTask(claim="c", references=("a.", "b."))]
    )
    assert verdict.label is E and verdict.evidence_reference is None
    assert reference_of(fake_llm.requests[0]["json"]) == "Passage 1: a.\n\nPassage 2: b."


def test_no_reference_is_neutral_without_a_call(fake_llm, client):
    (verdict,) = LLMChecker(client, SINGLE).check([CheckTask(claim="c", references=())])
    assert verdict.label is N and not verdict.failed and fake_llm.requests == []


def test_identical_tasks_are_asked_once(fake_llm, client):
    fake_llm.script(["Neutral"])
    task = CheckTask(claim="c", references=("r",))
    assert [v.label for v in LLMChecker(client, SINGLE).check([task, task])] == [N, N]
    assert len(fake_llm.requests) == 1


def record_tasks(claims, reference="The reference.", question="Q?"):
    return [CheckTask(claim=claim, references=(reference,), question=question) for claim in claims]


def test_joint_mode_numbers_the_claims_of_a_record_in_one_call(fake_llm, client):
    fake_llm.script(["1. Entailment\n2. Contradiction\n3. Neutral"])
    verdicts = LLMChecker(client, JOINT).check(record_tasks(["a", "b", "c"]))
    assert [v.label for v in verdicts] == [E, C, N]
    prompt = prompt_of(fake_llm.requests[0]["json"])
    assert "### Claims:\n1. a\n2. b\n3. c\n" in prompt and "exactly 3 lines" in prompt
    assert len(fake_llm.requests) == 1


def test_joint_mode_splits_records_and_batches(fake_llm, client):
    def claims_in(request):
        return prompt_of(request).split("### Claims:\n")[1].split("\n\n")[0].count("\n") + 1

    fake_llm.responder = lambda request: "\n".join(f"{i}. Neutral" for i in range(1, claims_in(request) + 1))
    tasks = record_tasks(["a", "b", "c"]) + record_tasks(["d"], reference="Another reference.")
    verdicts = LLMChecker(client, JOINT, batch_size=2).check(tasks)
    assert [v.label for v in verdicts] == [N, N, N, N]
    # [a, b], [c] and [d], sent concurrently (in any order); each reply is bounded by the lines its call needs:
    # a line's worth of tokens per claim
    sent = [request["json"] for request in fake_llm.requests]
    assert sorted(claims_in(body) for body in sent) == [1, 1, 2]
    assert all(body["max_tokens"] == claims_in(body) * LINE_TOKENS for body in sent)


def test_a_single_claim_reply_is_bounded_to_a_label_unless_max_tokens_is_set(fake_llm, client):
    fake_llm.script(["Neutral", "Neutral"])
    LLMChecker(client, SINGLE).check(record_tasks(["a"]))
    LLMChecker(client, SINGLE, max_tokens=99).check(record_tasks(["b"]))
    assert [request["json"]["max_tokens"] for request in fake_llm.requests] == [LABEL_TOKENS, 99]


def test_bad_joint_reply_falls_back_to_one_call_per_claim(fake_llm, client):
    fake_llm.script(["1. Entailment\nClaim 2 seems neutral to me.", "Neutral", "Entailment"])
    verdicts = LLMChecker(client, JOINT).check(record_tasks(["a", "b"]))
    assert sorted(v.label.value for v in verdicts) == ["Entailment", "Neutral"]
    assert len(fake_llm.requests) == 3
    assert all("### Claim: " in prompt_of(r["json"]) for r in fake_llm.requests[1:])


def test_failed_joint_call_fails_its_claims(fake_llm, client):
    fake_llm.script([Fail(500, "down")])
    verdicts = LLMChecker(client, JOINT).check(record_tasks(["a", "b"]))
    assert all(v.failed and v.label is None for v in verdicts)
    assert len(fake_llm.requests) == 1


def test_registry_builds_the_llm_checker(client):
    from factscope.checkers.registry import make_checker

    built = make_checker("llm", {"llm_mode": "single", "llm_passages": "together"}, llm=client)
    assert isinstance(built, LLMChecker)
    assert (built.mode, built.passages) == ("single", "together")
    # without options the checker asks as the command line does: per record, each passage apart
    assert (LLMChecker(client).mode, LLMChecker(client).passages) == ("joint", "each")


def test_bad_settings_are_rejected(client):
    with pytest.raises(ConfigError, match="`llm_mode` must be one of 'joint', 'single', not 'batch'"):
        LLMChecker(client, CheckerOptions(llm_mode="batch"))
    with pytest.raises(ConfigError, match="`llm_passages` must be one of"):
        LLMChecker(client, CheckerOptions(llm_passages="some"))
    with pytest.raises(ValueError, match="batch_size"):
        LLMChecker(client, batch_size=0)


def test_a_task_triplet_is_shown_in_the_paper_form_while_the_plain_text_stays_for_nli(fake_llm, client):
    fake_llm.script(["Entailment", "1. Entailment\n2. Neutral"])
    triplet_task = CheckTask(
        claim="Paris capital of France",
        references=("Paris is the capital of France.",),
        triplet=("Paris", "capital of", "France"),
    )
    LLMChecker(client, SINGLE).check([triplet_task])
    assert '### Claim: ("Paris", "capital of", "France")\n' in prompt_of(fake_llm.requests[0]["json"])
    sentence_task = CheckTask(claim="Paris is big.", references=("Paris is the capital of France.",))
    LLMChecker(client, JOINT).check([triplet_task, sentence_task])
    joint = prompt_of(fake_llm.requests[1]["json"])
    assert '### Claims:\n1. ("Paris", "capital of", "France")\n2. Paris is big.\n' in joint


def test_the_check_task_passes_claim_triplets_to_the_checker(fake_llm, client):
    from factscope import check
    from factscope.core.schema import Extraction, Record

    class OneTriplet:
        name = "one-triplet"

        def extract(self, responses, questions):
            claim = Claim(
                text="Paris is the capital of France.",
                kind="triplet",
                triplet=("Paris", "capital of", "France"),
            )
            return [Extraction(claims=[claim]) for _ in responses]

    fake_llm.script(["Entailment"])
    record = Record(
        id="r1", response="Paris is the capital of France.", references=["Paris is the capital of France."]
    )
    run = check([record], extractor=OneTriplet(), checker=LLMChecker(client, SINGLE))
    assert run.results[0].claims[0].verdict.label is E
    assert '### Claim: ("Paris", "capital of", "France")\n' in prompt_of(fake_llm.requests[0]["json"])


def test_price_flags_reach_the_cost_line_of_check(fake_llm, tmp_path):
    import typer

    from factscope.cli.llm_options import LLMOptions

    def options(config=None, **prices):
        return LLMOptions(
            base_url=fake_llm.base_url, model="fake", config_path=config, concurrency=2, cache_path="off",
            **prices,
        )

    fake_llm.script(["Entailment"])
    llm = options(price_prompt_per_1k=0.5, price_completion_per_1k=2.0).build()
    reply = llm.chat([{"role": "user", "content": "one two three four"}])
    # the fake server counts words: 4 prompt tokens, 1 completion token -> 4/1000*0.5 + 1/1000*2.0 = 0.004
    assert (reply.usage["prompt_tokens"], reply.usage["completion_tokens"]) == (4, 1)
    assert dict(llm.usage_rows())["LLM cost"] == pytest.approx(0.004)
    config = tmp_path / "config.toml"
    config.write_text("[llm]\nprice_prompt_per_1k = 1.5\n", encoding="utf-8")
    kept = options(config, price_completion_per_1k=3.0).build()
    assert (kept.config.price_prompt_per_1k, kept.config.price_completion_per_1k) == (1.5, 3.0)
    assert options().build().config.price_prompt_per_1k is None
    built = typer.main.get_command(command_line()).commands
    flags = {name: {opt for param in command.params for opt in param.opts} for name, command in built.items()}
    assert {"--llm-price-prompt", "--llm-price-completion"} <= flags["check"]
    shared = {"--llm-base-url", "--llm-model", "--llm-api-key", "--llm-config", "--llm-concurrency", "--llm-cache"}
    assert all(shared <= flags[name] for name in ("check", "agree"))
