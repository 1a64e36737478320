"""Tiny random stand-ins for the published judges (MiniCheck, HHEM-2.1-open, AlignScore), each in the layout its
authors publish, built inside the test session."""

from __future__ import annotations

import json
from pathlib import Path

from tiny_models import WORDS

ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
T5_SPECIALS = ["<pad>", "</s>", "<unk>"]
T5_VOCAB = 256
"""Over 209, so that MiniCheck-Flan-T5's label token ids (3 and 209) exist."""


def build_roberta_tokenizer(folder: Path):
    """A byte-level BPE tokenizer in RoBERTa's layout (vocab.json, merges.txt), loaded back through AutoTokenizer."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator([" ".join(WORDS)] * 3 + [w.capitalize() + "." for w in WORDS], vocab_size=400,
                            min_frequency=1, special_tokens=ROBERTA_SPECIALS, show_progress=False)
    bpe.save_model(str(folder))
    (folder / "config.json").write_text(json.dumps({"model_type": "roberta"}))
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "RobertaTokenizer",
                                                              "model_max_length": 512}))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return tokenizer


def build_t5_tokenizer(folder: Path):
    """A word-level tokenizer with T5's special tokens (<pad> 0, </s> 1, <unk> 2; </s> appended to every text)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    words = [*T5_SPECIALS, *WORDS, ".", ",", "?", ":", "predict", "determine", "if", "hypothesis", "true", "given",
             "premise"]
    words += [f"filler{i}" for i in range(T5_VOCAB - len(words))]
    core = Tokenizer(models.WordLevel({word: index for index, word in enumerate(words)}, unk_token="<unk>"))
    core.normalizer = normalizers.Lowercase()
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    wrapped = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    wrapped.add_special_tokens({"additional_special_tokens": []})
    wrapped.save_pretrained(folder)
    return AutoTokenizer.from_pretrained(folder)


def t5_config(vocab_size: int = T5_VOCAB, **extra):
    """A one-layer T5 configuration."""
    from transformers import T5Config

    return T5Config(vocab_size=vocab_size, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1,
                    num_heads=2, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1, **extra)


def roberta_config(vocab_size: int, **extra):
    """A two-layer RoBERTa configuration."""
    from transformers import RobertaConfig

    return RobertaConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=520, **extra)


def build_minicheck_roberta(folder: Path, seed: int = 0) -> Path:
    """MiniCheck-RoBERTa-Large's layout: a 2-way RoBERTa sequence classifier with generic label names."""
    import torch
    from transformers import RobertaForSequenceClassification

    torch.manual_seed(seed)
    tokenizer = build_roberta_tokenizer(folder)
    RobertaForSequenceClassification(roberta_config(len(tokenizer), num_labels=2)).save_pretrained(folder)
    return folder


def build_minicheck_t5(folder: Path, seed: int = 0) -> Path:
    """MiniCheck-Flan-T5-Large's layout: a T5 encoder-decoder with a T5 tokenizer."""
    import torch
    from transformers import T5ForConditionalGeneration

    torch.manual_seed(seed)
    build_t5_tokenizer(folder)
    T5ForConditionalGeneration(t5_config()).save_pretrained(folder)
    return folder


def build_hhem(folder: Path, seed: int = 0, prefix: str = "t5.") -> Path:
    """HHEM-2.1-open's layout: config.json naming a foundation (here a tiny T5 folder with its tokenizer) and
    model.safetensors holding a T5ForTokenClassification's weights under ``t5.`` (the shared embedding once)."""
    import torch
    from safetensors.torch import save_file
    from transformers import T5ForTokenClassification

    torch.manual_seed(seed)
    foundation = folder / "foundation"
    build_t5_tokenizer(foundation)
    config = t5_config(num_labels=2)
    config.save_pretrained(foundation)
    model = T5ForTokenClassification(config)
    weights = {prefix + key: value.clone().contiguous() for key, value in model.state_dict().items()
               if key != "transformer.encoder.embed_tokens.weight"}
    model_folder = folder / "hhem"
    model_folder.mkdir(parents=True)
    save_file(weights, str(model_folder / "model.safetensors"))
    (model_folder / "config.json").write_text(json.dumps({
        "model_type": "HHEMv2", "architectures": ["HHEMv2ForSequenceClassification"],
        "foundation": str(foundation),
        "auto_map": {"AutoModelForSequenceClassification": "modeling_hhem_v2.HHEMv2ForSequenceClassification"},
    }))
    return model_folder


def build_alignscore(folder: Path, seed: int = 0, extra_keys: bool = True) -> Path:
    """AlignScore's released layout: a Lightning .ckpt whose ``state_dict`` holds ``base_model.`` (RoBERTa with its
    pooler), ``mlm_head.``, ``bin_layer``, ``tri_layer`` and ``reg_layer``, with the backbone's name in
    ``hyper_parameters``; the backbone's config and tokenizer are saved in ``folder``."""
    import torch
    from transformers import RobertaForMaskedLM, RobertaModel

    torch.manual_seed(seed)
    tokenizer = build_roberta_tokenizer(folder)
    config = roberta_config(len(tokenizer))
    config.save_pretrained(folder)
    base = RobertaModel(config)
    hidden = config.hidden_size
    state = {f"base_model.{key}": value for key, value in base.state_dict().items()}
    if extra_keys:
        state["base_model.embeddings.position_ids"] = torch.arange(config.max_position_embeddings)[None]
        lm_head = RobertaForMaskedLM(config).lm_head
        state.update({f"mlm_head.{key}": value for key, value in lm_head.state_dict().items()})
    for name, width in (("bin_layer", 2), ("tri_layer", 3), ("reg_layer", 1)):
        layer = torch.nn.Linear(hidden, width)
        state.update({f"{name}.{key}": value for key, value in layer.state_dict().items()})
    checkpoint = folder / "AlignScore-tiny.ckpt"
    torch.save({"state_dict": state, "hyper_parameters": {"model": str(folder)}, "epoch": 0}, checkpoint)
    return checkpoint
