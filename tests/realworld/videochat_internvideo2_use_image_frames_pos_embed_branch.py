"""VideoChat / VideoChat-Flash InternVideo2 vision tower: the caller computes `T = image.shape[1];
use_image = True if T == 1 else False` and the encoder picks `self.img_pos_embed` (one frame) or the
video `self.pos_embed` (num_frames * patches) before adding it to the patch tokens. optimum-intel's
VideoChat-Flash export (PR 1637) notes "Export keeps only one traced branch, while this model needs both
image and video paths" and moves the pos-embed choice out of the graph (passed in as an input).
Trimmed to Conv3d patch embed, cls token, the image/video pos-embed branch and one block.

Source: https://github.com/huggingface/optimum-intel/pull/1637
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 1: "frames"}}
BLIND = "domains-40"


class PatchEmbed(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=32, num_frames=4, tubelet_size=1):
        super().__init__()
        self.grid_size = (num_frames // tubelet_size, img_size // patch_size, img_size // patch_size)
        self.num_patches = self.grid_size[0] * self.grid_size[1] * self.grid_size[2]
        self.num_img_patches = self.grid_size[1] * self.grid_size[2]
        self.proj = nn.Conv3d(in_chans, embed_dim, kernel_size=(tubelet_size, patch_size, patch_size),
                              stride=(tubelet_size, patch_size, patch_size))

    def forward(self, x):
        x = self.proj(x)
        x = x.flatten(3).permute(0, 2, 3, 1)  # B, C, T, HW -> B, T, HW, C
        return x


class Block(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class PretrainInternVideo2(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4, num_frames=4, sep_image_video_pos_embed=True):
        super().__init__()
        self.sep_pos_embed = False
        self.sep_image_video_pos_embed = sep_image_video_pos_embed
        self.patch_embed = PatchEmbed(embed_dim=embed_dim, num_frames=num_frames)
        num_patches = self.patch_embed.num_patches
        num_img_patches = self.patch_embed.num_img_patches
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        if self.sep_image_video_pos_embed:
            self.img_pos_embed = nn.Parameter(torch.randn(1, num_img_patches + 1, embed_dim) * 0.02)
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads)])

    @property
    def dtype(self):
        return self.patch_embed.proj.weight.dtype

    def forward(self, x, mask=None, use_image=False):
        x = self.patch_embed(x.type(self.dtype))
        B, T, L, C = x.shape  # T: temporal; L: spatial
        x = x.view([B, T * L, C])

        # append cls token
        cls_tokens = self.cls_token.expand(B, -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)

        # add pos_embed
        if self.sep_pos_embed:
            raise NotImplementedError
        else:
            if use_image:
                if self.sep_image_video_pos_embed:
                    pos_embed = self.img_pos_embed
                else:
                    raise NotImplementedError
            else:
                pos_embed = self.pos_embed
        x = x + pos_embed

        for blk in self.blocks:
            x = blk(x)
        return x


class VideoChatVisionTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_encoder = PretrainInternVideo2()
        self.vision_layernorm = nn.LayerNorm(32, eps=1e-12)

    def forward(self, image):
        T = image.shape[1]
        use_image = True if T == 1 else False
        image = image.permute(0, 2, 1, 3, 4)  # [B,T,C,H,W] -> [B,C,T,H,W]
        image_embeds = self.vision_encoder(image, use_image=use_image)
        return self.vision_layernorm(image_embeds)


def make_model():
    return VideoChatVisionTower().eval()


def example_inputs():
    return (torch.randn(2, 4, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 1, 3, 16, 16),), (torch.randn(1, 4, 3, 16, 16),)]


def probe_inputs():
    return other_inputs()
