"""ONX206: pix2pixHD's one-hot label encoder allocates with the typed constructor
`torch.FloatTensor(torch.Size(shape)).zero_()`. The legacy exporter records the allocation as a
constant of the export-time shape. Fixed (safely) by `torch.zeros` with the size, dtype and device."""
import torch
from torch import nn


class OneHotEncoder(nn.Module):
    def __init__(self, label_nc=6):
        super().__init__()
        self.label_nc = label_nc
        self.conv = nn.Conv2d(label_nc, 4, 3, padding=1)

    def forward(self, label_map: torch.Tensor):
        size = label_map.size()
        one_hot_size = (size[0], self.label_nc, size[2], size[3])
        input_label = torch.FloatTensor(torch.Size(one_hot_size)).zero_()
        input_label = input_label.scatter_(1, label_map.abs().long() % self.label_nc, 1.0)
        return self.conv(input_label)


def make_model():
    torch.manual_seed(0)
    return OneHotEncoder()


def _labels(batch, h, w, seed):
    return torch.randint(0, 6, (batch, 1, h, w), generator=torch.Generator().manual_seed(seed)).float()


def example_inputs():
    return (_labels(2, 8, 10, 0),)


def probe_inputs():
    return [(_labels(3, 12, 7, 1),), (_labels(1, 9, 9, 2),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
