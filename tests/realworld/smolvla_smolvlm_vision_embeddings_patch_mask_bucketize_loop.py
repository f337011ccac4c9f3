"""SmolVLA robot policy (LeRobot VLA on a SmolVLM backbone): `embed_image` calls the SmolVLM vision tower with
`patch_attention_mask=None`, so the tower builds an all-ones mask from the image shape and
`SmolVLMVisionEmbeddings` loops over the batch (`for batch_idx, p_attn_mask in enumerate(...)`), taking
`nb_patches_h = p_attn_mask[:, 0].sum()` to build `torch.arange(nb_patches_h)` / `torch.bucketize` position ids
and mask-assigning them; the policy "got untraceable by both torch.export and OV.convert_model" and was fixed by
inlining the tower with an explicit mask.
(Encoder trimmed to one attention block; text/action expert left out.)

Source: https://github.com/open-edge-platform/physical-ai-studio/pull/921
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch"}}
BLIND = "domains-21"


class SmolVLMVisionEmbeddings(nn.Module):
    def __init__(self, embed_dim=32, image_size=64, patch_size=8):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embedding = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size, padding="valid")
        self.num_patches_per_side = image_size // patch_size
        self.num_patches = self.num_patches_per_side**2
        self.position_embedding = nn.Embedding(self.num_patches, embed_dim)

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

            h_indices = torch.arange(nb_patches_h, device=position_ids.device, dtype=pixel_values.dtype)
            w_indices = torch.arange(nb_patches_w, device=position_ids.device, dtype=pixel_values.dtype)

            fractional_coords_h = h_indices / nb_patches_h * (1 - 1e-6)
            fractional_coords_w = w_indices / nb_patches_w * (1 - 1e-6)

            bucket_coords_h = torch.bucketize(fractional_coords_h, boundaries, right=True)
            bucket_coords_w = torch.bucketize(fractional_coords_w, boundaries, right=True)

            pos_ids = (bucket_coords_h[:, None] * self.num_patches_per_side + bucket_coords_w).flatten()
            position_ids[batch_idx][p_attn_mask.view(-1)] = pos_ids

        embeddings = embeddings + self.position_embedding(position_ids)
        return embeddings


class SmolVLMVisionTransformer(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.embeddings = SmolVLMVisionEmbeddings(embed_dim)
        self.patch_size = self.embeddings.patch_size
        self.num_heads = num_heads
        self.layer_norm1 = nn.LayerNorm(embed_dim)
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.post_layernorm = nn.LayerNorm(embed_dim)

    def forward(self, pixel_values, patch_attention_mask=None):
        batch_size = pixel_values.size(0)
        if patch_attention_mask is None:
            patch_size = self.patch_size
            patch_attention_mask = torch.ones(
                (batch_size, pixel_values.size(2) // patch_size, pixel_values.size(3) // patch_size)
            )
            patch_attention_mask = patch_attention_mask.to(dtype=torch.bool, device=pixel_values.device)

        hidden_states = self.embeddings(pixel_values=pixel_values, patch_attention_mask=patch_attention_mask)

        patch_attention_mask = patch_attention_mask.view(batch_size, -1)
        attn_mask = patch_attention_mask[:, None, None, :].expand(batch_size, 1, hidden_states.size(1), -1)

        q, k, v = self.qkv(self.layer_norm1(hidden_states)).view(batch_size, -1, 3, self.num_heads, 8).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        hidden_states = hidden_states + self.out_proj(attn.transpose(1, 2).reshape(batch_size, -1, 32))
        return self.post_layernorm(hidden_states)


class SmolVLMConnector(nn.Module):
    def __init__(self, embed_dim=32, scale_factor=2, text_dim=48):
        super().__init__()
        self.scale_factor = scale_factor
        self.proj = nn.Linear(embed_dim * scale_factor**2, text_dim, bias=False)

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

    def forward(self, image_hidden_states):
        return self.proj(self.pixel_shuffle(image_hidden_states, self.scale_factor))


class SmolVLAImageEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_model = SmolVLMVisionTransformer()
        self.connector = SmolVLMConnector()

    def forward(self, image: torch.Tensor):
        patch_attention_mask = None
        # Get sequence from the vision encoder
        image_hidden_states = self.vision_model(
            pixel_values=image.to(dtype=self.connector.proj.weight.dtype),
            patch_attention_mask=patch_attention_mask,
        )
        # Modality projection & resampling
        image_hidden_states = self.connector(image_hidden_states)
        return image_hidden_states


def make_model():
    return SmolVLAImageEmbedder().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
