"""Sequence-first transformer encoder (nn.TransformerEncoder of 4 TransformerEncoderLayer(256, 4 heads,
ff 1024, gelu), not batch_first); the report exports it with batch and sequence
dynamic and finds that "the onnx appears to be broken if I try to run it with different batch sizes and
sequence lengths" in onnxruntime.

Source: https://github.com/pytorch/pytorch/issues/122321
"""
import torch

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"inputs": {0: "sequence", 1: "batch"}}
BLIND = "domains-8"


class Model(torch.nn.Module):

    def __init__(self):
        super().__init__()

        self.latent_dim = 256
        self.num_heads = 4
        self.ff_size=1024
        self.dropout=0.1
        self.activation="gelu"
        self.num_layers = 4

        root_seqTransEncoderLayer = torch.nn.TransformerEncoderLayer(d_model=self.latent_dim,
                                                               nhead=self.num_heads,
                                                               dim_feedforward=self.ff_size,
                                                               dropout=self.dropout,
                                                               activation=self.activation)

        self.root_seqTransEncoder = torch.nn.TransformerEncoder(root_seqTransEncoderLayer,
                                                          num_layers=self.num_layers)

    def forward(self, inputs):
        return self.root_seqTransEncoder(inputs)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(16, 2, 256),)


def other_inputs():
    return [(torch.randn(9, 5, 256),), (torch.randn(30, 1, 256),)]


def probe_inputs():
    return other_inputs()
