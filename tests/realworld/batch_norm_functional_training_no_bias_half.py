"""Minimised repro (from timm's `nfnet`) in the onnxscript fix: a module that calls
torch.nn.functional.batch_norm(x, None, None, self.bn.weight, training=True) -- batch statistics, no running
stats, no bias -- on a float16 input. The exported graph did not run in onnxruntime (float32 weight/bias and
statistics were built next to the float16 input); the model is exported as-is, in float16.

Source: https://github.com/microsoft/onnxscript/pull/1217
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-60"


class Module(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(3, track_running_stats=False)

    def forward(self, x):
        # return self.bn(x)
        return torch.nn.functional.batch_norm(x, None, None, self.bn.weight, training=True)


def make_model():
    return Module().to(dtype=torch.float16).eval()


def example_inputs():
    return (torch.randn(1, 3, 224, 224, dtype=torch.float16),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128, dtype=torch.float16),), (torch.randn(3, 3, 64, 48, dtype=torch.float16),)]


def probe_inputs():
    return other_inputs()
