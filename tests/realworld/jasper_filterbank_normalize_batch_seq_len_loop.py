"""NVIDIA DeepLearningExamples Jasper: the checkpoint's decoder exports, but the feature extractor
(`FilterbankFeatures`) cannot be exported to ts-trace/ONNX. Its `calculate_features` turns sample counts
into frame counts with `torch.ceil(seq_len / hop_length)`, then `normalize_batch` loops
`for i in range(x.shape[0])` and slices `x[i, :, :seq_len[i]]` with each utterance's own length to get the
per-feature mean/std, before masking the frames past `seq_len`.

Source: https://github.com/NVIDIA/DeepLearningExamples/issues/965
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"x": {0: "batch", 1: "samples"}, "seq_len": {0: "batch"}}
BLIND = "domains-28"


def normalize_batch(x, seq_len, normalize_type: str):
    if normalize_type == "per_feature":
        x_mean = torch.zeros((seq_len.shape[0], x.shape[1]), dtype=x.dtype, device=x.device)
        x_std = torch.zeros((seq_len.shape[0], x.shape[1]), dtype=x.dtype, device=x.device)
        for i in range(x.shape[0]):
            x_mean[i, :] = x[i, :, :seq_len[i]].mean(dim=1)
            x_std[i, :] = x[i, :, :seq_len[i]].std(dim=1)
        # make sure x_std is not zero
        x_std += 1e-5
        return (x - x_mean.unsqueeze(2)) / x_std.unsqueeze(2)
    elif normalize_type == "all_features":
        x_mean = torch.zeros(seq_len.shape, dtype=x.dtype, device=x.device)
        x_std = torch.zeros(seq_len.shape, dtype=x.dtype, device=x.device)
        for i in range(x.shape[0]):
            x_mean[i] = x[i, :, :seq_len[i].item()].mean()
            x_std[i] = x[i, :, :seq_len[i].item()].std()
        x_std += 1e-5
        return (x - x_mean.view(-1, 1, 1)) / x_std.view(-1, 1, 1)
    else:
        return x


class FilterbankFeatures(nn.Module):
    def __init__(self, sample_rate=8000, window_size=0.02, window_stride=0.01, normalize="per_feature",
                 n_fft=None, preemph=0.97, nfilt=16, dither=0.0, log=True):
        super().__init__()
        self.win_length = int(sample_rate * window_size)
        self.hop_length = int(sample_rate * window_stride)
        self.n_fft = n_fft or 2 ** math.ceil(math.log2(self.win_length))
        self.normalize = normalize
        self.log = log
        self.dither = dither
        self.preemph = preemph
        self.register_buffer("window", torch.hann_window(self.win_length, periodic=False))
        torch.manual_seed(0)
        self.register_buffer("fb", torch.rand(1, nfilt, self.n_fft // 2 + 1))

    def get_seq_len(self, seq_len):
        return torch.ceil(seq_len.to(dtype=torch.float) / self.hop_length).to(dtype=torch.int)

    def stft(self, x):
        return torch.stft(x, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                          center=True, window=self.window.to(dtype=torch.float), return_complex=False)

    @torch.no_grad()
    def forward(self, x, seq_len):  # calculate_features
        dtype = x.dtype
        seq_len = self.get_seq_len(seq_len)
        # dither
        if self.dither > 0:
            x += self.dither * torch.randn_like(x)
        # do preemphasis
        if self.preemph is not None:
            x = torch.cat((x[:, 0].unsqueeze(1), x[:, 1:] - self.preemph * x[:, :-1]), dim=1)
        x = self.stft(x)
        # get power spectrum
        x = x.pow(2).sum(-1)
        # dot with filterbank energies
        x = torch.matmul(self.fb.to(x.dtype), x)
        # log features if required
        if self.log:
            x = torch.log(x + 1e-20)
        # normalize if required
        x = normalize_batch(x, seq_len, normalize_type=self.normalize)
        # mask to zero any values beyond seq_len in batch
        max_len = x.size(-1)
        mask = torch.arange(max_len, dtype=seq_len.dtype, device=x.device)
        mask = mask.expand(x.size(0), max_len) >= seq_len.unsqueeze(1)
        x = x.masked_fill(mask.unsqueeze(1), 0)
        return x.to(dtype)


def make_model():
    return FilterbankFeatures().eval()


def example_inputs():
    return (torch.randn(2, 1600), torch.tensor([1600, 1200]))


def other_inputs():
    return [
        (torch.randn(3, 2400), torch.tensor([2400, 900, 2000])),
        (torch.randn(1, 1000), torch.tensor([700])),
    ]


def probe_inputs():
    return other_inputs()
