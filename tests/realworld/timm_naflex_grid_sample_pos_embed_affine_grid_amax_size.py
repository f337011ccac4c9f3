"""timm NaFlexViT patch embedding (pre-patchified variable-resolution input): the learned position embedding is
resampled with `grid_size_y, grid_size_x = shapes.amax(dim=0)` taken from the patch coordinates and passed as the
output size of `F.affine_grid`, then gathered with `pos_embed[bi, :, patch_coord[..., 0], patch_coord[..., 1]]`;
the method had to be wrapped in `@disable_compiler` until a commit made it "compile-friendly" (torch.compile
fullgraph / torch.export) by sampling directly at the normalized patch coordinates instead.

Source: https://github.com/huggingface/pytorch-image-models/commit/e7497a8be181a5fa0c73a04ceb0069374fa3812a
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "num_patches"}, "patch_coord": {0: "batch", 1: "num_patches"}}
BLIND = "domains-34"


class NaFlexEmbeds(nn.Module):
    def __init__(self, patch_size=16, in_chans=3, embed_dim=64, pos_embed_grid_size=(14, 14),
                 pos_embed_interp_mode='bicubic', pos_embed_ar_preserving=False):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.pos_embed_interp_mode = pos_embed_interp_mode
        self.pos_embed_ar_preserving = pos_embed_ar_preserving
        patch_dim = self.patch_size[0] * self.patch_size[1] * in_chans
        self.proj = nn.Linear(patch_dim, embed_dim, bias=True)
        self.norm = nn.Identity()
        h, w = pos_embed_grid_size
        self.pos_embed = nn.Parameter(torch.empty(1, h, w, embed_dim))
        nn.init.normal_(self.pos_embed, std=.02)
        self.pos_drop = nn.Dropout(p=0.)

    def _apply_learned_naflex_pos_embed_grid_sample(
            self,
            x: torch.Tensor,
            patch_coord: torch.Tensor,
    ) -> None:
        device = x.device
        B, N, C = x.shape
        shapes = patch_coord.max(dim=1).values + 1  # (B, 2) containing [h_i, w_i]

        if self.pos_embed_ar_preserving:
            L_i = shapes.amax(dim=1)  # (B,) max(h_i, w_i)
            L_global = L_i.amax()
            grid_size_y = grid_size_x = L_global
            scale_x = scale_y = L_global / L_i  # uniform zoom (B,)
        else:
            grid_size_y, grid_size_x = shapes.amax(dim=0)  # (2,)
            scale_y = grid_size_y / shapes[:, 0]  # vertical zoom (B,)
            scale_x = grid_size_x / shapes[:, 1]  # horizontal zoom (B,)

        theta = torch.zeros(B, 2, 3, device=device, dtype=torch.float32)
        theta[:, 0, 0] = scale_x
        theta[:, 1, 1] = scale_y
        theta[:, 0, 2] = scale_x - 1  # translate x
        theta[:, 1, 2] = scale_y - 1  # translate y

        grid = F.affine_grid(theta, (B, C, grid_size_y, grid_size_x), align_corners=False)
        pos_embed = F.grid_sample(
            self.pos_embed.permute(0, 3, 1, 2).expand(B, -1, -1, -1).float(),
            grid,
            mode=self.pos_embed_interp_mode,
            align_corners=False,
            padding_mode='border',
        ).to(dtype=x.dtype)  # (B, C, H_out, W_out)

        bi = torch.arange(B, device=device, dtype=torch.long).unsqueeze(1)
        x += pos_embed[bi, :, patch_coord[..., 0], patch_coord[..., 1]]  # NOTE leave as '+='

    def forward(self, x, patch_coord):
        # Pre-patchified NaFlex mode: [B, N, P*P*C]
        x = x.flatten(2)
        x = self.proj(x)
        x = self.norm(x)
        self._apply_learned_naflex_pos_embed_grid_sample(x, patch_coord=patch_coord)
        x = self.pos_drop(x)
        return x


def make_model():
    return NaFlexEmbeds().eval()


def _batch(grids, n):
    coord = torch.zeros(len(grids), n, 2, dtype=torch.long)
    for i, (h, w) in enumerate(grids):
        coord[i, :h * w] = torch.cartesian_prod(torch.arange(h), torch.arange(w))
    return torch.randn(len(grids), n, 16 * 16 * 3), coord


def example_inputs():
    return _batch([(4, 6), (5, 5)], 25)


def other_inputs():
    return [_batch([(3, 7), (6, 5), (8, 4)], 32), _batch([(2, 9)], 18)]


def probe_inputs():
    return other_inputs()
