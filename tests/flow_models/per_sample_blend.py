"""ONX603: kornia's per-sample augmentations, one function applied to every image of the batch and
stacked (`torch.stack([_blend_one(a[i], b[i], factor[i]) for i in range(len(factor))])`, and each
per-sample factor expanded over an image by iterating the factor tensor). torch.export unrolls both
for the example's batch (the batch specializes). Fixed, for torch.export, by `torch.vmap` of the same
per-row expression while it traces; eager (and the legacy exporter) keep the loop."""
import torch
from torch import nn


def _blend_one(input1: torch.Tensor, input2: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    diff = (input2 - input1) * factor
    return torch.clamp(input1 + diff, 0, 1)


class PerSampleBlend(nn.Module):
    def forward(self, images: torch.Tensor, factor: torch.Tensor, shift: torch.Tensor):
        blurred = torch.nn.functional.avg_pool2d(images, 3, stride=1, padding=1)
        blended = torch.stack([_blend_one(blurred[i], images[i], factor[i]) for i in range(images.shape[0])])
        shifts = torch.stack([s.expand(*images.shape[-3:]) for s in shift])
        return blended + shifts


def make_model():
    return PerSampleBlend()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(2, 3, 8, 8), torch.tensor([0.3, 1.7]), torch.tensor([0.1, -0.2]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.rand(3, 3, 8, 10), torch.tensor([0.0, 0.6, 1.0]), torch.tensor([0.2, 0.0, -0.1])),
            (torch.rand(1, 3, 5, 6), torch.tensor([2.5]), torch.tensor([0.3]))]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}, 1: {0: "batch"}, 2: {0: "batch"}}
