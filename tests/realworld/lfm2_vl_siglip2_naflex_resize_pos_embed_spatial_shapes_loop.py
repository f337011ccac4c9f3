"""LFM2-VL vision tower (SigLIP2 NaFlex): `Siglip2VisionEmbeddings.resize_positional_embeddings` loops over the
batch, unpacks `height, width = spatial_shapes[i]` from the `spatial_shapes` input tensor and resizes the
positional grid with `F.interpolate(size=(height, width))`, then slice-assigns `[: height * width]`; exporting the
vision embeddings needed the "data-dependent per-tile loop" replaced by a vectorized resize.
(Encoder trimmed to one pre-norm MLP block.)

Source: https://github.com/huggingface/optimum-intel/pull/1704
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "num_tiles", 1: "max_patches"}, "spatial_shapes": {0: "num_tiles"}}
BLIND = "domains-21"


class Siglip2VisionEmbeddings(nn.Module):
    def __init__(self, num_channels=3, patch_size=4, hidden_size=32, num_patches=64):
        super().__init__()
        self.embed_dim = hidden_size
        self.patch_size = patch_size
        self.patch_embedding = nn.Linear(
            in_features=num_channels * self.patch_size * self.patch_size,
            out_features=self.embed_dim,
        )
        self.num_patches = num_patches
        self.position_embedding_size = int(self.num_patches**0.5)
        self.position_embedding = nn.Embedding(self.num_patches, self.embed_dim)

    @staticmethod
    def resize_positional_embeddings(
        positional_embeddings: torch.Tensor,
        spatial_shapes: torch.LongTensor,
        max_length: int,
    ) -> torch.Tensor:
        batch_size = spatial_shapes.shape[0]
        embed_dim = positional_embeddings.shape[-1]
        source_dtype = positional_embeddings.dtype

        resulted_positional_embeddings = torch.empty(
            (batch_size, max_length, embed_dim),
            device=positional_embeddings.device,
            dtype=source_dtype,
        )

        # (height, width, embed_dim) -> (1, embed_dim, height, width) for interpolation
        positional_embeddings = positional_embeddings.permute(2, 0, 1).unsqueeze(0)

        # Upcast to float32 on CPU because antialias is not supported for bfloat16/float16 on CPU
        if positional_embeddings.device.type == "cpu":
            positional_embeddings = positional_embeddings.to(torch.float32)

        for i in range(batch_size):
            # (1, dim, height, width) -> (1, dim, target_height, target_width)
            height, width = spatial_shapes[i]
            resized_embeddings = F.interpolate(
                positional_embeddings,
                size=(height, width),
                mode="bilinear",
                align_corners=False,
                antialias=True,
            )

            # (1, dim, target_height, target_width) -> (target_height * target_width, dim)
            resized_embeddings = resized_embeddings.reshape(embed_dim, height * width).transpose(0, 1)

            # Cast to original dtype
            resized_embeddings = resized_embeddings.to(source_dtype)

            resulted_positional_embeddings[i, : height * width] = resized_embeddings
            resulted_positional_embeddings[i, height * width :] = resized_embeddings[0]

        return resulted_positional_embeddings

    def forward(self, pixel_values: torch.FloatTensor, spatial_shapes: torch.LongTensor) -> torch.Tensor:
        # Apply patch embeddings to already patchified pixel values
        target_dtype = self.patch_embedding.weight.dtype
        patch_embeds = self.patch_embedding(pixel_values.to(dtype=target_dtype))

        # Get positional resized and padded positional embeddings
        positional_embeddings = self.position_embedding.weight.reshape(
            self.position_embedding_size, self.position_embedding_size, -1
        )
        resized_positional_embeddings = self.resize_positional_embeddings(
            positional_embeddings, spatial_shapes, max_length=pixel_values.shape[1]
        )

        # Add positional embeddings to patch embeddings
        embeddings = patch_embeds + resized_positional_embeddings
        return embeddings


class Siglip2VisionTower(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.embeddings = Siglip2VisionEmbeddings(hidden_size=hidden_size)
        self.layer_norm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 64), nn.GELU(), nn.Linear(64, hidden_size))
        self.post_layernorm = nn.LayerNorm(hidden_size)

    def forward(self, pixel_values, spatial_shapes):
        hidden_states = self.embeddings(pixel_values, spatial_shapes)
        hidden_states = hidden_states + self.mlp(self.layer_norm(hidden_states))
        return self.post_layernorm(hidden_states)


def make_model():
    return Siglip2VisionTower().eval()


def example_inputs():
    return (torch.randn(2, 48, 48), torch.tensor([[6, 8], [4, 5]]))


def other_inputs():
    return [
        (torch.randn(3, 64, 48), torch.tensor([[8, 8], [5, 7], [3, 9]])),
        (torch.randn(1, 30, 48), torch.tensor([[5, 6]])),
    ]


def probe_inputs():
    return other_inputs()
