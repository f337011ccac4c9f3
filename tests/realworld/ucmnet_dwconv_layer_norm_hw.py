"""UCM-Net (lightweight skin-lesion segmentation): the DWConv inside each UCMBlock normalises the token map
with `F.layer_norm(x, [H, W])`, where H, W come from the patch-embedding output shape; exporting with
dynamic height/width fails with "Failed to export an ONNX attribute ..., since it's not constant, please
try to make things (e.g. kernel sizes) static if possible". (Trimmed to two encoder stages and one decoder
stage of the original seven.)

Source: https://github.com/onnx/onnx/issues/6865
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-20"


class DWConv(nn.Module):
    def __init__(self, dim=768):
        super(DWConv, self).__init__()
        self.dwconv = nn.Conv2d(dim, dim, 3, 1, 1, bias=True, groups=dim)
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x, H, W):
        B, N, C = x.shape
        x = x.transpose(1, 2).view(B, C, H, W)
        x = F.layer_norm(x, [H, W])
        x = self.dwconv(x)
        x = x.flatten(2).transpose(1, 2)
        return x


class UCMBlock(nn.Module):
    def __init__(self, dim, mlp_ratio=1, drop=0., norm_layer=nn.LayerNorm):
        super().__init__()
        self.drop_path = nn.Identity()
        self.norm2 = norm_layer(dim)
        mlp_hidden_dim = int(dim * mlp_ratio)
        self.fc1 = nn.Linear(dim, mlp_hidden_dim)
        self.dwconv = DWConv(mlp_hidden_dim)
        self.dwconv1 = DWConv(mlp_hidden_dim)
        self.act1 = nn.GELU()
        self.fc2 = nn.Linear(mlp_hidden_dim, dim)
        self.drop = nn.Dropout(drop)

    def forward(self, x, H, W):
        x = self.norm2(x)
        B, N, C = x.shape
        x1 = x.clone().detach()
        x = self.fc1(x)
        x = self.dwconv(x, H, W)
        xn = x.transpose(1, 2).view(B, C, H, W).contiguous()
        xn = self.act1(xn)
        x = self.drop(xn)
        x_s = x.reshape(B, C, H * W).contiguous()
        x = x_s.transpose(1, 2)
        x = self.drop(x)
        x = self.fc2(x)
        x = self.dwconv1(x, H, W)
        x = self.drop(x)
        x += x1
        x = x + self.drop_path(x)
        return x


class OverlapPatchEmbed(nn.Module):
    def __init__(self, stride=2, in_chans=3, embed_dim=768):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=1, stride=stride,)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        x = self.proj(x)
        _, _, H, W = x.shape
        x = x.flatten(2).transpose(1, 2)
        x = self.norm(x)
        return x, H, W


class UCM_Net(nn.Module):
    def __init__(self, num_classes=1, embed_dims=[8, 16, 24, 3]):
        super().__init__()
        self.encoder1 = nn.Conv2d(embed_dims[-1], embed_dims[0], 3, stride=1, padding=1)
        self.ebn1 = nn.GroupNorm(4, embed_dims[0])
        self.patch_embed1 = OverlapPatchEmbed(stride=2, in_chans=embed_dims[0], embed_dim=embed_dims[1])
        self.block_0_1 = nn.ModuleList([UCMBlock(dim=embed_dims[1])])
        self.norm1 = nn.LayerNorm(embed_dims[1])
        self.patch_embed2 = OverlapPatchEmbed(stride=2, in_chans=embed_dims[1], embed_dim=embed_dims[2])
        self.block0 = nn.ModuleList([UCMBlock(dim=embed_dims[2])])
        self.norm2 = nn.LayerNorm(embed_dims[2])
        self.decoder3 = nn.Conv2d(embed_dims[2], embed_dims[1], 1, stride=1, padding=0)
        self.dbn3 = nn.GroupNorm(4, embed_dims[1])
        self.dblock3 = nn.ModuleList([UCMBlock(dim=embed_dims[1])])
        self.dnorm5 = nn.LayerNorm(embed_dims[1])
        self.final = nn.Conv2d(embed_dims[1], num_classes, kernel_size=1)

    def forward(self, x):
        B = x.shape[0]
        out = self.encoder1(x)
        out = F.relu(F.max_pool2d(self.ebn1(out), 2, 2))
        out, H, W = self.patch_embed1(out)
        for i, blk in enumerate(self.block_0_1):
            out = blk(out, H, W)
        out = self.norm1(out)
        out = out.reshape(B, H, W, -1).permute(0, 3, 1, 2).contiguous()
        t2 = out
        out, H, W = self.patch_embed2(out)
        for i, blk in enumerate(self.block0):
            out = blk(out, H, W)
        out = self.norm2(out)
        out = out.reshape(B, H, W, -1).permute(0, 3, 1, 2).contiguous()
        out = F.relu(F.interpolate(self.dbn3(self.decoder3(out)), scale_factor=(2, 2), mode='bilinear'))
        out = torch.add(out, t2)
        _, _, H, W = out.shape
        out = out.flatten(2).transpose(1, 2)
        for i, blk in enumerate(self.dblock3):
            out = blk(out, H, W)
        out = self.dnorm5(out)
        out = out.reshape(B, H, W, -1).permute(0, 3, 1, 2).contiguous()
        out = F.interpolate(out, scale_factor=(4, 4), mode='bilinear')
        return self.final(out)


def make_model():
    return UCM_Net(num_classes=1).eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
