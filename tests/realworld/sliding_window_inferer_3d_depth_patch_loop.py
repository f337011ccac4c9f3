"""A 3-D sliding-window inferer (volumetric segmentation style) runs a Conv3d model over overlapping
windows along the depth axis, with the number of windows computed in forward from the input depth
(`n_patches = 1 + (d - self.z_overlap) // (self.z_window_size - self.z_overlap)`) and a Python
`for i in range(n_patches)` loop; the report says the torch.jit route exported, but without torch.jit
the ONNX export of this module fails.
(The report's excerpt stops at the loop header: the window slicing/accumulation body is a
reconstruction of the usual overlap-average pattern the surrounding code sets up.)

Source: https://github.com/pytorch/pytorch/issues/173169
"""
import torch
import torch.nn as nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "depth"}}
BLIND = "domains-13"


class Simple3DModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(1, 1, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


class SlidingWindowInferer(nn.Module):
    def __init__(self, model, z_window_size=32, z_overlap=4):
        super().__init__()
        self.model = model
        self.z_window_size = z_window_size
        self.z_overlap = z_overlap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, d, _, _ = x.shape

        # Calculate number of patches dynamically based on input depth 'd'
        n_patches = 1 + (d - self.z_overlap) // (self.z_window_size - self.z_overlap)

        # Output container
        output = torch.zeros_like(x)
        count_map = torch.zeros_like(x)

        for i in range(n_patches):
            start = i * (self.z_window_size - self.z_overlap)
            end = min(start + self.z_window_size, d)
            patch = x[:, :, start:end]
            output[:, :, start:end] += self.model(patch)
            count_map[:, :, start:end] += 1

        return output / count_map


def make_model():
    return SlidingWindowInferer(Simple3DModel()).eval()


def example_inputs():
    return (torch.randn(1, 1, 60, 16, 16),)


def other_inputs():
    return [(torch.randn(1, 1, 88, 16, 16),), (torch.randn(1, 1, 40, 16, 16),)]


def probe_inputs():
    return other_inputs()
