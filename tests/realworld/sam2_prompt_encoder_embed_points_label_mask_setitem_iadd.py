"""SAM 2 prompt encoder (ailia's ONNX export fork of segment-anything-2): `PromptEncoder._embed_points` pads the
points with a (0, 0) point labelled -1, then writes the label embeddings with boolean-mask assignments
`point_embedding[labels == -1] = 0.0`, `point_embedding[labels == -1] += self.not_a_point_embed.weight` and
`point_embedding[labels == k] += self.point_embeddings[k].weight`; the fork's commit notes "with this, onnx gives a
broadcast error" and replaces the first two lines with a single assignment before exporting the sparse prompt encoder.

Source: https://github.com/ailia-ai/segment-anything-2/commit/7627c288863a4491ecfe373cc7090dfe21ad3c14
"""
from typing import Tuple

import numpy as np
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"coords": {0: "num_labels", 1: "num_points"}, "labels": {0: "num_labels", 1: "num_points"}}
BLIND = "domains-51"


class PositionEmbeddingRandom(nn.Module):
    def __init__(self, num_pos_feats: int = 64, scale: float = 1.0) -> None:
        super().__init__()
        self.register_buffer("positional_encoding_gaussian_matrix", scale * torch.randn((2, num_pos_feats)))

    def _pe_encoding(self, coords: torch.Tensor) -> torch.Tensor:
        coords = 2 * coords - 1
        coords = coords @ self.positional_encoding_gaussian_matrix
        coords = 2 * np.pi * coords
        return torch.cat([torch.sin(coords), torch.cos(coords)], dim=-1)

    def forward_with_coords(self, coords_input: torch.Tensor, image_size: Tuple[int, int]) -> torch.Tensor:
        coords = coords_input.clone()
        coords[:, :, 0] = coords[:, :, 0] / image_size[1]
        coords[:, :, 1] = coords[:, :, 1] / image_size[0]
        return self._pe_encoding(coords.to(torch.float))  # B x N x C


class PromptEncoder(nn.Module):
    def __init__(self, embed_dim=32, image_embedding_size=(16, 16), input_image_size=(256, 256)):
        super().__init__()
        self.embed_dim = embed_dim
        self.input_image_size = input_image_size
        self.image_embedding_size = image_embedding_size
        self.pe_layer = PositionEmbeddingRandom(embed_dim // 2)
        self.num_point_embeddings: int = 4  # pos/neg point + 2 box corners
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, embed_dim) for _ in range(self.num_point_embeddings)])
        self.not_a_point_embed = nn.Embedding(1, embed_dim)
        self.no_mask_embed = nn.Embedding(1, embed_dim)

    def _get_device(self) -> torch.device:
        return self.point_embeddings[0].weight.device

    def _embed_points(self, points: torch.Tensor, labels: torch.Tensor, pad: bool) -> torch.Tensor:
        """Embeds point prompts."""
        points = points + 0.5  # Shift to center of pixel
        if pad:
            padding_point = torch.zeros((points.shape[0], 1, 2), device=points.device)
            padding_label = -torch.ones((labels.shape[0], 1), device=labels.device)
            points = torch.cat([points, padding_point], dim=1)
            labels = torch.cat([labels, padding_label], dim=1)
        point_embedding = self.pe_layer.forward_with_coords(points, self.input_image_size)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embeddings[0].weight
        point_embedding[labels == 1] += self.point_embeddings[1].weight
        point_embedding[labels == 2] += self.point_embeddings[2].weight
        point_embedding[labels == 3] += self.point_embeddings[3].weight
        return point_embedding

    def forward(self, coords: torch.Tensor, labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        # the fork's `forward_sparse`, the entry point it exports
        bs = coords.shape[0]
        sparse_embeddings = torch.empty((bs, 0, self.embed_dim), device=self._get_device())
        point_embeddings = self._embed_points(coords, labels, pad=True)
        sparse_embeddings = torch.cat([sparse_embeddings, point_embeddings], dim=1)
        dense_embeddings = self.no_mask_embed.weight.reshape(1, -1, 1, 1).expand(
            bs, -1, self.image_embedding_size[0], self.image_embedding_size[1]
        )
        return sparse_embeddings, dense_embeddings


def make_model():
    return PromptEncoder().eval()


def _inputs(b, n):
    coords = torch.rand(b, n, 2) * 256
    labels = torch.randint(-1, 4, (b, n)).float()
    return (coords, labels)


def example_inputs():
    return _inputs(2, 3)


def other_inputs():
    return [_inputs(1, 5), _inputs(3, 2)]


def probe_inputs():
    return other_inputs()
