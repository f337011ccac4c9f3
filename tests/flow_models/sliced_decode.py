"""ONX603 on the batch split into parts of a size and concatenated again: diffusers' sliced VAE
(`decoded_slices = [self.decoder(z_slice) for z_slice in z.split(1)]; torch.cat(decoded_slices)`),
and inference in batches (`torch.cat([f(z[i:i + 2]) for i in range(0, n, 2)])`).
The number of parts follows the batch: torch.export fixes it to the example's, and the legacy
exporter records a Split by the example's parts (onnxruntime fails on another batch). Fixed
(unsafe: the body must treat every row on its own) by `_onnx_batch_split`: the parts in eager,
the whole batch as one part while an exporter traces."""
import torch
from torch import nn


class SlicedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 3, 3, padding=1))

    def forward(self, z: torch.Tensor):
        decoded_slices = [self.decoder(z_slice) for z_slice in z.split(1)]
        decoded = torch.cat(decoded_slices)
        batched = torch.cat([self.decoder(z[i:i + 2]) for i in range(0, z.shape[0], 2)])  # inference in batches of 2
        return decoded.clamp(-1, 1), batched


def make_model():
    torch.manual_seed(0)
    return SlicedDecoder()


def example_inputs():
    return (torch.randn(2, 4, 8, 8),)


def probe_inputs():
    return [(torch.randn(3, 4, 6, 10),), (torch.randn(1, 4, 8, 4),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
