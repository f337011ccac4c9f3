"""docTR SAR_ResNet31 text recognizer: the encoder does vertical max pooling with
`F.max_pool2d(features, kernel_size=(features.shape[2], 1), stride=(1, 1))`, a kernel size read from the
feature map's shape; this "functional pooling has raised some ONNX export issues" (the traced kernel size is
a Gather on the shape, not a constant), so the PR replaced it with `features.max(dim=-2).values`.

Source: https://github.com/mindee/doctr/pull/930
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-25"


def conv_bn_relu(in_chans, out_chans):
    return [nn.Conv2d(in_chans, out_chans, 3, padding=1, bias=False), nn.BatchNorm2d(out_chans), nn.ReLU(inplace=True)]


class SAR(nn.Module):
    """Trimmed SAR: ResNet31-like feature extractor + holistic LSTM encoder."""

    def __init__(self, rnn_units: int = 64, dropout_prob: float = 0.) -> None:
        super().__init__()
        # (N, 3, 32, 128) -> (N, 64, 8, 32), like resnet31's /4 output
        self.feat_extractor = nn.Sequential(
            *conv_bn_relu(3, 32), nn.MaxPool2d(2, 2),
            *conv_bn_relu(32, 64), nn.MaxPool2d(2, 2),
            *conv_bn_relu(64, 64),
        )
        self.encoder = nn.LSTM(32, rnn_units, 2, batch_first=True, dropout=dropout_prob)
        self.head = nn.Linear(rnn_units, 40)

    def forward(self, x: torch.Tensor):
        features = self.feat_extractor(x)
        # Vertical max pooling --> (N, C, W)
        pooled_features = F.max_pool2d(features, kernel_size=(features.shape[2], 1), stride=(1, 1))
        pooled_features = pooled_features.squeeze(2)
        _, (encoded, _) = self.encoder(pooled_features)
        encoded = encoded[-1]
        return features, self.head(encoded)


def make_model():
    return SAR().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 128),)


def other_inputs():
    return [(torch.rand(3, 3, 32, 128),), (torch.rand(1, 3, 32, 128),)]


def probe_inputs():
    return other_inputs()
