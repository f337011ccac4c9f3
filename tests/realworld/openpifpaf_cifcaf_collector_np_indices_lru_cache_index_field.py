"""OpenPifPaf (bottom-up human pose) adds a pixel index field to the CIF/CAF regression fields in
CifCafCollector; the field is built with `np.indices(shape)` inside an `functools.lru_cache`d helper keyed
on the feature map size, then `cif_head[:, :, 1:3] += index_field`. PR #240 reworked this in-place add for
the ONNX graph, and the export script of that version keeps the height/width dynamic_axes commented out
("TODO: gives warnings"): the index field is a NumPy constant of the traced feature size.

Source: https://github.com/openpifpaf/openpifpaf/pull/240
"""
import functools

import numpy as np
import torch

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-66"


@functools.lru_cache(maxsize=16)
def index_field_torch(shape, *, device=None, n_unsqueeze=2):
    yx = np.indices(shape, dtype=np.float32)
    xy = np.flip(yx, axis=0)

    xy = torch.from_numpy(xy.copy())
    if device is not None:
        xy = xy.to(device, non_blocking=True)

    for _ in range(n_unsqueeze):
        xy = torch.unsqueeze(xy, 0)

    return xy


class CompositeField(torch.nn.Module):
    def __init__(self, n_fields, n_components, in_features):
        super(CompositeField, self).__init__()
        self.n_fields = n_fields
        self.n_components = n_components
        self.conv = torch.nn.Conv2d(in_features, n_fields * n_components, 1)

    def forward(self, x):
        x = self.conv(x)
        return x.view(x.shape[0], self.n_fields, self.n_components, x.shape[2], x.shape[3])


class CifCafCollector(torch.nn.Module):
    @staticmethod
    def concat_heads(heads):
        if not heads:
            return None
        if len(heads) == 1:
            return heads[0]
        return torch.cat(heads, dim=1)

    def forward(self, *args):
        heads = args[0]
        cif_head = self.concat_heads([heads[0]])
        caf_head = self.concat_heads([heads[1]])

        # add index
        index_field = index_field_torch(cif_head.shape[-2:], device=cif_head.device)
        if cif_head is not None:
            cif_head[:, :, 1:3] += index_field
        if caf_head is not None:
            caf_head[:, :, 1:3] += index_field
            caf_head[:, :, 3:5] += index_field
            # rearrange caf_fields
            caf_head = caf_head[:, :, (0, 1, 2, 5, 7, 3, 4, 6, 8)]

        return cif_head, caf_head


class PifPafNet(torch.nn.Module):
    def __init__(self):
        super(PifPafNet, self).__init__()
        self.base_net = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
        )
        self.cif = CompositeField(17, 5, 32)   # confidence, x, y, b, scale
        self.caf = CompositeField(19, 9, 32)   # confidence, x1, y1, x2, y2, b1, b2, s1, s2
        self.collector = CifCafCollector()

    def forward(self, x):
        x = self.base_net(x)
        return self.collector([self.cif(x), self.caf(x)])


def make_model():
    return PifPafNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 97, 129),)


def other_inputs():
    return [(torch.randn(2, 3, 129, 161),), (torch.randn(1, 3, 65, 81),)]


def probe_inputs():
    return other_inputs()
