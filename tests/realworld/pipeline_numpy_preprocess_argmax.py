"""Inference pipeline module wrapping a pretrained CNN: forward moves the batch to NumPy, preprocesses it
there, runs the CNN and returns `.numpy().argmax()`; torch.onnx.export fails with "Cannot insert a Tensor
that requires grad as a constant" on the argmax line (eager runs fine).

Source: https://github.com/pytorch/pytorch/issues/58652
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"input_batch": {0: "batch"}}
BLIND = "domains-29"


class alexnet(nn.Module):
    # stand-in for the user's pretrained AlexNet-style classifier
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=5, stride=2, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((4, 4)),
        )
        self.classifier = nn.Sequential(nn.Dropout(), nn.Linear(32 * 4 * 4, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


pre_model = alexnet()
pretrained_model = pre_model


def process_for_model(input_batch):
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(1, 3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(1, 3, 1, 1)
    data = (input_batch - mean) / std
    return torch.from_numpy(data.astype(np.float32))


class mypipeline(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, input_batch):
        input_batch = input_batch.cpu().detach().numpy()
        processed_data = process_for_model(input_batch)
        pre_model.eval()
        with torch.no_grad():
            output = pretrained_model(processed_data).cpu().detach().numpy().argmax()
            self.output = output
        return output


def make_model():
    return mypipeline()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 64, 64),), (torch.rand(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
