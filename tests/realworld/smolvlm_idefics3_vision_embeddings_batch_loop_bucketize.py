"""SmolVLM (Idefics3) image encoder for optimum-executorch: `Idefics3VisionEmbeddings.forward` loops over the
batch of patch masks (`for batch_idx, p_attn_mask in enumerate(patch_attention_mask)`), takes
`nb_patches_h = p_attn_mask[:, 0].sum()` to size `torch.arange`, bucketizes the fractional coords and
mask-assigns the position ids; the report: SmolVLM "cannot export due to data dependent loop on image input
batch size" (modeling_idefics3.py L148).
(Encoder layers reduced to the post-layernorm; connector = pixel shuffle + projection as in Idefics3.)

Source: https://github.com/huggingface/optimum-executorch/issues/161
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "batch"}}
BLIND = "domains-51"


class Idefics3VisionEmbeddings(nn.Module):
    def __init__(self, embed_dim=32, image_size=64, patch_size=8, num_channels=3):
        super().__init__()
        self.embed_dim = embed_dim
        self.image_size = image_size
        self.patch_size = patch_size
        self.patch_embedding = nn.Conv2d(
            in_channels=num_channels, out_channels=self.embed_dim,
            kernel_size=self.patch_size, stride=self.patch_size, padding="valid",
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
        boundaries = torch.arange(1 / self.num_patches_per_side, 1.0, 1 / self.num_patches_per_side)
        position_ids = torch.full(size=(batch_size, max_nb_patches_h * max_nb_patches_w), fill_value=0)

        for batch_idx, p_attn_mask in enumerate(patch_attention_mask):
            nb_patches_h = p_attn_mask[:, 0].sum()
            nb_patches_w = p_attn_mask[0].sum()

            h_indices = torch.arange(nb_patches_h, device=position_ids.device, dtype=pixel_values.dtype)
            w_indices = torch.arange(nb_patches_w, device=position_ids.device, dtype=pixel_values.dtype)

            fractional_coords_h = h_indices / nb_patches_h * (1 - 1e-6)
            fractional_coords_w = w_indices / nb_patches_w * (1 - 1e-6)

            bucket_coords_h = torch.bucketize(fractional_coords_h, boundaries, right=True)
            bucket_coords_w = torch.bucketize(fractional_coords_w, boundaries, right=True)

            pos_ids = (bucket_coords_h[:, None] * self.num_patches_per_side + bucket_coords_w).flatten()
            position_ids[batch_idx][p_attn_mask.view(-1)] = pos_ids

        position_ids = position_ids.to(self.position_embedding.weight.device)
        embeddings = embeddings + self.position_embedding(position_ids)
        return embeddings


class SmolVLMImageEncoder(nn.Module):
    def __init__(self, embed_dim=32, patch_size=8, scale_factor=2, text_hidden=48):
        super().__init__()
        self.patch_size = patch_size
        self.scale_factor = scale_factor
        self.embeddings = Idefics3VisionEmbeddings(embed_dim=embed_dim, patch_size=patch_size)
        self.post_layernorm = nn.LayerNorm(embed_dim)
        self.proj = nn.Linear(embed_dim * scale_factor**2, text_hidden, bias=False)

    def pixel_shuffle(self, x, scale_factor=2):
        bsz, seq, embed_dim = x.size()
        height = width = int(seq**0.5)
        x = x.view(bsz, height, width, embed_dim)
        x = x.view(bsz, height, int(width / scale_factor), embed_dim * scale_factor)
        x = x.permute(0, 2, 1, 3)
        x = x.reshape(bsz, int(width / scale_factor), int(height / scale_factor), embed_dim * (scale_factor**2))
        x = x.permute(0, 2, 1, 3)
        x = x.reshape(bsz, int(seq / (scale_factor**2)), embed_dim * (scale_factor**2))
        return x

    def forward(self, pixel_values):
        batch_size = pixel_values.size(0)
        patch_size = self.patch_size
        patch_attention_mask = torch.ones(
            (batch_size, pixel_values.size(2) // patch_size, pixel_values.size(3) // patch_size)
        )
        patch_attention_mask = patch_attention_mask.to(dtype=torch.bool, device=pixel_values.device)
        hidden_states = self.embeddings(pixel_values=pixel_values, patch_attention_mask=patch_attention_mask)
        hidden_states = self.post_layernorm(hidden_states)
        image_hidden_states = self.pixel_shuffle(hidden_states, self.scale_factor)
        return self.proj(image_hidden_states)


def make_model():
    return SmolVLMImageEncoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
