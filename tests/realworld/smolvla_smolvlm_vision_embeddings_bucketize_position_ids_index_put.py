"""SmolVLA (LeRobot VLA policy) image path: the SmolVLM vision tower builds an all-true
`patch_attention_mask` from the camera frame size, then `SmolVLMVisionEmbeddings` loops over the batch,
counts patches from the mask (`p_attn_mask[:, 0].sum()`), bucketizes `arange(nb_patches) / nb_patches`
and writes the ids with a boolean-mask assignment `position_ids[batch_idx][p_attn_mask.view(-1)] = pos_ids`.
Tether's SmolVLA export needed a `torch.where` monkey-patch and a post-export pass because torch.onnx
lowered that index_put to `Where(bool, int64, float)`, which onnxruntime rejects.

Source: https://github.com/FastCrest/tether/commit/9bed91c90f6eff5e5ce1bd8393271130d2dab22b
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"pixel_values": {0: "batch"}}
BLIND = "domains-42"


class SmolVLMVisionEmbeddings(nn.Module):
    def __init__(self, hidden_size=64, image_size=64, patch_size=16, num_channels=3):
        super().__init__()
        self.embed_dim = hidden_size
        self.image_size = image_size
        self.patch_size = patch_size

        self.patch_embedding = nn.Conv2d(
            in_channels=num_channels,
            out_channels=self.embed_dim,
            kernel_size=self.patch_size,
            stride=self.patch_size,
            padding="valid",
        )

        self.num_patches_per_side = self.image_size // self.patch_size
        self.num_patches = self.num_patches_per_side**2
        self.num_positions = self.num_patches
        self.position_embedding = nn.Embedding(self.num_positions, self.embed_dim)

    def forward(self, pixel_values: torch.FloatTensor, patch_attention_mask: torch.BoolTensor) -> torch.Tensor:
        batch_size, _, max_im_h, max_im_w = pixel_values.shape

        patch_embeds = self.patch_embedding(pixel_values)
        embeddings = patch_embeds.flatten(2).transpose(1, 2)

        max_nb_patches_h, max_nb_patches_w = max_im_h // self.patch_size, max_im_w // self.patch_size
        boundaries = torch.arange(
            1 / self.num_patches_per_side, 1.0, 1 / self.num_patches_per_side, device=pixel_values.device
        )
        position_ids = torch.full(
            size=(batch_size, max_nb_patches_h * max_nb_patches_w), fill_value=0, device=pixel_values.device
        )

        for batch_idx, p_attn_mask in enumerate(patch_attention_mask):
            nb_patches_h = p_attn_mask[:, 0].sum()
            nb_patches_w = p_attn_mask[0].sum()

            h_indices = torch.arange(nb_patches_h, device=position_ids.device, dtype=position_ids.dtype)
            w_indices = torch.arange(nb_patches_w, device=position_ids.device, dtype=position_ids.dtype)

            fractional_coords_h = h_indices / nb_patches_h * (1 - 1e-6)
            fractional_coords_w = w_indices / nb_patches_w * (1 - 1e-6)

            bucket_coords_h = torch.bucketize(fractional_coords_h, boundaries, right=True)
            bucket_coords_w = torch.bucketize(fractional_coords_w, boundaries, right=True)

            pos_ids = (bucket_coords_h[:, None] * self.num_patches_per_side + bucket_coords_w).flatten()
            position_ids[batch_idx][p_attn_mask.view(-1)] = pos_ids

        embeddings = embeddings + self.position_embedding(position_ids)
        return embeddings


class SmolVLMVisionTransformer(nn.Module):
    """The part of the vision tower SmolVLA's `embed_image` runs (encoder layers trimmed to one MLP)."""

    def __init__(self, hidden_size=64, image_size=64, patch_size=16):
        super().__init__()
        self.patch_size = patch_size
        self.embeddings = SmolVLMVisionEmbeddings(hidden_size, image_size, patch_size)
        self.encoder = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(), nn.Linear(4 * hidden_size, hidden_size))
        self.post_layernorm = nn.LayerNorm(hidden_size)

    def forward(self, pixel_values, patch_attention_mask=None):
        batch_size = pixel_values.size(0)
        if patch_attention_mask is None:
            patch_size = self.patch_size
            patch_attention_mask = torch.ones(
                (
                    batch_size,
                    pixel_values.size(2) // patch_size,
                    pixel_values.size(3) // patch_size,
                )
            )
            patch_attention_mask = patch_attention_mask.to(dtype=torch.bool, device=pixel_values.device)

        hidden_states = self.embeddings(pixel_values=pixel_values, patch_attention_mask=patch_attention_mask)
        hidden_states = self.encoder(hidden_states)
        return self.post_layernorm(hidden_states)


def make_model():
    return SmolVLMVisionTransformer().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
