"""The variable-length front end of a time-major RNN: padded sequences are packed with
`pack_padded_sequence(x, lengths=x_lengths, batch_first=False, enforce_sorted=True)` and unpacked again with
`pad_packed_sequence(..., padding_value=0.0)`, returning the re-padded tensor and the lengths. The report says
the export does not respect `padding_value`: the packing/unpacking is not recorded in the ONNX graph, so the
padding positions keep their input values (99) instead of the padding value.

Source: https://github.com/pytorch/pytorch/issues/28423
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "time", 1: "batch"}, "x_lengths": {0: "batch"}}
BLIND = "domains-24"


class DummyNet(nn.Module):
    def __init__(self):
        super(DummyNet, self).__init__()

    def forward(self, x, x_lengths):
        x_packed = nn.utils.rnn.pack_padded_sequence(x,
                                                     lengths=x_lengths,
                                                     batch_first=False,
                                                     enforce_sorted=True)
        x_unpacked, out_seq_length = nn.utils.rnn.pad_packed_sequence(x_packed,
                                                                      batch_first=False,
                                                                      padding_value=0.0)
        return x_unpacked, out_seq_length


def make_model():
    return DummyNet().eval()


def example_inputs():
    example_input = (torch.Tensor([[[1, 2], [3, 4], [5, 6]], [[1, 2], [3, 4], [99, 99]]])
                     .permute(1, 0, 2)
                     )
    example_lengths = torch.tensor([3, 2])
    return (example_input, example_lengths)


def other_inputs():
    x1 = torch.randn(5, 3, 2)
    x1[4:, 1] = 99.0
    x1[2:, 2] = 99.0
    x2 = torch.randn(4, 4, 2)
    x2[3:, 1:] = 99.0
    x2[1:, 3] = 99.0
    return [(x1, torch.tensor([5, 4, 2])), (x2, torch.tensor([4, 3, 3, 1]))]


def probe_inputs():
    return other_inputs()
