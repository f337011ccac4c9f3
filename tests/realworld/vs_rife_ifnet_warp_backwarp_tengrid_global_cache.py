"""RIFE v4.x IFNet as packaged in vs-rife: `warplayer.warp` keeps a module-level dict `backwarp_tenGrid` keyed by
`(str(tenFlow.device), str(tenFlow.size()))` and builds the linspace sampling grid only on a cache miss, so the
exported graph is tied to the first frame size; the commit that added dynamic-shape (TensorRT) export had to drop
the cache and pass `tenFlow_div`/`backwarp_tenGrid` in as inputs.

Source: https://github.com/HolyWu/vs-rife/commit/9a6fa2036c49a3d78a0fed3be2236fb41241a1be
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"img0": {2: "height", 3: "width"}, "img1": {2: "height", 3: "width"},
           "timestep": {2: "height", 3: "width"}}
BLIND = "domains-38"

backwarp_tenGrid = {}


def warp(tenInput, tenFlow):
    k = (str(tenFlow.device), str(tenFlow.size()))
    if k not in backwarp_tenGrid:
        tenHorizontal = torch.linspace(-1.0, 1.0, tenFlow.shape[3], dtype=tenFlow.dtype, device=tenFlow.device).view(
            1, 1, 1, tenFlow.shape[3]).expand(tenFlow.shape[0], -1, tenFlow.shape[2], -1)
        tenVertical = torch.linspace(-1.0, 1.0, tenFlow.shape[2], dtype=tenFlow.dtype, device=tenFlow.device).view(
            1, 1, tenFlow.shape[2], 1).expand(tenFlow.shape[0], -1, -1, tenFlow.shape[3])
        backwarp_tenGrid[k] = torch.cat(
            [tenHorizontal, tenVertical], 1)

    tenFlow = torch.cat([tenFlow[:, 0:1, :, :] / ((tenInput.shape[3] - 1.0) / 2.0),
                         tenFlow[:, 1:2, :, :] / ((tenInput.shape[2] - 1.0) / 2.0)], 1)

    g = (backwarp_tenGrid[k] + tenFlow).permute(0, 2, 3, 1)
    return torch.nn.functional.grid_sample(input=tenInput, grid=g, mode='bilinear', padding_mode='border', align_corners=True)


def conv(in_planes, out_planes, kernel_size=3, stride=1, padding=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(in_planes, out_planes, kernel_size=kernel_size, stride=stride,
                  padding=padding, dilation=dilation, bias=True),
        nn.LeakyReLU(0.2, True)
    )


class IFBlock(nn.Module):
    def __init__(self, in_planes, c=16):
        super(IFBlock, self).__init__()
        self.conv0 = nn.Sequential(conv(in_planes, c // 2, 3, 2, 1), conv(c // 2, c, 3, 2, 1))
        self.convblock = nn.Sequential(conv(c, c), conv(c, c))
        self.lastconv = nn.Sequential(nn.ConvTranspose2d(c, 4 * 5, 4, 2, 1), nn.PixelShuffle(2))

    def forward(self, x, flow=None, scale=1):
        x = F.interpolate(x, scale_factor=1. / scale, mode="bilinear")
        if flow is not None:
            flow = F.interpolate(flow, scale_factor=1. / scale, mode="bilinear") / scale
            x = torch.cat((x, flow), 1)
        feat = self.conv0(x)
        feat = self.convblock(feat)
        tmp = self.lastconv(feat)
        tmp = F.interpolate(tmp, scale_factor=scale, mode="bilinear")
        flow = tmp[:, :4] * scale
        mask = tmp[:, 4:5]
        return flow, mask


class IFNet(nn.Module):
    def __init__(self, scale=1):
        super(IFNet, self).__init__()
        self.block0 = IFBlock(7, c=16)
        self.block1 = IFBlock(8 + 4, c=16)
        self.scale_list = [2 / scale, 1 / scale]

    def forward(self, img0, img1, timestep):
        warped_img0 = img0
        warped_img1 = img1
        flow = None
        mask = None
        block = [self.block0, self.block1]
        for i in range(2):
            if flow is None:
                flow, mask = block[i](torch.cat((img0[:, :3], img1[:, :3], timestep), 1), None, scale=self.scale_list[i])
            else:
                fd, m0 = block[i](torch.cat((warped_img0[:, :3], warped_img1[:, :3], timestep, mask), 1), flow,
                                  scale=self.scale_list[i])
                mask = m0
                flow = flow + fd
            warped_img0 = warp(img0, flow[:, :2])
            warped_img1 = warp(img1, flow[:, 2:4])
        mask = torch.sigmoid(mask)
        return warped_img0 * mask + warped_img1 * (1 - mask)


def make_model():
    return IFNet().eval()


def _pair(h, w):
    return (torch.rand(1, 3, h, w), torch.rand(1, 3, h, w), torch.full((1, 1, h, w), 0.5))


def example_inputs():
    return _pair(64, 64)


def other_inputs():
    return [_pair(64, 96), _pair(96, 32)]


def probe_inputs():
    return other_inputs()
