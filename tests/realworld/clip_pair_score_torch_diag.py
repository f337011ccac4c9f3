"""Image-text pair scorer: cosine-similarity matrix between a batch of image and text embeddings, and the
matched-pair scores read off its main diagonal with `torch.diag`. Exporting fails with "Exporting the
operator 'aten::diag' to ONNX opset version 14 is not supported" (also with other opsets, torch 2.0).

Source: https://github.com/pytorch/pytorch/issues/98205
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image_feats": {0: "batch"}, "text_feats": {0: "batch"}}
BLIND = "operators-7"


class PairScorer(nn.Module):
    def __init__(self, img_dim=64, txt_dim=48, embed_dim=32):
        super().__init__()
        self.img_proj = nn.Linear(img_dim, embed_dim)
        self.txt_proj = nn.Linear(txt_dim, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.659))

    def forward(self, image_feats, text_feats):
        img = F.normalize(self.img_proj(image_feats), dim=-1)
        txt = F.normalize(self.txt_proj(text_feats), dim=-1)
        sim = self.logit_scale.exp() * img @ txt.t()
        pos = torch.diag(sim)
        return pos, sim.softmax(dim=-1)


def make_model():
    return PairScorer()


def example_inputs():
    return (torch.randn(4, 64), torch.randn(4, 48))


def other_inputs():
    return [(torch.randn(7, 64), torch.randn(7, 48)), (torch.randn(2, 64), torch.randn(2, 48))]


def probe_inputs():
    return other_inputs()
