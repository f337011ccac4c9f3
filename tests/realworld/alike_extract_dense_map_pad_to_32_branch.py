"""ALIKE keypoint network (a deployment fork): `ALike.extract_dense_map` pads the image to a multiple of 32 inside the
model with `h_ = math.ceil(h / 32) * 32 if h % 32 != 0 else h` and `if h_ != h:` / `torch.zeros(b, c, h_ - h, w)`
concatenation, runs ALNet, then crops the score/descriptor maps back with `if h_ != h or w_ != w:`; the fork's ONNX
export script works around it by exporting the bare ALNet and doing this padding on the example input outside the model.

Source: https://github.com/liujiaxing7/ALIKE/blob/be4b4c2dfffbb424d8189d18d951c6ed0b0d5cd6/onnx_export_no_dkd/export_onnx_no_dkd.py
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-41"


class ALNet(nn.Module):
    # trimmed ALNet: 4 stages down to 1/32, multi-scale fusion back to full resolution
    def __init__(self, c1=8, c2=16, c3=32, c4=32, dim=32):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, c1, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU())
        self.block3 = nn.Sequential(nn.Conv2d(c2, c3, 3, padding=1), nn.ReLU())
        self.block4 = nn.Sequential(nn.Conv2d(c3, c4, 3, padding=1), nn.ReLU())
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.pool4 = nn.MaxPool2d(kernel_size=4, stride=4)
        self.conv1 = nn.Conv2d(c1, dim // 4, 1)
        self.conv2 = nn.Conv2d(c2, dim // 4, 1)
        self.conv3 = nn.Conv2d(c3, dim // 4, 1)
        self.conv4 = nn.Conv2d(c4, dim // 4, 1)
        self.upsample2 = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
        self.upsample8 = nn.Upsample(scale_factor=8, mode='bilinear', align_corners=True)
        self.upsample32 = nn.Upsample(scale_factor=32, mode='bilinear', align_corners=True)
        self.convhead2 = nn.Conv2d(dim, dim + 1, 1)

    def forward(self, image):
        x1 = self.block1(image)
        x2 = self.block2(self.pool2(x1))
        x3 = self.block3(self.pool4(x2))
        x4 = self.block4(self.pool4(x3))
        x1 = F.relu(self.conv1(x1))
        x2 = self.upsample2(F.relu(self.conv2(x2)))
        x3 = self.upsample8(F.relu(self.conv3(x3)))
        x4 = self.upsample32(F.relu(self.conv4(x4)))
        x1234 = torch.cat([x1, x2, x3, x4], dim=1)
        x = self.convhead2(x1234)
        descriptor_map = x[:, :-1, :, :]
        scores_map = torch.sigmoid(x[:, -1, :, :]).unsqueeze(1)
        return scores_map, descriptor_map


class ALike(ALNet):
    def extract_dense_map(self, image, ret_dict=False):
        # ====================================================
        # check image size, should be integer multiples of 2^5
        # if it is not a integer multiples of 2^5, padding zeros
        device = image.device
        b, c, h, w = image.shape
        h_ = math.ceil(h / 32) * 32 if h % 32 != 0 else h
        w_ = math.ceil(w / 32) * 32 if w % 32 != 0 else w
        if h_ != h:
            h_padding = torch.zeros(b, c, h_ - h, w, device=device)
            image = torch.cat([image, h_padding], dim=2)
        if w_ != w:
            w_padding = torch.zeros(b, c, h_, w_ - w, device=device)
            image = torch.cat([image, w_padding], dim=3)
        # ====================================================

        scores_map, descriptor_map = super().forward(image)

        # ====================================================
        if h_ != h or w_ != w:
            descriptor_map = descriptor_map[:, :, :h, :w]
            scores_map = scores_map[:, :, :h, :w]  # Bx1xHxW
        # ====================================================

        # BxCxHxW
        descriptor_map = torch.nn.functional.normalize(descriptor_map, p=2, dim=1)

        if ret_dict:
            return {'descriptor_map': descriptor_map, 'scores_map': scores_map, }
        else:
            return descriptor_map, scores_map

    def forward(self, image):
        return self.extract_dense_map(image)


def make_model():
    return ALike().eval()


def example_inputs():
    return (torch.rand(1, 3, 100, 150),)


def other_inputs():
    return [(torch.rand(1, 3, 64, 96),), (torch.rand(1, 3, 120, 70),)]


def probe_inputs():
    return other_inputs()
