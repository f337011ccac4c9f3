"""A vision model whose pre/post-processing rotates the NCHW image by 90 degrees with
`torch.rot90(x, k=1, dims=(2, 3))` (e.g. to feed portrait frames to a landscape-trained net and rotate the
prediction back); torch.onnx.export fails with "Exporting the operator 'aten::rot90' to ONNX opset version 17 is not
supported" (the post replaces it by flip + permute).

Source: http://hqwc.cn/news/219196.html
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-3"


class RotModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1))

    def forward(self, x: torch.Tensor):
        x = torch.rot90(x, k=1, dims=(2, 3))
        y = torch.sigmoid(self.net(x))
        return torch.rot90(y, k=-1, dims=(2, 3))


def make_model():
    return RotModel().eval()


def example_inputs():
    return (torch.randn(1, 3, 48, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 40, 56),), (torch.randn(3, 3, 17, 23),)]


def probe_inputs():
    return other_inputs()
