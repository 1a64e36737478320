"""The shortlist presence model: a bi-encoder picks the closest windows, a checker judges only those."""

from __future__ import annotations

import math

import pytest

from containment import ContainmentChecker, WordEncoder
from factscope.grounding.presence import PRESENCE_MODELS, ShortlistNLIPresence, decide

SOURCE = "Rain fell in Oslo. Alice won the race in 2018. Bob lost the race. Paris is far. Bob won in 2019."


def test_checker_reads_only_the_shortlisted_windows_and_decides():
    checker = ContainmentChecker()
    model = ShortlistNLIPresence(checker, threshold=0.5, shortlist=2, window=1, encoder=WordEncoder())
    scores = model.score(["Alice won the race in 2018.", "Alice won the race in 2019."], [[SOURCE], [SOURCE]])
    assert scores[0] == pytest.approx(0.9) and scores[1] == pytest.approx(0.1)
    assert decide(scores, model.threshold) == [True, False]
    read = [window for claim, window in checker.seen if claim == "Alice won the race in 2019."]
    assert len(read) == 2 and "Alice won the race in 2018." in read and "Paris is far." not in read
    assert model.name == "bi-top2+nli:containment"


def test_short_sources_are_read_whole_and_missing_or_failed_ones_are_marked():
    checker = ContainmentChecker()
    model = ShortlistNLIPresence(checker, shortlist=3, window=1, encoder=WordEncoder())
    scores = model.score(["Bob lost.", "Bob lost.", "Bob lost."], [["Bob lost the race."], [], ["broken text."]])
    assert scores[0] == pytest.approx(0.9) and scores[1] == -math.inf and math.isnan(scores[2])
    with pytest.raises(ValueError, match="at least one window"):
        ShortlistNLIPresence(checker, shortlist=0, encoder=WordEncoder())


def test_registry_names_the_shortlist_model():
    assert "bi-nli" in PRESENCE_MODELS.names()
    assert not PRESENCE_MODELS.needs_llm("bi-nli") and PRESENCE_MODELS.needs_llm("bi-nli:llm")


def test_ground_defaults_to_the_shortlist_model_and_its_manifest_records_it():
    import typer.main

    from command_line import command_line
    from factscope.core.files.manifest import describe
    from factscope.grounding.presence import make_presence
    from factscope.grounding.spec import DEFAULT_PRESENCE

    ground = typer.main.get_command(command_line()).commands["ground"]  # type: ignore[attr-defined]
    for name in ("score", "calibrate"):
        params = {param.name: param.default for param in ground.commands[name].params}
        assert params["presence"] == DEFAULT_PRESENCE
    model = make_presence(DEFAULT_PRESENCE)
    assert isinstance(model, ShortlistNLIPresence)
    described = describe(model)
    assert described["type"] == "ShortlistNLIPresence" and described["shortlist"] == model.shortlist
    assert described["threshold"] == model.threshold and described["name"] == model.name
