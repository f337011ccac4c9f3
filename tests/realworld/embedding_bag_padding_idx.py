"""Residue embedding with `nn.EmbeddingBag(..., mode='sum', padding_idx=0)` summed over bags whose
offsets are built in forward; the TorchScript exporter stops with "RuntimeError: embedding_bag with
padding_idx" (the report says the dynamo exporter handles it).

Source: https://github.com/pytorch/pytorch/issues/128930
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "N"}}
BLIND = "domains-3"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.residue_embed = nn.EmbeddingBag(num_embeddings=10, embedding_dim=3, mode='sum', padding_idx=0)

    def forward(self, x):
        offsets = torch.tensor([0, 4])
        return self.residue_embed(x, offsets)


def make_model():
    return Model()


def example_inputs():
    return (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]),)


def other_inputs():
    return [(torch.tensor([0, 7, 3, 1, 8, 0, 6, 2, 5, 9, 1]),),
            (torch.tensor([3, 0, 0, 6, 2, 4]),)]


def probe_inputs():
    return other_inputs()
