"""CoCosNet (exemplar-based image translation) correspondence network: the warp computes
`feature_height = int(image_height / self.opt.down)` from the input size and softmaxes
`f_WTA.squeeze()` before viewing the warped colors back to (batch, channel, feature_height, feature_width).
OpenVINO's Open Model Zoo patches the source before its ONNX conversion (`/ self.opt.down)` ->
`// self.opt.down)`, and `.squeeze()` -> `.squeeze(dim=0)` because "MO can only convert Squeeze with
fixed dimensions"): the float division + int() of a size and the rank-dependent squeeze do not export
as shape computations.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/master/models/public/cocosnet/model.yml
"""
import sys
from types import SimpleNamespace

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"ref_img": {0: "batch", 2: "height", 3: "width"},
           "seg_map": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"


def feature_normalize(feature_in):
    feature_in_norm = torch.norm(feature_in, 2, 1, keepdim=True) + sys.float_info.epsilon
    feature_in_norm = torch.div(feature_in, feature_in_norm)
    return feature_in_norm


def _adaptive(in_c, out_c):
    # stands in for the VGG-like adaptive feature encoders (downsample by 4)
    return nn.Sequential(nn.Conv2d(in_c, out_c, 3, 2, 1), nn.LeakyReLU(0.2),
                         nn.Conv2d(out_c, out_c, 3, 2, 1))


class NoVGGCorrespondence(nn.Module):
    def __init__(self, label_nc=8, feature_channel=16):
        super().__init__()
        self.opt = SimpleNamespace(down=4, match_kernel=1, PONO_C=True, warp_patch=False)
        self.inter_channels = 32
        self.adaptive_model_seg = _adaptive(label_nc, feature_channel)
        self.adaptive_model_img = _adaptive(3, feature_channel)
        self.layer = nn.Conv2d(feature_channel, feature_channel, 3, 1, 1)
        self.phi = nn.Conv2d(feature_channel, self.inter_channels, 1)
        self.theta = nn.Conv2d(feature_channel, self.inter_channels, 1)
        self.upsampling = nn.Upsample(scale_factor=self.opt.down)
        self.temperature = 0.01

    def forward(self, ref_img, seg_map):
        temperature = self.temperature  # forward(..., temperature=0.01) default in CoCosNet
        batch_size = ref_img.shape[0]
        image_height = ref_img.shape[2]
        image_width = ref_img.shape[3]
        feature_height = int(image_height / self.opt.down)
        feature_width = int(image_width / self.opt.down)

        adaptive_feature_seg = feature_normalize(self.adaptive_model_seg(seg_map))
        adaptive_feature_img = feature_normalize(self.adaptive_model_img(ref_img))
        cont_features = self.layer(adaptive_feature_seg)
        ref_features = self.layer(adaptive_feature_img)

        theta = self.theta(cont_features)
        theta = theta.view(batch_size, self.inter_channels, -1)
        dim_mean = 1 if self.opt.PONO_C else -1
        theta = theta - theta.mean(dim=dim_mean, keepdim=True)
        theta_norm = torch.norm(theta, 2, 1, keepdim=True) + sys.float_info.epsilon
        theta = torch.div(theta, theta_norm)
        theta_permute = theta.permute(0, 2, 1)
        phi = self.phi(ref_features)
        phi = phi.view(batch_size, self.inter_channels, -1)
        phi = phi - phi.mean(dim=dim_mean, keepdim=True)
        phi_norm = torch.norm(phi, 2, 1, keepdim=True) + sys.float_info.epsilon
        phi = torch.div(phi, phi_norm)

        f = torch.matmul(theta_permute, phi)
        f_WTA = f / temperature
        f_div_C = F.softmax(f_WTA.squeeze(), dim=-1)

        ref = F.avg_pool2d(ref_img, self.opt.down)
        channel = ref.shape[1]
        ref = ref.view(batch_size, channel, -1)
        ref = ref.permute(0, 2, 1)

        y = torch.matmul(f_div_C, ref)
        y = y.permute(0, 2, 1).contiguous()
        y = y.view(batch_size, channel, feature_height, feature_width)
        return self.upsampling(y)


def make_model():
    return NoVGGCorrespondence().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64), torch.rand(2, 8, 64, 64))


def other_inputs():
    return [(torch.randn(3, 3, 48, 80), torch.rand(3, 8, 48, 80)),
            (torch.randn(1, 3, 72, 56), torch.rand(1, 8, 72, 56))]


def probe_inputs():
    return other_inputs()
