"""Citations read the way KaLMA's released scoring reads them (``attribute score --matching paper``).

KaLMA's evaluation scripts take every bracket of an answer but the exact ``[NA]`` and cut it on ``": "`` and
``", "``: the qid is the text before the first comma, taken as written; each ``relation: value`` pair after it
is one citation, the relation being the text after the last ``", "`` before its colon. So

- ``[qid: Q1, place of birth: Rome]`` cites the qid ``qid: Q1``, which no graph has;
- a bracket with no ``", "`` before its first ``": "`` gives no citation (``[Q1]``, ``[place of birth: Rome]``,
  ``[Q1, place of birth:Rome]``), where factscope's own reading keeps an incomplete citation;
- nothing is normalised: case, spaces and quotes stay as written.

The brackets are the ones factscope's parser found, each with its sentence (``ParsedAnswer.brackets``).
"""

from __future__ import annotations

from factscope.kg.citations import Citation, ParsedAnswer

_NA = "NA"
_PAIR = ": "
_ITEM = ", "


def _after_last_item(piece: str) -> str:
    """The text after the last ``", "`` of ``piece`` (a relation name); empty when there is none."""
    _head, separator, tail = piece.rpartition(_ITEM)
    return tail if separator else ""


def bracket_citations(content: str, sentence: int) -> list[Citation]:
    """The citations of one bracket (its inside, ``[`` and ``]`` left out), read as KaLMA's scoring reads them."""
    if content == _NA:
        return []
    raw = f"[{content}]"
    qid = raw.split(",")[0][1:]
    pieces = raw.split(_PAIR)
    citations = []
    relation = _after_last_item(pieces[0])
    for index in range(1, len(pieces)):
        piece = pieces[index]
        last = index == len(pieces) - 1
        value = piece[:-1] if last else piece.rpartition(_ITEM)[0] if _ITEM in piece else piece
        if relation:
            citations.append(Citation(qid, relation, value, sentence, raw))
        if not last:
            relation = _after_last_item(piece)
    return citations


def paper_citations(parsed: ParsedAnswer) -> list[Citation]:
    """Every citation of a parsed answer, read bracket by bracket as KaLMA's released scoring reads them."""
    return [
        citation
        for bracket in parsed.brackets
        for citation in bracket_citations(bracket.content, bracket.sentence)
    ]
