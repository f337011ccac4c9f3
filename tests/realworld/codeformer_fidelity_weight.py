"""CodeFormer face restoration exported with its fidelity weight as an input, `torch.onnx.export(net,
(cropped_face_t, w), ...)`: `forward(self, x, w=0, ...)` keys encoder features by `str(x.shape[-1])` and only
fuses them `if w>0:`; the export rejects the float ("unsupported type float") and, exported without it, the ONNX
model has no `w` input at all.

Source: https://github.com/sczhou/CodeFormer/issues/252
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-2"


class Fuse_sft_block(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.encode_enc = nn.Conv2d(2 * in_ch, out_ch, 3, 1, 1)
        self.scale = nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, 1, 1), nn.LeakyReLU(0.2, True),
                                   nn.Conv2d(out_ch, out_ch, 3, 1, 1))
        self.shift = nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, 1, 1), nn.LeakyReLU(0.2, True),
                                   nn.Conv2d(out_ch, out_ch, 3, 1, 1))

    def forward(self, enc_feat, dec_feat, w=1):
        enc_feat = self.encode_enc(torch.cat([enc_feat, dec_feat], dim=1))
        scale = self.scale(enc_feat)
        shift = self.shift(enc_feat)
        residual = w * (dec_feat * scale + shift)
        out = dec_feat + residual
        return out


class CodeFormer(nn.Module):
    def __init__(self, ch=8, connect_list=['16', '32']):
        super().__init__()
        self.connect_list = connect_list
        self.encoder_blocks = nn.ModuleList([nn.Conv2d(3, ch, 3, 1, 1), nn.Conv2d(ch, ch, 3, 2, 1),
                                             nn.Conv2d(ch, ch, 3, 2, 1)])
        self.generator_blocks = nn.ModuleList([nn.Conv2d(ch, ch, 3, 1, 1),
                                               nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(ch, ch, 3, 1, 1)),
                                               nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(ch, ch, 3, 1, 1))])
        self.to_rgb = nn.Conv2d(ch, 3, 3, 1, 1)
        self.fuse_encoder_block = {'32': 1, '16': 2}
        self.fuse_generator_block = {'16': 0, '32': 1}
        self.fuse_convs_dict = nn.ModuleDict({f_size: Fuse_sft_block(ch, ch) for f_size in connect_list})

    def forward(self, x, w=0, detach_16=True):
        # ################### Encoder #####################
        enc_feat_dict = {}
        out_list = [self.fuse_encoder_block[f_size] for f_size in self.connect_list]
        for i, block in enumerate(self.encoder_blocks):
            x = block(x)
            if i in out_list:
                enc_feat_dict[str(x.shape[-1])] = x.clone()
        # ################## Generator ####################
        fuse_list = [self.fuse_generator_block[f_size] for f_size in self.connect_list]
        for i, block in enumerate(self.generator_blocks):
            x = block(x)
            if i in fuse_list:  # fuse after i-th block
                f_size = str(x.shape[-1])
                if w > 0:
                    x = self.fuse_convs_dict[f_size](enc_feat_dict[f_size].detach(), x, w)
        out = self.to_rgb(x)
        return out


def make_model():
    return CodeFormer().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64), 0.5)


def other_inputs():
    return [(torch.randn(2, 3, 64, 64), 0.0), (torch.randn(3, 3, 64, 64), 1.0)]


def probe_inputs():
    return other_inputs()
