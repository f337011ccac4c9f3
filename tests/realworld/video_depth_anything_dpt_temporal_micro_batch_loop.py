"""Video Depth Anything, DPTHeadTemporal.forward: after the temporal motion modules the head decodes the
`batch_size = B*T` frames either in one pass or, when `batch_size > micro_batch_size` and divisible by it, in a
Python `for i in range(0, batch_size, micro_batch_size)` loop over frame slices; the report exports the
single-pass depth model with `dynamic_shapes` (torch.export / AOTInductor) and gets degraded output.
DINOv2 is replaced by a stride-14 patch embedding and the motion module by a small temporal attention.

Source: https://github.com/pytorch/pytorch/issues/147475
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "domains-50"


class TemporalModule(nn.Module):
    def __init__(self, in_channels, num_attention_heads=2, temporal_max_len=32):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, temporal_max_len, in_channels) * 0.02)
        self.attn = nn.MultiheadAttention(in_channels, num_attention_heads, batch_first=True)

    def forward(self, x):
        # x: (B, C, T, h, w)
        b, c, t, h, w = x.shape
        y = x.permute(0, 3, 4, 2, 1).reshape(b * h * w, t, c)
        y = y + self.pos[:, :t]
        y = y + self.attn(y, y, y, need_weights=False)[0]
        return y.reshape(b, h, w, t, c).permute(0, 4, 3, 1, 2)


class FeatureFusionBlock(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.res = nn.Conv2d(features, features, 3, padding=1)
        self.out_conv = nn.Conv2d(features, features, 1)

    def forward(self, *xs, size=None):
        output = xs[0]
        if len(xs) == 2:
            output = output + self.res(xs[1])
        if size is None:
            modifier = {"scale_factor": 2}
        else:
            modifier = {"size": size}
        output = F.interpolate(output, **modifier, mode="bilinear", align_corners=True)
        return self.out_conv(output)


class Scratch(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.layer1_rn = nn.Conv2d(features, features, 3, padding=1)
        self.layer2_rn = nn.Conv2d(features, features, 3, padding=1)
        self.refinenet2 = FeatureFusionBlock(features)
        self.refinenet1 = FeatureFusionBlock(features)
        self.output_conv1 = nn.Conv2d(features, features // 2, 3, padding=1)
        self.output_conv2 = nn.Sequential(nn.Conv2d(features // 2, 8, 3, padding=1), nn.ReLU(True), nn.Conv2d(8, 1, 1), nn.ReLU(True))


class DPTHeadTemporal(nn.Module):
    def __init__(self, features=16):
        super().__init__()
        self.resize_layers = nn.ModuleList([nn.ConvTranspose2d(features, features, 2, stride=2), nn.Identity()])
        self.scratch = Scratch(features)
        self.motion_modules = nn.ModuleList([TemporalModule(features), TemporalModule(features)])

    def forward(self, out_features, patch_h, patch_w, frame_length, micro_batch_size=4):
        layer_1, layer_2 = [self.resize_layers[i](x) for i, x in enumerate(out_features)]
        B, T = layer_1.shape[0] // frame_length, frame_length

        layer_2 = self.motion_modules[0](layer_2.unflatten(0, (B, T)).permute(0, 2, 1, 3, 4))
        layer_2 = layer_2.permute(0, 2, 1, 3, 4).flatten(0, 1)
        layer_1_rn = self.scratch.layer1_rn(layer_1)
        layer_2_rn = self.scratch.layer2_rn(layer_2)
        path_3 = self.motion_modules[1](layer_2_rn.unflatten(0, (B, T)).permute(0, 2, 1, 3, 4))
        path_3 = path_3.permute(0, 2, 1, 3, 4).flatten(0, 1)

        batch_size = layer_1_rn.shape[0]
        if batch_size <= micro_batch_size or batch_size % micro_batch_size != 0:
            path_2 = self.scratch.refinenet2(path_3, layer_2_rn, size=layer_1_rn.shape[2:])
            path_1 = self.scratch.refinenet1(path_2, layer_1_rn)
            out = self.scratch.output_conv1(path_1)
            out = F.interpolate(out, (int(patch_h * 14), int(patch_w * 14)), mode="bilinear", align_corners=True)
            ori_type = out.dtype
            with torch.autocast(device_type="cuda", enabled=False):
                out = self.scratch.output_conv2(out.float())
            output = out.to(ori_type)
        else:
            ret = []
            for i in range(0, batch_size, micro_batch_size):
                path_2 = self.scratch.refinenet2(path_3[i:i + micro_batch_size], layer_2_rn[i:i + micro_batch_size], size=layer_1_rn[i:i + micro_batch_size].shape[2:])
                path_1 = self.scratch.refinenet1(path_2, layer_1_rn[i:i + micro_batch_size])
                out = self.scratch.output_conv1(path_1)
                out = F.interpolate(out, (int(patch_h * 14), int(patch_w * 14)), mode="bilinear", align_corners=True)
                ori_type = out.dtype
                with torch.autocast(device_type="cuda", enabled=False):
                    out = self.scratch.output_conv2(out.float())
                ret.append(out.to(ori_type))
            output = torch.cat(ret, dim=0)
        return output


class VideoDepthAnything(nn.Module):
    def __init__(self, features=16):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, features, kernel_size=14, stride=14)
        self.down = nn.Conv2d(features, features, 3, stride=2, padding=1)
        self.head = DPTHeadTemporal(features)

    def forward(self, x):
        B, T, C, H, W = x.shape
        patch_h, patch_w = H // 14, W // 14
        f = self.patch_embed(x.flatten(0, 1))
        features = [f, self.down(f)]
        depth = self.head(features, patch_h, patch_w, T)
        depth = F.interpolate(depth, size=(H, W), mode="bilinear", align_corners=True)
        depth = F.relu(depth)
        return depth.squeeze(1).unflatten(0, (B, T))


def make_model():
    return VideoDepthAnything().eval()


def example_inputs():
    return (torch.randn(1, 8, 3, 56, 56),)


def other_inputs():
    return [(torch.randn(1, 12, 3, 56, 56),), (torch.randn(2, 3, 3, 56, 56),)]


def probe_inputs():
    return other_inputs()
