"""Ultralytics YOLOWorld (v2) exported with dynamic=True, then run on a batch of 3 images in
onnxruntime: "Non-zero status code returned while running Reshape node. Name:'/model.12/attn/Reshape' ...
Input shape:{1,80,128}, requested shape:{3,-1,4,32}". WorldModel.predict keeps the class text embeddings
on the module (`self.txt_feats`, batch 1) and repeats them only `if len(txt_feats) != len(x)`, a branch
taken at the export batch; MaxSigmoidAttnBlock then views the guide with the image batch.

Source: https://github.com/ultralytics/ultralytics/issues/13048
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-6"


class Conv(nn.Module):
    default_act = nn.SiLU()

    def __init__(self, c1, c2, k=1, s=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = self.default_act if act is True else act if isinstance(act, nn.Module) else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class MaxSigmoidAttnBlock(nn.Module):
    """Max Sigmoid attention block."""

    def __init__(self, c1, c2, nh=1, ec=128, gc=512, scale=False):
        super().__init__()
        self.nh = nh
        self.hc = c2 // nh
        self.ec = Conv(c1, ec, k=1, act=False) if c1 != ec else None
        self.gl = nn.Linear(gc, ec)
        self.bias = nn.Parameter(torch.zeros(nh))
        self.proj_conv = Conv(c1, c2, k=3, s=1, act=False)
        self.scale = nn.Parameter(torch.ones(1, nh, 1, 1)) if scale else 1.0

    def forward(self, x, guide):
        bs, _, h, w = x.shape
        guide = self.gl(guide)
        guide = guide.view(bs, -1, self.nh, self.hc)
        embed = self.ec(x) if self.ec is not None else x
        embed = embed.view(bs, self.nh, self.hc, h, w)
        aw = torch.einsum("bmchw,bnmc->bmhwn", embed, guide)
        aw = aw.max(dim=-1)[0]
        aw = aw / (self.hc**0.5)
        aw = aw + self.bias[None, :, None, None]
        aw = aw.sigmoid() * self.scale
        x = self.proj_conv(x)
        x = x.view(bs, self.nh, -1, h, w)
        x = x * aw.unsqueeze(2)
        return x.view(bs, -1, h, w)


class C2fAttn(nn.Module):
    def __init__(self, c1, c2, ec=128, nh=4, gc=512):
        super().__init__()
        self.cv1 = Conv(c1, c2, 1, 1)
        self.attn = MaxSigmoidAttnBlock(c2, c2, gc=gc, ec=ec, nh=nh)
        self.cv2 = Conv(2 * c2, c2, 1)

    def forward(self, x, guide):
        y = self.cv1(x)
        return self.cv2(torch.cat((y, self.attn(y, guide)), 1))


class WorldDetect(nn.Module):
    def __init__(self, c1, embed=32):
        super().__init__()
        self.cv3 = nn.Conv2d(c1, embed, 1)

    def forward(self, x, text):
        x = self.cv3(x)  # (b, e, h, w)
        return torch.einsum("bchw,bkc->bkhw", x, text).flatten(2)


class WorldModel(nn.Module):
    def __init__(self, nc=80, embed=32):
        super().__init__()
        self.backbone = nn.Sequential(Conv(3, 16, 3, 2), Conv(16, 128, 3, 2))
        self.attn = C2fAttn(128, 128, ec=128, nh=4, gc=embed)
        self.head = WorldDetect(128, embed)
        self.txt_feats = torch.randn(1, nc, embed)  # set_classes(): text embeddings of the vocabulary

    def forward(self, x, txt_feats=None):
        txt_feats = (self.txt_feats if txt_feats is None else txt_feats).to(device=x.device, dtype=x.dtype)
        if len(txt_feats) != len(x):
            txt_feats = txt_feats.repeat(len(x), 1, 1)
        ori_txt_feats = txt_feats.clone()
        x = self.backbone(x)
        x = self.attn(x, txt_feats)
        return self.head(x, ori_txt_feats)


def make_model():
    return WorldModel().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(2, 3, 96, 64),)]


def probe_inputs():
    return other_inputs()
