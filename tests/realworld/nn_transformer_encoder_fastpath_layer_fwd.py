"""A text classifier built on torch.nn.TransformerEncoder (batch_first layers, exported in eval mode with
gradients off); torch.onnx.export fails with "Exporting the operator 'aten::_transformer_encoder_layer_fwd'
to ONNX opset version 13 is not supported": in inference the encoder layer takes the fused "fast path"
kernel instead of the decomposed attention/feed-forward.

Source: https://github.com/pytorch/pytorch/issues/94434
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"tokens": {0: "batch", 1: "seq_len"}}
BLIND = "operators-5"


class TextTransformer(nn.Module):
    def __init__(self, vocab_size=1000, d_model=128, nhead=4, num_layers=2, num_classes=5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        encoder_layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=nhead, dim_feedforward=256,
                                                   batch_first=True)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers=num_layers)
        self.classifier = nn.Linear(d_model, num_classes)

    def forward(self, tokens):
        x = self.embedding(tokens)
        x = self.transformer_encoder(x)
        return self.classifier(x.mean(dim=1))


def make_model():
    model = TextTransformer().eval()
    model.requires_grad_(False)  # inference export, as under torch.no_grad()
    return model


def example_inputs():
    return (torch.randint(0, 1000, (2, 16)),)


def other_inputs():
    return [(torch.randint(0, 1000, (3, 24)),), (torch.randint(0, 1000, (1, 9)),)]


def probe_inputs():
    return other_inputs()
