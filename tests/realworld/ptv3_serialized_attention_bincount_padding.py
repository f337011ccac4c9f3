"""Point Transformer V3 (Pointcept) SerializedAttention, non-flash path: the patch size is taken from
the smallest cloud in the batch (`offset2bincount(offset).min().tolist()`, stored on the module), and
`get_padding_and_inverse` builds the pad/unpad index tensors with `torch.arange(_offset_pad[-1])`, a
Python loop over the clouds, tensor-valued slice bounds and `if bincount[i] != bincount_pad[i]`.
Autoware-ML had to replace this with a shape-only `export_mode` branch to get an ONNX PTv3.

Source: https://github.com/tier4/autoware-ml/pull/43
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"feat": {0: "num_points"}, "serialized_order": {0: "num_points"}}
BLIND = "domains-10"


def offset2bincount(offset):
    return torch.diff(offset, prepend=torch.tensor([0], device=offset.device, dtype=torch.long))


class SerializedAttention(nn.Module):
    def __init__(self, channels, num_heads, patch_size, qkv_bias=True, order_index=0):
        super().__init__()
        self.channels = channels
        self.num_heads = num_heads
        self.scale = (channels // num_heads) ** -0.5
        self.order_index = order_index
        self.patch_size_max = patch_size
        self.patch_size = 0
        self.qkv = torch.nn.Linear(channels, channels * 3, bias=qkv_bias)
        self.proj = torch.nn.Linear(channels, channels)
        self.softmax = torch.nn.Softmax(dim=-1)

    @torch.no_grad()
    def get_padding_and_inverse(self, point):
        pad_key = "pad"
        unpad_key = "unpad"
        cu_seqlens_key = "cu_seqlens_key"
        if (
            pad_key not in point.keys()
            or unpad_key not in point.keys()
            or cu_seqlens_key not in point.keys()
        ):
            offset = point["offset"]
            bincount = offset2bincount(offset)
            bincount_pad = (
                torch.div(bincount + self.patch_size - 1, self.patch_size, rounding_mode="trunc")
                * self.patch_size
            )
            # only pad point when num of points larger than patch_size
            mask_pad = bincount > self.patch_size
            bincount_pad = ~mask_pad * bincount + mask_pad * bincount_pad
            _offset = nn.functional.pad(offset, (1, 0))
            _offset_pad = nn.functional.pad(torch.cumsum(bincount_pad, dim=0), (1, 0))
            pad = torch.arange(_offset_pad[-1], device=offset.device)
            unpad = torch.arange(_offset[-1], device=offset.device)
            cu_seqlens = []
            for i in range(len(offset)):
                unpad[_offset[i] : _offset[i + 1]] += _offset_pad[i] - _offset[i]
                if bincount[i] != bincount_pad[i]:
                    pad[
                        _offset_pad[i + 1] - self.patch_size + (bincount[i] % self.patch_size) : _offset_pad[i + 1]
                    ] = pad[
                        _offset_pad[i + 1] - 2 * self.patch_size + (bincount[i] % self.patch_size) : _offset_pad[i + 1]
                        - self.patch_size
                    ]
                pad[_offset_pad[i] : _offset_pad[i + 1]] -= _offset_pad[i] - _offset[i]
                cu_seqlens.append(
                    torch.arange(_offset_pad[i], _offset_pad[i + 1], step=self.patch_size,
                                 dtype=torch.int32, device=offset.device)
                )
            point[pad_key] = pad
            point[unpad_key] = unpad
            point[cu_seqlens_key] = nn.functional.pad(torch.concat(cu_seqlens), (0, 1), value=_offset_pad[-1])
        return point[pad_key], point[unpad_key], point[cu_seqlens_key]

    def forward(self, point):
        self.patch_size = min(offset2bincount(point["offset"]).min().tolist(), self.patch_size_max)

        H = self.num_heads
        K = self.patch_size
        C = self.channels

        pad, unpad, cu_seqlens = self.get_padding_and_inverse(point)

        order = point["serialized_order"][self.order_index][pad]
        inverse = unpad[point["serialized_inverse"][self.order_index]]

        qkv = self.qkv(point["feat"])[order]
        q, k, v = qkv.reshape(-1, K, 3, H, C // H).permute(2, 0, 3, 1, 4).unbind(dim=0)
        attn = (q * self.scale) @ k.transpose(-2, -1)  # (N', H, K, K)
        attn = self.softmax(attn)
        feat = (attn @ v).transpose(1, 2).reshape(-1, C)
        feat = feat[inverse]
        feat = self.proj(feat)
        point["feat"] = feat
        return point


class PTv3Block(nn.Module):
    def __init__(self, channels=32, num_heads=2, patch_size=48):
        super().__init__()
        self.norm1 = nn.LayerNorm(channels)
        self.attn = SerializedAttention(channels, num_heads, patch_size)

    def forward(self, feat, offset, serialized_order):
        inverse = torch.zeros_like(serialized_order).scatter_(
            dim=0, index=serialized_order,
            src=torch.arange(0, serialized_order.shape[0], device=serialized_order.device),
        )
        point = dict(feat=self.norm1(feat), offset=offset,
                     serialized_order=serialized_order.unsqueeze(0), serialized_inverse=inverse.unsqueeze(0))
        point = self.attn(point)
        return feat + point["feat"]


def make_model():
    return PTv3Block().eval()


def _inputs(n0, n1):
    n = n0 + n1
    return (torch.randn(n, 32), torch.tensor([n0, n], dtype=torch.long), torch.randperm(n))


def example_inputs():
    return _inputs(60, 40)


def other_inputs():
    return [_inputs(70, 80), _inputs(30, 27)]


def probe_inputs():
    return other_inputs()
