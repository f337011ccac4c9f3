"""kornia LoFTR matcher: the forward stores the coarse/fine feature-map sizes in a dict
(`'hw0_c': feat_c0.shape[2:]`, `'hw0_f': feat_f0.shape[2:]`) and FinePreprocess computes
`stride = data['hw0_f'][0] // data['hw0_c'][0]` and calls
`F.unfold(feat_f0, kernel_size=(W, W), stride=stride, padding=W // 2)`; the reporter's first attempt to convert
kornia's LoFTR to ONNX stopped there with `TypeError: iteration over a 0-d tensor`.

Source: https://github.com/xmba15/onnx_runtime_cpp/issues/35
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image0": {2: "height", 3: "width"}, "image1": {2: "height", 3: "width"}}
BLIND = "domains-41"


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class ResNetFPN_8_2(nn.Module):
    # stand-in for kornia's ResNet-FPN: a 1/8 coarse map and a 1/2 fine map
    def __init__(self, initial_dim=8, block_dims=(8, 16, 32)):
        super().__init__()
        self.conv1 = nn.Conv2d(1, initial_dim, kernel_size=7, stride=2, padding=3, bias=False)
        self.layer2 = nn.Sequential(conv3x3(initial_dim, block_dims[1], 2), nn.ReLU())
        self.layer3 = nn.Sequential(conv3x3(block_dims[1], block_dims[2], 2), nn.ReLU())
        self.layer1_outconv = nn.Conv2d(initial_dim, block_dims[0], 1)

    def forward(self, x):
        x0 = F.relu(self.conv1(x))  # 1/2
        x2 = self.layer2(x0)  # 1/4
        x3 = self.layer3(x2)  # 1/8
        return x3, self.layer1_outconv(x0)


class FinePreprocess(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.W = self.config['fine_window_size']
        self.d_model_f = self.config['fine']['d_model']

    def forward(self, feat_f0, feat_f1, feat_c0, feat_c1, data):
        W = self.W
        stride = data['hw0_f'][0] // data['hw0_c'][0]

        data.update({'W': W})

        # 1. unfold(crop) all local windows
        feat_f0_unfold = F.unfold(feat_f0, kernel_size=(W, W), stride=stride, padding=W // 2)
        n, cww, l = feat_f0_unfold.shape
        c = cww // W**2
        feat_f0_unfold = feat_f0_unfold.reshape(n, c, -1, l).permute(0, 3, 2, 1)
        feat_f1_unfold = F.unfold(feat_f1, kernel_size=(W, W), stride=stride, padding=W // 2)
        feat_f1_unfold = feat_f1_unfold.reshape(n, c, -1, l).permute(0, 3, 2, 1)
        return feat_f0_unfold, feat_f1_unfold


class LoFTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = ResNetFPN_8_2()
        self.fine_preprocess = FinePreprocess({'fine_window_size': 5, 'fine': {'d_model': 8}})

    def forward(self, image0, image1):
        data = {'image0': image0, 'image1': image1}
        _data = {'bs': data['image0'].size(0), 'hw0_i': data['image0'].shape[2:], 'hw1_i': data['image1'].shape[2:]}

        feats_c, feats_f = self.backbone(torch.cat([data['image0'], data['image1']], dim=0))
        (feat_c0, feat_c1), (feat_f0, feat_f1) = feats_c.split(_data['bs']), feats_f.split(_data['bs'])

        _data.update({'hw0_c': feat_c0.shape[2:], 'hw1_c': feat_c1.shape[2:],
                      'hw0_f': feat_f0.shape[2:], 'hw1_f': feat_f1.shape[2:]})

        feat_f0_unfold, feat_f1_unfold = self.fine_preprocess(feat_f0, feat_f1, feat_c0, feat_c1, _data)
        return feat_f0_unfold, feat_f1_unfold


def make_model():
    return LoFTR().eval()


def example_inputs():
    return (torch.randn(1, 1, 64, 64), torch.randn(1, 1, 64, 64))


def other_inputs():
    return [(torch.randn(1, 1, 96, 80), torch.randn(1, 1, 96, 80)),
            (torch.randn(1, 1, 48, 72), torch.randn(1, 1, 48, 72))]


def probe_inputs():
    return other_inputs()
