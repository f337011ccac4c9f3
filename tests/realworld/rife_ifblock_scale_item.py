"""RIFE frame interpolation (IFNet, v4.x) packed for a single-input ONNX model: channels 0-5 are the two frames,
channel 6 the timestep and channel 7 the flow `scale`; each `IFBlock.forward` does
`try: scale = scale.item() except: pass` and then resizes with `scale_factor=1. / scale`, so the export keeps the
example's scale.

Source: https://github.com/styler00dollar/VSGAN-tensorrt-docker/issues/56
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"input": {2: "height", 3: "width"}}
BLIND = "domains-2"


def conv(in_planes, out_planes, kernel_size=3, stride=1, padding=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(in_planes, out_planes, kernel_size=kernel_size, stride=stride,
                  padding=padding, dilation=dilation, bias=True),
        nn.LeakyReLU(0.2, True),
    )


class IFBlock(nn.Module):
    def __init__(self, in_planes, c=16):
        super(IFBlock, self).__init__()
        self.conv0 = nn.Sequential(conv(in_planes, c // 2, 3, 2, 1), conv(c // 2, c, 3, 2, 1))
        self.convblock = nn.Sequential(conv(c, c), conv(c, c))
        self.lastconv = nn.Sequential(nn.ConvTranspose2d(c, 4 * 5, 4, 2, 1), nn.PixelShuffle(2))

    def forward(self, x, flow=None, scale=1):
        try:
            scale = scale.item()
        except:
            pass
        x = F.interpolate(x, scale_factor=1. / scale, mode="bilinear", align_corners=False)
        if flow is not None:
            flow = F.interpolate(flow, scale_factor=1. / scale, mode="bilinear", align_corners=False) * 1. / scale
            x = torch.cat((x, flow), 1)
        feat = self.conv0(x)
        feat = self.convblock(feat)
        tmp = self.lastconv(feat)
        tmp = F.interpolate(tmp, scale_factor=scale, mode="bilinear", align_corners=False)
        flow = tmp[:, :4] * scale
        mask = tmp[:, 4:5]
        return flow, mask


class IFNet(nn.Module):
    def __init__(self):
        super(IFNet, self).__init__()
        self.block0 = IFBlock(7, c=16)
        self.block1 = IFBlock(8 + 4, c=16)

    def forward(self, input):
        img0 = input[:, 0:3]
        img1 = input[:, 3:6]
        timestep = input[:, 6:7]
        scale = input[0, 7, 0, 0]
        scale_list = [2 / scale, 1 / scale]
        flow, mask = self.block0(torch.cat((img0, img1, timestep), 1), None, scale=scale_list[0])
        flow_d, mask_d = self.block1(torch.cat((img0, img1, timestep, mask), 1), flow, scale=scale_list[1])
        flow = flow + flow_d
        mask = torch.sigmoid(mask + mask_d)
        return img0 * mask + img1 * (1 - mask), flow


def make_model():
    return IFNet().eval()


def _frames(h, w, scale):
    x = torch.rand(1, 8, h, w)
    x[:, 6] = 0.5
    x[:, 7] = scale
    return x


def example_inputs():
    return (_frames(64, 64, 1.0),)


def other_inputs():
    return [(_frames(64, 96, 2.0),), (_frames(128, 64, 0.5),)]


def probe_inputs():
    return other_inputs()
