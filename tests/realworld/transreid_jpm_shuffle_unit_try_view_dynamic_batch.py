"""TransReID (vehicle/person re-identification, deit_transreid_veri with SIE camera/view embeddings and the JPM
branch) exported with a dynamic batch for image, cam_label and view_label. The JPM `shuffle_unit` tries
`x.view(batchsize, group, -1, dim)` inside try/except and, when the patch count is odd, falls back to padding one
token and viewing again; the user reports the export stops without error and writes no ONNX file (the legacy exporter dies in
the traced try/except view; torch.export cannot decide the guard of the failing view for a symbolic batch).
(ViT depth and width reduced; image 64x64 with stride 12 gives 25 patches, odd like the 441 of the 256x256 model.)

Source: https://github.com/damo-cv/TransReID/issues/92
"""
import copy

import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch"}, "cam_label": {0: "batch"}, "view_label": {0: "batch"}}
BLIND = "domains-43"


def shuffle_unit(features, shift, group, begin=1):

    batchsize = features.size(0)
    dim = features.size(-1)
    # Shift Operation
    feature_random = torch.cat([features[:, begin-1+shift:], features[:, begin:begin-1+shift]], dim=1)
    x = feature_random
    # Patch Shuffle Operation
    try:
        x = x.view(batchsize, group, -1, dim)
    except:
        x = torch.cat([x, x[:, -2:-1, :]], dim=1)
        x = x.view(batchsize, group, -1, dim)

    x = torch.transpose(x, 1, 2).contiguous()
    x = x.view(batchsize, -1, dim)

    return x


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU, drop=0.):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        x = self.drop(x)
        x = self.fc2(x)
        x = self.drop(x)
        return x


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0., proj_drop=0.):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = qk_scale or head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]   # make torchscript happy (cannot use tensor as tuple)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4., qkv_bias=False, norm_layer=nn.LayerNorm):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.drop_path = nn.Identity()
        self.norm2 = norm_layer(dim)
        mlp_hidden_dim = int(dim * mlp_ratio)
        self.mlp = Mlp(in_features=dim, hidden_features=mlp_hidden_dim)

    def forward(self, x):
        x = x + self.drop_path(self.attn(self.norm1(x)))
        x = x + self.drop_path(self.mlp(self.norm2(x)))
        return x


class PatchEmbed_overlap(nn.Module):
    def __init__(self, img_size=64, patch_size=16, stride_size=12, in_chans=3, embed_dim=64):
        super().__init__()
        self.num_x = (img_size - patch_size) // stride_size + 1
        self.num_y = (img_size - patch_size) // stride_size + 1
        self.num_patches = self.num_x * self.num_y
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=stride_size)

    def forward(self, x):
        B, C, H, W = x.shape
        x = self.proj(x)
        x = x.flatten(2).transpose(1, 2) # [64, 8, 768]
        return x


class TransReID(nn.Module):
    def __init__(self, embed_dim=64, depth=3, num_heads=4, camera=20, view=2, sie_xishu=3.0):
        super().__init__()
        self.patch_embed = PatchEmbed_overlap(embed_dim=embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * .02)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * .02)
        self.cam_num = camera
        self.view_num = view
        self.sie_xishu = sie_xishu
        self.sie_embed = nn.Parameter(torch.randn(camera * view, 1, embed_dim) * .02)
        self.pos_drop = nn.Dropout(p=0.0)
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads) for i in range(depth)])
        self.norm = nn.LayerNorm(embed_dim)

    def forward_features(self, x, camera_id, view_id):
        B = x.shape[0]
        x = self.patch_embed(x)

        cls_tokens = self.cls_token.expand(B, -1, -1)  # stole cls_tokens impl from Phil Wang, thanks
        x = torch.cat((cls_tokens, x), dim=1)

        if self.cam_num > 0 and self.view_num > 0:
            x = x + self.pos_embed + self.sie_xishu * self.sie_embed[camera_id * self.view_num + view_id]
        elif self.cam_num > 0:
            x = x + self.pos_embed + self.sie_xishu * self.sie_embed[camera_id]
        else:
            x = x + self.pos_embed

        x = self.pos_drop(x)
        # local_feature (JPM): the last block is applied by the b1/b2 branches
        for blk in self.blocks[:-1]:
            x = blk(x)
        return x

    def forward(self, x, cam_label=None, view_label=None):
        return self.forward_features(x, cam_label, view_label)


class build_transformer_local(nn.Module):
    def __init__(self, shift_num=8, shuffle_groups=2, divide_length=4, rearrange=True):
        super(build_transformer_local, self).__init__()
        self.in_planes = 64
        self.neck_feat = 'before'
        self.base = TransReID(embed_dim=self.in_planes)
        block = self.base.blocks[-1]
        layer_norm = self.base.norm
        self.b1 = nn.Sequential(copy.deepcopy(block), copy.deepcopy(layer_norm))
        self.b2 = nn.Sequential(copy.deepcopy(block), copy.deepcopy(layer_norm))
        self.bottleneck = nn.BatchNorm1d(self.in_planes)
        self.shuffle_groups = shuffle_groups
        self.shift_num = shift_num
        self.divide_length = divide_length
        self.rearrange = rearrange

    def forward(self, x, cam_label= None, view_label=None):

        features = self.base(x, cam_label=cam_label, view_label=view_label)

        # global branch
        b1_feat = self.b1(features) # [64, 129, 768]
        global_feat = b1_feat[:, 0]

        # JPM branch
        feature_length = features.size(1) - 1
        patch_length = feature_length // self.divide_length
        token = features[:, 0:1]

        if self.rearrange:
            x = shuffle_unit(features, self.shift_num, self.shuffle_groups)
        else:
            x = features[:, 1:]
        # lf_1
        b1_local_feat = x[:, :patch_length]
        b1_local_feat = self.b2(torch.cat((token, b1_local_feat), dim=1))
        local_feat_1 = b1_local_feat[:, 0]

        # lf_2
        b2_local_feat = x[:, patch_length:patch_length*2]
        b2_local_feat = self.b2(torch.cat((token, b2_local_feat), dim=1))
        local_feat_2 = b2_local_feat[:, 0]

        # lf_3
        b3_local_feat = x[:, patch_length*2:patch_length*3]
        b3_local_feat = self.b2(torch.cat((token, b3_local_feat), dim=1))
        local_feat_3 = b3_local_feat[:, 0]

        # lf_4
        b4_local_feat = x[:, patch_length*3:patch_length*4]
        b4_local_feat = self.b2(torch.cat((token, b4_local_feat), dim=1))
        local_feat_4 = b4_local_feat[:, 0]

        return torch.cat(
            [global_feat, local_feat_1 / 4, local_feat_2 / 4, local_feat_3 / 4, local_feat_4 / 4], dim=1)


def make_model():
    return build_transformer_local().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64), torch.tensor([3, 7]), torch.tensor([0, 1]))


def other_inputs():
    return [(torch.randn(4, 3, 64, 64), torch.tensor([1, 0, 19, 5]), torch.tensor([1, 1, 0, 0])),
            (torch.randn(1, 3, 64, 64), torch.tensor([12]), torch.tensor([1]))]


def probe_inputs():
    return other_inputs()
