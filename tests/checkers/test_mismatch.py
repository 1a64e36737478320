"""Value mismatch checks: numbers, dates, quantities and entities of a claim against the deciding evidence."""

import pytest

from factscope.checkers.mismatch import ALL_KINDS, find_mismatch
from factscope.core.schema import Mismatch


def at(text: str, span) -> str:
    return text[span.start : span.end]


def assert_contradicted(claim: str, evidence: str, kind: str, claim_value: str, evidence_value: str) -> None:
    found = find_mismatch(claim, evidence)
    assert found is not None, (claim, evidence)
    assert (found.kind, found.claim_value, found.evidence_value) == (kind, claim_value, evidence_value)
    assert at(claim, found.claim_span) == claim_value
    assert at(evidence, found.evidence_span) == evidence_value


def assert_absent(claim: str, evidence: str, kind: str, claim_value: str) -> None:
    found = find_mismatch(claim, evidence)
    assert found is not None, (claim, evidence)
    assert (found.kind, found.claim_value) == (kind, claim_value)
    assert at(claim, found.claim_span) == claim_value
    assert found.evidence_value is None and found.evidence_span is None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The city has 1,000 inhabitants.", "About 1000 people live in the city."),
        ("The city has 1 000 inhabitants.", "The city has 1,000 inhabitants."),
        ("The city has one thousand inhabitants.", "The city has 1,000 inhabitants."),
        ("The team has 3 players.", "The team has three players and 3.0 coaches."),
        ("The price rose 3.0%.", "The price rose by 3 percent."),
        ("It cost $1.2 billion.", "It cost 1,200 million dollars."),
        ("About 1.2 million people visit each year.", "In all, 1,234,567 people visited last year."),
        ("The track is 5 km long.", "The track is 5,000 metres long."),
        ("He served for more than 20 years.", "He served for 27 years."),
        ("He had a 27-year career.", "His career lasted 27 years."),
        ("The 10-km race was held.", "The race over 10 kilometres was held."),
        ("It became a number 1 hit.", "It became a number one hit."),
        ("It is the 2nd largest resort.", "It is the second-largest resort."),
        ("Routines last from 1 to 3 minutes.", "Routines last from one to three minutes."),
        ("There were 25 machines.", "All twenty - five people used all twenty - five machines."),
        ("9) The group discussed the budget.", "The group discussed the budget."),
        ("He is appointed for a five-year term.", "He is appointed for a fixed term of five years."),
    ],
)
def test_numbers_and_quantities_in_other_forms_are_borne(claim, evidence):
    assert find_mismatch(claim, evidence) is None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The bridge opened in 1994.", "The bridge opened on May 3, 1994."),
        ("The bridge opened on 3 May 1994.", "The bridge opened on May 3, 1994."),
        ("The bridge opened on 1994-05-03.", "The bridge opened on 3rd May 1994."),
        ("The bridge opened in May 1994.", "The bridge opened on 3 May 1994."),
        ("The bridge opened in the 1990s.", "The bridge opened in 1994."),
        (
            "He was born on January 8 , 1935.",
            "Elvis Presley (January 8, 1935 - August 16, 1977) was a singer.",
        ),
        ("Potatoes reached Spain in the 16th century.", "Potatoes reached Spain in the sixteenth century."),
        ("It took place on 23 February 2011.", "It took place from 23 February to 6 March 2011."),
        ("Arminius died in 21 AD.", "Arminius killed himself in 21 AD."),
        ("Einstein was born in 1879.", "Albert Einstein (1879–1955) was a physicist."),
        ("They reached the top flight in the 1904-05 season.", "They reached the top flight in 1904."),
        (
            "The paper was published in 2017.",
            "Advances in Neural Information Processing Systems 30 (NIPS 2017).",
        ),
    ],
)
def test_dates_as_specific_or_more_are_borne(claim, evidence):
    assert find_mismatch(claim, evidence) is None


def test_a_changed_number_is_contradicted_by_the_number_of_the_same_slot():
    assert_contradicted(
        "He has 3 children.", "He was born in 1950 and has 2 children and 4 dogs.", "number", "3", "2"
    )


def test_a_changed_quantity_is_contradicted_by_a_quantity_of_the_same_dimension():
    assert_contradicted(
        "The tower is 5 km tall.", "The tower is 5 miles tall and weighs 8 kg.", "quantity", "5 km", "5 miles"
    )
    assert_contradicted(
        "Sales rose 12% to $4.5 billion.", "Sales rose 15% to $4.5 billion.", "quantity", "12%", "15%"
    )


def test_a_different_year_is_contradicted_and_a_less_specific_date_is_absent():
    assert_contradicted(
        "The bridge opened in 1995.", "The bridge opened on May 3, 1994.", "date", "1995", "May 3, 1994"
    )
    assert_absent("The bridge opened in May 1994.", "The bridge opened in 1994.", "date", "May 1994")


def test_a_year_inside_a_range_is_not_borne_but_not_contradicted():
    assert_absent("The war ended in 1992.", "The war lasted from 1990–1995.", "date", "1992")
    assert_contradicted("The war ended in 1998.", "The war lasted 1990–1995.", "date", "1998", "1990–1995")


def test_a_value_the_evidence_lacks_is_absent():
    assert_absent(
        "The bridge is 300 metres long.",
        "The bridge crosses the river at its narrowest point.",
        "quantity",
        "300 metres",
    )
    assert_absent("The club has 40 members.", "The club meets every week in the town hall.", "number", "40")


def test_a_person_named_for_another_is_caught():
    evidence = "Java is a programming language created by James Gosling at Sun Microsystems in 1995."
    found = find_mismatch("Python was created by James Gosling.", evidence)
    assert found is not None
    assert (found.kind, found.claim_value) == ("entity", "Python")
    assert found.claim_span.start == 0


def test_another_person_of_the_same_type_contradicts():
    assert_contradicted(
        "The telephone was invented by Thomas Edison.",
        "The telephone was invented by Alexander Graham Bell in 1876.",
        "entity",
        "Thomas Edison",
        "Alexander Graham Bell",
    )


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Gosling designed Java.", "Java was designed by James Gosling."),
        ("Barack Obama was born in Hawaii.", "Obama was born in Honolulu, Hawaii."),
        (
            "The Beatles' first album came out in Britain.",
            "The first album of the Beatles came out in Britain.",
        ),
        ("He was a Canadian writer.", "He was a writer from Canada."),
        ("It became a hit in the U.S.", "It became a hit in the United States."),
        ("Constant terms in CNN layers hurt.", "Constant terms in most CNNs hurt."),
        ("Revenue rose 19% YoY.", "Revenue rose 19% on the prior year."),
        ("Apollo 11 landed on the Moon in 1969.", "Apollo 11 landed on the Moon on July 20, 1969."),
    ],
)
def test_entities_are_matched_tolerantly(claim, evidence):
    assert find_mismatch(claim, evidence) is None


def test_a_number_inside_a_name_is_not_a_quantity():
    found = find_mismatch("The Boeing 747 first flew in 1969.", "The Boeing 737 first flew in 1969.")
    assert found is not None
    assert (found.kind, found.claim_value) == ("entity", "Boeing 747")
    assert find_mismatch("COVID-19 spread in 2020.", "In 2020, COVID-19 spread worldwide.") is None


def test_a_value_in_the_context_is_borne_and_spans_stay_in_the_evidence():
    claim = "The bridge, 300 metres long, opened in 1995."
    evidence = "The bridge opened in 1994."
    context = "The bridge is 300 metres long. " + evidence
    found = find_mismatch(claim, evidence, context=context)
    assert found is not None
    assert (found.kind, found.claim_value, found.evidence_value) == ("date", "1995", "1994")
    assert at(evidence, found.evidence_span) == "1994"
    assert find_mismatch("The bridge is 300 metres long.", evidence, context=context) is None


def test_only_the_kinds_asked_for_are_checked():
    claim = "Thomas Edison invented it in 1877."
    evidence = "Alexander Graham Bell invented it in 1876."
    assert find_mismatch(claim, evidence, kinds={"entity"}).kind == "entity"
    assert find_mismatch(claim, evidence, kinds={"date"}).kind == "date"
    assert find_mismatch(claim, evidence, kinds={"number", "quantity"}) is None
    assert set(ALL_KINDS) == {"number", "date", "quantity", "entity"}


def test_the_first_mismatch_in_claim_order_is_returned():
    found = find_mismatch("In 1995 it cost $4 million.", "In 1994 it cost $5 million.")
    assert isinstance(found, Mismatch)
    assert found.claim_value == "1995"


def test_the_result_is_deterministic():
    claim, evidence = "Thomas Edison sold 300 units in 1877.", "Alexander Graham Bell sold 200 units in 1876."
    first = find_mismatch(claim, evidence)
    assert first is not None
    assert all(find_mismatch(claim, evidence) == first for _ in range(3))
