"""NeMo ConvASREncoder (QuartzNet/Jasper blocks) exported with its `length` input, as RNNT export needs
(NVIDIA/NeMo#2510 "Enable RNNT ONNX Export"). Before the PR, `MaskedConv1d.forward` keeps a Python-int
`self.max_len` and a cached `self.lens = torch.arange(max_len)` on the module, regrowing them only
`if max_len > self.max_len`, and masks with `self.lens[:max_len] < lens`; the PR moved this into a
`torch.jit.script` helper with tensor state because the cached range and the size branch do not export.
(CTC export sidestepped it by switching the masks off; RNNT export keeps them.)

Source: https://github.com/NVIDIA/NeMo/pull/2510
"""
import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}, "length": {0: "batch"}}
BLIND = "domains-52"


class MaskedConv1d(nn.Module):
    __constants__ = ["use_conv_mask", "real_out_channels", "heads"]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 heads=-1, bias=False, use_mask=True):
        super(MaskedConv1d, self).__init__()

        if not (heads == -1 or groups == in_channels):
            raise ValueError("Only use heads for depthwise convolutions")

        self.real_out_channels = out_channels
        if heads != -1:
            in_channels = heads
            out_channels = heads
            groups = heads

        # preserve original padding
        self._padding = padding
        self.pad_layer = None
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                              dilation=dilation, groups=groups, bias=bias)
        self.use_mask = use_mask
        self.heads = heads

        # Calculations for "same" padding cache
        self.same_padding = (self.conv.stride[0] == 1) and (
            2 * self.conv.padding[0] == self.conv.dilation[0] * (self.conv.kernel_size[0] - 1)
        )
        self.same_padding_asymmetric = False

        # `self.lens` caches consecutive integers from 0 to `self.max_len` that are used to compute the mask for a
        # batch. Recomputed to bigger size as needed. Stored on a device of the latest batch lens.
        if self.use_mask:
            self.max_len = 0
            self.lens = None

    def get_seq_len(self, lens):
        if self.same_padding or self.same_padding_asymmetric:
            return lens

        return (
            lens + 2 * self.conv.padding[0] - self.conv.dilation[0] * (self.conv.kernel_size[0] - 1) - 1
        ) // self.conv.stride[0] + 1

    def forward(self, x, lens):
        if self.use_mask:
            max_len = x.size(2)
            if max_len > self.max_len:
                self.lens = torch.arange(max_len)
                self.max_len = max_len

            self.lens = self.lens.to(lens.device)
            mask = self.lens[:max_len].unsqueeze(0) < lens.unsqueeze(1)
            x = x * mask.unsqueeze(1).to(device=x.device)
            lens = self.get_seq_len(lens)

        sh = x.shape
        if self.heads != -1:
            x = x.view(-1, self.heads, sh[-1])

        out = self.conv(x)

        if self.heads != -1:
            out = out.view(sh[0], self.real_out_channels, -1)

        return out, lens


class JasperBlock(nn.Module):
    """One-repeat QuartzNet block: depthwise + pointwise MaskedConv1d, BN, ReLU."""

    def __init__(self, inplanes, planes, kernel_size=11, stride=1):
        super().__init__()
        self.mconv = nn.ModuleList([
            MaskedConv1d(inplanes, inplanes, kernel_size, stride=stride, padding=(kernel_size // 2),
                         groups=inplanes),
            MaskedConv1d(inplanes, planes, 1),
            nn.BatchNorm1d(planes, eps=1e-3, momentum=0.1),
        ])
        self.mout = nn.Sequential(nn.ReLU(), nn.Dropout(p=0.0))

    def forward(self, input_):
        xs, lens_orig = input_
        out = xs[-1]
        lens = lens_orig
        for i, l in enumerate(self.mconv):
            if isinstance(l, MaskedConv1d):
                out, lens = l(out, lens)
            else:
                out = l(out)
        out = self.mout(out)
        return [out], lens


class ConvASREncoder(nn.Module):
    def __init__(self, feat_in=16, filters=(32, 32, 48), strides=(2, 1, 1)):
        super().__init__()
        layers = []
        for f, s in zip(filters, strides):
            layers.append(JasperBlock(feat_in, f, stride=s))
            feat_in = f
        self.encoder = torch.nn.Sequential(*layers)

        # Flag needed for RNNT export support
        self._rnnt_export = True

    def forward(self, audio_signal, length=None):
        s_input, length = self.encoder(([audio_signal], length))
        if length is None:
            return s_input[-1]

        return s_input[-1], length


def make_model():
    return ConvASREncoder().eval()


def _inputs(b, t, lens):
    return (torch.randn(b, 16, t), torch.tensor(lens, dtype=torch.int64))


def example_inputs():
    return _inputs(2, 64, [64, 41])


def other_inputs():
    return [_inputs(3, 150, [150, 97, 120]), _inputs(1, 33, [33])]


def probe_inputs():
    return other_inputs()
