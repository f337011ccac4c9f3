"""An nn.TransformerEncoder in inference (eval, no gradients): its layers take the fused 'fast
path' (`torch._transformer_encoder_layer_fwd`), which the legacy exporter cannot translate; with
the fast path off, nn.MultiheadAttention's packed in-projection bakes the sequence length into a
Reshape (pytorch#143107)."""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d_model=16, heads=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def make_model():
    torch.manual_seed(0)
    model = Encoder().eval()
    model.requires_grad_(False)
    return model


def example_inputs():
    return (torch.randn(2, 7, 16),)
