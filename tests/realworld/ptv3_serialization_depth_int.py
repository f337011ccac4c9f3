"""Point Transformer V3 (Pointcept) point serialization: the batch index comes from `offset2batch` (repeat_interleave by
per-cloud counts) and the z-order code depth is measured from the data with
`depth = int(self.grid_coord.max()).bit_length()` before encoding `batch << depth * 3 | key`; the ONNX-exportable
port in AWML had to replace these ("hack to avoid unsupported ops in export mode", `bit_length_tensor`).
The serialized neighbourhood mixing is reduced to a 1-D conv over the serialized order.

Source: https://github.com/tier4/AWML/pull/45
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"coord": {0: "points"}, "feat": {0: "points"}, "offset": {0: "clouds"}}
BLIND = "domains-4"


def offset2bincount(offset):
    return torch.diff(offset, prepend=torch.tensor([0], device=offset.device, dtype=torch.long))


def offset2batch(offset):
    bincount = offset2bincount(offset)
    return torch.arange(len(bincount), device=offset.device, dtype=torch.long).repeat_interleave(bincount)


def xyz2key(x, y, z, depth):
    # z-order (Morton) key, bit by bit (as in Pointcept's KeyLUT.xyz2key)
    key = torch.zeros_like(x)
    for i in range(depth):
        mask = 1 << i
        key = key | ((x & mask) << (2 * i + 2)) | ((y & mask) << (2 * i + 1)) | ((z & mask) << (2 * i + 0))
    return key


def z_order_encode(grid_coord, batch, depth):
    x, y, z = grid_coord[:, 0].long(), grid_coord[:, 1].long(), grid_coord[:, 2].long()
    code = xyz2key(x, y, z, depth)
    return batch << depth * 3 | code


class Point(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "batch" not in self.keys() and "offset" in self.keys():
            self["batch"] = offset2batch(self["offset"])

    def serialization(self, depth=None):
        if "grid_coord" not in self.keys():
            self["grid_coord"] = torch.div(
                self["coord"] - self["coord"].min(0)[0], self["grid_size"], rounding_mode="trunc"
            ).int()
        if depth is None:
            # Adaptive measure the depth of serialization cube (length = 2 ^ depth)
            depth = int(self["grid_coord"].max()).bit_length()
        self["serialized_depth"] = depth
        assert depth <= 16
        code = z_order_encode(self["grid_coord"], self["batch"], depth)[None]
        order = torch.argsort(code)
        inverse = torch.zeros_like(order).scatter_(
            dim=1, index=order, src=torch.arange(0, code.shape[1], device=order.device).repeat(code.shape[0], 1)
        )
        self["serialized_code"] = code
        self["serialized_order"] = order
        self["serialized_inverse"] = inverse


class TinyPTv3(nn.Module):
    def __init__(self, in_channels=4, channels=16, grid_size=0.05):
        super().__init__()
        self.grid_size = grid_size
        self.embedding = nn.Linear(in_channels, channels)
        self.mix = nn.Conv1d(channels, channels, kernel_size=5, padding=2)
        self.head = nn.Linear(channels, 3)

    def forward(self, coord, feat, offset):
        point = Point(coord=coord, feat=feat, offset=offset, grid_size=self.grid_size)
        point.serialization()
        order = point["serialized_order"][0]
        inverse = point["serialized_inverse"][0]
        x = self.embedding(point["feat"])
        x = self.mix(x[order].t()[None])[0].t()[inverse]  # mix neighbours along the z-order curve
        return self.head(torch.relu(x))


def make_model():
    return TinyPTv3().eval()


def _clouds(counts, extent):
    coord = torch.cat([torch.rand(n, 3) * extent for n in counts])
    feat = torch.cat([coord, torch.rand(coord.shape[0], 1)], dim=1)
    offset = torch.cumsum(torch.tensor(counts), 0)
    return (coord, feat, offset)


def example_inputs():
    return _clouds([300, 200], 1.0)  # grid up to 20 cells -> depth 5


def other_inputs():
    return [_clouds([250, 400, 150], 12.0), _clouds([500], 3.0)]


def probe_inputs():
    return other_inputs()
