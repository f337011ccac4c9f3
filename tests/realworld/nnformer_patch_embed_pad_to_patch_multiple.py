"""nnFormer (3D medical image segmentation): exporting the network (the repo traces it for its
architecture plot) prints TracerWarnings "Converting a tensor to a Python boolean" on the
PatchEmbed padding branches `if W % self.patch_size[2] != 0:` / `if H % ...` / `if S % ...`, so the
pad-to-patch-multiple decision is frozen at the traced volume size.

Source: https://github.com/282857341/nnFormer/issues/58
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
BLIND = "domains-30"


def to_3tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x, x, x)


class project(nn.Module):
    def __init__(self,in_dim,out_dim,stride,padding,activate,norm,last=False):
        super().__init__()
        self.out_dim=out_dim
        self.conv1=nn.Conv3d(in_dim,out_dim,kernel_size=3,stride=stride,padding=padding)
        self.conv2=nn.Conv3d(out_dim,out_dim,kernel_size=3,stride=1,padding=1)
        self.activate=activate()
        self.norm1=norm(out_dim)
        self.last=last
        if not last:
            self.norm2=norm(out_dim)

    def forward(self,x):
        x=self.conv1(x)
        x=self.activate(x)
        #norm1
        Ws, Wh, Ww = x.size(2), x.size(3), x.size(4)
        x = x.flatten(2).transpose(1, 2).contiguous()
        x = self.norm1(x)
        x = x.transpose(1, 2).contiguous().view(-1, self.out_dim, Ws, Wh, Ww)

        x=self.conv2(x)
        if not self.last:
            x=self.activate(x)
            #norm2
            Ws, Wh, Ww = x.size(2), x.size(3), x.size(4)
            x = x.flatten(2).transpose(1, 2).contiguous()
            x = self.norm2(x)
            x = x.transpose(1, 2).contiguous().view(-1, self.out_dim, Ws, Wh, Ww)
        return x


class PatchEmbed(nn.Module):

    def __init__(self, patch_size=4, in_chans=4, embed_dim=96, norm_layer=None):
        super().__init__()
        patch_size = to_3tuple(patch_size)
        self.patch_size = patch_size

        self.in_chans = in_chans
        self.embed_dim = embed_dim
        stride1=[patch_size[0],patch_size[1]//2,patch_size[2]//2]
        stride2=[patch_size[0]//2,patch_size[1]//2,patch_size[2]//2]
        self.proj1 = project(in_chans,embed_dim//2,stride1,1,nn.GELU,nn.LayerNorm,False)
        self.proj2 = project(embed_dim//2,embed_dim,stride2,1,nn.GELU,nn.LayerNorm,True)
        if norm_layer is not None:
            self.norm = norm_layer(embed_dim)
        else:
            self.norm = None

    def forward(self, x):
        """Forward function."""
        # padding
        _, _, S, H, W = x.size()
        if W % self.patch_size[2] != 0:
            x = F.pad(x, (0, self.patch_size[2] - W % self.patch_size[2]))
        if H % self.patch_size[1] != 0:
            x = F.pad(x, (0, 0, 0, self.patch_size[1] - H % self.patch_size[1]))
        if S % self.patch_size[0] != 0:
            x = F.pad(x, (0, 0, 0, 0, 0, self.patch_size[0] - S % self.patch_size[0]))
        x = self.proj1(x)  # B C Ws Wh Ww
        x = self.proj2(x)  # B C Ws Wh Ww
        if self.norm is not None:
            Ws, Wh, Ww = x.size(2), x.size(3), x.size(4)
            x = x.flatten(2).transpose(1, 2).contiguous()
            x = self.norm(x)
            x = x.transpose(1, 2).contiguous().view(-1, self.embed_dim, Ws, Wh, Ww)

        return x


class final_patch_expanding(nn.Module):
    def __init__(self,dim,num_class,patch_size):
        super().__init__()
        self.up=nn.ConvTranspose3d(dim,num_class,patch_size,patch_size)

    def forward(self,x):
        x=x.permute(0,4,1,2,3).contiguous()
        x=self.up(x)
        return x


class nnFormerStem(nn.Module):
    """Patch embedding of nnFormer's encoder followed by its final patch-expanding head."""

    def __init__(self, input_channels=1, embed_dim=32, num_classes=4, patch_size=[2, 4, 4]):
        super().__init__()
        self.patch_embed = PatchEmbed(patch_size=patch_size, in_chans=input_channels,
                                      embed_dim=embed_dim, norm_layer=nn.LayerNorm)
        self.final = final_patch_expanding(embed_dim, num_classes, patch_size=patch_size)

    def forward(self, x):
        x = self.patch_embed(x)
        x = x.permute(0, 2, 3, 4, 1).contiguous()
        return self.final(x)


def make_model():
    return nnFormerStem().eval()


def example_inputs():
    return (torch.randn(1, 1, 16, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 1, 14, 30, 26),), (torch.randn(1, 1, 20, 40, 36),)]


def probe_inputs():
    return other_inputs()
