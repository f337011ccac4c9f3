"""mmpose top-down heatmap pose model (AnimalPose HRNet/ResNet) with flip test: the head's `inference_model`
turns the heatmaps into NumPy (`output.detach().cpu().numpy()`), `flip_back` swaps the left/right keypoint
channels and mirrors them in NumPy, then shifts the flipped heatmap; to export with torch.onnx.export the
reporter had to rewrite the NumPy parts in PyTorch.

Source: https://github.com/ailia-ai/ailia-models/issues/501
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img": {0: "batch"}}
BLIND = "domains-8"


def flip_back(output_flipped, flip_pairs, target_type='GaussianHeatmap'):
    assert output_flipped.ndim == 4, \
        'output_flipped should be [batch_size, num_keypoints, height, width]'
    shape_ori = output_flipped.shape
    channels = 1
    if target_type.lower() == 'CombinedTarget'.lower():
        channels = 3
        output_flipped[:, 1::3, ...] = -output_flipped[:, 1::3, ...]
    output_flipped = output_flipped.reshape(shape_ori[0], -1, channels,
                                            shape_ori[2], shape_ori[3])
    output_flipped_back = output_flipped.copy()

    # Swap left-right parts
    for left, right in flip_pairs:
        output_flipped_back[:, left, ...] = output_flipped[:, right, ...]
        output_flipped_back[:, right, ...] = output_flipped[:, left, ...]
    output_flipped_back = output_flipped_back.reshape(shape_ori)
    # Flip horizontally
    output_flipped_back = output_flipped_back[..., ::-1]
    return output_flipped_back


class TopdownHeatmapSimpleHead(nn.Module):
    def __init__(self, in_channels=32, out_channels=20):
        super().__init__()
        self.deconv_layers = nn.Sequential(
            nn.ConvTranspose2d(in_channels, 32, 4, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
        self.final_layer = nn.Conv2d(32, out_channels, kernel_size=1)
        self.target_type = 'GaussianHeatmap'
        self.test_cfg = dict(flip_test=True, shift_heatmap=True)

    def forward(self, x):
        return self.final_layer(self.deconv_layers(x))

    def inference_model(self, x, flip_pairs=None):
        output = self.forward(x)

        if flip_pairs is not None:
            output_heatmap = flip_back(
                output.detach().cpu().numpy(),
                flip_pairs,
                target_type=self.target_type)
            # feature is not aligned, shift flipped heatmap for higher accuracy
            if self.test_cfg.get('shift_heatmap', False):
                output_heatmap[:, :, :, 1:] = output_heatmap[:, :, :, :-1]
        else:
            output_heatmap = output.detach().cpu().numpy()
        return output_heatmap


class TopDown(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.keypoint_head = TopdownHeatmapSimpleHead()
        self.test_cfg = dict(flip_test=True)
        self.flip_pairs = [[0, 1], [2, 3], [5, 6], [8, 9], [10, 11], [12, 13], [14, 15], [16, 17], [18, 19]]

    def forward(self, img):
        features = self.backbone(img)
        output_heatmap = self.keypoint_head.inference_model(features, flip_pairs=None)
        if self.test_cfg.get('flip_test', True):
            img_flipped = img.flip(3)
            features_flipped = self.backbone(img_flipped)
            output_flipped_heatmap = self.keypoint_head.inference_model(features_flipped, self.flip_pairs)
            output_heatmap = (output_heatmap + output_flipped_heatmap) * 0.5
        # export wrapper: hand the heatmaps back as a tensor
        return torch.from_numpy(output_heatmap)


def make_model():
    return TopDown().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 48),), (torch.randn(1, 3, 64, 48),)]


def probe_inputs():
    return other_inputs()
