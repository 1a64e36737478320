"""A local causal LM as a chat model, in-process: the model's own chat template, greedy decoding in batches, and
replies held to a ``ReplyFormat`` by constrained decoding.

The model is a Hugging Face folder, a GGUF file (dequantised once, ``factscope.hf.gguf_folder``), a hub name
already in the local cache, or ``embedded`` for the shipped SmolLM2-135M-Instruct. It runs on the GPU when one is
visible. Prompts are rendered by the tokenizer's chat template, sorted by length and decoded ``batch_size`` at a
time (left-padded, with a key-value cache). A prompt with a reply format is decoded under a llguidance matcher
(Microsoft's grammar engine for structured generation, as vLLM and llama.cpp use it): at each step the logits
of every token the format cannot continue with are set to minus infinity, so the reply is one of the labels,
matches the pattern, or is JSON valid under the schema, unless the token limit cuts it short.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.core.errors import ConfigError
from factscope.hf.loading import load_pretrained
from factscope.llm.reply_format import ReplyFormat

if TYPE_CHECKING:
    from llguidance._lib import JsonCompileOptions

EMBEDDED = "embedded"
"""The model name that stands for the shipped SmolLM2-135M-Instruct."""
STRUCTURED_HINT = "pip install 'factscope[lm]'"
"""How to install llguidance, which constrained decoding needs."""

COMPACT_JSON: JsonCompileOptions = {"whitespace_flexible": False}
"""JSON replies without free whitespace (llguidance's option)."""

Message = dict[str, str]

ReplyCallback = Callable[[int, "Generated"], None]
"""Told each reply as soon as it is complete: the index of its conversation, and the reply."""


@dataclass(frozen=True)
class Generated:
    """One reply: its text, its token counts, and why it ended ("stop": end of turn, stop string or complete
    format; "length": the token limit); or ``error`` (and no text) when the prompt could not be answered."""

    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    error: str | None = None


@dataclass(frozen=True)
class Decoding:
    """How replies are decoded: ``max_tokens`` at most, greedy at ``temperature`` 0 (else sampled with ``seed``
    from the smallest set of tokens whose probability reaches ``top_p``), cut at the first of ``stop``."""

    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    seconds: float | None = None
    """The time budget of each reply, from the start of the batch it is decoded in; a reply not finished by then
    is an error (None: no budget)."""


def model_folder(spec: str) -> str:
    """The folder (or cached hub name) of the model ``spec`` names: ``embedded``, a ``.gguf`` file, a folder, or
    a hub name."""
    if spec == EMBEDDED:
        from factscope.hf.embedded_lm import embedded_folder

        return str(embedded_folder())
    path = Path(spec).expanduser()
    if path.suffix == ".gguf":
        from factscope.hf.gguf_folder import dequantised_folder

        return str(dequantised_folder(path))
    return str(path) if path.exists() else spec


@functools.cache
def shared_chat_model(spec: str, device: str | None = None, batch_size: int = 8) -> ChatModel:
    """The chat model ``spec`` names, loaded once per process for each device and batch size."""
    return ChatModel(spec, device=device, batch_size=batch_size)


class ChatModel:
    """A causal LM answering chat conversations in-process (see the module's description); thread-safe: one
    batch decodes at a time."""

    def __init__(self, spec: str, *, device: str | None = None, batch_size: int = 8) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1 (got {batch_size})")
        source = model_folder(spec)
        self.spec = spec
        self.tokenizer = load_pretrained(AutoTokenizer, source, "chat model tokenizer")
        self.model = load_pretrained(AutoModelForCausalLM, source, "chat model")
        if not getattr(self.tokenizer, "chat_template", None):
            raise ConfigError(f"the model '{spec}' has no chat template: use an instruct (chat) model")
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device).eval()
        self.batch_size = batch_size
        config = self.model.config
        self.window = int(
            getattr(config, "max_position_embeddings", 0) or getattr(config, "n_positions", 2048)
        )
        self.end_ids = _end_ids(self.model, self.tokenizer)
        pad = self.tokenizer.pad_token_id
        self.pad_id = int(pad) if pad is not None else min(self.end_ids)
        self.vocab_size = int(self.model.get_output_embeddings().weight.shape[0])
        self._grammar_tokenizer: Any = None
        arguments = inspect.signature(self.model.forward).parameters
        # transformers 5 renamed the key-value cache "cache" (input and output); earlier: "past_key_values"
        self._cache_argument = "cache" if "cache" in arguments else "past_key_values"
        self._last_logits_only = {"logits_to_keep": 1} if "logits_to_keep" in arguments else {}
        self._lock = threading.Lock()

    def prompt_ids(self, messages: Sequence[Message]) -> list[int]:
        """The token ids of ``messages`` rendered by the model's chat template, ready for the assistant's turn."""
        text = self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(
        self,
        conversations: Sequence[Sequence[Message]],
        decoding: Decoding,
        formats: Sequence[ReplyFormat | None] | None = None,
        on_reply: ReplyCallback | None = None,
        limits: Sequence[int] | None = None,
    ) -> list[Generated]:
        """One reply per conversation, in order, each held to its reply format (None: free text) and to its limit
        of tokens (``limits``; default ``decoding.max_tokens``), decoded in batches all the same; ``on_reply`` is
        told each one as soon as it is complete."""
        wanted = list(formats) if formats is not None else [None] * len(conversations)
        if len(wanted) != len(conversations):
            raise ValueError(f"{len(conversations)} conversations but {len(wanted)} reply formats")
        most = list(limits) if limits is not None else [decoding.max_tokens] * len(conversations)
        if len(most) != len(conversations):
            raise ValueError(f"{len(conversations)} conversations but {len(most)} limits")
        prompts = [self.prompt_ids(messages) for messages in conversations]
        results: dict[int, Generated] = {}

        def done(index: int, reply: Generated) -> None:
            results[index] = reply
            if on_reply is not None:
                on_reply(index, reply)

        todo = []
        for index, ids in enumerate(prompts):
            if len(ids) >= self.window:
                done(
                    index,
                    Generated(
                        None,
                        len(ids),
                        error=f"the prompt has {len(ids)} tokens; the model's window is {self.window}",
                    ),
                )
            else:
                todo.append(index)
        todo.sort(key=lambda index: len(prompts[index]))
        with self._lock:
            for start in range(0, len(todo), self.batch_size):
                batch = todo[start : start + self.batch_size]

                def batch_done(row: int, reply: Generated, batch: list[int] = batch) -> None:
                    done(batch[row], reply)

                self._batch(
                    [prompts[i] for i in batch],
                    decoding,
                    [wanted[i] for i in batch],
                    batch_done,
                    [most[i] for i in batch],
                )
        return [results[index] for index in range(len(conversations))]

    def _matchers(self, formats: Sequence[ReplyFormat | None]) -> list[Any]:
        """One llguidance matcher per reply format (None where there is none)."""
        if all(fmt is None for fmt in formats):
            return [None] * len(formats)
        try:
            import llguidance
            import llguidance.hf
        except ImportError:
            raise ConfigError(f"constrained decoding needs llguidance: {STRUCTURED_HINT}") from None
        if self._grammar_tokenizer is None:
            self._grammar_tokenizer = llguidance.hf.from_tokenizer(
                self.tokenizer, n_vocab=self.vocab_size, eos_token=sorted(self.end_ids)
            )
        matchers: list[Any] = []
        for fmt in formats:
            if fmt is None:
                matchers.append(None)
                continue
            if fmt.kind == "json_schema":
                # compact JSON: a small model otherwise spends its tokens on indentation
                grammar = llguidance.LLMatcher.grammar_from_json_schema(fmt.value, defaults=COMPACT_JSON)
            else:
                grammar = llguidance.LLMatcher.grammar_from_regex(fmt.regex())
            matcher = llguidance.LLMatcher(self._grammar_tokenizer, grammar)
            if matcher.is_error():
                raise ConfigError(f"the reply format cannot be decoded to: {matcher.get_error()}")
            matchers.append(matcher)
        return matchers

    def _batch(
        self,
        prompts: list[list[int]],
        decoding: Decoding,
        formats: Sequence[ReplyFormat | None],
        on_reply: ReplyCallback,
        limits: list[int],
    ) -> None:
        """Decode one batch, each row to its limit of tokens, telling ``on_reply`` each row's reply as soon as it
        is complete."""
        import torch

        deadline = time.monotonic() + decoding.seconds if decoding.seconds is not None else None

        count = len(prompts)
        width = max(len(ids) for ids in prompts)
        input_ids = torch.full((count, width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((count, width), dtype=torch.long)
        for row, ids in enumerate(prompts):
            input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
            mask[row, width - len(ids) :] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        limits = [min(most, self.window - width) for most in limits]
        matchers = self._matchers(formats)
        bitmask = _allocate_bitmask(count, self.vocab_size) if any(m is not None for m in matchers) else None
        generator = None
        if decoding.temperature > 0:
            generator = torch.Generator(device=self.device)
            if decoding.seed is not None:
                generator.manual_seed(decoding.seed)
        replies: list[list[int]] = [[] for _ in prompts]
        done = [False] * count
        produced = [0] * count
        step_ids, state = input_ids.to(self.device), dict[str, Any]()
        mask, positions = mask.to(self.device), positions.to(self.device)
        with torch.inference_mode():
            for _ in range(max(limits)):
                out = self.model(
                    input_ids=step_ids,
                    attention_mask=mask,
                    position_ids=positions,
                    use_cache=True,
                    **state,
                    **self._last_logits_only,
                )
                state = {self._cache_argument: getattr(out, self._cache_argument)}
                logits = out.logits[:, -1, :].float()
                if bitmask is not None:
                    _constrain(logits, bitmask, matchers, done)
                chosen = _choose(logits, decoding, generator).tolist()
                for row, token in enumerate(chosen):
                    if done[row]:
                        chosen[row] = self.pad_id
                        continue
                    produced[row] += 1
                    if matchers[row] is not None:
                        matchers[row].consume_token(token)
                    if token in self.end_ids:
                        done[row] = True
                    else:
                        replies[row].append(token)
                        if (matchers[row] is not None and matchers[row].is_stopped()) or self._stopped(
                            replies[row], decoding.stop
                        ):
                            done[row] = True
                    if done[row]:
                        on_reply(
                            row, self._reply(prompts[row], replies[row], produced[row], "stop", decoding)
                        )
                    elif produced[row] >= limits[row]:
                        done[row] = True
                        on_reply(
                            row, self._reply(prompts[row], replies[row], produced[row], "length", decoding)
                        )
                if all(done):
                    break
                if deadline is not None and time.monotonic() > deadline:
                    for row in range(count):
                        if not done[row]:
                            done[row] = True
                            on_reply(
                                row,
                                Generated(
                                    None,
                                    len(prompts[row]),
                                    produced[row],
                                    error=(
                                        f"no reply within the time budget of {decoding.seconds:g} s a call "
                                        f"({produced[row]} tokens written)"
                                    ),
                                ),
                            )
                    break
                step_ids = torch.tensor(chosen, dtype=torch.long, device=self.device)[:, None]
                mask = torch.cat([mask, torch.ones((count, 1), dtype=mask.dtype, device=self.device)], dim=1)
                positions = positions[:, -1:] + 1
        for row in range(count):
            if not done[row]:
                on_reply(row, self._reply(prompts[row], replies[row], produced[row], "length", decoding))

    def _reply(
        self, prompt: list[int], ids: list[int], produced: int, finish: str, decoding: Decoding
    ) -> Generated:
        return Generated(self._text(ids, decoding.stop), len(prompt), produced, finish)

    def _stopped(self, ids: list[int], stop: tuple[str, ...]) -> bool:
        return bool(stop) and any(marker in self.tokenizer.decode(ids[-16:]) for marker in stop)

    def _text(self, ids: list[int], stop: tuple[str, ...]) -> str:
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        cuts = [text.index(marker) for marker in stop if marker in text]
        return text[: min(cuts)] if cuts else text


def _end_ids(model: Any, tokenizer: Any) -> set[int]:
    """The tokens that end a reply: the generation config's end-of-sequence ids and the tokenizer's."""
    ids: set[int] = set()
    for value in (getattr(model.generation_config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(int(item) for item in value)
    if not ids:
        raise ConfigError("the chat model names no end-of-sequence token, so its replies could not end")
    return ids


def _allocate_bitmask(rows: int, vocab_size: int) -> Any:
    import llguidance.torch

    return llguidance.torch.allocate_token_bitmask(rows, vocab_size)


def _constrain(logits: Any, bitmask: Any, matchers: Sequence[Any], done: Sequence[bool]) -> None:
    """Set the logits of the tokens each row's matcher forbids to minus infinity (rows without one: untouched)."""
    import llguidance.torch

    bitmask.fill_(-1)  # every token allowed
    for row, matcher in enumerate(matchers):
        if matcher is not None and not done[row]:
            llguidance.torch.fill_next_token_bitmask(matcher, bitmask, row)
    llguidance.torch.apply_token_bitmask_inplace(logits, bitmask.to(logits.device))


def _choose(logits: Any, decoding: Decoding, generator: Any) -> Any:
    """The next token of each row: the most likely (temperature 0), else one sampled at the temperature from the
    nucleus of probability ``top_p``."""
    import torch

    if decoding.temperature <= 0:
        return logits.argmax(dim=-1)
    probabilities = torch.softmax(logits / decoding.temperature, dim=-1)
    if decoding.top_p < 1.0:
        ordered, order = probabilities.sort(dim=-1, descending=True)
        outside = ordered.cumsum(dim=-1) - ordered >= decoding.top_p  # tokens after the nucleus is complete
        ordered[outside] = 0.0
        probabilities = torch.zeros_like(probabilities).scatter(-1, order, ordered)
    return torch.multinomial(probabilities, 1, generator=generator)[:, 0]
