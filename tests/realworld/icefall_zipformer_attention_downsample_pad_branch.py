"""icefall Zipformer (pruned_transducer_stateless7): `AttentionDownsample` pads the frame axis to a
multiple of the downsampling factor only `if seq_len != d_seq_len * ds`; exporting with an even
number of frames drops the padding branch, so the ONNX encoder fails in onnxruntime on odd lengths
("The input tensor cannot be reshaped to the requested shape. Input shape:{219,1,384}, requested
shape:{110,2,1,384}").

Source: https://github.com/k2-fsa/icefall/pull/965
"""
import torch
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"src": {0: "frames", 1: "batch"}}
BLIND = "domains-6"


class AttentionDownsample(torch.nn.Module):
    def __init__(self, in_channels: int, out_channels: int, downsample: int):
        super(AttentionDownsample, self).__init__()
        self.query = nn.Parameter(torch.randn(in_channels) * (in_channels**-0.5))
        if out_channels > in_channels:
            self.extra_proj = nn.Linear(in_channels * downsample, out_channels - in_channels, bias=False)
        else:
            self.extra_proj = None
        self.downsample = downsample

    def forward(self, src: Tensor) -> Tensor:
        (seq_len, batch_size, in_channels) = src.shape
        ds = self.downsample
        d_seq_len = (seq_len + ds - 1) // ds

        # Pad to an exact multiple of self.downsample
        if seq_len != d_seq_len * ds:
            # right-pad src, repeating the last element.
            pad = d_seq_len * ds - seq_len
            src_extra = src[src.shape[0] - 1 :].expand(pad, src.shape[1], src.shape[2])
            src = torch.cat((src, src_extra), dim=0)
            assert src.shape[0] == d_seq_len * ds, (src.shape[0], d_seq_len, ds)

        src = src.reshape(d_seq_len, ds, batch_size, in_channels)
        scores = (src * self.query).sum(dim=-1, keepdim=True)
        weights = scores.softmax(dim=1)

        # ans1 is the first `in_channels` channels of the output
        ans = (src * weights).sum(dim=1)
        src = src.permute(0, 2, 1, 3).reshape(d_seq_len, batch_size, ds * in_channels)

        if self.extra_proj is not None:
            ans2 = self.extra_proj(src)
            ans = torch.cat((ans, ans2), dim=2)
        return ans


class SimpleUpsample(torch.nn.Module):
    def __init__(self, num_channels: int, upsample: int):
        super(SimpleUpsample, self).__init__()
        self.bias = nn.Parameter(torch.randn(upsample, num_channels) * 0.01)

    def forward(self, src: Tensor) -> Tensor:
        upsample = self.bias.shape[0]
        (seq_len, batch_size, num_channels) = src.shape
        src = src.unsqueeze(1).expand(seq_len, upsample, batch_size, num_channels)
        src = src + self.bias.unsqueeze(1)
        src = src.reshape(seq_len * upsample, batch_size, num_channels)
        return src


class DownsampledZipformerEncoder(nn.Module):
    def __init__(self, d_model=32, downsample=2):
        super().__init__()
        self.downsample = AttentionDownsample(d_model, d_model, downsample)
        self.encoder = nn.Sequential(nn.Linear(d_model, 64), nn.SiLU(), nn.Linear(64, d_model))
        self.upsample = SimpleUpsample(d_model, downsample)

    def forward(self, src: Tensor) -> Tensor:
        src_orig = src
        src = self.downsample(src)
        src = src + self.encoder(src)
        src = self.upsample(src)
        # remove any extra frames that are not a multiple of downsample_factor
        src = src[: src_orig.shape[0]]
        return 0.5 * (src_orig + src)


def make_model():
    return DownsampledZipformerEncoder().eval()


def example_inputs():
    return (torch.randn(24, 2, 32),)


def other_inputs():
    return [(torch.randn(219, 1, 32),), (torch.randn(37, 3, 32),)]


def probe_inputs():
    return other_inputs()
