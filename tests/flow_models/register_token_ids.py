"""ONX535 on Chronos-2's [REG] token: `torch.full((batch_size, 1), self.config.reg_token_id)` embedded.
The legacy exporter fills the batch-sized tensor with floats (a ConstantOfShape of a float), and the
Embedding's Gather of float indices makes the graph invalid in onnxruntime. Fixed safely:
`dtype=torch.int64`, the dtype eager infers from the int fill."""
from types import SimpleNamespace

import torch
from torch import nn


class RegisterToken(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = SimpleNamespace(reg_token_id=2)
        self.patch = nn.Linear(4, 8)
        self.shared = nn.Embedding(5, 8)

    def forward(self, context):
        embeds = self.patch(context)
        reg_input_ids = torch.full((embeds.shape[0], 1), self.config.reg_token_id)
        reg_embeds = self.shared(reg_input_ids)
        return torch.cat([embeds, reg_embeds], dim=-2)


def make_model():
    torch.manual_seed(0)
    return RegisterToken()


def example_inputs():
    return (torch.randn(2, 6, 4),)


def probe_inputs():
    return [(torch.randn(5, 3, 4),), (torch.randn(1, 9, 4),)]


DYNAMIC = {0: {0: "batch", 1: "patches"}}
