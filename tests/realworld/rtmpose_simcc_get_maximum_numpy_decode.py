"""RTMPose / SimCC top-down pose model (mmpose 1.x) exported with its keypoint decoding: the SimCC head
predicts 1-D x / y classification vectors per keypoint and SimCCLabel.decode turns them into keypoints
with the NumPy `get_simcc_maximum` (np.argmax / np.amax / boolean masking on `.cpu().numpy()` arrays), so
the post-processing cannot be exported to ONNX with the model (mmdeploy had to add a torch rewrite of
get_simcc_maximum to export it for onnxruntime / TensorRT).

Source: https://github.com/open-mmlab/mmdeploy/pull/2449
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"inputs": {0: "num_person"}}
BLIND = "domains-30"


def get_simcc_maximum(simcc_x, simcc_y):
    """mmpose/codecs/utils/post_processing.py"""
    assert isinstance(simcc_x, np.ndarray), ('simcc_x should be numpy.ndarray')
    assert isinstance(simcc_y, np.ndarray), ('simcc_y should be numpy.ndarray')
    assert simcc_x.ndim == 2 or simcc_x.ndim == 3, (f'Invalid shape {simcc_x.shape}')
    assert simcc_y.ndim == 2 or simcc_y.ndim == 3, (f'Invalid shape {simcc_y.shape}')
    assert simcc_x.ndim == simcc_y.ndim, (f'{simcc_x.shape} != {simcc_y.shape}')

    if simcc_x.ndim == 3:
        N, K, Wx = simcc_x.shape
        simcc_x = simcc_x.reshape(N * K, -1)
        simcc_y = simcc_y.reshape(N * K, -1)
    else:
        N = None

    x_locs = np.argmax(simcc_x, axis=1)
    y_locs = np.argmax(simcc_y, axis=1)
    locs = np.stack((x_locs, y_locs), axis=-1).astype(np.float32)
    max_val_x = np.amax(simcc_x, axis=1)
    max_val_y = np.amax(simcc_y, axis=1)

    mask = max_val_x > max_val_y
    max_val_x[mask] = max_val_y[mask]
    vals = max_val_x
    locs[vals <= 0.] = -1

    if N:
        locs = locs.reshape(N, K, 2)
        vals = vals.reshape(N, K)

    return locs, vals


class SimCCLabel:
    """mmpose/codecs/simcc_label.py, decode() (use_dark / decode_visibility off)."""

    def __init__(self, input_size=(192, 256), simcc_split_ratio=2.0):
        self.input_size = input_size
        self.simcc_split_ratio = simcc_split_ratio

    def decode(self, simcc_x, simcc_y):
        keypoints, scores = get_simcc_maximum(simcc_x, simcc_y)

        # Unsqueeze the instance dimension for single-instance results
        if keypoints.ndim == 2:
            keypoints = keypoints[None, :]
            scores = scores[None, :]

        keypoints /= self.simcc_split_ratio
        return keypoints, scores


class SimCCHead(nn.Module):
    def __init__(self, in_channels=32, num_keypoints=17, input_size=(192, 256), in_featuremap_size=(6, 8),
                 simcc_split_ratio=2.0):
        super().__init__()
        self.final_layer = nn.Conv2d(in_channels, num_keypoints, kernel_size=1)
        flatten_dims = in_featuremap_size[0] * in_featuremap_size[1]
        W = int(input_size[0] * simcc_split_ratio)
        H = int(input_size[1] * simcc_split_ratio)
        self.mlp_head_x = nn.Linear(flatten_dims, W)
        self.mlp_head_y = nn.Linear(flatten_dims, H)
        self.decoder = SimCCLabel(input_size, simcc_split_ratio)

    def forward(self, feats):
        feats = feats[-1]
        feats = self.final_layer(feats)
        feats = torch.flatten(feats, 2)
        pred_x = self.mlp_head_x(feats)
        pred_y = self.mlp_head_y(feats)
        return pred_x, pred_y

    def predict(self, feats):
        batch_pred_x, batch_pred_y = self.forward(feats)
        keypoints, scores = self.decoder.decode(batch_pred_x.detach().cpu().numpy(),
                                                batch_pred_y.detach().cpu().numpy())
        return torch.from_numpy(keypoints), torch.from_numpy(scores)


class TopdownPoseEstimator(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=4, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.head = SimCCHead()

    def forward(self, inputs):
        feats = (self.backbone(inputs),)
        return self.head.predict(feats)


def make_model():
    return TopdownPoseEstimator().eval()


def example_inputs():
    return (torch.randn(2, 3, 256, 192),)


def other_inputs():
    return [(torch.randn(5, 3, 256, 192),), (torch.randn(1, 3, 256, 192),)]


def probe_inputs():
    return other_inputs()
