"""Custom transformer decoder that calls `torch.nn.functional.scaled_dot_product_attention` on 3-D
(batch, seq, dim) embeddings; exporting with dynamo=True and `Dim.DYNAMIC` for batch and sequence
"passes but doesn't do anything" (dims specialized) in the report, while the legacy exporter works.

Source: https://github.com/pytorch/pytorch/issues/152018
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "operators-4"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

        self.embeddings = nn.Embedding(1000, 512)

    def forward(
        self,
        input_ids: torch.Tensor,
    ) -> torch.Tensor:
        embeddings = self.embeddings(input_ids)

        return torch.nn.functional.scaled_dot_product_attention(
            embeddings,
            embeddings,
            embeddings,
        )


def make_model():
    return Model()


def example_inputs():
    return (torch.randint(0, 1000, (16, 128), dtype=torch.long),)


def other_inputs():
    return [(torch.randint(0, 1000, (3, 40), dtype=torch.long),),
            (torch.randint(0, 1000, (1, 77), dtype=torch.long),)]


def probe_inputs():
    return other_inputs()
