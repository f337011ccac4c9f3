"""Padding layer that turns a concatenated (packed) token sequence plus a tensor of per-sequence lengths into a
padded (num_sequences, max_len) batch for a downstream model: it sizes the output with
[len(shape_t), int(shape_t.max())] and loops over shape_t writing model_input[s_id, :s_len] slices; the author's
export with dynamic_axes over the concatenated length (after scripting the module to keep the loop) fails.

Source: https://github.com/pytorch/pytorch/issues/54297
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_t": {0: "concat_sequence"}, "shape_t": {0: "num_sequences"}}
BLIND = "domains-12"


class PaddingLayer(nn.Module):
    def __init__(self):
        super(PaddingLayer, self).__init__()

    def forward(self, input_t, shape_t):
        # type: (Tensor, Tensor) -> Tensor
        output_size = [len(shape_t), int(shape_t.max())]
        model_input = torch.zeros(size=output_size, dtype=input_t.dtype, device=input_t.device)
        s_start = 0
        for s_id, s_len in enumerate(shape_t):
            model_input[s_id, :s_len] = input_t[s_start:s_start + s_len]
            s_start = s_start + s_len
        return model_input


def make_model():
    return PaddingLayer().eval()


def _packed(lengths):
    shape_t = torch.tensor(lengths, dtype=torch.long)
    input_t = torch.randint(1, 30000, (int(shape_t.sum()),), dtype=torch.long)
    return (input_t, shape_t)


def example_inputs():
    return _packed([1, 2, 3, 4])


def other_inputs():
    return [_packed([5, 2, 7]), _packed([3, 1, 6, 2, 4, 2])]


def probe_inputs():
    return other_inputs()
