"""The labelled pair sets of the development data (`../shared/data`), their families and whether a shipped
checker may train on them (permissive or share-alike terms, as the data's README states them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PairSet:
    """One labelled file: its path under the data folder, its family, its licence and whether it may be shipped."""

    path: str
    family: str
    licence: str
    shippable: bool

    @property
    def name(self) -> str:
        """The file's stem, which is also each pair's ``source`` when training."""
        return Path(self.path).stem


PAIR_SETS: tuple[PairSet, ...] = (
    PairSet("nli/mnli_dev_matched.jsonl", "general NLI", "MultiNLI's own terms (OANC text)", True),
    PairSet("nli/cad_snli.jsonl", "general NLI", "Apache-2.0; SNLI premises CC BY-SA 4.0", True),
    PairSet("nli/sick.jsonl", "general NLI", "CC BY-NC-SA 3.0", False),
    PairSet("nli/breaking_nli.jsonl", "general NLI", "CC BY-SA 4.0", True),
    PairSet("nli/rte.jsonl", "general NLI", "RTE research-use terms", False),
    PairSet("claims/fever_dev.jsonl", "Wikipedia claims", "CC BY-SA 3.0", True),
    PairSet("claims/fever_symmetric.jsonl", "Wikipedia claims", "CC BY-SA 3.0", True),
    PairSet("claims/fm2.jsonl", "Wikipedia claims", "Apache-2.0", True),
    PairSet("claims/healthver.jsonl", "health and science", "none stated", False),
    PairSet("claims/covidfact.jsonl", "health and science", "none stated", False),
    PairSet("claims/check_covid.jsonl", "health and science", "MIT", True),
    PairSet("claims/scifact_rte.jsonl", "health and science", "CC BY-NC 2.0", False),
    PairSet("claims/nli4ct.jsonl", "health and science", "none stated", False),
    PairSet("claims/nli4ct2024_contrast.jsonl", "health and science", "none stated", False),
    PairSet("claims/fnc1.jsonl", "news stance", "none stated", False),
    PairSet("claims/contractnli.jsonl", "long documents", "Apache-2.0", True),
    PairSet("claims/control.jsonl", "long documents", "CC BY-NC-SA 4.0", False),
    PairSet("claims/summedits.jsonl", "long documents", "Apache-2.0 (documents keep their corpora's terms)", True),
    PairSet("claims/begin.jsonl", "dialogue", "CC BY 4.0 and CDLA-Sharing-1.0", True),
    PairSet("claims/faithdial_audit.jsonl", "dialogue", "MIT", True),
    PairSet("claims/factcheckgpt.jsonl", "web evidence", "Apache-2.0", True),
)

FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(s.family for s in PAIR_SETS))


def default_data_dir() -> Path:
    """``../shared/data`` beside the repository."""
    return Path(__file__).resolve().parents[2] / "shared" / "data"
