"""InternVL (Hub remote code, modeling_internvl_chat.py): `extract_feature` drops the CLS token, takes
`h = w = int(vit_embeds.shape[1] ** 0.5)` and `pixel_shuffle` reshapes with `int(h * scale_factor)` /
`int(c / scale_factor)`; exporting the vision part with dynamic height/width, those Python `int()` casts of
traced sizes turn into constants, so MNN's llmexport re-implemented InternVL's vision wrapper with tensor
`.int()` casts instead before `torch.onnx.export(..., dynamic_axes={"input_images": {0, 2, 3}})`.
(InternViT reduced to patch conv + CLS token + bicubic-resized position embedding; mlp1 kept.)

Source: https://github.com/alibaba/MNN/commit/0769b81b58d0fe5306e01daf65307281f40a72e2
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-45"


class InternVisionEmbeddings(nn.Module):
    def __init__(self, embed_dim=32, image_size=56, patch_size=14):
        super().__init__()
        self.embed_dim = embed_dim
        self.image_size = image_size
        self.patch_size = patch_size
        self.class_embedding = nn.Parameter(torch.randn(1, 1, embed_dim))
        self.patch_embedding = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.num_patches = (image_size // patch_size) ** 2
        self.position_embedding = nn.Parameter(torch.randn(1, self.num_patches + 1, embed_dim))

    def _get_pos_embed(self, pos_embed, H, W):
        target_dtype = pos_embed.dtype
        pos_embed = pos_embed.float().reshape(
            1, self.image_size // self.patch_size, self.image_size // self.patch_size, -1).permute(0, 3, 1, 2)
        pos_embed = F.interpolate(pos_embed, size=(H, W), mode='bicubic', align_corners=False). \
            reshape(1, -1, H * W).permute(0, 2, 1).to(target_dtype)
        return pos_embed

    def forward(self, pixel_values):
        target_dtype = self.patch_embedding.weight.dtype
        patch_embeds = self.patch_embedding(pixel_values)  # shape = [*, channel, width, height]
        batch_size, _, height, width = patch_embeds.shape
        patch_embeds = patch_embeds.flatten(2).transpose(1, 2)
        class_embeds = self.class_embedding.expand(batch_size, 1, -1).to(target_dtype)
        embeddings = torch.cat([class_embeds, patch_embeds], dim=1)
        position_embedding = torch.cat([
            self.position_embedding[:, :1, :],
            self._get_pos_embed(self.position_embedding[:, 1:, :], height, width)
        ], dim=1)
        return embeddings + position_embedding.to(target_dtype)


class InternVLChatVision(nn.Module):
    def __init__(self, vit_hidden_size=32, llm_hidden_size=48, downsample_ratio=0.5):
        super().__init__()
        self.downsample_ratio = downsample_ratio
        self.ps_version = 'v2'
        self.vision_model = InternVisionEmbeddings(vit_hidden_size)
        self.mlp1 = nn.Sequential(
            nn.LayerNorm(vit_hidden_size * int(1 / self.downsample_ratio) ** 2),
            nn.Linear(vit_hidden_size * int(1 / self.downsample_ratio) ** 2, llm_hidden_size),
            nn.GELU(),
            nn.Linear(llm_hidden_size, llm_hidden_size)
        )

    def pixel_shuffle(self, x, scale_factor=0.5):
        n, w, h, c = x.size()
        # N, W, H, C --> N, W, H * scale, C // scale
        x = x.view(n, w, int(h * scale_factor), int(c / scale_factor))
        # N, W, H * scale, C // scale --> N, H * scale, W, C // scale
        x = x.permute(0, 2, 1, 3).contiguous()
        # N, H * scale, W, C // scale --> N, H * scale, W * scale, C // (scale ** 2)
        x = x.view(n, int(h * scale_factor), int(w * scale_factor),
                   int(c / (scale_factor * scale_factor)))
        if self.ps_version != 'v1':
            x = x.permute(0, 2, 1, 3).contiguous()
        return x

    def extract_feature(self, pixel_values):
        vit_embeds = self.vision_model(pixel_values)
        vit_embeds = vit_embeds[:, 1:, :]

        h = w = int(vit_embeds.shape[1] ** 0.5)
        vit_embeds = vit_embeds.reshape(vit_embeds.shape[0], h, w, -1)
        vit_embeds = self.pixel_shuffle(vit_embeds, scale_factor=self.downsample_ratio)
        vit_embeds = vit_embeds.reshape(vit_embeds.shape[0], -1, vit_embeds.shape[-1])
        vit_embeds = self.mlp1(vit_embeds)
        return vit_embeds

    def forward(self, pixel_values):
        return self.extract_feature(pixel_values)


def make_model():
    return InternVLChatVision().eval()


def example_inputs():
    return (torch.randn(1, 3, 56, 56),)


def other_inputs():
    return [(torch.randn(2, 3, 112, 112),), (torch.randn(3, 3, 84, 84),)]


def probe_inputs():
    return other_inputs()
