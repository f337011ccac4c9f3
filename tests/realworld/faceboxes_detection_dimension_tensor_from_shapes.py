"""FaceBoxes (zisianw/FaceBoxes.PyTorch) face detector returns, next to loc/conf, a `detection_dimension` output
built in forward with `torch.tensor(detection_dimension)` from the `x.shape[2:]` of its three detection feature
maps (the test-time PriorBox reads the feature-map sizes from it); the report says the model cannot be traced
for export because of it: the traced sizes become constants, so the priors no longer follow the image size.

Source: https://github.com/zisianw/FaceBoxes.PyTorch/issues/42
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class BasicConv2d(nn.Module):

    def __init__(self, in_channels, out_channels, **kwargs):
        super(BasicConv2d, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return F.relu(x, inplace=True)


class CRelu(nn.Module):

    def __init__(self, in_channels, out_channels, **kwargs):
        super(CRelu, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        x = torch.cat([x, -x], 1)
        x = F.relu(x, inplace=True)
        return x


class FaceBoxes(nn.Module):
    """models/faceboxes.py (2019); the three Inception blocks are reduced to one 1x1 BasicConv2d."""

    def __init__(self, phase, size, num_classes):
        super(FaceBoxes, self).__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.size = size
        self.conv1 = CRelu(3, 24, kernel_size=7, stride=4, padding=3)
        self.conv2 = CRelu(48, 64, kernel_size=5, stride=2, padding=2)
        self.inception1 = BasicConv2d(128, 128, kernel_size=1, padding=0)
        self.conv3_1 = BasicConv2d(128, 128, kernel_size=1, stride=1, padding=0)
        self.conv3_2 = BasicConv2d(128, 256, kernel_size=3, stride=2, padding=1)
        self.conv4_1 = BasicConv2d(256, 128, kernel_size=1, stride=1, padding=0)
        self.conv4_2 = BasicConv2d(128, 256, kernel_size=3, stride=2, padding=1)
        self.loc, self.conf = self.multibox(self.num_classes)
        if self.phase == 'test':
            self.softmax = nn.Softmax(dim=-1)

    def multibox(self, num_classes):
        loc_layers = [nn.Conv2d(128, 21 * 4, kernel_size=3, padding=1),
                      nn.Conv2d(256, 1 * 4, kernel_size=3, padding=1),
                      nn.Conv2d(256, 1 * 4, kernel_size=3, padding=1)]
        conf_layers = [nn.Conv2d(128, 21 * num_classes, kernel_size=3, padding=1),
                       nn.Conv2d(256, 1 * num_classes, kernel_size=3, padding=1),
                       nn.Conv2d(256, 1 * num_classes, kernel_size=3, padding=1)]
        return nn.Sequential(*loc_layers), nn.Sequential(*conf_layers)

    def forward(self, x):
        sources = list()
        loc = list()
        conf = list()
        detection_dimension = list()

        x = self.conv1(x)
        x = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
        x = self.conv2(x)
        x = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
        x = self.inception1(x)
        detection_dimension.append(x.shape[2:])
        sources.append(x)
        x = self.conv3_1(x)
        x = self.conv3_2(x)
        detection_dimension.append(x.shape[2:])
        sources.append(x)
        x = self.conv4_1(x)
        x = self.conv4_2(x)
        detection_dimension.append(x.shape[2:])
        sources.append(x)

        detection_dimension = torch.tensor(detection_dimension, device=x.device)

        for (x, l, c) in zip(sources, self.loc, self.conf):
            loc.append(l(x).permute(0, 2, 3, 1).contiguous())
            conf.append(c(x).permute(0, 2, 3, 1).contiguous())

        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)

        if self.phase == "test":
            output = (loc.view(loc.size(0), -1, 4),
                      self.softmax(conf.view(-1, self.num_classes)),
                      detection_dimension)
        else:
            output = (loc.view(loc.size(0), -1, 4),
                      conf.view(conf.size(0), -1, self.num_classes),
                      detection_dimension)
        return output


def make_model():
    return FaceBoxes('test', 1024, 2).eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 384),)


def other_inputs():
    return [(torch.randn(2, 3, 384, 256),), (torch.randn(1, 3, 512, 512),)]


def probe_inputs():
    return other_inputs()
