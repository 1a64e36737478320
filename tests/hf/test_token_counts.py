"""The memoised token counter and the sorted padded batches the hf scorers share, on a fake tokenizer."""

from factscope.hf.sorted_batches import padded_batches
from factscope.hf.token_counts import TokenCounts


class WordTokenizer:
    """Splits on spaces; counts its calls; pads a batch to a dict that remembers the device."""

    def __init__(self):
        self.calls = 0

    def __call__(self, text, add_special_tokens=True):
        self.calls += 1
        return {"input_ids": text.split() + ([] if not add_special_tokens else ["[CLS]"])}

    def pad(self, columns, return_tensors):
        return Padded(columns)


class Padded(dict):
    def to(self, device):
        self["device"] = device
        return self


def test_token_counts_leave_special_tokens_out_and_keep_the_recent_texts():
    tokenizer = WordTokenizer()
    counts = TokenCounts(tokenizer, size=1)
    assert counts("a b c") == 3
    assert counts("a b c") == 3
    assert tokenizer.calls == 1  # the second count came from memory
    assert counts("d") == 1
    assert counts("a b c") == 3
    assert tokenizer.calls == 3  # a cache of one text forgot "a b c" when "d" came


def test_padded_batches_go_shortest_first_with_their_indices():
    encoded = {"input_ids": [[1, 2, 3], [1], [1, 2], [1, 2, 3, 4]]}
    batches = list(padded_batches(WordTokenizer(), encoded, 2, "cpu"))
    # lengths 3, 1, 2, 4: sorted order 1, 2, 0, 3 in batches of two
    assert [indices for indices, _ in batches] == [[1, 2], [0, 3]]
    first = batches[0][1]
    assert first["input_ids"] == [[1], [1, 2]] and first["device"] == "cpu"


def test_a_token_budget_cuts_batches_where_the_padded_batch_would_exceed_it():
    # lengths 1, 2, 2, 3, 5, 8 (already sorted); a budget of 6 tokens, up to 10 items a batch
    encoded = {"input_ids": [[0] * n for n in (1, 2, 2, 3, 5, 8)]}
    batches = [indices for indices, _ in padded_batches(WordTokenizer(), encoded, 10, "cpu", batch_tokens=6)]
    # [1, 2, 2] pads to 3 x 2 = 6; adding the 3 would pad to 4 x 3 = 12; [3] and [5] go alone (2 x 5 > 6);
    # the 8 is over the budget by itself and still gets a batch of its own
    assert batches == [[0, 1, 2], [3], [4], [5]]
    padded_tokens = sum(len(batch) * max(len(encoded["input_ids"][i]) for i in batch) for batch in batches)
    assert padded_tokens == 6 + 3 + 5 + 8


def test_without_a_token_budget_only_the_count_cuts_batches():
    encoded = {"input_ids": [[0] * n for n in (1, 2, 2, 3, 5, 8)]}
    batches = [indices for indices, _ in padded_batches(WordTokenizer(), encoded, 4, "cpu")]
    assert batches == [[0, 1, 2, 3], [4, 5]]
