"""MiniCPM-V (Hub remote code, modeling_navit_siglip.py): `SiglipVisionEmbeddings.forward` loops over the
images, reads `nb_patches_h = tgt_sizes[batch_idx][0]`, builds `torch.arange(0, 1 - 1e-6, 1 / nb_patches_h)`,
bucketizes it and scatters the ids with a boolean `patch_attention_mask` index; those sizes come from tensor
values, so MNN's llmexport moved this position-id generation (`gen_position_ids` with `.item()`) out of the
exported vision graph and feeds `position_ids` / `attention_mask` as inputs instead.
(SigLIP encoder layers dropped; the embeddings are the failing part.)

Source: https://github.com/alibaba/MNN/commit/5c179702c05cf9637155ade22d59bc0347a5e65f
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch", 3: "width"},
           "patch_attention_mask": {0: "batch", 2: "patches"},
           "tgt_sizes": {0: "batch"}}
BLIND = "domains-45"


class SiglipVisionEmbeddings(nn.Module):
    def __init__(self, num_channels=3, embed_dim=32, image_size=70, patch_size=14):
        super().__init__()
        self.embed_dim = embed_dim
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

    def forward(self, pixel_values, patch_attention_mask, tgt_sizes=None):
        batch_size = pixel_values.size(0)

        patch_embeds = self.patch_embedding(pixel_values)
        embeddings = patch_embeds.flatten(2).transpose(1, 2)

        max_im_h, max_im_w = pixel_values.size(2), pixel_values.size(3)
        max_nb_patches_h, max_nb_patches_w = max_im_h // self.patch_size, max_im_w // self.patch_size
        boundaries = torch.arange(1 / self.num_patches_per_side, 1.0, 1 / self.num_patches_per_side)
        position_ids = torch.full(
            size=(
                batch_size,
                max_nb_patches_h * max_nb_patches_w,
            ),
            fill_value=0,
        )

        for batch_idx, p_attn_mask in enumerate(patch_attention_mask):
            if tgt_sizes is not None:
                nb_patches_h = tgt_sizes[batch_idx][0]
                nb_patches_w = tgt_sizes[batch_idx][1]
            else:
                nb_patches_h = p_attn_mask[:, 0].sum()
                nb_patches_w = p_attn_mask[0].sum()

            fractional_coords_h = torch.arange(0, 1 - 1e-6, 1 / nb_patches_h)
            fractional_coords_w = torch.arange(0, 1 - 1e-6, 1 / nb_patches_w)

            bucket_coords_h = torch.bucketize(fractional_coords_h, boundaries, right=True)
            bucket_coords_w = torch.bucketize(fractional_coords_w, boundaries, right=True)

            pos_ids = (bucket_coords_h[:, None] * self.num_patches_per_side + bucket_coords_w).flatten()
            position_ids[batch_idx][p_attn_mask.view(-1).cpu()] = pos_ids

        position_ids = position_ids.to(self.position_embedding.weight.device)

        embeddings = embeddings + self.position_embedding(position_ids)
        return embeddings


def _inputs(sizes):
    # MiniCPM-V packs each slice as a (3, patch, n_patches * patch) strip, padded to the longest one
    max_patches = max(h * w for h, w in sizes)
    pixel_values = torch.randn(len(sizes), 3, 14, max_patches * 14)
    patch_attn_mask = torch.zeros((len(sizes), 1, max_patches), dtype=torch.bool)
    for i, (h, w) in enumerate(sizes):
        patch_attn_mask[i, 0, :h * w] = True
    tgt_sizes = torch.tensor(sizes, dtype=torch.int32)
    return (pixel_values, patch_attn_mask, tgt_sizes)


def make_model():
    return SiglipVisionEmbeddings().eval()


def example_inputs():
    return _inputs([(3, 4), (2, 3)])


def other_inputs():
    return [_inputs([(4, 5), (3, 3), (2, 5)]), _inputs([(2, 2)])]


def probe_inputs():
    return other_inputs()
