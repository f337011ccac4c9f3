"""A module calls `torch.ops.aten.chunk.default(input, 3, 0)` on an input whose dim 0 is exported as dynamic
(`Dim("shape", min=1, max=3)`); `torch.export` (the front end of the dynamo ONNX exporter) fails with
"Constraints violated (shape)! ... Not all values of shape ... satisfy the generated guard", because the number
of chunks it returns is computed from the dynamic size.

Source: https://github.com/pytorch/pytorch/issues/134663
"""
import torch

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "shape"}}
BLIND = "domains-37"


class TestChunk(torch.nn.Module):
    def forward(self, input):
        out = torch.ops.aten.chunk.default(input, 3, 0)
        return out


def make_model():
    return TestChunk()


def example_inputs():
    return (torch.randn(3),)


def other_inputs():
    # sizes that still split into exactly three chunks, so eager returns three tensors every time
    return [(torch.randn(6),), (torch.randn(9),)]


def probe_inputs():
    return other_inputs()
