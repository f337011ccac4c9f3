"""Zipformer (icefall) encoder stack with AttentionDownsample: it right-pads the frames to a multiple of the
downsampling factor only `if seq_len != d_seq_len * ds:`; traced with an even number of frames the pad is
skipped, so the exported encoder only runs when the frame count divides evenly (Reshape error otherwise).

Source: https://github.com/k2-fsa/icefall/issues/966
"""
import torch
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"src": {0: "seq_len", 1: "batch"}}
BLIND = "domains-11"


class AttentionDownsample(torch.nn.Module):
    """
    Does downsampling with attention, by weighted sum, and a projection..
    """

    def __init__(self, in_channels: int, out_channels: int, downsample: int):
        super(AttentionDownsample, self).__init__()
        self.query = nn.Parameter(torch.randn(in_channels) * (in_channels**-0.5))

        # fill in the extra dimensions with a projection of the input
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


class DownsampledEncoderStack(nn.Module):
    def __init__(self, dim=16, out_dim=24, downsample=2):
        super().__init__()
        self.layer = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.downsample = AttentionDownsample(dim, out_dim, downsample)
        self.out = nn.Linear(out_dim, out_dim)

    def forward(self, src):
        src = self.layer(src)
        return self.out(self.downsample(src))


def make_model():
    return DownsampledEncoderStack().eval()


def example_inputs():
    return (torch.randn(16, 2, 16),)


def other_inputs():
    return [(torch.randn(21, 3, 16),), (torch.randn(9, 1, 16),)]


def probe_inputs():
    return other_inputs()
