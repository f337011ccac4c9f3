"""Prototypical Network for few-shot classification: a conv backbone embeds support and query images, class
prototypes are the mean support embedding per label, and the logits are `-torch.cdist(z_query, z_proto)`;
the report says torch.onnx.export fails with "Exporting the operator cdist to ONNX opset version 9 is not supported".

Source: https://github.com/onnx/onnx/issues/3327
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "support_images": {0: "n_support"},
    "support_labels": {0: "n_support"},
    "query_images": {0: "n_query"},
}
BLIND = "operators-8"

N_WAY = 3


class PrototypicalNetworks(nn.Module):
    def __init__(self, backbone: nn.Module, n_way: int = N_WAY):
        super(PrototypicalNetworks, self).__init__()
        self.backbone = backbone
        self.n_way = n_way

    def forward(self, support_images, support_labels, query_images):
        z_support = self.backbone.forward(support_images)
        z_query = self.backbone.forward(query_images)

        # Prototype i is the mean of all instances of features corresponding to labels == i
        z_proto = torch.cat(
            [
                z_support[torch.nonzero(support_labels == label)].mean(0)
                for label in range(self.n_way)
            ]
        )

        # Compute the euclidean distance from queries to prototypes
        dists = torch.cdist(z_query, z_proto)

        # And here is the super complicated operation to transform those distances into classification scores!
        scores = -dists
        return scores


def make_model():
    backbone = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    )
    return PrototypicalNetworks(backbone).eval()


def _episode(n_shot, n_query):
    labels = torch.arange(N_WAY).repeat_interleave(n_shot)
    return (torch.randn(N_WAY * n_shot, 3, 28, 28), labels, torch.randn(n_query, 3, 28, 28))


def example_inputs():
    return _episode(5, 10)


def other_inputs():
    return [_episode(2, 4), _episode(3, 13)]


def probe_inputs():
    return other_inputs()
