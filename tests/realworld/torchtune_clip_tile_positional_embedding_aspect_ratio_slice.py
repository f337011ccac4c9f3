"""torchtune's CLIP vision encoder (Llama 3.2 Vision) adds a per-tile positional embedding in
`TilePositionalEmbedding.forward`: it loops over the `aspect_ratio` tensor, takes
`n_non_padded_tiles = int(n_tiles_h * n_tiles_w)` and slices `self.embedding[:n_tiles_h, :n_tiles_w]`
and `x[batch_idx, :n_non_padded_tiles]` with those tensor values. PR "[export] Add exportable position
embedding" adds a torch.export-friendly copy (`.item()`, `torch._check_is_size`, padding) because the
original cannot be exported with dynamic tiles/tokens. Trimmed to a tile projection, the embedding and a norm.

Source: https://github.com/meta-pytorch/torchtune/pull/2068
"""
from typing import Any, Dict, Tuple

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {1: "num_tiles", 2: "num_tokens"}}
BLIND = "domains-36"


class TilePositionalEmbedding(nn.Module):
    """
    Positional embedding for tiles, different for every tile, same for every token within a tile.
    """

    def __init__(
        self,
        max_num_tiles: int,
        embed_dim: int,
    ):
        super().__init__()
        self.max_num_tiles = max_num_tiles
        self.embed_dim = embed_dim

        scale = embed_dim**-0.5
        self.embedding = nn.Parameter(
            scale * torch.randn(max_num_tiles, max_num_tiles, 1, embed_dim)
        )
        self.gate = nn.Parameter(torch.zeros(1))

    def forward(self, x: torch.Tensor, aspect_ratio: torch.Tensor) -> torch.Tensor:
        """
        args:
            x (torch.Tensor): torch.Tensor with shape (bsz * n_imgs, n_tiles, n_tokens_per_tile, embed_dim).
            aspect_ratio (torch.Tensor): torch.Tensor with shape (bsz * n_imgs, 2),
                representing the aspect ratio of the image before tile-cropping, e.g. (2,1).
        returns:
            torch.Tensor: The input tensor with added positional embeddings.
        """

        for batch_idx, (n_tiles_h, n_tiles_w) in enumerate(aspect_ratio):
            # When we batch images, all are padded to the same amount of tiles.
            # The aspect_ratio lets us know the non padded tiles for each image.
            # We only add positional encoding to those.
            n_non_padded_tiles = int(n_tiles_h * n_tiles_w)

            # We get only the positional encoding for non padded tiles,
            # i.e. n_tiles_h, n_tiles_w.
            pos_embed = self.embedding[:n_tiles_h, :n_tiles_w, :, :]

            # Add pos encoding to the non padded tiles.
            pos_embed = pos_embed.reshape(n_non_padded_tiles, 1, self.embed_dim)
            x[batch_idx, :n_non_padded_tiles, :, :] += pos_embed * self.gate.tanh()

        return x


class TiledVisionEncoder(nn.Module):
    def __init__(self, in_dim=24, embed_dim=32, max_num_tiles=4):
        super().__init__()
        self.proj = nn.Linear(in_dim, embed_dim)
        self.pre_tile_pos_embed = TilePositionalEmbedding(max_num_tiles, embed_dim)
        with torch.no_grad():
            self.pre_tile_pos_embed.gate.fill_(0.5)  # a trained gate is non-zero
        self.ln_pre = nn.LayerNorm(embed_dim)

    def forward(self, x, aspect_ratio):
        x = self.proj(x)
        x = self.pre_tile_pos_embed(x, aspect_ratio)
        return self.ln_pre(x)


def make_model():
    return TiledVisionEncoder().eval()


def example_inputs():
    return (torch.randn(2, 4, 10, 24), torch.tensor([[2, 2], [1, 2]]))


def other_inputs():
    return [
        (torch.randn(2, 3, 7, 24), torch.tensor([[3, 1], [1, 1]])),
        (torch.randn(2, 2, 13, 24), torch.tensor([[1, 2], [2, 1]])),
    ]


def probe_inputs():
    return other_inputs()
