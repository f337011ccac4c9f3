"""Qwen2-VL visual encoder, rotary position ids (`rot_pos_emb`): the user's repro loops `for t, h, w in a:` over
the image grid rows, takes `t.item()`, `h.item()`, `w.item()`, marks them with `torch._constrain_as_size` and builds
`torch.arange(h)` / `torch.arange(w)` position grids reshaped by `h // self.spatial_merge_size`; torch.export fails
with a data-dependent error in the reshape.

Source: https://github.com/pytorch/pytorch/issues/158786
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"a": {0: "num_images"}}
BLIND = "domains-13"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.spatial_merge_size = 2  # Default

    def forward(self, a):
        pos_ids = []
        for t, h, w in a:
            t = t.item()
            h = h.item()
            w = w.item()
            torch._constrain_as_size(t)
            torch._constrain_as_size(h)
            torch._constrain_as_size(w)
            hpos_ids = torch.arange(h).unsqueeze(1).expand(-1, w)
            hpos_ids = hpos_ids.reshape(
                h // self.spatial_merge_size,
                self.spatial_merge_size,
                w // self.spatial_merge_size,
                self.spatial_merge_size,
            )
            hpos_ids = hpos_ids.permute(0, 2, 1, 3)
            hpos_ids = hpos_ids.flatten()

            wpos_ids = torch.arange(w).unsqueeze(0).expand(h, -1)
            wpos_ids = wpos_ids.reshape(
                h // self.spatial_merge_size,
                self.spatial_merge_size,
                w // self.spatial_merge_size,
                self.spatial_merge_size,
            )
            wpos_ids = wpos_ids.permute(0, 2, 1, 3)
            wpos_ids = wpos_ids.flatten()
            pos_ids.append(torch.stack([hpos_ids, wpos_ids], dim=-1).repeat(t, 1))
        pos_ids = torch.cat(pos_ids, dim=0)
        return pos_ids


def make_model():
    return Model()


def example_inputs():
    # image_grid_thw rows (t, h, w) in patches, as Qwen2VLImageProcessor returns them
    return (torch.tensor([[1, 16, 16], [1, 12, 20]]),)


def other_inputs():
    return [(torch.tensor([[1, 8, 8], [2, 10, 14], [1, 20, 12]]),), (torch.tensor([[1, 24, 16]]),)]


def probe_inputs():
    return other_inputs()
