"""ONX102: TopFormer's / SeaFormer's / Gold-YOLO's `get_shape`: under `torch.onnx.is_in_onnx_export()`
the sizes go through `.cpu().numpy()`, so the legacy exporter bakes the example's batch into the
reshape (onnxruntime fails on another batch). Fixed (safely: eager never runs the branch) by
keeping the traced size."""
import torch
from torch import nn


def get_shape(tensor):
    shape = tensor.shape
    if torch.onnx.is_in_onnx_export():
        shape = [i.cpu().numpy() for i in shape]
    return shape


class TokenMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        B, C, H, W = get_shape(x)
        tokens = self.proj(x).reshape(B, C, H * W).transpose(1, 2)
        return torch.softmax(tokens, dim=-1).transpose(1, 2).reshape(B, C, H, W) + x


def make_model():
    torch.manual_seed(0)
    return TokenMixer().eval()


def example_inputs():
    return (torch.randn(2, 4, 5, 6),)


def probe_inputs():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(3, 4, 7, 3, generator=g),), (torch.randn(1, 4, 5, 9, generator=g),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
