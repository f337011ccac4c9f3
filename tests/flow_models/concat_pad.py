"""ONX608 on a pad by concatenation: icefall's Zipformer downsampling pads the frames to a multiple
of the downsampling factor by repeating the last frame, under `if seq_len != d_seq_len * ds:`.
Exported with a dynamic length, the branch taken at export time is kept: other lengths fail in
onnxruntime (the Reshape of the padded frames). Where the sizes are equal the pad is 0 and the
concatenated block is empty, so the branch is taken always (safe)."""
import torch
from torch import nn


class AttentionDownsample(nn.Module):
    def __init__(self, channels=8, downsample=2):
        super().__init__()
        self.query = nn.Parameter(torch.randn(channels) * channels ** -0.5)
        self.downsample = downsample

    def forward(self, src):
        (seq_len, batch_size, in_channels) = src.shape
        ds = self.downsample
        d_seq_len = (seq_len + ds - 1) // ds
        if seq_len != d_seq_len * ds:
            pad = d_seq_len * ds - seq_len
            src_extra = src[src.shape[0] - 1 :].expand(pad, src.shape[1], src.shape[2])
            src = torch.cat((src, src_extra), dim=0)
        src = src.reshape(d_seq_len, ds, batch_size, in_channels)
        weights = (src * self.query).sum(dim=-1, keepdim=True).softmax(dim=1)
        return (src * weights).sum(dim=1)


def make_model():
    torch.manual_seed(0)
    return AttentionDownsample()


def example_inputs():
    return (torch.randn(10, 2, 8),)


def probe_inputs():
    return [(torch.randn(13, 3, 8),), (torch.randn(7, 1, 8),)]


DYNAMIC = {0: {0: "frames", 1: "batch"}}
