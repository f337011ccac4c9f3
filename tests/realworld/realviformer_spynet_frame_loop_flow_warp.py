"""RealViformer real-world video super-resolution: `forward` loops `for i in range(0, n)` over the frames of a
(b, n, c, h, w) clip, warping the propagated feature with SpyNet flow via BasicSR's `flow_warp` (meshgrid of
`torch.arange(0, h)`, `/ max(w - 1, 1)`); SpyNet picks its pyramid depth with `r = 5 if W > 2**5 else
int(math.log2(W) - 1)`, resizes to `math.ceil(w / 32.0) * 32.0` and rescales flow by `float(w) / float(w_floor)`.
A user converting it for a VapourSynth pipeline got an ONNX file out but could not run inference with it.

Source: https://github.com/Yuehan717/RealViformer/issues/1
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {1: "frames", 3: "height", 4: "width"}}
BLIND = "domains-42"


def flow_warp(x, flow, interp_mode='bilinear', padding_mode='zeros', align_corners=True):
    assert x.size()[-2:] == flow.size()[1:3]
    _, _, h, w = x.size()
    # create mesh grid
    grid_y, grid_x = torch.meshgrid(torch.arange(0, h).type_as(x), torch.arange(0, w).type_as(x))
    grid = torch.stack((grid_x, grid_y), 2).float()  # W(x), H(y), 2 current position
    grid.requires_grad = False

    vgrid = grid + flow  # for all n batches do the same  current position --> warped position
    # scale grid to [-1,1]
    vgrid_x = 2.0 * vgrid[:, :, :, 0] / max(w - 1, 1) - 1.0
    vgrid_y = 2.0 * vgrid[:, :, :, 1] / max(h - 1, 1) - 1.0
    vgrid_scaled = torch.stack((vgrid_x, vgrid_y), dim=3)
    output = F.grid_sample(x, vgrid_scaled, mode=interp_mode, padding_mode=padding_mode, align_corners=align_corners)
    return output


class BasicModule(nn.Module):
    # trimmed: the repo stacks five 7x7 convs 8->32->64->32->16->2
    def __init__(self):
        super(BasicModule, self).__init__()
        self.basic_module = nn.Sequential(
            nn.Conv2d(in_channels=8, out_channels=16, kernel_size=7, stride=1, padding=3), nn.ReLU(inplace=False),
            nn.Conv2d(in_channels=16, out_channels=2, kernel_size=7, stride=1, padding=3))

    def forward(self, tensor_input):
        return self.basic_module(tensor_input)


class SpyNet(nn.Module):
    def __init__(self, load_path=None):
        super(SpyNet, self).__init__()
        self.basic_module = nn.ModuleList([BasicModule() for _ in range(6)])
        self.register_buffer('mean', torch.Tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer('std', torch.Tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def preprocess(self, tensor_input):
        tensor_output = (tensor_input - self.mean) / self.std
        return tensor_output

    def process(self, ref, supp):
        flow = []
        W = ref.shape[-1]

        ref = [self.preprocess(ref)]
        supp = [self.preprocess(supp)]

        r = 5 if W > 2**5 else int(math.log2(W) - 1)

        for level in range(r):
            ref.insert(0, F.avg_pool2d(input=ref[0], kernel_size=2, stride=2, count_include_pad=False))
            supp.insert(0, F.avg_pool2d(input=supp[0], kernel_size=2, stride=2, count_include_pad=False))

        flow = ref[0].new_zeros(
            [ref[0].size(0), 2,
             int(math.floor(ref[0].size(2) / 2.0)),
             int(math.floor(ref[0].size(3) / 2.0))])

        for level in range(len(ref)):
            upsampled_flow = F.interpolate(input=flow, scale_factor=2, mode='bilinear', align_corners=True) * 2.0

            if upsampled_flow.size(2) != ref[level].size(2):
                upsampled_flow = F.pad(input=upsampled_flow, pad=[0, 0, 0, 1], mode='replicate')
            if upsampled_flow.size(3) != ref[level].size(3):
                upsampled_flow = F.pad(input=upsampled_flow, pad=[0, 1, 0, 0], mode='replicate')

            flow = self.basic_module[level](torch.cat([
                ref[level],
                flow_warp(
                    supp[level], upsampled_flow.permute(0, 2, 3, 1), interp_mode='bilinear', padding_mode='border'),
                upsampled_flow
            ], 1)) + upsampled_flow

        return flow

    def forward(self, ref, supp):
        assert ref.size() == supp.size()

        h, w = ref.size(2), ref.size(3)
        w_floor = math.floor(math.ceil(w / 32.0) * 32.0)
        h_floor = math.floor(math.ceil(h / 32.0) * 32.0)

        ref = F.interpolate(input=ref, size=(h_floor, w_floor), mode='bilinear', align_corners=False)
        supp = F.interpolate(input=supp, size=(h_floor, w_floor), mode='bilinear', align_corners=False)

        flow = F.interpolate(input=self.process(ref, supp), size=(h, w), mode='bilinear', align_corners=False)

        flow[:, 0, :, :] *= float(w) / float(w_floor)
        flow[:, 1, :, :] *= float(h) / float(h_floor)

        return flow


class RealViformer(nn.Module):
    # trimmed: the Restormer-style transformer U-Net and channel-attention merge become small conv stacks
    def __init__(self, num_feat=16):
        super().__init__()
        self.num_feat = num_feat
        self.shallow_extraction = nn.Sequential(nn.Conv2d(3, num_feat, 3, 1, 1), nn.LeakyReLU(0.1))
        self.spynet = SpyNet()
        self.attn_merge = nn.Conv2d(num_feat * 2, num_feat, 3, 1, 1)
        self.encoder_level1 = nn.Sequential(nn.Conv2d(num_feat, num_feat, 3, 1, 1), nn.GELU())
        self.down1_2 = nn.Sequential(nn.Conv2d(num_feat, num_feat // 2, 3, 1, 1), nn.PixelUnshuffle(2))
        self.latent = nn.Sequential(nn.Conv2d(num_feat * 2, num_feat * 2, 3, 1, 1), nn.GELU())
        self.up2_1 = nn.Sequential(nn.Conv2d(num_feat * 2, num_feat * 4, 3, 1, 1), nn.PixelShuffle(2))
        self.refinement = nn.Sequential(nn.Conv2d(num_feat * 2, num_feat * 2, 3, 1, 1), nn.GELU())
        self.compress = nn.Conv2d(num_feat * 2, num_feat, kernel_size=1, bias=True)
        self.upconv1 = nn.Conv2d(num_feat * 2, num_feat * 4, 3, 1, 1, bias=True)
        self.upconv2 = nn.Conv2d(num_feat, 16 * 4, 3, 1, 1, bias=True)
        self.conv_hr = nn.Conv2d(16, 16, 3, 1, 1)
        self.conv_last = nn.Conv2d(16, 3, 3, 1, 1)
        self.pixel_shuffle = nn.PixelShuffle(2)
        self.lrelu = nn.LeakyReLU(negative_slope=0.1, inplace=True)

    def get_flow(self, x):

        b, n, c, h, w = x.size()

        x_1 = x[:, :-1, :, :, :].reshape(-1, c, h, w)
        x_2 = x[:, 1:, :, :, :].reshape(-1, c, h, w)

        flows_forward = self.spynet(x_2, x_1).view(b, n - 1, 2, h, w)

        return flows_forward

    def forward(self, x, current_iter=None):
        b, n, _, h, w = x.size()
        flows_forward = self.get_flow(x.clone())

        out_l = []
        # forward branch
        feat_prop = x.new_zeros(b, self.num_feat, h, w)
        for i in range(0, n):
            x_i = x[:, i, :, :, :]
            feat_shallow = self.shallow_extraction(x_i)
            if i > 0:
                flow = flows_forward[:, i - 1, :, :, :]
                feat_prop = flow_warp(feat_prop, flow.permute(0, 2, 3, 1))
            ## alignment ##
            feat_prop = self.attn_merge(torch.cat([feat_shallow, feat_prop], 1))

            ## Propagation ##
            out_enc_level1 = self.encoder_level1(feat_prop)
            latent = self.latent(self.down1_2(out_enc_level1))
            inp_dec_level1 = torch.cat([self.up2_1(latent), out_enc_level1], 1)
            out = self.refinement(inp_dec_level1)
            feat_prop = self.compress(out)
            # upsample
            out = self.lrelu(self.pixel_shuffle(self.upconv1(out)))
            out = self.lrelu(self.pixel_shuffle(self.upconv2(out)))
            out = self.lrelu(self.conv_hr(out))
            out = self.conv_last(out)
            base = F.interpolate(x_i, scale_factor=4, mode='bilinear', align_corners=False)
            out += base

            out_l.append(out)

        return torch.stack(out_l, dim=1)


def make_model():
    return RealViformer().eval()


def example_inputs():
    return (torch.rand(1, 3, 3, 36, 44),)


def other_inputs():
    return [(torch.rand(1, 4, 3, 40, 48),), (torch.rand(1, 2, 3, 24, 32),)]


def probe_inputs():
    return other_inputs()
