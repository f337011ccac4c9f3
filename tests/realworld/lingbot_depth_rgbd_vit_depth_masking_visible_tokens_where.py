"""LingBot-Depth (RGB-D depth completion ViT): `prepare_tokens_with_masks` embeds image and depth patches, then
`depth_masking` drops the depth tokens whose patch has no valid depth (`visible_indices = torch.where(valid_mask)[0]`,
`x[i, visible_indices]`) sample by sample, so each sample's token sequence [cls, image tokens, visible depth tokens]
has a length that depends on the depth values; the report says ONNX export failed outright because the number of input
depth tokens changes, and only worked after rewriting to a fixed maximum token count with padding.

Source: https://github.com/Robbyant/lingbot-depth/issues/12
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x_img": {0: "batch"}, "x_depth": {0: "batch"}}
BLIND = "domains-51"


def _compute_depth_invalid_mask(depth_values, H_patch, W_patch, threshold_ratio, threshold_num, valid_range):
    B, _, H_img, W_img = depth_values.shape
    N = H_patch * W_patch
    device = depth_values.device
    min_depth, max_depth = valid_range
    patch_h = H_img // H_patch
    patch_w = W_img // W_patch
    depth_reshaped = depth_values.view(B, 1, H_patch, patch_h, W_patch, patch_w)
    depth_reshaped = depth_reshaped.permute(0, 2, 4, 1, 3, 5).reshape(B, N, -1)
    valid_depth = (depth_reshaped >= min_depth) & (depth_reshaped <= max_depth)
    valid_depth_ratio = valid_depth.float().mean(dim=-1)  # [B, N]
    valid_depth_num = valid_depth.float().sum(dim=-1)  # [B, N]
    # Handle list-form thresholds (different thresholds for each sample in batch)
    if isinstance(threshold_ratio, list) or isinstance(threshold_num, list):
        invalid_mask = torch.zeros(B, N, dtype=torch.bool, device=device)
        for i in range(B):
            tr = threshold_ratio[i] if isinstance(threshold_ratio, list) else threshold_ratio
            tn = threshold_num[i] if isinstance(threshold_num, list) else threshold_num
            sample_mask = torch.zeros(N, dtype=torch.bool, device=device)
            if tr is not None:
                sample_mask |= (valid_depth_ratio[i] < tr)
            if tn is not None:
                sample_mask |= (valid_depth_num[i] < tn)
            invalid_mask[i] = sample_mask
    else:
        invalid_mask = torch.zeros(B, N, dtype=torch.bool, device=device)
        if threshold_ratio is not None:
            invalid_mask |= (valid_depth_ratio < threshold_ratio)
        if threshold_num is not None:
            invalid_mask |= (valid_depth_num < threshold_num)
    return invalid_mask


def depth_masking(x, patch_num_h, patch_num_w, depth_values, depth_mask_threshold_ratio=None,
                  depth_mask_threshold_num=None, valid_depth_range=(0.1, 10.0)):
    B, N, D = x.shape
    depth_invalid_mask = _compute_depth_invalid_mask(
        depth_values, patch_num_h, patch_num_w, depth_mask_threshold_ratio, depth_mask_threshold_num,
        valid_depth_range)  # [B, N], True indicates this patch is invalid
    visible_list = []
    mask_info = {'visible_indices': [], 'num_visible': []}
    for i in range(B):
        valid_mask = ~depth_invalid_mask[i]  # [N]
        visible_indices = torch.where(valid_mask)[0]
        visible = x[i, visible_indices]  # [N_visible, D]
        visible_list.append(visible)
        mask_info['visible_indices'].append(visible_indices)
        mask_info['num_visible'].append(len(visible_indices))
    return visible_list, mask_info


class RGBDViT(nn.Module):
    # trimmed DinoVisionTransformer (rgbd, cat_token mode) + a small depth head on the image tokens
    def __init__(self, patch_size=8, embed_dim=32, num_patches=16, depth=2):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Conv2d(3, embed_dim, patch_size, patch_size)
        self.depth_patch_embed = nn.Conv2d(1, embed_dim, patch_size, patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.blocks = nn.ModuleList(
            [nn.TransformerEncoderLayer(embed_dim, 2, 64, dropout=0.0, batch_first=True) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Conv2d(embed_dim, 1, 3, padding=1)

    def prepare_tokens_with_masks(self, x_img, x_depth):
        B, nc, h_img, w_img = x_img.shape
        _, _, h_depth, w_depth = x_depth.shape
        x_depth_raw = x_depth.clone()
        x_depth_raw[x_depth_raw == 0] = -10
        depth_patch_num_h, depth_patch_num_w = h_depth // self.patch_size, w_depth // self.patch_size

        x_img = self.patch_embed(x_img).flatten(2).transpose(1, 2)  # batch, length_img, dim
        x_depth = self.depth_patch_embed(x_depth).flatten(2).transpose(1, 2)  # batch, length_depth, dim
        x_img = x_img + 1 + self.pos_embed[:, 1:]
        x_depth = x_depth + 2 + self.pos_embed[:, 1:]

        ## mask depth tokens
        x_depth_masked, depth_mask_info = depth_masking(
            x_depth, depth_patch_num_h, depth_patch_num_w, depth_values=x_depth_raw,
            depth_mask_threshold_num=[1] * B, valid_depth_range=(-9.5, 200.0))

        x_cls = self.cls_token.squeeze(0) + self.pos_embed.squeeze(0)[:1]  # 1, dim
        x_masked_list = []
        for i in range(B):
            x_mased = torch.cat([x_cls, x_img[i], x_depth_masked[i]], dim=0)  # 1 + length_img + length_depth, dim
            x_masked_list.append(x_mased.unsqueeze(0))
        return x_masked_list

    def forward(self, x_img, x_depth):
        B, _, H, W = x_img.shape
        h, w = H // self.patch_size, W // self.patch_size
        x_list = self.prepare_tokens_with_masks(x_img, x_depth)
        outs = []
        for x in x_list:  # samples have different token counts
            for blk in self.blocks:
                x = blk(x)
            outs.append(self.norm(x)[:, 1:1 + h * w])
        feat = torch.cat(outs, dim=0).transpose(1, 2).reshape(B, -1, h, w)
        depth = self.head(F.interpolate(feat, size=(H, W), mode='bilinear', align_corners=False))
        return F.relu(depth)


def make_model():
    return RGBDViT().eval()


def _inputs(b, hole):
    img = torch.rand(b, 3, 32, 32)
    depth = torch.rand(b, 1, 32, 32) * 5.0
    depth[:, :, :hole, :] = 0  # missing depth rows -> invalid depth patches
    return img, depth


def example_inputs():
    return _inputs(2, 8)


def other_inputs():
    return [_inputs(3, 16), _inputs(1, 0)]


def probe_inputs():
    return other_inputs()
