"""MiniCheck (Tang et al. 2024) as a PairScorer: its 2-way classifiers and its Flan-T5 model, in its input format.

Facts of the authors' published inference code that this follows:

- RoBERTa-large and DeBERTa-v3-large (``lytang/MiniCheck-RoBERTa-Large``, ``lytang/MiniCheck-DeBERTa-v3-Large``):
  one text, the document chunk and the claim joined by the tokenizer's end-of-sequence token
  (``chunk</s>claim`` for RoBERTa, ``chunk[SEP]claim`` for DeBERTa), truncated to 512 (RoBERTa) or 2048 (DeBERTa)
  tokens; P(supported) is the softmax of column 1 of the two logits.
- Flan-T5-large (``lytang/MiniCheck-Flan-T5-Large``): ``predict: chunk</s>claim``, truncated to 2048 tokens; the
  decoder gets its start token only, and P(supported) is the softmax over the first step's logits of token ids 3
  (unsupported) and 209 (supported), taken as column 1.
- Documents are cut into chunks of whole sentences, at most 400 tokens (the classifiers: tokenizer tokens) or 500
  words (Flan-T5: whitespace words); a claim's score is its highest P(supported) over the chunks, and it is
  supported when that is over 0.5.

The chunks are factscope's segments (``count_tokens`` counts what the authors count; ``chunk_tokens`` is their
size), so the A.3 merge keeps the best chunk and the explanation names it. factscope's sentence splitter and its
word windows for a sentence longer than a chunk stand in for NLTK's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import softmax

from factscope.core.errors import ConfigError
from factscope.hf.loading import load_pretrained
from factscope.hf.seq2seq import first_token_forward
from factscope.hf.sorted_batches import TorchClassifier
from factscope.hf.state_dict import refuse_partial_weights
from factscope.hf.token_counts import TokenCounts
from factscope.hf.two_way import two_way_probs

CLASSIFIER_CHUNK_TOKENS = 400
"""Chunk size of the RoBERTa and DeBERTa models, in tokenizer tokens."""
T5_CHUNK_WORDS = 500
"""Chunk size of the Flan-T5 model, in whitespace words."""
MAX_INPUT_TOKENS = {"roberta": 512, "deberta-v2": 2048, "t5": 2048}
"""The authors' maximum input length by model type (DeBERTa-v3 has model type deberta-v2)."""
T5_LABEL_TOKENS = (3, 209)
"""Flan-T5's token ids for unsupported and supported, in that order."""
T5_PREFIX = "predict: "


class MiniCheckScorer(TorchClassifier):
    """P(supported) of MiniCheck's RoBERTa / DeBERTa classifiers or its Flan-T5 model, as (n, 3) probabilities
    (the rest Neutral; MiniCheck does not tell contradiction from missing support)."""

    def __init__(self, name_or_path: str, *, batch_size: int = 16, device: str = "cpu") -> None:
        from transformers import AutoConfig, AutoTokenizer

        self.name = f"minicheck:{name_or_path}"
        self.batch_size = batch_size
        self.device = device
        config = load_pretrained(AutoConfig, name_or_path, "MiniCheck config")
        self.model_type: str = config.model_type
        if self.model_type not in MAX_INPUT_TOKENS:
            raise ConfigError(
                f"'{name_or_path}' is a {self.model_type} model; MiniCheck's are roberta, deberta-v2 (DeBERTa-v3) "
                "and t5 (Flan-T5)"
            )
        self.tokenizer = load_pretrained(AutoTokenizer, name_or_path, "MiniCheck tokenizer")
        self.max_length = MAX_INPUT_TOKENS[self.model_type]
        self.model = self._load_model(name_or_path).to(device).eval()
        self._first_token = first_token_forward(self.model, T5_LABEL_TOKENS) if self.seq2seq else None
        self.chunk_tokens = T5_CHUNK_WORDS if self.seq2seq else CLASSIFIER_CHUNK_TOKENS
        self._token_counts = TokenCounts(self.tokenizer)

    @property
    def seq2seq(self) -> bool:
        """Whether this is the Flan-T5 variant."""
        return self.model_type == "t5"

    @property
    def num_labels(self) -> int:
        """Two columns: unsupported and supported (the classifiers' labels, or Flan-T5's label tokens)."""
        return len(T5_LABEL_TOKENS) if self.seq2seq else super().num_labels

    def forward(self, inputs: Any) -> np.ndarray:
        """The classifier's logits of a padded batch, or Flan-T5's first-step logits of its label tokens."""
        if self._first_token is not None:
            return self._first_token(inputs)
        return super().forward(inputs)

    def _load_model(self, name_or_path: str) -> Any:
        from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification

        loader = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForSequenceClassification
        model, info = load_pretrained(loader, name_or_path, "MiniCheck model", output_loading_info=True)
        refuse_partial_weights(info, f"MiniCheck model '{name_or_path}'")
        if not self.seq2seq and model.config.num_labels != 2:
            raise ConfigError(
                f"'{name_or_path}' has {model.config.num_labels} outputs; MiniCheck's classifiers have 2"
            )
        return model

    def model_input(self, premise: str, hypothesis: str) -> str:
        """The text the model is given for one (chunk, claim) pair, in the authors' format."""
        joined = f"{premise}{self.tokenizer.eos_token}{hypothesis}"
        return T5_PREFIX + joined if self.seq2seq else joined

    def count_tokens(self, text: str) -> int:
        """What the authors' chunking counts: whitespace words (Flan-T5) or tokens without special tokens."""
        if self.seq2seq:
            return len(text.split())
        return self._token_counts(text)

    def support(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """P(supported) for each (chunk, claim) pair."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        texts = [self.model_input(premise, hypothesis) for premise, hypothesis in zip(premises, hypotheses)]
        return softmax(self.logits(texts), axis=1)[:, 1] if len(texts) else np.zeros(0)

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities (n, 3) in LABELS order: P(supported), the rest Neutral, no Contradiction."""
        return two_way_probs(self.support(premises, hypotheses))
