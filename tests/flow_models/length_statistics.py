"""ONX603 on per-utterance statistics (Jasper / NeMo's normalize_batch, blind case domains-28): each
row's mean and standard deviation over its own frames, `x[i, :, :seq_len[i]].mean(dim=1)`, in a loop
over the batch. Unrolled at export: torch.export fails on the dynamic batch and the legacy exporter
keeps the example's rows. Fixed (safe: eager runs the loop) by reductions over a mask of the lengths
while exporting."""
import torch
from torch import nn


class FeatureNormalizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv1d(5, 5, 1)

    def forward(self, x, seq_len):
        x = self.proj(x)
        x_mean = torch.zeros((seq_len.shape[0], x.shape[1]), dtype=x.dtype, device=x.device)
        x_std = torch.zeros((seq_len.shape[0], x.shape[1]), dtype=x.dtype, device=x.device)
        for i in range(x.shape[0]):
            x_mean[i, :] = x[i, :, :seq_len[i]].mean(dim=1)
            x_std[i, :] = x[i, :, :seq_len[i]].std(dim=1)
        x_std += 1e-5
        return (x - x_mean.unsqueeze(2)) / x_std.unsqueeze(2)


def make_model():
    torch.manual_seed(0)
    return FeatureNormalizer()


def example_inputs():
    return (torch.randn(3, 5, 12), torch.tensor([12, 7, 4]))


def probe_inputs():
    return [(torch.randn(2, 5, 9), torch.tensor([3, 9])), (torch.randn(4, 5, 15), torch.tensor([15, 2, 8, 11]))]


DYNAMIC = {0: {0: "batch", 2: "time"}, 1: {0: "batch"}}
