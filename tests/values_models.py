"""One small model per ONX2xx/ONX4xx value pattern, written the way model code writes them.

tests/test_values_exporters.py exports each class as it is (re-measuring how each exporter
fails) and after `onnxfix --write --unsafe-fixes` (proving each fix exports correctly).
Every forward takes ``x`` (dynamic in both dimensions) and a 2-element tensor ``s``.
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Tolist(nn.Module):  # ONX202
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        scale, shift = s.tolist()
        return x * scale + shift


class FloatOfTensor(nn.Module):  # ONX203, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * float(s[0])


class IntOfSize(nn.Module):  # ONX203, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x.view(int(x.size(0)), -1) * 2


class IntOfSizeDivision(nn.Module):  # ONX203, safe fix; dynamo is silently wrong
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : int(x.size(1) / 2)]


class IntOfSizeShifted(nn.Module):  # ONX203, unsafe fix (`a // b + 1`: the numerator may be negative)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : int((x.size(1) - 3) / 2 + 1)]


class IntOfSizeByAttribute(nn.Module):  # ONX203, unsafe fix (`scale` not proven a non-negative int)
    def __init__(self):
        super().__init__()
        self.scale = 2

    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return self.unshuffle_columns(x, self.scale)

    def unshuffle_columns(self, x: torch.Tensor, scale):
        rows, cols = x.shape
        cols = int(cols / scale)  # mmedit's pixel_unshuffle: `cols` rebound through itself
        return x.view(rows, cols, scale).sum(-1)


class IntOfSizeRatio(nn.Module):  # ONX203, unsafe fix (Swin's window count: one floor division of products)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        windows = x.reshape(-1, 2)
        n = int(windows.shape[0] / (x.shape[1] / 2))
        return windows.view(n, -1) * 2


class ItemIntPadMask(nn.Module):  # ONX201 under int(), safe fix (`.long()` while tracing: torchaudio's padding mask)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        lengths = (x > 0).sum(1)
        n = int(lengths.max().item())
        return torch.arange(n).expand(x.shape[0], n) < lengths[:, None]


class IntOfSizeHalf(nn.Module):  # ONX203, safe fix (`// 2`)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : int(x.size(1) * 0.5)]


class IntOfSizeRoot(nn.Module):  # ONX203 `_onnx_sym_int` (safe; `torch.sym_int` for a torch.export-only project)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        side = int(x.size(1) ** 0.5)
        return x[:, : side * side]


class IntOfFloatName(nn.Module):  # ONX203 `_onnx_sym_int` (safe), `a // b` with --unsafe-fixes: julius
    def __init__(self, old_sr: int = 3, new_sr: int = 2):
        super().__init__()
        gcd = math.gcd(old_sr, new_sr)
        self.old_sr = old_sr // gcd
        self.new_sr = new_sr // gcd

    def forward(self, x: torch.Tensor, s: torch.Tensor):
        length = x.shape[-1]
        float_length = self.new_sr * length / self.old_sr
        return x[:, : int(float_length)] * 2


class FloatOfSize(nn.Module):  # ONX203: torch.sym_float (_onnx_sym_float for legacy: it meets x in `*`)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * float(x.size(1))


class BoolOfTensor(nn.Module):  # ONX203, no fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        flag = bool((x > 0).all())
        return x * flag


class LenOfTensor(nn.Module):  # ONX204
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[: len(x) - 1] * len(x)


class TensorFromSizes(nn.Module):  # ONX205, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x.sum() + torch.tensor([x.shape[0], x.shape[1]])


class TensorFromShape(nn.Module):  # ONX205, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return torch.tensor(x.shape) * 2


class Sqrt(nn.Module):  # ONX402, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x / math.sqrt(x.size(-1))


class Ceil(nn.Module):  # ONX402
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : math.ceil(x.size(1) / 4)]


class Floor(nn.Module):  # ONX402
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : math.floor(x.size(1) / 4)]


class CeilOfScaledSize(nn.Module):  # ONX402 `_onnx_size_round` (safe: a float scale, no integer form)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : math.ceil(x.size(1) * 0.75)]


class FloorByScaleAttribute(nn.Module):  # ONX402 `_onnx_size_round` (safe): the scale a float of the config
    def __init__(self, scale: float = 0.5):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x[:, : math.floor(x.size(1) * self.scale)]


class Pow(nn.Module):  # ONX402
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * math.pow(x.size(1), 0.5)


class Log2(nn.Module):  # ONX402, no fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * math.log2(x.size(1))


class MaxOfTensors(nn.Module):  # ONX403
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * max(x.sum(), s.sum())


class MaxOfOneTensor(nn.Module):  # ONX403 of one tensor (speech models' `max(lengths)`), unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * max(x[:, 0])


class MaxWithNumber(nn.Module):  # ONX403
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x * max(x.mean(), 0.0)


class ShapeSplat(nn.Module):  # no rule: measured correct in both exporters
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x.reshape(*x.shape[:-1], -1, 2).sum(-1)


class ItemFull(nn.Module):  # ONX201, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x + torch.full((x.shape[1],), s[0].item())


class ItemClamp(nn.Module):  # ONX201, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return torch.clamp(x, max=s[1].item())


class ItemMaskedFill(nn.Module):  # ONX201, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x.masked_fill(x < 0, s[0].item())


class NewTensorFromSizes(nn.Module):  # ONX205, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return s * x.new_tensor((x.size(0), x.size(1)))


class AsTensorFromShape(nn.Module):  # ONX205, unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return s / torch.as_tensor(x.shape, dtype=torch.float32)


class NumpyMaxClip(nn.Module):  # ONX101/102/103, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        a = x.numpy()
        m = np.max(a, axis=-1, keepdims=True)
        return torch.from_numpy(np.clip(a - m, a_min=-1, a_max=1))


class NumpyZeros(nn.Module):  # ONX101/103, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        z = np.zeros(x.shape[0])
        return torch.tensor(z) + x.sum(1)


class NumpySplit(nn.Module):  # ONX101/102/103, safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        parts = np.split(x.numpy(), 2, axis=1)
        return torch.from_numpy(parts[0]) * torch.from_numpy(parts[1])


class NumpyExp(nn.Module):  # ONX101/102/103, safe fix: exp may differ in the last bit, so eager keeps NumPy
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return torch.from_numpy(np.exp(x.detach().numpy())) + x


class NumpyMeanSteps(nn.Module):  # ONX101/102/103, safe fix guarded statement by statement
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        a = x.numpy()
        m = np.mean(a, axis=0)
        return torch.from_numpy(np.tanh(a - m))


class NumpyFinfoFill(nn.Module):  # ONX101/102 (ESPnet's and FunASR's fill value: NumPy's limit of the dtype), safe fix guarded
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        min_value = float(np.finfo(torch.tensor(0, dtype=x.dtype).numpy().dtype).min)
        return x.masked_fill(x < s[0], min_value).softmax(-1)


class NumpySumShift(nn.Module):  # ONX102, unsafe fix (Kokoro: a NumPy scalar into torch arithmetic), guarded
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x + x.numpy().sum()


class TensorFromAppendedSizes(nn.Module):  # ONX205 of a list grown by `.append` (FaceBoxes), unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        sizes = list()
        sizes.append(x.shape)
        sizes.append(x[:, 1:].shape)
        table = torch.tensor(sizes)
        return s[:, None] * table.to(s.dtype)


class TypedFromSizes(nn.Module):  # ONX205 of a typed constructor given a list of sizes (CRNN), safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return torch.IntTensor([x.shape[0], x.shape[1]]).to(s.dtype) * s


class MappedSizes(nn.Module):  # ONX203 on `map(int, x.size())` unpacked (FPN's upsample-add), safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        rows, cols = map(int, x.size())
        return x.reshape(rows * cols)[:cols] * s[0]


class SizeListItem(nn.Module):  # ONX401 on an item of a list built from the size tuple (LayoutLMv2), safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        shape = x.size()
        wide = list(shape)
        wide[1] += 2
        out = x.new_zeros(wide) + s[0]
        return out[:, : shape[1]] + x


class ItemSplitSizes(nn.Module):  # ONX201 in a comprehension of split sizes (Mask2Former), safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        ends = (x[0] == x[0]).long().cumsum(0)  # 1, 2, ..., cols: sizes as tensor values
        sizes = [ends[0] + 1, x.shape[1] - ends[1]]
        left, right = torch.split(x, [size.item() for size in sizes], dim=1)
        return torch.cat([left * s[0], right - s[1]], dim=1)


class AsTensorOfSize(nn.Module):  # ONX205 (dynamo only), safe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return s / torch.as_tensor(x.shape[0])


class ItemNameTopk(nn.Module):  # ONX201 through a name, safe fix (topk's k takes the tensor)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        k = s[1].long().clamp(min=1).item()
        return x.topk(k, dim=-1)[0]


class ItemNamePadMask(nn.Module):  # ONX201 through a name, safe fix (WeNet's make_pad_mask)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        lengths = (x > x.mean()).sum(-1)
        max_len = lengths.max().item()
        seq_range = torch.arange(0, max_len, dtype=torch.int64)
        mask = seq_range.unsqueeze(0).expand(x.shape[0], max_len) < lengths.unsqueeze(-1)
        return mask.to(x.dtype)


class ItemNamePad(nn.Module):  # ONX201 through a name, unsafe fix (size arithmetic keeps the dtype)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        target = (x > 0).sum().item()
        return F.pad(x, (0, target - x.shape[-1]))


class ItemArangeOneElement(nn.Module):  # ONX201 arange of a one-element 1-d tensor: `.reshape(())` while tracing, safe
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        positives = (x > 0).sum(1)[:1]  # not 0-d: torch.arange would refuse the tensor itself
        return torch.arange(positives.item()) * s[1]


class ItemPadInt32(nn.Module):  # ONX201 size arithmetic on an int32 `.item()`: the tensor while tracing, safe
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return F.pad(x, (0, (x > 0).sum().int().item() - x.shape[-1]))


class ItemNameScale(nn.Module):  # ONX201 through a name, unsafe fix (type promotion)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        scale = s[0].item()
        return x * scale + 1


class IntName(nn.Module):  # ONX203 through a name, unsafe fix (int() truncates a float tensor)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        n = int((x > 0).sum())
        return x.flatten()[:n]



class NumpyProdShape(nn.Module):  # ONX101 on a shape, unsafe fix (`math.prod`: an empty shape gives 1, not 1.0)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        return x.reshape(np.prod(x.shape)) * s[0]


class NumpyProdShapeTail(nn.Module):  # ONX101 on a shape slice (Perceiver's Fourier features), unsafe fix
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        y = torch.stack([x, x * 2], dim=1)
        return torch.reshape(y, [-1, np.prod(y.shape[1:])]) * s[0]

class SizeNumel(nn.Module):  # ONX411: torch.Size.numel() of shapes (mmyolo's per-level prior counts)
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        sizes = [x.shape[1:], x.shape]
        counts = [x.new_full((size.numel(),), 2.0) for size in sizes]
        return (x.flatten() * counts[1]).reshape(x.shape) + counts[0] * s[0]

def _randn(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def example_inputs():
    return (_randn(4, 6).abs() + 0.1, torch.tensor([2.0, 3.0]))


def probe_inputs():
    return [
        (_randn(4, 6) * 3, torch.tensor([3.0, -1.0])),  # other values
        (_randn(6, 10).abs() * -1, torch.tensor([-0.5, 0.5])),  # other sizes, other signs
    ]


DYNAMIC = {0: {0: "rows", 1: "cols"}}
