"""fairseq's convolutional seq2seq encoder (fconv) runs its 1-D convolutions through `ConvTBC`, which calls
`torch.conv_tbc` on time x batch x channel inputs. The dynamo exporter's torchlib has no ONNX function for
`aten.conv_tbc.default` (the op reported missing in torchlib), so the encoder block does not export.

Source: https://github.com/microsoft/onnxscript/issues/1660
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules.utils import _single

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "src_len"}}
BLIND = "operators-12"


class ConvTBC(torch.nn.Module):
    """1D convolution over an input of shape (time x batch x channel)

    The implementation uses gemm to perform the convolution. This implementation
    is faster than cuDNN for small kernel sizes.
    """

    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super(ConvTBC, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _single(kernel_size)
        self.padding = _single(padding)

        self.weight = torch.nn.Parameter(
            torch.Tensor(self.kernel_size[0], in_channels, out_channels)
        )
        self.bias = torch.nn.Parameter(torch.Tensor(out_channels))

        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_normal_(self.weight)
        nn.init.zeros_(self.bias)

    def conv_tbc(self, input: Tensor):
        return torch.conv_tbc(
            input.contiguous(), self.weight, self.bias, self.padding[0]
        )

    def forward(self, input: Tensor):
        return self.conv_tbc(input)


class FConvEncoderBlock(nn.Module):
    def __init__(self, embed_dim=32, out_channels=64, kernel_size=3):
        super().__init__()
        self.fc1 = nn.Linear(embed_dim, out_channels)
        self.conv = ConvTBC(out_channels, out_channels * 2, kernel_size, padding=kernel_size // 2)
        self.fc2 = nn.Linear(out_channels, embed_dim)

    def forward(self, x):
        # project to size of convolution
        x = self.fc1(x)
        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        residual = x
        x = self.conv(x)
        x = F.glu(x, dim=2)
        x = (x + residual) * (0.5 ** 0.5)
        # T x B x C -> B x T x C
        x = x.transpose(1, 0)
        return self.fc2(x)


def make_model():
    return FConvEncoderBlock().eval()


def example_inputs():
    return (torch.randn(2, 11, 32),)


def other_inputs():
    return [(torch.randn(3, 17, 32),), (torch.randn(1, 6, 32),)]


def probe_inputs():
    return other_inputs()
