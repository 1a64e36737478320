"""Numbers, quantities and dates in text, and when one bears another (the value checks of
:func:`factscope.checkers.mismatch.find_mismatch`).

- **number**: the evidence or its context states the same amount (``1,000`` = ``1 000`` = ``1000.0`` = ``one
  thousand``; ``1.2 million`` = ``1,200,000``), or, for a claim amount given with fewer digits (``1.2
  million``, ``27``), an amount that rounds to it; a hedged claim amount (``more than 20``, ``about 30``) is
  borne by an amount that satisfies the hedge.
- **quantity** (a number with a unit: ``%``, ``$``, ``km``, ``kg``, ``years`` ...): the same as a number,
  after converting units of one dimension (``5 km`` = ``5,000 m``; ``5 km`` is not ``5 miles``).
- **date**: an evidence date that is as specific and agrees on every part the claim gives (claim ``1994`` is
  borne by ``May 3, 1994``; claim ``May 1994`` is not borne by ``1994``; claim ``1990s`` by any year in it).

A value that is not borne is aligned with the evidence sentence's value of the same slot: a date, or a number
of the same dimension (a plain number for a plain number).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from factscope.checkers.mismatch_slots import closest
from factscope.core.schema import MismatchKind

_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_NUMBER = (
    {name: i + 1 for i, name in enumerate(_MONTHS)}
    | {name[:3]: i + 1 for i, name in enumerate(_MONTHS)}
    | {"sept": 9}
)
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?!\d)(?:st|nd|rd|th)?"
_ERA = r"(?:AD|BC|BCE|CE|A\.D\.|B\.C\.|B\.C\.E\.|C\.E\.)"

_ORDINAL_WORDS = {
    word: i
    for i, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ],
        start=1,
    )
}
_ORDINAL_WORD = re.compile(r"\b(?:" + "|".join(_ORDINAL_WORDS) + r")\b", re.IGNORECASE)
_DATE = re.compile(
    "|".join(
        (
            r"(?P<iso_y>\d{4})-(?P<iso_m>0[1-9]|1[0-2])-(?P<iso_d>0[1-9]|[12]\d|3[01])\b",
            rf"(?P<mdy_m>{_MONTH})\s+(?P<mdy_d>{_DAY})\s*,?\s*(?P<mdy_y>\d{{3,4}})\b",
            rf"(?P<dmy_d>{_DAY})\s+(?:of\s+)?(?P<dmy_m>{_MONTH})\s*,?\s*(?P<dmy_y>\d{{3,4}})\b",
            rf"(?P<my_m>{_MONTH}),?\s+(?:of\s+)?(?P<my_y>\d{{4}})\b",
            rf"(?P<md_m>{_MONTH})\s+(?P<md_d>{_DAY})\b(?!\s*(?:,\s*)?\d)",
            rf"(?P<dm_d>{_DAY})\s+(?:of\s+)?(?P<dm_m>{_MONTH})(?![\w-])",
            r"(?P<range_a>1\d{3}|20\d{2})\s*[-\u2013\u2014]\s*(?P<range_b>\d{2}|1\d{3}|20\d{2})(?![\d%])",
            rf"(?P<era_y>\d{{1,4}})\s*(?P<era>{_ERA})(?!\w)",
            r"(?P<era2>AD|A\.D\.)\s*(?P<era2_y>\d{1,4})\b",
            r"(?P<decade>\d{3}0)(?:s|\s?'s)\b",
            r"(?P<century>\d{1,2})(?:st|nd|rd|th)[\s-]+century\b",
            rf"(?P<century_word>{'|'.join(_ORDINAL_WORDS)})[\s-]+century\b",
            (
                r"(?P<month>(?:January|February|March|April|June|July|August|September|October|November|December)"
                r"|May(?=\s+(?:of|in|\d)))(?![\w-])"
            ),
        )
    )
)
"""Written dates, most specific first; a bare four-digit year is read with the numbers."""

_UNITS_WORDS = {
    word: i
    for i, word in enumerate(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"], 1)
}
_WRITTEN = (
    _UNITS_WORDS
    | {
        word: i
        for i, word in enumerate(
            [
                "ten",
                "eleven",
                "twelve",
                "thirteen",
                "fourteen",
                "fifteen",
                "sixteen",
                "seventeen",
                "eighteen",
                "nineteen",
            ],
            10,
        )
    }
    | {
        word: 10 * i
        for i, word in enumerate(
            ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2
        )
    }
    | {"dozen": 12}
)
_MULTIPLIERS = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "tn": 1e12,
}
_MULTIPLIER = r"(?:hundred|thousand|million|billion|trillion|bn|mn|tn|[kmb](?![a-z]))"

_UNITS: dict[str, tuple[str, str, float]] = {}
"""Unit word -> (canonical unit, dimension, factor to the dimension's base unit)."""


def _units(dimension: str, factor: float, canonical: str, *names: str) -> None:
    for name in (canonical, *names):
        _UNITS[name] = (canonical, dimension, factor)


_units("percent", 1, "%", "percent", "per cent", "percentage points")
_units("money:usd", 1, "$", "us$", "usd", "dollars", "dollar")
_units("money:gbp", 1, "£", "gbp", "sterling")
_units("money:eur", 1, "€", "eur", "euros", "euro")
_units("money:jpy", 1, "¥", "yen", "jpy")
_units("money:inr", 1, "rupees", "rupee", "rs")
_units("money:cny", 1, "yuan", "rmb", "renminbi")
_units("length", 1000, "km", "kilometres", "kilometers", "kilometre", "kilometer")
_units("length", 1, "metres", "meters", "metre", "meter")
_units("length", 0.01, "cm", "centimetres", "centimeters", "centimetre", "centimeter")
_units("length", 0.001, "mm", "millimetres", "millimeters", "millimetre", "millimeter")
_units("length", 1609.344, "miles", "mile", "mi")
_units("length", 0.3048, "feet", "foot", "ft")
_units("length", 0.0254, "inches", "inch")
_units("length", 0.9144, "yards", "yard", "yd")
_units("mass", 1, "kg", "kilograms", "kilogram", "kilos", "kilo")
_units("mass", 0.001, "grams", "gram")
_units("mass", 1000, "tonnes", "tonne", "metric tons")
_units("mass", 907.18474, "tons", "ton")
_units("mass", 0.45359237, "lb", "lbs")
_units("mass", 0.028349523, "ounces", "ounce", "oz")
_units("area", 1e6, "km2", "km²", "square kilometres", "square kilometers", "sq km")
_units("area", 2589988.1, "square miles", "sq mi")
_units("area", 4046.8564, "acres", "acre")
_units("area", 1e4, "hectares", "hectare", "ha")
_units("volume", 1, "litres", "liters", "litre", "liter")
_units("volume", 3.785411784, "gallons", "gallon")
_units("volume", 158.987, "barrels", "barrel")
_units("speed", 1, "km/h", "kph", "kmh")
_units("speed", 1.609344, "mph", "miles per hour")
_units("temperature:c", 1, "°c", "degrees celsius", "celsius")
_units("temperature:f", 1, "°f", "degrees fahrenheit", "fahrenheit")
_units("power", 1e6, "mw", "megawatts", "megawatt")
_units("power", 1e9, "gw", "gigawatts", "gigawatt")
_units("power", 1e3, "kw", "kilowatts", "kilowatt")
_units("data", 1e9, "gb", "gigabytes")
_units("data", 1e6, "mb", "megabytes")
_units("data", 1e12, "tb", "terabytes")
_units("time", 1, "seconds", "secs", "sec")
_units("time", 60, "minutes", "minute", "mins", "min")
_units("time", 3600, "hours", "hour", "hrs", "hr")
_units("time", 86400, "days", "day")
_units("time", 604800, "weeks", "week")
_units("time", 2629800, "months", "month")
_units("time", 31557600, "years", "year", "yrs")
_units("time", 315576000, "decades", "decade")
_units("time", 3155760000, "centuries", "century")

_SUFFIX_UNITS = sorted(_UNITS, key=len, reverse=True)
_UNIT = (
    "(?:"
    + "|".join(
        re.escape(u) + (r"(?![\w])" if u[-1].isalnum() else "") for u in _SUFFIX_UNITS if u not in "$£€¥"
    )
    + ")"
)
_CURRENCY = r"(?:US\$|\$|£|€|¥)"
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[\u00a0\u202f ]\d{3})+(?![\d,.])|\d+)(?:\.\d+)?|\.\d+"
_WORDS = "|".join(sorted(_WRITTEN, key=len, reverse=True))
_NUMBER = re.compile(
    rf"(?P<hedge>\b(?:more than|over|at least|nearly|almost|about|around|approximately|roughly|some|up to|"
    rf"under|less than|fewer than|below|above|exceeding|only|just)\s+)?"
    rf"(?P<currency>{_CURRENCY})?\s?"
    rf"(?:(?P<digits>(?<![\w.,/])(?:{_DIGITS}))(?P<ordinal>st|nd|rd|th)?"
    rf"|(?P<words>\ba(?=\s+(?:hundred|thousand|million|billion|trillion)\b)"
    rf"|\b(?:{_WORDS})(?:(?:\s*-\s*|\s)(?:{'|'.join(_UNITS_WORDS)}))?)(?=\s+{_MULTIPLIER}|\b))"
    rf"(?:\s?(?P<multiplier>{_MULTIPLIER}))?(?![\w])"
    rf"(?:(?:\s?|-)(?P<unit>{_UNIT}))?",
    re.IGNORECASE,
)
_HEDGES = {
    "more than": "gt",
    "over": "gt",
    "at least": "gt",
    "above": "gt",
    "exceeding": "gt",
    "under": "lt",
    "less than": "lt",
    "fewer than": "lt",
    "below": "lt",
    "up to": "lt",
    "nearly": "approx",
    "almost": "approx",
    "about": "approx",
    "around": "approx",
    "approximately": "approx",
    "roughly": "approx",
    "some": "approx",
}
_NAME_BEFORE_NUMBER = re.compile(r"(?:^|[^\w])(?P<name>[A-Z][A-Za-z]*|[A-Z]{2,})[ -]$")
"""A capitalised word right before a number makes it part of a name (Apollo 11, Boeing 747, COVID-19)."""
NOT_NAMES = frozenset(
    {
        "in",
        "on",
        "by",
        "since",
        "from",
        "until",
        "till",
        "to",
        "at",
        "of",
        "for",
        "and",
        "or",
        "the",
        "about",
        "over",
        "under",
        "after",
        "before",
        "around",
        "than",
        "nearly",
        "only",
        "some",
        "with",
        "between",
        "ad",
        "bc",
        "ce",
        "bce",
        "circa",
        "c",
        "during",
        "through",
        "year",
        "age",
        "aged",
        "page",
        "chapter",
    }
    | set(_MONTHS)
    | {m[:3] for m in _MONTHS}
)
"""Words that, before a number, do not make it part of a name ("in 1994", "May 3"; "Apollo 11" is a name)."""


@dataclass(frozen=True)
class Value:
    """One number, quantity or date found in a text, with its character span there."""

    kind: MismatchKind
    text: str
    start: int
    end: int
    amount: float | None = None
    precision: float = 0.0
    unit: str | None = None
    dimension: str | None = None
    factor: float = 1.0
    hedge: str | None = None
    year: int | None = None
    month: int | None = None
    day: int | None = None
    period: int = 0
    """Years covered by a decade (10) or a century (100) starting at ``year``; 0 for a year or a day."""
    cue: str | None = None
    ordinal: bool = False
    weak: bool = False
    """A value that bears a claim's value but is never checked or reported itself ("one", "second")."""


def _day(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def _month(text: str) -> int:
    return _MONTH_NUMBER[text.rstrip(".").lower()]


def _date_value(match: re.Match[str]) -> Value | None:
    g = match.groupdict()
    year = month = day = None
    period = 0
    if g["iso_y"]:
        year, month, day = int(g["iso_y"]), int(g["iso_m"]), int(g["iso_d"])
    elif g["mdy_m"]:
        year, month, day = int(g["mdy_y"]), _month(g["mdy_m"]), _day(g["mdy_d"])
    elif g["dmy_m"]:
        year, month, day = int(g["dmy_y"]), _month(g["dmy_m"]), _day(g["dmy_d"])
    elif g["my_m"]:
        year, month = int(g["my_y"]), _month(g["my_m"])
    elif g["md_m"]:
        month, day = _month(g["md_m"]), _day(g["md_d"])
    elif g["dm_m"]:
        month, day = _month(g["dm_m"]), _day(g["dm_d"])
    elif g["range_a"]:
        first, last = int(g["range_a"]), int(g["range_b"])
        if last < 100:
            last += first - first % 100
        if last <= first:
            return None
        year, period = first, last - first + 1
    elif g["era_y"]:
        year = int(g["era_y"]) * (-1 if g["era"].upper().startswith("B") else 1)
    elif g["era2_y"]:
        year = int(g["era2_y"])
    elif g["decade"]:
        year, period = int(g["decade"]), 10
    elif g["century"] or g["century_word"]:
        number = int(g["century"]) if g["century"] else _ORDINAL_WORDS[g["century_word"].lower()]
        year, period = (number - 1) * 100, 100
    elif g["month"]:
        month = _month(g["month"])
    else:
        return None
    amount = float(year) if year is not None and not period else None
    return Value(
        "date",
        match.group(),
        match.start(),
        match.end(),
        amount=amount,
        year=year,
        month=month,
        day=day,
        period=period,
    )


def _written_amount(words: str) -> float:
    parts = re.split(r"[- ]+", words.lower())
    if parts == ["a"]:
        return 1.0
    return float(sum(_WRITTEN.get(p, _UNITS_WORDS.get(p, 0)) for p in parts))


def _precision(digits: str) -> float:
    """The place value of the last digit written: 27 -> 1, 1.25 -> 0.01 (a multiplier scales it)."""
    return 10.0 ** -len(digits.split(".")[1]) if "." in digits else 1.0


def _next_word(text: str, end: int) -> str | None:
    match = re.match(r"\s*(?:of\s+)?([A-Za-z]+)", text[end:])
    return match.group(1).lower() if match else None


_ENUMERATION = re.compile(r"(?:^|\n)\s*$")


def _only_bears(text: str, match: re.Match[str]) -> bool:
    """A number that bears a claim's value but is not checked itself: part of a name (Apollo 11), a list
    marker ("9) ..."), or a written number in a compound word ("five-year", "two-fold")."""
    g = match.groupdict()
    if g["digits"]:
        start = match.start("digits")
        name = _NAME_BEFORE_NUMBER.search(text[max(0, start - 30) : start])
        if name and name.group("name").lower() not in NOT_NAMES and not g["currency"]:
            return True
        return text[match.end() : match.end() + 1] in (")", ".") and bool(_ENUMERATION.search(text[:start]))
    return re.match(r"-[A-Za-z]", text[match.end("words") : match.end("words") + 2]) is not None


def _number_value(text: str, match: re.Match[str]) -> Value | None:
    value = _read_number(text, match)
    if value is not None and _only_bears(text, match):
        return replace(value, weak=True)
    return value


def _read_number(text: str, match: re.Match[str]) -> Value | None:
    g = match.groupdict()
    if g["digits"]:
        amount = float(re.sub(r"[,\u00a0\u202f ]", "", g["digits"]))
        precision = _precision(g["digits"])
    else:
        if g["words"].lower() == "a" and g["multiplier"].lower() in ("k", "m", "b"):
            return None
        if g["words"].lower() == "one" and not g["multiplier"]:
            return Value(
                "number", g["words"], match.start("words"), match.end("words"), amount=1.0, weak=True
            )
        amount = _written_amount(g["words"])
        precision = 1.0
    multiplier = g["multiplier"]
    if multiplier:
        if multiplier.lower() in ("m", "b", "k") and not (g["currency"] or g["digits"]):
            return None
        factor = _MULTIPLIERS[multiplier.lower()]
        amount *= factor
        precision *= factor
    unit_text = (g["unit"] or "").lower()
    if g["currency"]:
        unit_text = "$" if "$" in g["currency"] else g["currency"]
    start = match.start("currency") if g["currency"] else match.start("digits" if g["digits"] else "words")
    end = match.end()
    hedge = _HEDGES.get(g["hedge"].strip().lower()) if g["hedge"] else None
    if unit_text in _UNITS:
        canonical, dimension, factor = _UNITS[unit_text]
        return Value(
            "quantity",
            text[start:end],
            start,
            end,
            amount=amount,
            precision=precision,
            unit=canonical,
            dimension=dimension,
            factor=factor,
            hedge=hedge,
            cue=_next_word(text, end),
        )
    if g["digits"] and not g["ordinal"] and not multiplier and re.fullmatch(r"1\d{3}|20\d{2}", g["digits"]):
        return Value(
            "date", g["digits"], match.start("digits"), match.end("digits"), amount=amount, year=int(amount)
        )
    return Value(
        "number",
        text[start:end],
        start,
        end,
        amount=amount,
        precision=precision,
        hedge=hedge,
        cue=_next_word(text, end),
        ordinal=bool(g["ordinal"]),
    )


@lru_cache(maxsize=8192)
def _values(text: str) -> tuple[Value, ...]:
    """The dates, quantities and numbers of a text, in text order (cached: evidence meets many claims)."""
    found: list[Value] = []
    taken = [False] * (len(text) + 1)
    for match in _DATE.finditer(text):
        value = _date_value(match)
        if value is None:
            continue
        found.append(value)
        for i in range(match.start(), match.end()):
            taken[i] = True
        if match.group("range_a") and value.year is not None:
            for end in ("range_a", "range_b"):
                year = value.year if end == "range_a" else value.year + value.period - 1
                found.append(
                    Value(
                        "date",
                        match.group(end),
                        match.start(end),
                        match.end(end),
                        amount=float(year),
                        year=year,
                        weak=True,
                    )
                )
    for match in _NUMBER.finditer(text):
        value = _number_value(text, match)
        if value is None or any(taken[value.start : value.end]):
            continue
        found.append(value)
    for match in _ORDINAL_WORD.finditer(text):
        amount = float(_ORDINAL_WORDS[match.group().lower()])
        found.append(
            Value(
                "number", match.group(), match.start(), match.end(), amount=amount, ordinal=True, weak=True
            )
        )
    return tuple(sorted(found, key=lambda v: v.start))


def _same_amount(claim: Value, other: Value) -> bool:
    """Whether ``other`` states the claim's amount, allowing for units, the claim's rounding and its hedge.

    Quantities of one dimension are compared in its base unit, a quantity and a plain number by their amounts
    (``27 years`` and ``27``); quantities of two dimensions never bear each other.
    """
    if claim.amount is None or other.amount is None:
        return False
    if claim.kind == other.kind == "quantity" and claim.dimension != other.dimension:
        return False
    converted = claim.dimension is not None and other.dimension == claim.dimension
    a = claim.amount * (claim.factor if converted else 1.0)
    b = other.amount * (other.factor if converted else 1.0)
    if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9):
        return True
    if claim.hedge == "gt":
        return b >= a
    if claim.hedge == "lt":
        return b <= a
    if claim.hedge == "approx":
        return abs(a - b) <= 0.1 * abs(a)
    step = claim.precision * (claim.factor if converted else 1.0)
    return b != 0 and abs(a - b) <= step / 2 + 1e-9 * abs(a)


def _date_bears(claim: Value, other: Value) -> bool:
    """Whether ``other`` states the claim's date, as specifically or more (1994 is borne by May 3, 1994)."""
    if other.kind != "date":
        return claim.month is None and not claim.period and other.amount == claim.amount
    if claim.period:
        return (
            other.year is not None
            and claim.year is not None
            and claim.year <= other.year
            and other.year + max(other.period, 1) <= claim.year + claim.period
        )
    if other.period:
        return False
    return all(
        part is None or part == theirs
        for part, theirs in ((claim.year, other.year), (claim.month, other.month), (claim.day, other.day))
    )


def _date_conflicts(claim: Value, other: Value) -> bool:
    """Whether an evidence date states another value of a part the claim gives."""
    if other.kind != "date":
        return False
    if claim.period or other.period:
        if claim.year is None or other.year is None:
            return False
        return (
            other.year + max(other.period, 1) <= claim.year or claim.year + max(claim.period, 1) <= other.year
        )
    pairs = ((claim.year, other.year), (claim.month, other.month), (claim.day, other.day))
    return any(mine is not None and theirs is not None and mine != theirs for mine, theirs in pairs)


def _bears(claim: Value, other: Value) -> bool:
    if claim.kind == "date":
        return _date_bears(claim, other)
    if other.kind == "date" and other.amount is None:
        return False
    return _same_amount(claim, other)


def _borne_in_parts(claim: Value, bearers: tuple[Value, ...]) -> bool:
    """A full date borne by a day and month ("23 February to 6 March 2011") and its year stated elsewhere."""
    if claim.kind != "date" or claim.year is None or claim.month is None:
        return False
    partial = Value("date", claim.text, claim.start, claim.end, month=claim.month, day=claim.day)
    year = Value("date", claim.text, claim.start, claim.end, amount=claim.amount, year=claim.year)
    return any(_date_bears(partial, v) for v in bearers if v.year is None) and any(
        _date_bears(year, v) for v in bearers
    )


def _candidates(claim: Value, values: Iterable[Value]) -> list[Value]:
    """Evidence values in the claim value's slot: dates that conflict, numbers of the same dimension."""
    if claim.kind == "date":
        return [v for v in values if _date_conflicts(claim, v)]
    if claim.kind == "quantity":
        return [v for v in values if v.kind == "quantity" and v.dimension == claim.dimension]
    return [v for v in values if v.kind == "number" and not v.weak and v.ordinal == claim.ordinal]


def value_mismatch(
    claim: str, evidence: str, context: str | None, kinds: Collection[MismatchKind]
) -> tuple[Value, Value | None] | None:
    """The first value of ``claim`` of the ``kinds`` given that neither ``evidence`` nor ``context`` bears, with
    the evidence's value of the same slot (None when it states none); None when every value is borne."""
    evidence_values = _values(evidence)
    bearers = evidence_values + (_values(context) if context else ())
    for value in _values(claim):
        if value.kind not in kinds or value.weak:
            continue
        if any(_bears(value, other) for other in bearers) or _borne_in_parts(value, bearers):
            continue
        if value.kind == "date" and any(
            _date_bears(other, value) for other in bearers if other.kind == "date"
        ):
            return value, None
        candidates = _candidates(value, evidence_values)
        if not candidates:
            return value, None
        return value, closest(claim, (value.start, value.end, value.cue), evidence, candidates)
    return None
