"""OTX (Geti training extensions) exports its mmpretrain-style DeiT/ViT classifier through
`_forward_explain_image_classifier`, which returns a dict whose "scores" and "labels" are
`pred_results.unbind(0)` / `logits.argmax(-1, keepdim=True).unbind(0)`: per-image tuples, so the exported
graph got "a couple of unexpected outputs" whose count is the export batch; the fix drops them when tracing.

Source: https://github.com/open-edge-platform/geti/pull/3736
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "views"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-41"


class PatchEmbed(nn.Module):
    def __init__(self, in_channels=3, embed_dims=32, patch_size=8):
        super().__init__()
        self.projection = nn.Conv2d(in_channels, embed_dims, patch_size, stride=patch_size)

    def forward(self, x):
        x = self.projection(x)
        out_size = (x.shape[2], x.shape[3])
        return x.flatten(2).transpose(1, 2), out_size


class TransformerEncoderLayer(nn.Module):
    def __init__(self, embed_dims, num_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(embed_dims)
        self.attn = nn.MultiheadAttention(embed_dims, num_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(embed_dims)
        self.ffn = nn.Sequential(nn.Linear(embed_dims, embed_dims * 2), nn.GELU(), nn.Linear(embed_dims * 2, embed_dims))

    def forward(self, x):
        y = self.norm1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.ffn(self.norm2(x))


class VisionTransformerClsHead(nn.Module):
    def __init__(self, num_classes, in_channels):
        super().__init__()
        self.head = nn.Linear(in_channels, num_classes)

    def forward(self, feats):
        return self.head(feats[-1])

    def _get_predictions(self, cls_score):
        return F.softmax(cls_score, dim=1)


class DeitTinyExplainClassifier(nn.Module):
    def __init__(self, num_classes=5, embed_dims=32, depth=2, img_size=32, patch_size=8):
        super().__init__()
        self.patch_embed = PatchEmbed(3, embed_dims, patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dims) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, (img_size // patch_size) ** 2 + 1, embed_dims) * 0.02)
        self.layers = nn.ModuleList([TransformerEncoderLayer(embed_dims, 2) for _ in range(depth)])
        self.ln1 = nn.LayerNorm(embed_dims)
        self.head = VisionTransformerClsHead(num_classes, embed_dims)

    def explain_fn(self, feat):
        # saliency per class from the patch tokens of the last block input
        cls_map = self.head.head(feat[:, 1:])                      # B, N, num_classes
        h = w = int(cls_map.shape[1] ** 0.5)
        return cls_map.transpose(1, 2).reshape(feat.shape[0], -1, h, w).sigmoid()

    def forward(self, images):
        batch_size = images.shape[0]
        x, patch_resolution = self.patch_embed(images)
        cls_token = self.cls_token.expand(batch_size, -1, -1)
        x = torch.cat((cls_token, x), dim=1)
        x = x + self.pos_embed
        layernorm_feat = None
        for i, layer in enumerate(self.layers):
            if i == len(self.layers) - 1:
                layernorm_feat = layer.norm1(x)
            x = layer(x)
        x = self.ln1(x)
        x = (x[:, 0],)
        saliency_map = self.explain_fn(layernorm_feat)
        feature_vector = x[-1]
        logits = self.head(x)

        pred_results = self.head._get_predictions(logits)
        scores = pred_results.unbind(0)
        labels = logits.argmax(-1, keepdim=True).unbind(0)

        return {
            "logits": logits,
            "feature_vector": feature_vector,
            "saliency_map": saliency_map,
            "scores": scores,
            "labels": labels,
        }


def make_model():
    return DeitTinyExplainClassifier().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32),), (torch.randn(1, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
