"""A ViT-style position-embedding resampler (the report's comment copies timm's
resample_abs_pos_embed_nhwc into a PositionalEmbeddings module) calls
F.interpolate(posemb, size=new_size, mode='bilinear', antialias=True); the report finds the
antialias option cannot be exported to ONNX (aten::_upsample_bilinear2d_aa unsupported) and had to
turn antialiasing off to export.

Source: https://github.com/pytorch/pytorch/issues/80033
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"posemb": {1: "grid_h", 2: "grid_w"}}
BLIND = "operators-19"


class PositionalEmbeddings(nn.Module):
    def __init__(self,
        new_size,
        interpolation: str = 'bilinear',
        antialias: bool = True,
        verbose: bool = False,):
        super().__init__()
        self.new_size = new_size
        self.interpolation = interpolation
        self.verbose = verbose
        self.antialias = antialias

    def forward(self, posemb):
        if self.new_size[0] == posemb.shape[-3] and self.new_size[1] == posemb.shape[-2]:
            return posemb

        orig_dtype = posemb.dtype
        posemb = posemb.float()
        posemb = posemb.reshape(1, posemb.shape[-3], posemb.shape[-2], posemb.shape[-1]).permute(0, 3, 1, 2)
        posemb = F.interpolate(posemb, size=self.new_size, mode=self.interpolation, antialias=self.antialias)
        posemb = posemb.permute(0, 2, 3, 1).to(orig_dtype)
        return posemb


def make_model():
    return PositionalEmbeddings(new_size=(16, 16)).eval()


def example_inputs():
    return (torch.randn(1, 24, 24, 64),)


def other_inputs():
    return [(torch.randn(1, 32, 20, 64),), (torch.randn(1, 12, 14, 64),)]


def probe_inputs():
    return other_inputs()
