"""ONX205 on SuperPoint's descriptor sampling (LightGlue's copy): keypoints normalised for
grid_sample by `torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)])`, numbers computed from the
descriptor map's size. The legacy exporter records the tensor as a constant of the export-time
size: silently wrong at another image size. Fixed safely: a stack of 0-d tensors, one per number
(each a float32 tensor of the same number, stacked into the same vector)."""
import torch
import torch.nn.functional as F
from torch import nn


def sample_descriptors(keypoints, descriptors, s: int = 8):
    b, c, h, w = descriptors.shape
    keypoints = keypoints - s / 2 + 0.5
    keypoints = keypoints / torch.tensor([(w * s - s / 2 - 0.5), (h * s - s / 2 - 0.5)]).to(keypoints)[None]
    keypoints = keypoints * 2 - 1
    descriptors = F.grid_sample(descriptors, keypoints.view(b, 1, -1, 2), mode="bilinear", align_corners=True)
    return F.normalize(descriptors.reshape(b, c, -1), p=2, dim=1)


class SuperPointHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.descriptor = nn.Conv2d(3, 8, 8, stride=8)

    def forward(self, image, keypoints):
        return sample_descriptors(keypoints, self.descriptor(image))


def make_model():
    torch.manual_seed(0)
    return SuperPointHead()


def _keypoints(n, h, w):
    return torch.rand(1, n, 2) * torch.tensor([w - 1.0, h - 1.0])


def example_inputs():
    return (torch.randn(1, 3, 64, 48), _keypoints(5, 64, 48))


def probe_inputs():
    return [(torch.randn(1, 3, 96, 80), _keypoints(5, 96, 80)), (torch.randn(1, 3, 40, 72), _keypoints(5, 40, 72))]


DYNAMIC = {0: {2: "height", 3: "width"}}
