"""Segment Anything (transformers SamMaskDecoder) exported with torch.export for ExecuTorch: the decoder
only appends the point/box tokens when `sparse_prompt_embeddings.sum().item() != 0`, and export stops
with "Could not guard on data-dependent expression Ne(zuf0, 0.0)" (modeling_sam.py in forward).

Source: https://github.com/pytorch/executorch/issues/12732
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "image_embeddings": {0: "batch"},
    "image_positional_embeddings": {0: "batch"},
    "sparse_prompt_embeddings": {0: "batch", 1: "point_batch", 2: "num_points"},
    "dense_prompt_embeddings": {0: "batch"},
}
BLIND = "domains-13"


class SamTinyTwoWayTransformer(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.self_attn_qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.scale = hidden_size ** -0.5

    def forward(self, point_embeddings, image_embeddings, image_positional_embeddings):
        # point_embeddings: (B, P, T, C); image_embeddings: (B*P, C, H, W)
        batch_size, point_batch_size, num_tokens, channels = point_embeddings.shape
        # self attention over the output and prompt tokens
        q, k, v = self.self_attn_qkv(point_embeddings).chunk(3, dim=-1)
        point_embeddings = point_embeddings + ((q @ k.transpose(-1, -2)) * self.scale).softmax(dim=-1) @ v
        # cross attention token -> image
        keys = (image_embeddings + image_positional_embeddings).flatten(2).transpose(1, 2)
        keys = keys.reshape(batch_size, point_batch_size, -1, channels)
        attn = (self.q_proj(point_embeddings) @ self.k_proj(keys).transpose(-1, -2)) * self.scale
        queries = point_embeddings + attn.softmax(dim=-1) @ self.v_proj(keys)
        return queries, keys


class SamMaskDecoder(nn.Module):
    def __init__(self, hidden_size=32, num_multimask_outputs=3):
        super().__init__()
        self.num_mask_tokens = num_multimask_outputs + 1
        self.iou_token = nn.Embedding(1, hidden_size)
        self.mask_tokens = nn.Embedding(self.num_mask_tokens, hidden_size)
        self.transformer = SamTinyTwoWayTransformer(hidden_size)
        self.iou_prediction_head = nn.Linear(hidden_size, self.num_mask_tokens)

    def forward(self, image_embeddings, image_positional_embeddings, sparse_prompt_embeddings, dense_prompt_embeddings):
        batch_size, num_channels, height, width = image_embeddings.shape
        point_batch_size = sparse_prompt_embeddings.shape[1]
        # Concatenate output tokens
        output_tokens = torch.cat([self.iou_token.weight, self.mask_tokens.weight], dim=0)
        output_tokens = output_tokens.repeat(batch_size, point_batch_size, 1, 1)

        if sparse_prompt_embeddings.sum().item() != 0:
            tokens = torch.cat((output_tokens, sparse_prompt_embeddings), dim=2)
        else:
            tokens = output_tokens
        point_embeddings = tokens.to(self.iou_token.weight.dtype)

        # Expand per-image data in batch direction to be per-point
        image_embeddings = image_embeddings + dense_prompt_embeddings
        image_embeddings = image_embeddings.repeat_interleave(point_batch_size, 0)
        image_positional_embeddings = image_positional_embeddings.repeat_interleave(point_batch_size, 0)

        point_embedding, image_embeddings = self.transformer(
            point_embeddings, image_embeddings, image_positional_embeddings
        )
        iou_token_out = point_embedding[:, :, 0, :]
        mask_tokens_out = point_embedding[:, :, 1 : (1 + self.num_mask_tokens), :]
        masks = mask_tokens_out @ image_embeddings.transpose(-1, -2)
        iou_pred = self.iou_prediction_head(iou_token_out)
        return masks, iou_pred


def make_model():
    return SamMaskDecoder()


def _inputs(batch, point_batch, num_points, sparse_zero=False):
    sparse = torch.zeros(batch, point_batch, num_points, 32) if sparse_zero else torch.randn(batch, point_batch, num_points, 32)
    return (
        torch.randn(batch, 32, 8, 8),
        torch.randn(batch, 32, 8, 8),
        sparse,
        torch.randn(batch, 32, 8, 8),
    )


def example_inputs():
    return _inputs(2, 2, 3)


def other_inputs():
    # the prompt encoder gives all-zero sparse embeddings (B, 1, 1, C) when no points or boxes are passed
    return [_inputs(3, 3, 5), _inputs(1, 1, 1, sparse_zero=True)]


def probe_inputs():
    return other_inputs()
