"""TAO Deformable-DETR GC-ViT backbone: `activation_checkpoint=True` is the constructor default, and
`forward_tokens` ran every level through `checkpoint.checkpoint(level, x, use_reentrant=True)` whenever it was
set, also on the eval model handed to ONNX export. TAO later guards it with
`if torch.onnx.is_in_onnx_export() or not self.activation_checkpoint:` under the comment "Disable activation
checkpointing during ONNX export" (the reentrant checkpoint is an autograd.Function the tracer cannot export).
Reduced to a patch-embedding stem and two small levels (MLP blocks + strided reduction).

Source: https://github.com/NVIDIA/tao_pytorch_backend/blob/3a8a971b817d9bcffb64bc17359d91f0dce4262e/nvidia_tao_pytorch/cv/deformable_detr/model/gc_vit.py
"""
import torch
from torch import nn
import torch.utils.checkpoint as checkpoint

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-85"


class PatchEmbed(nn.Module):
    def __init__(self, in_chans=3, dim=16):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, dim, 3, 4, 1)

    def forward(self, x):
        return self.proj(x).permute(0, 2, 3, 1)  # B, H, W, C


class Mlp(nn.Module):
    def __init__(self, dim, mlp_ratio=2.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, int(dim * mlp_ratio))
        self.act = nn.GELU()
        self.fc2 = nn.Linear(int(dim * mlp_ratio), dim)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class ReduceSize(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Conv2d(dim, 2 * dim, 3, 2, 1, bias=False)
        self.norm = nn.LayerNorm(2 * dim)

    def forward(self, x):
        x = self.reduction(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
        return self.norm(x)


class GCViTLayer(nn.Module):
    def __init__(self, dim, depth, downsample=True):
        super().__init__()
        self.blocks = nn.ModuleList([Mlp(dim) for _ in range(depth)])
        self.downsample = None if not downsample else ReduceSize(dim)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        if self.downsample is None:
            return x, x
        return self.downsample(x), x


class GCViT(nn.Module):
    def __init__(self, dim=16, depths=(1, 1), out_indices=(0, 1), activation_checkpoint=True):
        super().__init__()
        self.num_levels = len(depths)
        self.num_features = [int(dim * 2 ** i) for i in range(self.num_levels)]
        self.activation_checkpoint = activation_checkpoint
        self.patch_embed = PatchEmbed(in_chans=3, dim=dim)
        self.levels = nn.ModuleList()
        for i in range(len(depths)):
            self.levels.append(GCViTLayer(dim=int(dim * 2 ** i), depth=depths[i],
                                          downsample=(i < len(depths) - 1)))
        self.out_indices = out_indices
        for i_layer in self.out_indices:
            self.add_module(f'norm{i_layer}', nn.LayerNorm(self.num_features[i_layer]))

    def forward_embeddings(self, x):
        """Compute patch embedding"""
        x = self.patch_embed(x)
        return x

    def forward_tokens(self, x):
        """Returns features with normalization"""
        outs = {}
        for idx, level in enumerate(self.levels):
            if not self.activation_checkpoint:
                x, xo = level(x)
            else:
                x, xo = checkpoint.checkpoint(level, x, use_reentrant=True)

            if idx in self.out_indices:
                norm_layer = getattr(self, f'norm{idx}')
                x_out = norm_layer(xo)
                outs[f'p{idx}'] = x_out.permute(0, 3, 1, 2).contiguous()
        return outs

    def forward(self, x):
        """Forward function"""
        x = self.forward_embeddings(x)
        return self.forward_tokens(x)


class BackboneForExport(nn.Module):
    """The detector consumes the multi-scale features in order."""

    def __init__(self):
        super().__init__()
        self.backbone = GCViT()

    def forward(self, x):
        outs = self.backbone(x)
        return outs['p0'], outs['p1']


def make_model():
    return BackboneForExport().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 80),), (torch.randn(1, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()
