"""Classifier exported together with its training criterion `nn.CrossEntropyLoss(label_smoothing=0.1)`
(logits and loss as outputs, e.g. for on-device training / evaluation graphs). torchlib's
`aten::cross_entropy_loss` maps to a single SoftmaxCrossEntropyLoss and drops `label_smoothing`
("this was ignored due to ONNX not support"), so the dynamo-exported loss silently differs from eager;
the TorchScript exporter refuses the argument outright ("ONNX does not support label_smoothing").

Source: https://github.com/microsoft/onnxscript/pull/444
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "batch"}, "labels": {0: "batch"}}
BLIND = "operators-21"


class SmallConvClassifier(nn.Module):
    def __init__(self, num_classes=10, label_smoothing=0.1):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, num_classes)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=label_smoothing)

    def forward(self, images, labels):
        logits = self.fc(torch.flatten(self.features(images), 1))
        loss = self.criterion(logits, labels)
        return logits, loss


def make_model():
    return SmallConvClassifier().eval()


def example_inputs():
    return (torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,)))


def other_inputs():
    return [(torch.randn(6, 3, 32, 32), torch.randint(0, 10, (6,))),
            (torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,)))]


def probe_inputs():
    return other_inputs()
