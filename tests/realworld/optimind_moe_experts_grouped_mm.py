"""MoE expert projection (met with microsoft/OptiMind-SFT) computed with
`torch.nn.functional.grouped_mm(a.to(torch.bfloat16), b.transpose(-2, -1).to(torch.bfloat16))` over
(experts, tokens, hidden) buckets; `torch.onnx.export(..., dynamic_shapes=...)` fails with
"No ONNX function found for <OpOverload(op='aten._grouped_mm', overload='default')>".

Source: https://github.com/microsoft/onnxscript/issues/2795
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"a": {0: "G", 1: "M", 2: "K"}, "b": {0: "G", 1: "N", 2: "K"}}
BLIND = "operators-7"


class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.nn.functional.grouped_mm(
            a.to(torch.bfloat16), b.transpose(-2, -1).to(torch.bfloat16)
        ).to(torch.float32)


def make_model():
    return Model()


def example_inputs():
    G, M, N, K = 4, 16, 32, 64
    a = torch.randn(G, M, K, device="cpu", dtype=torch.float32)
    b = torch.randn(G, N, K, device="cpu", dtype=torch.float32)
    return (a, b)


def other_inputs():
    return [
        (torch.randn(3, 8, 48), torch.randn(3, 24, 48)),
        (torch.randn(6, 20, 32), torch.randn(6, 40, 32)),
    ]


def probe_inputs():
    return other_inputs()
