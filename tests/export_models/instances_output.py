"""A detector returning detectron2-style results: `[{"instances": Instances(...)}]` per image, an
object of the model's own class whose fields sit in a dict, beside the image size as Python ints
(DeepSolo, every detectron2 model). Neither exporter flattens the class (ONX916); flattened at the
boundary, the ONNX model returns the tensors, compared with eager's in order."""
import torch
from torch import nn


class Instances:
    """detectron2.structures.Instances, in its minimal form."""

    def __init__(self, image_size, **fields):
        self._image_size = image_size
        self._fields = {}
        for name, value in fields.items():
            self._fields[name] = value

    def __getattr__(self, name):
        if name == "_fields" or name not in self._fields:
            raise AttributeError(name)
        return self._fields[name]


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.head = nn.Linear(8, 5)

    def forward(self, image):
        scores = self.head(self.backbone(image).mean((2, 3))).sigmoid()  # (batch, 5)
        results = []
        for per_image in scores:
            keep = per_image > 0.5
            results.append({"instances": Instances(tuple(image.shape[-2:]), scores=per_image[keep],
                                                   classes=keep.nonzero()[:, 0])})
        return results


def make_model():
    torch.manual_seed(0)
    return Detector().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(1, 3, 32, 48),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(1, 3, 40, 24),), (torch.randn(1, 3, 64, 64),)]
