"""benchmarks/batch_tokens.py's arithmetic: batches, padding and a BERT classifier's operations by hand."""

import argparse
import sys

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import batch_tokens


def test_batches_and_padding_follow_the_token_budget():
    lengths = [3, 1, 2, 2, 8, 5]  # sorted: 1, 2, 2, 3, 5, 8
    assert batch_tokens.padded_sizes(lengths, 10, 6) == [(3, 2), (1, 3), (1, 5), (1, 8)]
    assert batch_tokens.padded_sizes(lengths, 4, None) == [(4, 3), (2, 8)]
    # by count: 4 x 3 + 2 x 8 = 28 padded tokens for 21 real ones
    assert batch_tokens.padding_share(lengths, 4, None) == 28 / 21 - 1
    # by a budget of 6: 6 + 3 + 5 + 8 = 22
    assert batch_tokens.padding_share(lengths, 10, 6) == 22 / 21 - 1


def test_model_operations_count_the_last_layer_for_cls_alone():
    config = argparse.Namespace(hidden_size=2, intermediate_size=4, num_hidden_layers=2)
    # one batch of 1 pair of 3 positions; a full layer a position: 4*2*2 + 2*2*4 = 32, attention 2*3*2 = 12
    full = 3 * (32 + 12)
    # the last layer: keys and values of 3 positions 3*2*2*2 = 24, [CLS]'s query and output 2*2*2 = 8,
    # its feed-forward 2*2*4 = 16, its attention 2*3*2 = 12
    last = 24 + 8 + 16 + 12
    assert batch_tokens.model_flops([(1, 3)], config) == 2 * (full + last)
