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
