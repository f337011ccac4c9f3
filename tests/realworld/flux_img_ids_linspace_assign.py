"""ComfyUI Flux DiT: `img_ids = torch.zeros((h_len, w_len, 3))` then `img_ids[:, :, 1] = torch.linspace(0, h_len - 1,
steps=h_len, ...)` builds the RoPE position ids; the PR says torch.onnx.export treats `h_len - 1` as a constant, which
breaks a dynamic-shape export of the latent size.

Source: https://github.com/Comfy-Org/ComfyUI/pull/5490
"""
import torch
from torch import Tensor, nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-3"


def rope(pos: Tensor, dim: int, theta: int) -> Tensor:
    assert dim % 2 == 0
    device = pos.device
    scale = torch.linspace(0, (dim - 2) / dim, steps=dim//2, dtype=torch.float32, device=device)
    omega = 1.0 / (theta**scale)
    out = torch.einsum("...n,d->...nd", pos.to(dtype=torch.float32, device=device), omega)
    out = torch.stack([torch.cos(out), -torch.sin(out), torch.sin(out), torch.cos(out)], dim=-1)
    out = out.reshape(*out.shape[:-1], 2, 2)
    return out.to(dtype=torch.float32, device=pos.device)


class EmbedND(nn.Module):
    def __init__(self, dim: int, theta: int, axes_dim: list):
        super().__init__()
        self.dim = dim
        self.theta = theta
        self.axes_dim = axes_dim

    def forward(self, ids: Tensor) -> Tensor:
        n_axes = ids.shape[-1]
        emb = torch.cat(
            [rope(ids[..., i], self.axes_dim[i], self.theta) for i in range(n_axes)],
            dim=-3,
        )
        return emb.unsqueeze(1)


class Flux(nn.Module):
    def __init__(self, in_channels=4, hidden_size=16):
        super().__init__()
        self.img_in = nn.Linear(in_channels * 4, hidden_size)
        self.pe_embedder = EmbedND(dim=hidden_size, theta=10000, axes_dim=[4, 6, 6])

    def forward(self, x):
        bs, c, h, w = x.shape
        patch_size = 2
        img = x.reshape(bs, c, h // patch_size, patch_size, w // patch_size, patch_size)
        img = img.permute(0, 2, 4, 1, 3, 5).reshape(bs, (h // patch_size) * (w // patch_size), c * 4)

        h_len = ((h + (patch_size // 2)) // patch_size)
        w_len = ((w + (patch_size // 2)) // patch_size)
        img_ids = torch.zeros((h_len, w_len, 3), device=x.device, dtype=x.dtype)
        img_ids[:, :, 1] = torch.linspace(0, h_len - 1, steps=h_len, device=x.device, dtype=x.dtype).unsqueeze(1)
        img_ids[:, :, 2] = torch.linspace(0, w_len - 1, steps=w_len, device=x.device, dtype=x.dtype).unsqueeze(0)
        img_ids = img_ids.reshape(1, h_len * w_len, 3).expand(bs, -1, -1)

        pe = self.pe_embedder(img_ids)                    # (b, 1, L, 8, 2, 2)
        img = self.img_in(img)                            # (b, L, 16)
        q = img.reshape(bs, 1, -1, 8, 1, 2)
        q = pe[..., 0] * q[..., 0] + pe[..., 1] * q[..., 1]
        return q.reshape(bs, -1, 16)


def make_model():
    return Flux().eval()


def example_inputs():
    return (torch.randn(1, 4, 16, 16),)


def other_inputs():
    return [(torch.randn(2, 4, 24, 16),), (torch.randn(1, 4, 8, 20),)]


def probe_inputs():
    return other_inputs()
