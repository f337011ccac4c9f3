"""A model converted from ONNX with onnx2torch: each ONNX Reshape becomes `OnnxReshape`, whose forward does
`if torch.any(shape == 0):` on the stored target-shape tensor and then builds `torch.Size(shape)` from its
elements (ONNX's "0 copies the input dim" rule); the report says `torch.export.export` of the converted model
fails on this dynamic flow control in the converted Reshape.

Source: https://github.com/ENOT-AutoDL/onnx2torch/issues/225
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_1": {0: "batch"}}
BLIND = "domains-31"


class OnnxReshape(nn.Module):

    def forward(self, input_tensor: torch.Tensor, shape: torch.Tensor) -> torch.Tensor:  # pylint: disable=no-self-use
        if torch.any(shape == 0):
            shape = [
                input_tensor.shape[i] if dim_size == 0 else dim_size
                for i, dim_size in enumerate(shape)
            ]

        return torch.reshape(input_tensor, torch.Size(shape))


class ConvertedGraphModule(nn.Module):
    """What onnx2torch.convert() builds for a small Conv -> Reshape([0, -1]) -> Gemm ONNX graph: the Reshape's
    shape input is an ONNX initializer kept as a buffer."""

    def __init__(self):
        super().__init__()
        self.Conv_0 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.Relu_1 = nn.ReLU()
        self.register_buffer("initializers_onnx_initializer_0", torch.tensor([0, -1], dtype=torch.int64))
        self.Reshape_2 = OnnxReshape()
        self.Gemm_3 = nn.Linear(8 * 8 * 8, 10)

    def forward(self, input_1):
        conv_0 = self.Conv_0(input_1)
        relu_1 = self.Relu_1(conv_0)
        reshape_2 = self.Reshape_2(relu_1, self.initializers_onnx_initializer_0)
        gemm_3 = self.Gemm_3(reshape_2)
        return gemm_3


def make_model():
    return ConvertedGraphModule().eval()


def example_inputs():
    return (torch.randn(2, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(5, 3, 8, 8),), (torch.randn(1, 3, 8, 8),)]


def probe_inputs():
    return other_inputs()
