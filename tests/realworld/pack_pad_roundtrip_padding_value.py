"""A module that packs a padded batch with `nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
enforce_sorted=True)` and unpacks it again with `pad_packed_sequence`; the report says the ONNX export records
no operation for the pack/unpack pair, so the exported model gives wrong outputs (padding not restored, lengths
baked in).

Source: https://github.com/pytorch/pytorch/issues/48460
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "length"}, "lengths": {0: "batch"}}
BLIND = "domains-22"


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()

    def forward(self, x, lengths):
        packed_seq = nn.utils.rnn.pack_padded_sequence(x,
                                                       lengths,
                                                       batch_first=True,
                                                       enforce_sorted=True)

        padded_seq = nn.utils.rnn.pad_packed_sequence(packed_seq,
                                                      batch_first=True,
                                                      padding_value=0.0)
        return padded_seq[0].double(), padded_seq[1].long()


def make_model():
    return Net()


def example_inputs():
    return (torch.rand(4, 10, 3).double(), torch.tensor([10, 8, 4, 2]).long())


def other_inputs():
    return [(torch.rand(3, 12, 3).double(), torch.tensor([12, 7, 3]).long()),
            (torch.rand(5, 6, 3).double(), torch.tensor([6, 6, 5, 2, 1]).long())]


def probe_inputs():
    return other_inputs()
