"""EfficientLoFTR feature matcher (EffLOFTR-trt-ort port): FinePreprocess computes the unfold stride as
`stride = data['hw0_f'][0] // data['hw0_c'][0]` from the fine/coarse feature-map sizes and passes it to
`F.unfold(feat_f0, kernel_size=(W, W), stride=stride, padding=0)`; torch.onnx.export stops with
`TypeError: iteration over a 0-d tensor` at that unfold call.

Source: https://github.com/BaofengZan/EffLOFTR-trt-ort/issues/2
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image0": {2: "height", 3: "width"}, "image1": {2: "height", 3: "width"}}
BLIND = "domains-29"


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, padding=0, bias=False)


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class Backbone(nn.Module):
    # stand-in for the RepVGG backbone: 1/2, 1/4 and 1/8 feature maps
    def __init__(self, block_dims=(8, 16, 32)):
        super().__init__()
        self.layer1 = nn.Sequential(conv3x3(1, block_dims[0], 2), nn.ReLU())
        self.layer2 = nn.Sequential(conv3x3(block_dims[0], block_dims[1], 2), nn.ReLU())
        self.layer3 = nn.Sequential(conv3x3(block_dims[1], block_dims[2], 2), nn.ReLU())

    def forward(self, x):
        x1 = self.layer1(x)
        x2 = self.layer2(x1)
        x3 = self.layer3(x2)
        return {'feats_c': x3, 'feats_x2': x2, 'feats_x1': x1}


class FinePreprocess(nn.Module):
    def __init__(self, block_dims=(8, 16, 32), fine_window_size=8):
        super().__init__()
        self.W = fine_window_size
        self.fine_d_model = block_dims[0]
        self.layer3_outconv = conv1x1(block_dims[2], block_dims[2])
        self.layer2_outconv = conv1x1(block_dims[1], block_dims[2])
        self.layer2_outconv2 = nn.Sequential(conv3x3(block_dims[2], block_dims[2]), nn.BatchNorm2d(block_dims[2]),
                                             nn.LeakyReLU(), conv3x3(block_dims[2], block_dims[1]))
        self.layer1_outconv = conv1x1(block_dims[0], block_dims[1])
        self.layer1_outconv2 = nn.Sequential(conv3x3(block_dims[1], block_dims[1]), nn.BatchNorm2d(block_dims[1]),
                                             nn.LeakyReLU(), conv3x3(block_dims[1], block_dims[0]))

    def inter_fpn(self, feat_c, x2, x1, stride):
        feat_c = self.layer3_outconv(feat_c)
        feat_c = F.interpolate(feat_c, scale_factor=2., mode='bilinear', align_corners=False)
        x2 = self.layer2_outconv(x2)
        x2 = self.layer2_outconv2(x2 + feat_c)
        x2 = F.interpolate(x2, scale_factor=2., mode='bilinear', align_corners=False)
        x1 = self.layer1_outconv(x1)
        x1 = self.layer1_outconv2(x1 + x2)
        x1 = F.interpolate(x1, scale_factor=2., mode='bilinear', align_corners=False)
        return x1

    def forward(self, feat_c, data):
        W = self.W
        stride = data['hw0_f'][0] // data['hw0_c'][0]
        x2 = data['feats_x2']  # 1/4 feat
        x1 = data['feats_x1']  # 1/2 feat

        # 1. fine feature extraction
        x1 = self.inter_fpn(feat_c, x2, x1, stride)
        feat_f0, feat_f1 = torch.chunk(x1, 2, dim=0)

        # 2. unfold(crop) all local windows
        feat_f0 = F.unfold(feat_f0, kernel_size=(W, W), stride=stride, padding=0)
        feat_f1 = F.unfold(feat_f1, kernel_size=(W + 2, W + 2), stride=stride, padding=1)
        return feat_f0, feat_f1


class LoFTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.resolution = (8, 1)
        self.backbone = Backbone()
        self.fine_preprocess = FinePreprocess()

    def forward(self, image0, image1):
        data = {'image0': image0, 'image1': image1}
        data.update({'bs': data['image0'].size(0),
                     'hw0_i': data['image0'].shape[2:], 'hw1_i': data['image1'].shape[2:]})
        ret_dict = self.backbone(torch.cat([data['image0'], data['image1']], dim=0))
        feats_c = ret_dict['feats_c']
        data.update({'feats_x2': ret_dict['feats_x2'], 'feats_x1': ret_dict['feats_x1']})
        (feat_c0, feat_c1) = feats_c.split(data['bs'])

        mul = self.resolution[0] // self.resolution[1]
        data.update({
            'hw0_c': feat_c0.shape[2:], 'hw1_c': feat_c1.shape[2:],
            'hw0_f': [feat_c0.shape[2] * mul, feat_c0.shape[3] * mul],
            'hw1_f': [feat_c1.shape[2] * mul, feat_c1.shape[3] * mul]
        })
        return self.fine_preprocess(feats_c, data)


def make_model():
    return LoFTR().eval()


def example_inputs():
    return (torch.randn(1, 1, 64, 64), torch.randn(1, 1, 64, 64))


def other_inputs():
    return [(torch.randn(1, 1, 80, 96), torch.randn(1, 1, 80, 96)),
            (torch.randn(1, 1, 48, 72), torch.randn(1, 1, 48, 72))]


def probe_inputs():
    return other_inputs()
