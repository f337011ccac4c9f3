"""vedastr's ResNet-CTC text recognizer: the CTCHead collapses the feature height with
`nn.AdaptiveAvgPool2d(output_size=(1, None))` (None keeps the width = sequence length) before the classifier;
converting resnet_bilstm_ctc to ONNX fails with "Unsupported: ONNX export of operator adaptive pooling, since
output_size is not constant".

Source: https://github.com/Media-Smart/vedastr/issues/87
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 3: "width"}}
BLIND = "operators-5"


def ConvModule(in_channels, out_channels, kernel_size, stride=1, padding=0):
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))


class CTCHead(nn.Module):
    """CTCHead"""

    def __init__(self, in_channels, num_class, from_layer, pool=None, export=False):
        super(CTCHead, self).__init__()
        self.num_class = num_class
        self.from_layer = from_layer
        fc = nn.Linear(in_channels, num_class)
        if pool is not None:
            self.pool = nn.AdaptiveAvgPool2d(**pool)
        self.fc = fc
        self.export = export

    @property
    def with_pool(self):
        return hasattr(self, 'pool') and self.pool is not None

    def forward(self, x_input):
        x = x_input[self.from_layer]
        if self.export:
            x = x.mean(2).permute(0, 2, 1)
        elif self.with_pool:
            x = self.pool(x).permute(0, 3, 1, 2).squeeze(3)
        out = self.fc(x)
        return out


class GModel(nn.Module):
    def __init__(self, num_class=37):
        super().__init__()
        # trimmed GBackbone of configs/resnet_ctc.py (gray 32 x W input)
        self.backbone = nn.Sequential(
            ConvModule(1, 32, 3, 1, 1), ConvModule(32, 64, 3, 1, 1), nn.MaxPool2d(2, 2, 0),
            ConvModule(64, 128, 3, 1, 1), nn.MaxPool2d(2, 2, 0),
            ConvModule(128, 256, 3, 1, 1), nn.MaxPool2d(kernel_size=2, stride=(2, 1), padding=(0, 1)),
            ConvModule(256, 256, 3, 1, 1),
        )
        self.head = CTCHead(in_channels=256, num_class=num_class, from_layer='cnn_feat',
                            pool=dict(output_size=(1, None)))

    def forward(self, img):
        feats = {'cnn_feat': self.backbone(img)}
        return self.head(feats)


def make_model():
    return GModel().eval()


def example_inputs():
    return (torch.randn(1, 1, 32, 100),)


def other_inputs():
    return [(torch.randn(2, 1, 32, 160),), (torch.randn(4, 1, 32, 64),)]


def probe_inputs():
    return other_inputs()
