"""RIFE video frame interpolation exported through a small nn.Module wrapper whose forward calls
`self.model.inference(x1, x2, 1)`; RIFE's `Model` is a plain Python class holding `self.flownet = IFNet()`, so
the IFNet weights are not parameters of the exported module and torch.onnx.export stops with "RuntimeError:
Cannot insert a Tensor that requires grad as a constant. Consider making it a parameter or input, or detaching
the gradient" (even after model.eval() and torch.no_grad(), the reporter says).

Source: https://github.com/ailia-ai/ailia-models/issues/676
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "exporter-defaults"
FAMILY = "tensor_data"
DYNAMIC = {"x1": {0: "batch", 2: "height", 3: "width"}, "x2": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-8"

device = torch.device("cpu")
backwarp_tenGrid = {}


def warp(tenInput, tenFlow):
    k = (str(tenFlow.device), str(tenFlow.size()))
    if k not in backwarp_tenGrid:
        tenHorizontal = torch.linspace(-1.0, 1.0, tenFlow.shape[3], device=device).view(
            1, 1, 1, tenFlow.shape[3]).expand(tenFlow.shape[0], -1, tenFlow.shape[2], -1)
        tenVertical = torch.linspace(-1.0, 1.0, tenFlow.shape[2], device=device).view(
            1, 1, tenFlow.shape[2], 1).expand(tenFlow.shape[0], -1, -1, tenFlow.shape[3])
        backwarp_tenGrid[k] = torch.cat([tenHorizontal, tenVertical], 1).to(device)
    tenFlow = torch.cat([tenFlow[:, 0:1, :, :] / ((tenInput.shape[3] - 1.0) / 2.0),
                         tenFlow[:, 1:2, :, :] / ((tenInput.shape[2] - 1.0) / 2.0)], 1)
    g = (backwarp_tenGrid[k] + tenFlow).permute(0, 2, 3, 1)
    return torch.nn.functional.grid_sample(input=tenInput, grid=g, mode='bilinear', padding_mode='border', align_corners=True)


def conv(in_planes, out_planes, kernel_size=3, stride=1, padding=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(in_planes, out_planes, kernel_size=kernel_size, stride=stride,
                  padding=padding, dilation=dilation, bias=True),
        nn.PReLU(out_planes))


class IFBlock(nn.Module):
    def __init__(self, in_planes, c=64):
        super(IFBlock, self).__init__()
        self.conv0 = nn.Sequential(conv(in_planes, c // 2, 3, 2, 1), conv(c // 2, c, 3, 2, 1))
        self.convblock = nn.Sequential(conv(c, c), conv(c, c))
        self.lastconv = nn.ConvTranspose2d(c, 5, 4, 2, 1)

    def forward(self, x, flow, scale):
        if scale != 1:
            x = F.interpolate(x, scale_factor=1. / scale, mode="bilinear", align_corners=False)
        if flow is not None:
            flow = F.interpolate(flow, scale_factor=1. / scale, mode="bilinear", align_corners=False) * 1. / scale
            x = torch.cat((x, flow), 1)
        x = self.conv0(x)
        x = self.convblock(x) + x
        tmp = self.lastconv(x)
        tmp = F.interpolate(tmp, scale_factor=scale * 2, mode="bilinear", align_corners=False)
        flow = tmp[:, :4] * scale * 2
        mask = tmp[:, 4:5]
        return flow, mask


class IFNet(nn.Module):
    def __init__(self):
        super(IFNet, self).__init__()
        self.block0 = IFBlock(6, c=32)
        self.block1 = IFBlock(13 + 4, c=24)

    def forward(self, x, scale=[2, 1]):
        img0 = x[:, :3]
        img1 = x[:, 3:6]
        merged, mask_list = [], []
        warped_img0, warped_img1 = img0, img1
        flow = None
        stu = [self.block0, self.block1]
        for i in range(2):
            if flow is not None:
                flow_d, mask_d = stu[i](torch.cat((img0, img1, warped_img0, warped_img1, mask), 1), flow, scale=scale[i])
                flow = flow + flow_d
                mask = mask + mask_d
            else:
                flow, mask = stu[i](torch.cat((img0, img1), 1), None, scale=scale[i])
            mask_list.append(torch.sigmoid(mask))
            warped_img0 = warp(img0, flow[:, :2])
            warped_img1 = warp(img1, flow[:, 2:4])
            merged.append((warped_img0, warped_img1))
        for i in range(2):
            merged[i] = merged[i][0] * mask_list[i] + merged[i][1] * (1 - mask_list[i])
        return flow, mask_list[1], merged


class Model:
    def __init__(self):
        self.flownet = IFNet()

    def eval(self):
        self.flownet.eval()

    def inference(self, img0, img1, scale=1.0):
        imgs = torch.cat((img0, img1), 1)
        scale_list = [2 / scale, 1 / scale]
        flow, mask, merged = self.flownet(imgs, scale_list)
        return merged[1]


class Net(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x1, x2):
        x = self.model.inference(x1, x2, 1)
        return x


def make_model():
    model = Model()
    model.eval()
    return Net(model).eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96), torch.rand(1, 3, 64, 96))


def other_inputs():
    return [(torch.rand(2, 3, 96, 128), torch.rand(2, 3, 96, 128)),
            (torch.rand(1, 3, 64, 64), torch.rand(1, 3, 64, 64))]


def probe_inputs():
    return other_inputs()
