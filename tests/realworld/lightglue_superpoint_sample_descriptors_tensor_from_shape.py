"""SuperPoint (LightGlue's copy) descriptor sampling: `sample_descriptors` normalizes the keypoints for grid_sample
with `keypoints /= torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)]).to(keypoints)[None]`, a tensor built from
the descriptor-map size; LightGlue-ONNX's "Add ONNX compatibility" PR had to rewrite it as `torch.div` by the
size expressions, because the traced constant keeps the export-time H/W and the descriptors at any other image
size are sampled at the wrong places. (Keypoints are given as an input here; the nonzero detection is trimmed.)

Source: https://github.com/fabio-sim/LightGlue-ONNX/pull/1
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"image": {2: "height", 3: "width"}, "keypoints": {1: "num_keypoints"}}
BLIND = "domains-41"


def sample_descriptors(keypoints, descriptors, s: int = 8):
    """ Interpolate descriptors at keypoint locations """
    b, c, h, w = descriptors.shape
    keypoints = keypoints - s / 2 + 0.5
    keypoints /= torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)],
                              ).to(keypoints)[None]
    keypoints = keypoints*2 - 1  # normalize to (-1, 1)
    args = {'align_corners': True} if torch.__version__ >= '1.3' else {}
    descriptors = torch.nn.functional.grid_sample(
        descriptors, keypoints.view(b, 1, -1, 2), mode='bilinear', **args)
    descriptors = torch.nn.functional.normalize(
        descriptors.reshape(b, c, -1), p=2, dim=1)
    return descriptors


class SuperPoint(nn.Module):
    def __init__(self, descriptor_dim=32):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        c1, c2, c3, c4, c5 = 8, 8, 16, 16, 32

        self.conv1a = nn.Conv2d(1, c1, kernel_size=3, stride=1, padding=1)
        self.conv1b = nn.Conv2d(c1, c1, kernel_size=3, stride=1, padding=1)
        self.conv2a = nn.Conv2d(c1, c2, kernel_size=3, stride=1, padding=1)
        self.conv2b = nn.Conv2d(c2, c2, kernel_size=3, stride=1, padding=1)
        self.conv3a = nn.Conv2d(c2, c3, kernel_size=3, stride=1, padding=1)
        self.conv3b = nn.Conv2d(c3, c3, kernel_size=3, stride=1, padding=1)
        self.conv4a = nn.Conv2d(c3, c4, kernel_size=3, stride=1, padding=1)
        self.conv4b = nn.Conv2d(c4, c4, kernel_size=3, stride=1, padding=1)

        self.convDa = nn.Conv2d(c4, c5, kernel_size=3, stride=1, padding=1)
        self.convDb = nn.Conv2d(c5, descriptor_dim, kernel_size=1, stride=1, padding=0)

    def forward(self, image, keypoints):
        # Shared Encoder
        x = self.relu(self.conv1a(image))
        x = self.relu(self.conv1b(x))
        x = self.pool(x)
        x = self.relu(self.conv2a(x))
        x = self.relu(self.conv2b(x))
        x = self.pool(x)
        x = self.relu(self.conv3a(x))
        x = self.relu(self.conv3b(x))
        x = self.pool(x)
        x = self.relu(self.conv4a(x))
        x = self.relu(self.conv4b(x))

        # Compute the dense descriptors
        cDa = self.relu(self.convDa(x))
        descriptors = self.convDb(cDa)
        descriptors = torch.nn.functional.normalize(descriptors, p=2, dim=1)

        # Extract descriptors
        descriptors = sample_descriptors(keypoints, descriptors, 8)
        return descriptors.transpose(-1, -2)


def make_model():
    return SuperPoint().eval()


def _keypoints(n, h, w):
    return torch.rand(1, n, 2) * torch.tensor([w - 1.0, h - 1.0])


def example_inputs():
    return (torch.randn(1, 1, 64, 96), _keypoints(20, 64, 96))


def other_inputs():
    return [(torch.randn(1, 1, 96, 64), _keypoints(33, 96, 64)),
            (torch.randn(1, 1, 48, 120), _keypoints(11, 48, 120))]


def probe_inputs():
    return other_inputs()
