"""A customer (CTR-style) model computes nn.BCEWithLogitsLoss on half-precision logits inside forward; the PR finds
the exported sub-graph for binary_cross_entropy_with_logits overflows where PyTorch's fused kernel does not (its
repro: fp16 logits [-7.8477, 7.3320, -7.8008, 6.6016] with labels [0, 1, 0, 1] give a finite loss in torch and an
overflow through onnxruntime), so the PR falls back to the ATen op.

Source: https://github.com/microsoft/onnxruntime/pull/9670
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "batch"}, "label": {0: "batch"}}
BLIND = "operators-34"


class model(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_fn = nn.BCEWithLogitsLoss()

    def forward(self, logits, label):
        return self.loss_fn(logits, label)


def make_model():
    return model()


def example_inputs():
    tensor = torch.tensor([-7.8477, 7.3320, -7.8008, 6.6016]).half()
    label = torch.tensor([0, 1, 0, 1]).half()
    return (tensor, label)


def other_inputs():
    return [
        (torch.tensor([-9.25, 8.5, -7.9, 7.4, -10.1, 9.0]).half(), torch.tensor([0, 1, 0, 1, 0, 1]).half()),
        (torch.tensor([8.2, -8.8]).half(), torch.tensor([1, 0]).half()),
    ]


def probe_inputs():
    return other_inputs()
