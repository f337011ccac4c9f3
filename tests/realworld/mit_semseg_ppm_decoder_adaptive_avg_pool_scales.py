"""CSAIL semantic-segmentation-pytorch (mit_semseg) encoder + PPM decoder: the pyramid pooling module runs
`nn.AdaptiveAvgPool2d(scale)` for scale in (1, 2, 3, 6) on the last feature map; the report says export
fails with "ONNX export failed on adaptive_avg_pool2d because output size that are not factor of input
size not supported" (also with ONNX_ATEN_FALLBACK, opset 9 and 11).

Source: https://github.com/CSAILVision/semantic-segmentation-pytorch/issues/240
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img_data": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-23"

BatchNorm2d = nn.BatchNorm2d


def conv3x3_bn_relu(in_planes, out_planes, stride=1):
    return nn.Sequential(
        nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False),
        BatchNorm2d(out_planes),
        nn.ReLU(inplace=True),
    )


class TinyEncoder(nn.Module):
    # stand-in for the dilated ResNet encoder (output stride 8)
    def __init__(self, fc_dim=64):
        super().__init__()
        self.stem = nn.Sequential(conv3x3_bn_relu(3, 16, 2), conv3x3_bn_relu(16, 32, 2),
                                  conv3x3_bn_relu(32, fc_dim, 2))

    def forward(self, x, return_feature_maps=False):
        return [self.stem(x)]


# pyramid pooling
class PPM(nn.Module):
    def __init__(self, num_class=150, fc_dim=4096,
                 pool_scales=(1, 2, 3, 6)):
        super(PPM, self).__init__()
        self.ppm = []
        for scale in pool_scales:
            self.ppm.append(nn.Sequential(
                nn.AdaptiveAvgPool2d(scale),
                nn.Conv2d(fc_dim, 32, kernel_size=1, bias=False),
                BatchNorm2d(32),
                nn.ReLU(inplace=True)
            ))
        self.ppm = nn.ModuleList(self.ppm)

        self.conv_last = nn.Sequential(
            nn.Conv2d(fc_dim+len(pool_scales)*32, 32,
                      kernel_size=3, padding=1, bias=False),
            BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.Dropout2d(0.1),
            nn.Conv2d(32, num_class, kernel_size=1)
        )

    def forward(self, conv_out, segSize=None):
        conv5 = conv_out[-1]

        input_size = conv5.size()
        ppm_out = [conv5]
        for pool_scale in self.ppm:
            ppm_out.append(nn.functional.interpolate(
                pool_scale(conv5),
                (input_size[2], input_size[3]),
                mode='bilinear', align_corners=False))
        ppm_out = torch.cat(ppm_out, 1)

        x = self.conv_last(ppm_out)

        if segSize is not None:
            x = nn.functional.interpolate(
                x, size=segSize, mode='bilinear', align_corners=False)
            x = nn.functional.softmax(x, dim=1)

        return x


class SegmentationModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = TinyEncoder(fc_dim=64)
        self.decoder = PPM(num_class=12, fc_dim=64)

    def forward(self, img_data):
        segSize = img_data.shape[2:]
        return self.decoder(self.encoder(img_data, return_feature_maps=True), segSize=segSize)


def make_model():
    return SegmentationModule().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 80),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 56),), (torch.randn(3, 3, 40, 104),)]


def probe_inputs():
    return other_inputs()
