"""Hugging Face SAM prompt encoder `_embed_points`: the point embeddings are edited per label with boolean-mask
in-place writes (`point_embedding[labels == -1] = 0.0`, `point_embedding[labels == -1] += self.not_a_point_embed.weight`,
`point_embedding[labels == 0] += ...`); the PR calls this "the only blocking piece" of SAM's ONNX export and
rewrites it with `torch.where`. With the number of prompt points dynamic, the exported masked updates do not
follow the number of points selected by each label.

Source: https://github.com/huggingface/transformers/pull/22915
"""
import numpy as np
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"input_points": {2: "num_points"}, "input_labels": {2: "num_points"}}
BLIND = "domains-19"


class SamPositionalEmbedding(nn.Module):
    def __init__(self, num_pos_feats=16, scale=1.0):
        super().__init__()
        self.scale = scale
        self.register_buffer("positional_embedding", self.scale * torch.randn((2, num_pos_feats)))

    def forward(self, input_coords, input_shape=None):
        """Positionally encode points that are normalized to [0,1]."""
        coordinates = input_coords.clone()

        if input_shape is not None:
            coordinates[:, :, :, 0] = coordinates[:, :, :, 0] / input_shape[1]
            coordinates[:, :, :, 1] = coordinates[:, :, :, 1] / input_shape[0]

        # assuming coords are in [0, 1]^2 square and have d_1 x ... x d_n x 2 shape
        coordinates = 2 * coordinates - 1
        coordinates = coordinates.to(self.positional_embedding.dtype)
        coordinates = coordinates @ self.positional_embedding
        coordinates = 2 * np.pi * coordinates
        # outputs d_1 x ... x d_n x channel shape
        return torch.cat([torch.sin(coordinates), torch.cos(coordinates)], dim=-1)


class SamPromptEncoder(nn.Module):
    def __init__(self, hidden_size=32, image_size=1024, num_point_embeddings=4):
        super().__init__()
        self.shared_embedding = SamPositionalEmbedding(hidden_size // 2)
        self.input_image_size = image_size
        self.point_embed = nn.ModuleList(
            [nn.Embedding(1, hidden_size) for i in range(num_point_embeddings)]
        )
        self.not_a_point_embed = nn.Embedding(1, hidden_size)

    def _embed_points(self, points: torch.Tensor, labels: torch.Tensor, pad: bool) -> torch.Tensor:
        r"""
        Embeds point prompts.
        """
        points = points + 0.5  # Shift to center of pixel
        if pad:
            target_point_shape = (points.shape[0], points.shape[1], 1, points.shape[-1])
            target_labels_shape = (points.shape[0], points.shape[1], 1)
            padding_point = torch.zeros(target_point_shape, device=points.device)
            padding_label = -torch.ones(target_labels_shape, device=labels.device)
            points = torch.cat([points, padding_point], dim=2)
            labels = torch.cat([labels, padding_label], dim=2)
        input_shape = (self.input_image_size, self.input_image_size)
        point_embedding = self.shared_embedding(points, input_shape)

        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight

        point_embedding[labels == 0] += self.point_embed[0].weight

        point_embedding[labels == 1] += self.point_embed[1].weight

        return point_embedding

    def forward(self, input_points, input_labels, input_boxes=None):
        sparse_embeddings = None
        if input_points is not None:
            batch_size, point_batch_size = input_points.shape[:2]
            if input_labels is None:
                raise ValueError("If points are provided, labels must also be provided.")
            point_embeddings = self._embed_points(input_points, input_labels, pad=(input_boxes is None))
            sparse_embeddings = point_embeddings
        return sparse_embeddings


def make_model():
    return SamPromptEncoder().eval()


def example_inputs():
    return (torch.rand(1, 1, 3, 2) * 1024, torch.tensor([[[1, 0, 1]]]))


def other_inputs():
    return [(torch.rand(1, 1, 5, 2) * 1024, torch.tensor([[[1, 1, 0, 0, 1]]])),
            (torch.rand(1, 1, 2, 2) * 1024, torch.tensor([[[0, 1]]]))]


def probe_inputs():
    return other_inputs()
