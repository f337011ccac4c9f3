"""D2-Net keypoint detector (lib/model_test.py): HardDetectionModule combines its boolean masks with
`torch.min(bool, bool)`; the exported graph then has an ONNX Min on tensor(bool), and loading d2net.onnx in
onnxruntime fails with "Type 'tensor(bool)' of input parameter ... of operator (Min) ... is invalid".

Source: https://github.com/microsoft/onnxruntime/issues/16321
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"batch": {2: "height", 3: "width"}}
BLIND = "operators-16"


class DenseFeatureExtractionModule(nn.Module):
    def __init__(self, use_relu=True):
        super(DenseFeatureExtractionModule, self).__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2, stride=2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.AvgPool2d(2, stride=1),
            nn.Conv2d(32, 32, 3, padding=2, dilation=2),
        )
        self.num_channels = 32
        self.use_relu = use_relu

    def forward(self, batch):
        output = self.model(batch)
        if self.use_relu:
            output = F.relu(output)
        return output


class HardDetectionModule(nn.Module):
    def __init__(self, edge_threshold=5):
        super(HardDetectionModule, self).__init__()
        self.edge_threshold = edge_threshold
        self.dii_filter = torch.tensor(
            [[0, 1., 0], [0, -2., 0], [0, 1., 0]]
        ).view(1, 1, 3, 3)
        self.dij_filter = 0.25 * torch.tensor(
            [[1., 0, -1.], [0, 0., 0], [-1., 0, 1.]]
        ).view(1, 1, 3, 3)
        self.djj_filter = torch.tensor(
            [[0, 0, 0], [1., -2., 1.], [0, 0, 0]]
        ).view(1, 1, 3, 3)

    def forward(self, batch):
        b, c, h, w = batch.size()
        device = batch.device

        depth_wise_max = torch.max(batch, dim=1)[0]
        is_depth_wise_max = (batch == depth_wise_max)
        del depth_wise_max

        local_max = F.max_pool2d(batch, 3, stride=1, padding=1)
        is_local_max = (batch == local_max)
        del local_max

        dii = F.conv2d(
            batch.view(-1, 1, h, w), self.dii_filter.to(device), padding=1
        ).view(b, c, h, w)
        dij = F.conv2d(
            batch.view(-1, 1, h, w), self.dij_filter.to(device), padding=1
        ).view(b, c, h, w)
        djj = F.conv2d(
            batch.view(-1, 1, h, w), self.djj_filter.to(device), padding=1
        ).view(b, c, h, w)

        det = dii * djj - dij * dij
        tr = dii + djj
        del dii, dij, djj

        threshold = (self.edge_threshold + 1) ** 2 / self.edge_threshold
        is_not_edge = torch.min(tr * tr / det <= threshold, det > 0)

        detected = torch.min(
            is_depth_wise_max,
            torch.min(is_local_max, is_not_edge)
        )
        del is_depth_wise_max, is_local_max, is_not_edge

        return detected


class D2Net(nn.Module):
    def __init__(self, use_relu=True):
        super(D2Net, self).__init__()
        self.dense_feature_extraction = DenseFeatureExtractionModule(use_relu=use_relu)
        self.detection = HardDetectionModule()

    def forward(self, batch):
        _, _, h, w = batch.size()
        dense_features = self.dense_feature_extraction(batch)
        detections = self.detection(dense_features)
        return dense_features, detections


def make_model():
    return D2Net().eval()


def example_inputs():
    return (torch.randn(1, 3, 48, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 40),), (torch.randn(1, 3, 36, 52),)]


def probe_inputs():
    return other_inputs()
