"""NeMo TTS text front-end: a `@torch.jit.script` `batch_from_ragged` turns a flat token stream plus cumulative
`batch_lengths` into a padded batch with a `while index < batch_lengths.shape[0]` loop and
`texts[last_index, :cur_seq_len] = text[seq_start:seq_end]`; the report says legacy torch.onnx.export works with the
scripted function while the dynamo exporter fails on the data-dependent slicing.

Source: https://github.com/pytorch/pytorch/issues/127154
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"text": {0: "tokens"}, "batch_lengths": {0: "batch_plus_one"}}
BLIND = "domains-5"


@torch.jit.script
def batch_from_ragged(text: torch.Tensor, batch_lengths: torch.Tensor):
    batch_lengths = batch_lengths.to(dtype=torch.int64)
    lens = batch_lengths[1:] - batch_lengths[:-1]
    max_len = torch.max(lens)
    index = 1
    num_batches = batch_lengths.shape[0] - 1
    texts = torch.zeros(num_batches, max_len, dtype=torch.int64, device=text.device)
    last_index = index - 1
    while index < batch_lengths.shape[0]:
        seq_start = batch_lengths[last_index]
        seq_end = batch_lengths[index]
        cur_seq_len = seq_end - seq_start
        texts[last_index, :cur_seq_len] = text[seq_start:seq_end]
        last_index = index
        index += 1
    return texts, lens


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(100, 16)

    def forward(self, text, batch_lengths):
        texts, lens = batch_from_ragged(text, batch_lengths)
        return self.embedding(texts), lens


def make_model():
    return Model()


def example_inputs():
    return (torch.randint(1, 100, (20,)), torch.tensor([0, 5, 12, 20]))


def other_inputs():
    return [
        (torch.randint(1, 100, (31,)), torch.tensor([0, 9, 10, 17, 25, 31])),
        (torch.randint(1, 100, (8,)), torch.tensor([0, 3, 8])),
    ]


def probe_inputs():
    return other_inputs()
