"""FBCNN (flexible blind JPEG artifact removal): forward pads the image to a multiple of 8 with
`paddingBottom = int(np.ceil(h / 8) * 8 - h)` / `nn.ReplicationPad2d((0, paddingRight, 0, paddingBottom))`
built in forward from the input size, and crops back with `x[..., :h, :w]`. OpenVINO's Open Model Zoo
comments both lines out before its ONNX conversion: the NumPy/int() pad amounts computed from the
shape do not follow the input size.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/master/models/public/fbcnn/model.yml
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.res = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1), nn.ReLU(inplace=False), nn.Conv2d(c, c, 3, 1, 1))

    def forward(self, x):
        return x + self.res(x)


class QFAttention(ResBlock):
    def forward(self, x, gamma, beta):
        gamma = gamma.unsqueeze(-1).unsqueeze(-1)
        beta = beta.unsqueeze(-1).unsqueeze(-1)
        res = (gamma) * self.res(x) + beta
        return x + res


class FBCNN(nn.Module):
    def __init__(self, in_nc=3, out_nc=3, nc=[8, 16, 32, 64], emb=32):
        super().__init__()
        self.m_head = nn.Conv2d(in_nc, nc[0], 3, 1, 1)
        self.m_down1 = nn.Sequential(ResBlock(nc[0]), nn.Conv2d(nc[0], nc[1], 2, 2))
        self.m_down2 = nn.Sequential(ResBlock(nc[1]), nn.Conv2d(nc[1], nc[2], 2, 2))
        self.m_down3 = nn.Sequential(ResBlock(nc[2]), nn.Conv2d(nc[2], nc[3], 2, 2))
        self.m_body_encoder = ResBlock(nc[3])
        self.m_body_decoder = ResBlock(nc[3])
        self.m_up3 = nn.ModuleList([nn.ConvTranspose2d(nc[3], nc[2], 2, 2), QFAttention(nc[2])])
        self.m_up2 = nn.ModuleList([nn.ConvTranspose2d(nc[2], nc[1], 2, 2), QFAttention(nc[1])])
        self.m_up1 = nn.ModuleList([nn.ConvTranspose2d(nc[1], nc[0], 2, 2), QFAttention(nc[0])])
        self.m_tail = nn.Conv2d(nc[0], out_nc, 3, 1, 1)
        self.qf_pred = nn.Sequential(ResBlock(nc[3]), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
                                     nn.Linear(nc[3], emb), nn.ReLU(), nn.Linear(emb, 1), nn.Sigmoid())
        self.qf_embed = nn.Sequential(nn.Linear(1, emb), nn.ReLU(), nn.Linear(emb, emb), nn.ReLU())
        self.to_gamma_3 = nn.Sequential(nn.Linear(emb, nc[2]), nn.Sigmoid())
        self.to_beta_3 = nn.Sequential(nn.Linear(emb, nc[2]), nn.Tanh())
        self.to_gamma_2 = nn.Sequential(nn.Linear(emb, nc[1]), nn.Sigmoid())
        self.to_beta_2 = nn.Sequential(nn.Linear(emb, nc[1]), nn.Tanh())
        self.to_gamma_1 = nn.Sequential(nn.Linear(emb, nc[0]), nn.Sigmoid())
        self.to_beta_1 = nn.Sequential(nn.Linear(emb, nc[0]), nn.Tanh())

    def forward(self, x, qf_input=None):
        h, w = x.size()[-2:]
        paddingBottom = int(np.ceil(h / 8) * 8 - h)
        paddingRight = int(np.ceil(w / 8) * 8 - w)
        x = nn.ReplicationPad2d((0, paddingRight, 0, paddingBottom))(x)

        x1 = self.m_head(x)
        x2 = self.m_down1(x1)
        x3 = self.m_down2(x2)
        x4 = self.m_down3(x3)
        x = self.m_body_encoder(x4)
        qf = self.qf_pred(x)
        x = self.m_body_decoder(x)
        qf_embedding = self.qf_embed(qf_input) if qf_input is not None else self.qf_embed(qf)
        gamma_3, beta_3 = self.to_gamma_3(qf_embedding), self.to_beta_3(qf_embedding)
        gamma_2, beta_2 = self.to_gamma_2(qf_embedding), self.to_beta_2(qf_embedding)
        gamma_1, beta_1 = self.to_gamma_1(qf_embedding), self.to_beta_1(qf_embedding)

        x = x + x4
        x = self.m_up3[1](self.m_up3[0](x), gamma_3, beta_3)
        x = x + x3
        x = self.m_up2[1](self.m_up2[0](x), gamma_2, beta_2)
        x = x + x2
        x = self.m_up1[1](self.m_up1[0](x), gamma_1, beta_1)
        x = x + x1
        x = self.m_tail(x)
        x = x[..., :h, :w]

        return x, qf


def make_model():
    return FBCNN().eval()


def example_inputs():
    return (torch.rand(2, 3, 45, 50),)


def other_inputs():
    return [(torch.rand(3, 3, 64, 40),), (torch.rand(1, 3, 37, 70),)]


def probe_inputs():
    return other_inputs()
