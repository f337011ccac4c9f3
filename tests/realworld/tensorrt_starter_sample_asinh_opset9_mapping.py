"""TensorRT-deployment course sample (3.4-export-unsupported-node): a model whose forward is just
`torch.asinh(x)`; the author notes that exporting it fails although ONNX has had Asinh since opset 9,
because PyTorch's exporter has no asinh -> Asinh mapping (the course then registers a symbolic by hand).

Source: https://github.com/kalfazed/tensorrt_starter/blob/94ccd015249e9c756f589fc54cb7eeb0cff60c4a/chapter3-tensorrt-basics-and-onnx/3.4-export-unsupported-node/src/sample_asinh.py
"""
import torch
import torch.onnx

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-38"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = torch.asinh(x)
        return x


def make_model():
    model = Model()
    model.eval()
    return model


def example_inputs():
    return (torch.rand(1, 5),)


def other_inputs():
    return [(torch.rand(4, 5) * 10 - 5,), (torch.rand(2, 5),)]


def probe_inputs():
    return other_inputs()
