"""Single-head spatial attention block of a diffusion VAE (mid-block): GroupNorm, 1x1 conv q/k/v, the
feature map flattened to 3-D (B, H*W, C) tokens and passed straight to
`F.scaled_dot_product_attention`, which accepts 3-D inputs in eager. The PR aligns torchlib with
PyTorch's own exporter and only supports 4-D Q, K and V ("F.scaled_dot_product_attention actually
supports 3D"), so the dynamo export of 3-D attention fails.

Source: https://github.com/microsoft/onnxscript/pull/2558
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-62"


class VAEAttnBlock(nn.Module):
    def __init__(self, in_channels=64):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=32, num_channels=in_channels, eps=1e-6, affine=True)
        self.to_q = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.to_k = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.to_v = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.proj_out = nn.Conv2d(in_channels, in_channels, kernel_size=1)

    def forward(self, x):
        identity = x
        x = self.norm(x)
        query = self.to_q(x)
        key = self.to_k(x)
        value = self.to_v(x)

        batch_size, channels, height, width = query.shape
        query = query.permute(0, 2, 3, 1).reshape(batch_size, height * width, channels).contiguous()
        key = key.permute(0, 2, 3, 1).reshape(batch_size, height * width, channels).contiguous()
        value = value.permute(0, 2, 3, 1).reshape(batch_size, height * width, channels).contiguous()

        x = nn.functional.scaled_dot_product_attention(query, key, value)

        x = x.reshape(batch_size, height, width, channels).permute(0, 3, 1, 2)
        x = self.proj_out(x)
        return x + identity


def make_model():
    return VAEAttnBlock().eval()


def example_inputs():
    return (torch.randn(1, 64, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 64, 6, 10),), (torch.randn(3, 64, 12, 5),)]


def probe_inputs():
    return other_inputs()
