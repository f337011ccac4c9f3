"""A variable-length sequence net that packs its padded input with
`pack_padded_sequence(X, X_len, batch_first=True, enforce_sorted=False)`, runs BatchNorm1d on the packed
`X_pack.data` and rebuilds a `PackedSequence(data=..., batch_sizes=X_pack.batch_sizes, ...)` (the model
"only needs one of the two", no unpacking); the report says the export fails ("Cannot export individual pack_padded_sequence or
pad_packed_sequence; these operations must occur in pairs").

Source: https://github.com/pytorch/pytorch/issues/49936
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"X": {0: "batch", 1: "time"}, "X_len": {0: "batch"}}
BLIND = "domains-23"


class SampleNet(nn.Module):
    def __init__(self):

        super().__init__()

        self.BatchNorm1 = nn.BatchNorm1d(5)

    def forward(self, X, X_len):
        # Mask
        X_pack = torch.nn.utils.rnn.pack_padded_sequence(X, X_len, batch_first=True, enforce_sorted=False)

        # norm
        X_ln = torch.nn.utils.rnn.PackedSequence(
            data=self.BatchNorm1(X_pack.data),
            batch_sizes=X_pack.batch_sizes,
            sorted_indices=X_pack.sorted_indices,
            unsorted_indices=X_pack.unsorted_indices,
        )

        return X_ln.data


def make_model():
    torch.manual_seed(0)
    m = SampleNet()
    m.BatchNorm1.running_mean.uniform_(-0.5, 0.5)
    m.BatchNorm1.running_var.uniform_(0.5, 1.5)
    return m.eval()


def _inputs(b, t):
    X = torch.randn(b, t, 5)
    X_len = torch.randint(1, t + 1, (b,))
    X_len[0] = t
    return X, X_len


def example_inputs():
    return _inputs(4, 10)


def other_inputs():
    return [_inputs(6, 13), _inputs(2, 5)]


def probe_inputs():
    return other_inputs()
