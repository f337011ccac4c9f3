"""ONX607: ViT's interpolate_pos_encoding as transformers writes it: the stored position table for
the pretraining image size, skipped "when tracing" (the legacy exporter) so that the export keeps
the interpolation. torch.export evaluates the sizes instead and keeps only the example's size.
Fixed (safely: eager is unchanged) by skipping the shortcut under torch.compiler.is_exporting()."""
import torch
from torch import nn


class PatchEmbeddings(nn.Module):
    def __init__(self, patch=4, dim=8, image=16):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.position_embeddings = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim))
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))

    def interpolate_pos_encoding(self, embeddings, height, width):
        num_patches = embeddings.shape[1] - 1
        num_positions = self.position_embeddings.shape[1] - 1
        # always interpolate when tracing to ensure the exported model works for dynamic input shapes
        if not torch.jit.is_tracing() and num_patches == num_positions and height == width:
            return self.position_embeddings
        class_pos_embed = self.position_embeddings[:, :1]
        patch_pos_embed = self.position_embeddings[:, 1:]
        dim = embeddings.shape[-1]
        side = int(num_positions**0.5)
        patch_pos_embed = patch_pos_embed.reshape(1, side, side, dim).permute(0, 3, 1, 2)
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed, size=(height // self.patch, width // self.patch), mode="bilinear", align_corners=False
        )
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed, patch_pos_embed), dim=1)

    def forward(self, pixel_values: torch.Tensor):
        height, width = pixel_values.shape[-2:]
        embeddings = self.proj(pixel_values).flatten(2).transpose(1, 2)
        embeddings = torch.cat((self.cls_token.expand(embeddings.shape[0], -1, -1), embeddings), dim=1)
        return embeddings + self.interpolate_pos_encoding(embeddings, height, width)


def make_model():
    torch.manual_seed(0)
    return PatchEmbeddings()


def example_inputs():
    return (torch.randn(2, 3, 16, 16),)


def probe_inputs():
    return [(torch.randn(2, 3, 24, 20),), (torch.randn(3, 3, 12, 28),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
