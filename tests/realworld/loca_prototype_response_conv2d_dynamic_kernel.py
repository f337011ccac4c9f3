"""LOCA (low-shot object counting): the exemplar prototypes are reshaped into per-channel 3x3
kernels and correlated with the image features through `F.conv2d(..., prototypes, groups=prototypes.size(0))`.
torch.onnx.export fails with "Unsupported: ONNX export of convolution for kernel of unknown shape"
because the kernel's size comes from the dynamic batch size; the maintainer suggests hard-coding
`prototypes.view(768, 1, 3, 3)`.

Source: https://github.com/djukicn/loca/issues/5
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "all_prototypes": {2: "batch"}}
BLIND = "operators-16"


class LOCAResponse(nn.Module):
    def __init__(self, emb_dim=32, kernel_dim=3, num_objects=3):
        super().__init__()
        self.emb_dim = emb_dim
        self.kernel_dim = kernel_dim
        self.num_objects = num_objects
        self.input_proj = nn.Conv2d(8, emb_dim, kernel_size=1)
        self.regression_head = nn.Conv2d(emb_dim, 1, kernel_size=1)

    def forward(self, x, all_prototypes):
        x = self.input_proj(x)
        bs, _, h, w = x.size()
        num_objects = self.num_objects
        outputs = list()
        for i in range(len(all_prototypes)):
            prototypes = all_prototypes[i, ...].permute(1, 0, 2).reshape(
                bs, num_objects, self.kernel_dim, self.kernel_dim, -1
            ).permute(0, 1, 4, 2, 3).flatten(0, 2)[:, None, ...]

            response_maps = F.conv2d(
                torch.cat([x for _ in range(num_objects)], dim=1).flatten(0, 1).unsqueeze(0),
                prototypes,
                bias=None,
                padding=self.kernel_dim // 2,
                groups=prototypes.size(0)
            ).view(
                bs, num_objects, self.emb_dim, h, w
            ).max(dim=1)[0]

            outputs.append(self.regression_head(response_maps))
        return torch.stack(outputs)


def make_model():
    return LOCAResponse()


def example_inputs():
    # all_prototypes: (num_layers, kernel_dim**2 * num_objects, batch, emb_dim), sequence-first as in LOCA
    return (torch.randn(2, 8, 16, 20), torch.randn(2, 27, 2, 32))


def other_inputs():
    return [
        (torch.randn(3, 8, 24, 12), torch.randn(2, 27, 3, 32)),
        (torch.randn(1, 8, 9, 31), torch.randn(2, 27, 1, 32)),
    ]


def probe_inputs():
    return other_inputs()
