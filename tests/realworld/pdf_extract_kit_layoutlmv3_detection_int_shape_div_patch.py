"""PDF-Extract-Kit layout detector: the LayoutLMv3 backbone in detection mode (image only) computes the patch grid
with `Hp, Wp = int(images.shape[2] / patch_size), int(images.shape[3] / patch_size)` and `batch_size = len(images)`,
then cuts the visual tokens back into feature maps with `.reshape(len(hidden_states), -1, Hp, Wp)`; exporting it to
ONNX with dynamic height/width needed these replaced by `torch.div(..., rounding_mode='floor')` and `.shape[0]`
("fix for onnx export"), since the Python ints freeze the export-time page size into the graph.

Source: https://github.com/opendatalab/PDF-Extract-Kit/pull/102
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-43"


class PatchEmbed(nn.Module):
    """ Image to Patch Embedding
    """
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        img_size = (img_size, img_size)
        patch_size = (patch_size, patch_size)
        self.patch_shape = (img_size[0] // patch_size[0], img_size[1] // patch_size[1])
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x, position_embedding=None):
        x = self.proj(x)

        if position_embedding is not None:
            # interpolate the position embedding to the corresponding size
            position_embedding = position_embedding.view(1, self.patch_shape[0], self.patch_shape[1], -1).permute(0, 3, 1, 2)
            Hp, Wp = x.shape[2], x.shape[3]
            position_embedding = F.interpolate(position_embedding, size=(Hp, Wp), mode='bicubic')
            x = x + position_embedding

        x = x.flatten(2).transpose(1, 2)
        return x


class LayoutLMv3Layer(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_size = hidden_size // num_heads
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)
        self.attn_out = nn.Linear(hidden_size, hidden_size)
        self.ln1 = nn.LayerNorm(hidden_size, eps=1e-5)
        self.ffn = nn.Sequential(nn.Linear(hidden_size, hidden_size * 4), nn.GELU(), nn.Linear(hidden_size * 4, hidden_size))
        self.ln2 = nn.LayerNorm(hidden_size, eps=1e-5)

    def split(self, x):
        return x.view(x.size()[:-1] + (self.num_heads, self.head_size)).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        q, k, v = self.split(self.query(hidden_states)), self.split(self.key(hidden_states)), self.split(self.value(hidden_states))
        scores = torch.matmul(q / math.sqrt(self.head_size), k.transpose(-1, -2)) + attention_mask
        ctx = torch.matmul(F.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.num_heads * self.head_size,))
        hidden_states = self.ln1(hidden_states + self.attn_out(ctx))
        return self.ln2(hidden_states + self.ffn(hidden_states))


class LayoutLMv3Encoder(nn.Module):
    def __init__(self, hidden_size=64, num_layers=4, num_heads=4, out_features=("layer1", "layer2", "layer3", "layer4")):
        super().__init__()
        self.detection = True
        self.layer = nn.ModuleList([LayoutLMv3Layer(hidden_size, num_heads) for _ in range(num_layers)])
        embed_dim = hidden_size
        self.out_features = out_features
        self.out_indices = [int(name[5:]) - 1 for name in out_features]
        self.fpn1 = nn.Sequential(
            nn.ConvTranspose2d(embed_dim, embed_dim, kernel_size=2, stride=2),
            nn.BatchNorm2d(embed_dim),
            nn.GELU(),
            nn.ConvTranspose2d(embed_dim, embed_dim, kernel_size=2, stride=2),
        )
        self.fpn2 = nn.Sequential(nn.ConvTranspose2d(embed_dim, embed_dim, kernel_size=2, stride=2))
        self.fpn3 = nn.Identity()
        self.fpn4 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.ops = [self.fpn1, self.fpn2, self.fpn3, self.fpn4]

    def forward(self, hidden_states, attention_mask=None, Hp=None, Wp=None):
        if self.detection:
            feat_out = {}
            j = 0
        for i, layer_module in enumerate(self.layer):
            hidden_states = layer_module(hidden_states, attention_mask)
            if self.detection and i in self.out_indices:
                xp = hidden_states[:, -Hp*Wp:, :].permute(0, 2, 1).reshape(len(hidden_states), -1, Hp, Wp)
                feat_out[self.out_features[j]] = self.ops[j](xp.contiguous())
                j += 1
        return feat_out


class LayoutLMv3Model(nn.Module):
    """Image-only detection backbone (has_relative_attention_bias / has_spatial_attention_bias off)."""

    def __init__(self, hidden_size=64, input_size=224):
        super().__init__()
        self.detection = True
        self.image_only = True
        self.encoder = LayoutLMv3Encoder(hidden_size)
        embed_dim = hidden_size
        self.patch_embed = PatchEmbed(embed_dim=embed_dim)
        patch_size = 16
        size = int(input_size / patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * .02)
        self.pos_embed = nn.Parameter(torch.randn(1, size * size + 1, embed_dim) * .02)
        self.pos_drop = nn.Dropout(p=0.)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-5)
        self.dropout = nn.Dropout(0.1)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)

    def forward_image(self, x):
        x = self.patch_embed(x, self.pos_embed[:, 1:, :] if self.pos_embed is not None else None)
        batch_size, seq_len, _ = x.size()
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        if self.pos_embed is not None and self.detection:
            cls_tokens = cls_tokens + self.pos_embed[:, :1, :]
        x = torch.cat((cls_tokens, x), dim=1)
        x = self.pos_drop(x)
        x = self.norm(x)
        return x

    def forward(self, images=None):
        if images is not None:
            batch_size = len(images)
            device = images.device
        else:
            raise ValueError("You have to specify either input_ids or inputs_embeds or images")

        Hp = Wp = None
        if images is not None:
            patch_size = 16
            Hp, Wp = int(images.shape[2] / patch_size), int(images.shape[3] / patch_size)
            visual_emb = self.forward_image(images)
            visual_attention_mask = torch.ones((batch_size, visual_emb.shape[1]), dtype=torch.long, device=device)
            attention_mask = visual_attention_mask
            embedding_output = visual_emb
            embedding_output = self.LayerNorm(embedding_output)
            embedding_output = self.dropout(embedding_output)

        extended_attention_mask = (1.0 - attention_mask[:, None, None, :].to(embedding_output.dtype)) * -10000.0
        return self.encoder(embedding_output, attention_mask=extended_attention_mask, Hp=Hp, Wp=Wp)


class VIT_Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = LayoutLMv3Model()

    def forward(self, images):
        feats = self.backbone(images=images)
        return tuple(feats[k] for k in ("layer1", "layer2", "layer3", "layer4"))


def make_model():
    return VIT_Backbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 256),)


def other_inputs():
    return [(torch.randn(1, 3, 256, 384),), (torch.randn(1, 3, 192, 224),)]


def probe_inputs():
    return other_inputs()
