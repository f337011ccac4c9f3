"""MMPose 1.x DeepPose `RegressionHead.predict` runs the head, then `self.decode(batch_coords)`, which moves the
coordinates to NumPy per sample (`to_numpy(..., unzip=True)`) and decodes them with the RegressionLabel codec
(`np.ones`, `np.array([w, h])`) into per-instance results; mmdeploy rewrites `RegressionHead.predict` to
"skip heatmaps decoding and return heatmaps directly" so the pose model can be exported.

Source: https://github.com/open-mmlab/mmdeploy/pull/884
"""
import numpy as np
import torch
from torch import Tensor, nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"inputs": {0: "batch"}}
BLIND = "domains-45"


def to_numpy(x, return_device=False, unzip=False):
    """Convert torch tensor to numpy.ndarray."""
    if isinstance(x, Tensor):
        arrays = x.detach().cpu().numpy()
        device = x.device
    elif isinstance(x, np.ndarray):
        arrays = x
        device = 'cpu'
    else:
        raise ValueError(f'Invalid input type {type(x)}')

    if return_device:
        return arrays, device
    else:
        return arrays


class RegressionLabel:
    """Codec: normalized coordinates <-> input-image coordinates."""

    def __init__(self, input_size=(192, 256)):
        self.input_size = input_size
        self.support_batch_decoding = False

    def decode(self, encoded):
        if encoded.shape[-1] == 2:
            N, K, _ = encoded.shape
            normalized_coords = encoded.copy()
            scores = np.ones((N, K), dtype=np.float32)
        elif encoded.shape[-1] == 4:
            # split coords and sigma if outputs contain output_sigma
            normalized_coords = encoded[..., :2].copy()
            output_sigma = encoded[..., 2:4].copy()

            scores = (1 - output_sigma).mean(axis=-1)
        else:
            raise ValueError(
                'Keypoint dimension should be 2 or 4 (with sigma), '
                f'but got {encoded.shape[-1]}')

        w, h = self.input_size
        keypoints = normalized_coords * np.array([w, h])

        return keypoints, scores


class RegressionHead(nn.Module):

    def __init__(self, in_channels, num_joints, decoder=None):
        super().__init__()
        self.in_channels = in_channels
        self.num_joints = num_joints
        self.decoder = decoder
        # Define fully-connected layers
        self.fc = nn.Linear(in_channels, self.num_joints * 2)

    def forward(self, feats):
        x = feats[-1]
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x.reshape(-1, self.num_joints, 2)

    def decode(self, batch_outputs):
        def _pack_and_call(args, func):
            if not isinstance(args, tuple):
                args = (args, )
            return func(*args)

        if self.decoder.support_batch_decoding:
            batch_keypoints, batch_scores = _pack_and_call(
                batch_outputs, self.decoder.batch_decode)
        else:
            batch_output_np = to_numpy(batch_outputs, unzip=True)
            batch_keypoints = []
            batch_scores = []
            for outputs in batch_output_np:
                keypoints, scores = _pack_and_call(outputs,
                                                   self.decoder.decode)
                batch_keypoints.append(keypoints)
                batch_scores.append(scores)

        preds = []
        for keypoints, scores in zip(batch_keypoints, batch_scores):
            preds.append(dict(keypoints=keypoints, keypoint_scores=scores))
        return preds

    def predict(self, feats, batch_data_samples=None, test_cfg={}):
        """Predict results from outputs."""
        batch_coords = self.forward(feats)  # (B, K, D)

        batch_coords.unsqueeze_(dim=1)  # (B, N, K, D)
        preds = self.decode(batch_coords)

        return preds


class DeepPose(nn.Module):
    """Tiny backbone + GlobalAveragePooling neck + RegressionHead (DeepPose)."""

    def __init__(self, num_joints=17):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.head = RegressionHead(32, num_joints, decoder=RegressionLabel((192, 256)))

    def forward(self, inputs):
        feats = (self.backbone(inputs), )
        outs = tuple([self.gap(x) for x in feats])
        outs = tuple([out.view(x.size(0), -1) for out, x in zip(outs, feats)])
        return self.head.predict(outs)


def make_model():
    return DeepPose().eval()


def example_inputs():
    return (torch.randn(2, 3, 256, 192),)


def other_inputs():
    return [(torch.randn(3, 3, 256, 192),), (torch.randn(1, 3, 256, 192),)]


def probe_inputs():
    return other_inputs()
