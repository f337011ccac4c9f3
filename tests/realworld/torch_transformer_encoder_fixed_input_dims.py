"""Token classifier made of nn.Embedding followed by nn.TransformerEncoder (10 batch_first layers, nested
tensors enabled); the report says the legacy ONNX export "is exported with fixed input dims": a model
exported with a (1, 20) token batch fails in onnxruntime on a (1, 3) batch, because the attention
reshapes keep the export-time sequence length and batch.

Source: https://github.com/pytorch/pytorch/issues/110347
"""
import torch
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
BLIND = "domains-8"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(15, 96)
        enc_layer = nn.TransformerEncoderLayer(
            96,
            nhead=12,
            dim_feedforward=96,
            dropout=0.2,
            batch_first=True
        )
        self.attn_layers = nn.TransformerEncoder(
            enc_layer,
            num_layers=10,
            enable_nested_tensor=True
        )

    def forward(self, x):
        x = self.emb(x)
        return self.attn_layers(x)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randint(0, 15, (1, 20)),)


def other_inputs():
    return [(torch.randint(0, 15, (1, 3)),), (torch.randint(0, 15, (3, 11)),)]


def probe_inputs():
    return other_inputs()
