"""MMAction2's AVA spatio-temporal action detection head (BBoxHeadAVA) pools each RoI feature clip
with `nn.AdaptiveAvgPool3d((1, None, None))` over time and `nn.AdaptiveMaxPool3d((None, 1, 1))` over
space before the classifier; the reporter asks how to convert the AVA head to ONNX and the maintainer
answers it is not supported (MMAction2's later export script swaps exactly these two pools for mean/max).

Source: https://github.com/open-mmlab/mmaction2/issues/1906
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_rois"}}
BLIND = "operators-66"


class BBoxHeadAVA(nn.Module):
    """Simplest RoI head, with only one fc layer for classification."""

    def __init__(self, background_class=True, temporal_pool_type='avg', spatial_pool_type='max',
                 in_channels=2048, num_classes=81, dropout_ratio=0, dropout_before_pool=True):
        super(BBoxHeadAVA, self).__init__()
        assert temporal_pool_type in ['max', 'avg']
        assert spatial_pool_type in ['max', 'avg']
        self.temporal_pool_type = temporal_pool_type
        self.spatial_pool_type = spatial_pool_type
        self.in_channels = in_channels
        self.num_classes = num_classes
        self.dropout_ratio = dropout_ratio
        self.dropout_before_pool = dropout_before_pool
        self.background_class = background_class

        in_channels = self.in_channels
        # Pool by default
        if self.temporal_pool_type == 'avg':
            self.temporal_pool = nn.AdaptiveAvgPool3d((1, None, None))
        else:
            self.temporal_pool = nn.AdaptiveMaxPool3d((1, None, None))
        if self.spatial_pool_type == 'avg':
            self.spatial_pool = nn.AdaptiveAvgPool3d((None, 1, 1))
        else:
            self.spatial_pool = nn.AdaptiveMaxPool3d((None, 1, 1))

        if dropout_ratio > 0:
            self.dropout = nn.Dropout(dropout_ratio)

        self.fc_cls = nn.Linear(in_channels, num_classes)

    def forward(self, x):
        """Computes the classification logits given ROI features."""
        if self.dropout_before_pool and self.dropout_ratio > 0:
            x = self.dropout(x)

        x = self.temporal_pool(x)
        x = self.spatial_pool(x)

        if not self.dropout_before_pool and self.dropout_ratio > 0:
            x = self.dropout(x)

        x = x.view(x.size(0), -1)
        cls_score = self.fc_cls(x)
        return cls_score


def make_model():
    return BBoxHeadAVA().eval()


def example_inputs():
    # RoI features from SingleRoIExtractor3D: (num_rois, C, T, 8, 8)
    return (torch.randn(3, 2048, 4, 8, 8),)


def other_inputs():
    return [(torch.randn(5, 2048, 4, 8, 8),), (torch.randn(1, 2048, 4, 8, 8),)]


def probe_inputs():
    return other_inputs()
