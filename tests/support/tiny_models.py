"""Tiny Hugging Face models built inside the test session, standing in for hub models."""

from __future__ import annotations

from pathlib import Path

WORDS = ["the", "a", "an", "is", "was", "in", "of", "and", "to", "by", "on", "it", "he", "she", "they", "not", "no", "cat", "dog", "mat", "sat", "paris", "france", "berlin", "germany", "capital", "city", "born", "won", "prize", "nobel", "physics", "chemistry", "1903", "1911", "curie", "marie", "python", "guido", "created", "released", "1991", "james", "gosling", "river", "mountain", "tall", "metres", "everest", "first", "climbed", "1953"]


TINY_ENCODER = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
"""The size of every tiny encoder: two layers, hidden 32."""


def build_tokenizer(folder: Path):
    """A WordPiece tokenizer over a small English vocabulary, saved to ``folder``."""
    from transformers import BertTokenizer

    vocab = {token: index for index, token in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, ".", ","])}
    tokenizer = BertTokenizer(vocab=vocab, do_lower_case=True)
    tokenizer.save_pretrained(folder)
    return tokenizer


def build_nli_classifier(
    folder: Path, id2label: dict[int, str], bias: list[float] | None = None, seed: int = 0, layers: int = 2
) -> Path:
    """A BERT sequence classifier of ``layers`` tiny layers with the given label names; ``bias`` fixes its output
    (zero weights)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    tokenizer = build_tokenizer(folder)
    config = BertConfig(
        vocab_size=len(tokenizer),
        **{**TINY_ENCODER, "num_hidden_layers": layers},
        max_position_embeddings=512,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={name: index for index, name in id2label.items()},
    )
    model = BertForSequenceClassification(config)
    if bias is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(bias))
    model.save_pretrained(folder)
    return folder


def build_mpnet_encoder(folder: Path, seed: int = 0, layers: int = 2) -> Path:
    """An MPNet encoder of ``layers`` layers (hidden 32) with the small vocabulary, standing in for
    all-mpnet-base-v2."""
    import torch
    from transformers import MPNetConfig, MPNetModel

    torch.manual_seed(seed)
    tokenizer = build_tokenizer(folder)
    MPNetModel(MPNetConfig(vocab_size=len(tokenizer), **{**TINY_ENCODER, "num_hidden_layers": layers}, max_position_embeddings=520, pad_token_id=0)).save_pretrained(folder)
    return folder
