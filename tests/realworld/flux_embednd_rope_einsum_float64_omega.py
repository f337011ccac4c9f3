"""Flux transformer positional embedding (EmbedND/rope): `omega` is built in float64 with
`torch.arange(..., dtype=torch.float64)` and contracted with the half-precision position ids in
`torch.einsum("...n,d->...nd", pos, omega)`; the exported Einsum gets one float16 and one double input
and onnxruntime refuses the model: "Type parameter (T) of Optype (Einsum) bound to different types
(tensor(float16) and tensor(double) in node (/pos_embed/Einsum_2)".

Source: https://github.com/microsoft/Olive/issues/1287
"""
from typing import List

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"ids": {0: "batch", 1: "seq"}}
BLIND = "operators-12"


def rope(pos: torch.Tensor, dim: int, theta: int) -> torch.Tensor:
    assert dim % 2 == 0, "The dimension must be even."

    scale = torch.arange(0, dim, 2, dtype=torch.float64, device=pos.device) / dim
    omega = 1.0 / (theta**scale)

    batch_size, seq_length = pos.shape
    out = torch.einsum("...n,d->...nd", pos, omega)
    cos_out = torch.cos(out)
    sin_out = torch.sin(out)

    stacked_out = torch.stack([cos_out, -sin_out, sin_out, cos_out], dim=-1)
    out = stacked_out.view(batch_size, -1, dim // 2, 2, 2)
    return out.float()


class EmbedND(nn.Module):
    def __init__(self, dim: int, theta: int, axes_dim: List[int]):
        super().__init__()
        self.dim = dim
        self.theta = theta
        self.axes_dim = axes_dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n_axes = ids.shape[-1]
        emb = torch.cat(
            [rope(ids[..., i], self.axes_dim[i], self.theta) for i in range(n_axes)],
            dim=-3,
        )
        return emb.unsqueeze(1)


class FluxPosEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = EmbedND(dim=32, theta=10000, axes_dim=[8, 12, 12])

    def forward(self, ids):
        return self.pos_embed(ids)


def _ids(batch, txt_len, h, w):
    txt_ids = torch.zeros(batch, txt_len, 3)
    img_ids = torch.zeros(h, w, 3)
    img_ids[..., 1] = img_ids[..., 1] + torch.arange(h)[:, None]
    img_ids[..., 2] = img_ids[..., 2] + torch.arange(w)[None, :]
    img_ids = img_ids.reshape(1, h * w, 3).repeat(batch, 1, 1)
    return torch.cat((txt_ids, img_ids), dim=1).to(torch.float16)


def make_model():
    return FluxPosEmbed().eval()


def example_inputs():
    return (_ids(1, 4, 4, 4),)


def other_inputs():
    return [(_ids(2, 6, 3, 5),), (_ids(1, 8, 6, 6),)]


def probe_inputs():
    return other_inputs()
