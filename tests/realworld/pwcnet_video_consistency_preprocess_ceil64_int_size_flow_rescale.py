"""PWC-Net optical flow wrapper for video stream consistency (sniklaus pytorch-pwc based): forward takes NHWC frames,
resizes them to a multiple of 64 with `intPreprocessedWidth = int(math.floor(math.ceil(intWidth / 64.0) * 64.0))`,
runs the flow network, resizes the flow back to the input size and rescales it in place with
`tensorOutput[:, 0, :, :] *= float(intWidth) / float(intPreprocessedWidth)`. The project's ONNX conversion script works
around it by moving the size math into `@torch.jit.script` helpers (`interpolate`, `interpolateFlowToSize`) so the
exported model with dynamic height/width does not keep the export-time sizes as constants.

Source: https://github.com/MaxReimann/video-stream-consistency/blob/8da83ac378871b47d114b75615177aa8b30abd1d/model-conversion/convert_onnx.py
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"frame1": {0: "batch", 1: "height", 2: "width"}, "frame2": {0: "batch", 1: "height", 2: "width"}}
BLIND = "domains-51"


class TinyPWCNet(nn.Module):
    # trimmed PWC-Net: shared stride-4 extractor, a cost-like fusion and a flow estimator at 1/4 resolution
    def __init__(self, c=16):
        super().__init__()
        self.extractor = nn.Sequential(
            nn.Conv2d(3, c, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(c, c, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
        )
        self.estimator = nn.Sequential(
            nn.Conv2d(2 * c + 1, c, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(c, 2, 3, padding=1),
        )

    def forward(self, tensorFirst, tensorSecond):
        f1 = self.extractor(tensorFirst)
        f2 = self.extractor(tensorSecond)
        corr = (f1 * f2).mean(1, keepdim=True)
        return self.estimator(torch.cat([f1, f2, corr], 1)) * 20.0


class PyTorchWrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    # traces resizing to factor of 64 and other preprocessing steps as well for onnx
    def forward(self, frame1, frame2):
        frame1 = frame1.permute(0, 3, 1, 2).float()
        frame2 = frame2.permute(0, 3, 1, 2).float()
        frame1 = frame1[:, :3, ...] / 255.0
        frame2 = frame2[:, :3, ...] / 255.0

        intWidth = frame1.size(3)
        intHeight = frame1.size(2)
        intPreprocessedWidth = int(math.floor(math.ceil(intWidth / 64.0) * 64.0))
        intPreprocessedHeight = int(math.floor(math.ceil(intHeight / 64.0) * 64.0))
        tensor1Preprocessed = F.interpolate(input=frame1, size=(intPreprocessedHeight, intPreprocessedWidth), mode='bilinear', align_corners=False)
        tensor2Preprocessed = F.interpolate(input=frame2, size=(intPreprocessedHeight, intPreprocessedWidth), mode='bilinear', align_corners=False)

        pred = self.model(tensor1Preprocessed.contiguous(), tensor2Preprocessed.contiguous())
        tensorOutput = F.interpolate(input=pred, size=(intHeight, intWidth), mode='bilinear', align_corners=False)
        tensorOutput[:, 0, :, :] *= float(intWidth) / float(intPreprocessedWidth)
        tensorOutput[:, 1, :, :] *= float(intHeight) / float(intPreprocessedHeight)

        tensorOutput = tensorOutput.permute(0, 2, 3, 1)
        # add channel to create RGB32 form
        tensorOutput = torch.cat((tensorOutput, torch.zeros_like(tensorOutput[..., :1]).float()), dim=3)
        return tensorOutput


def make_model():
    return PyTorchWrapper(TinyPWCNet()).eval()


def _frames(b, h, w):
    return torch.rand(b, h, w, 4) * 255.0


def example_inputs():
    return (_frames(1, 100, 150), _frames(1, 100, 150))


def other_inputs():
    return [(_frames(2, 72, 200), _frames(2, 72, 200)), (_frames(1, 130, 90), _frames(1, 130, 90))]


def probe_inputs():
    return other_inputs()
