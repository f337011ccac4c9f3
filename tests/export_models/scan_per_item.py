"""ONX603 on loops over the batch that cut each item to its own length: Jasper's feature
normalisation (`x_mean[i, :] = x[i, :, :seq_len[i]].mean(dim=1)`, the same for the std) and an
utterance normalised in place by the mean of its valid frames (`x[b] = x[b] - x[b, :, :n[b]]
.mean(1, ...)`, SpeechBrain's sentence norm). Unrolled at export: torch.export fails on the dynamic
batch. The statistics become reductions over a mask of the lengths while exporting (safe); the
in-place normalisation runs (unsafe) as `torch._higher_order_ops.scan` under torch.export, the
length a step input (the slice to it inside the step is data-dependent, and the reduction gives
every step one shape); the legacy exporter still unrolls that loop (tests/test_export_scan.py)."""
import torch
from torch import nn


class PerItemNorm(nn.Module):
    def __init__(self, features=5):
        super().__init__()
        self.proj = nn.Conv1d(features, features, 1)

    def forward(self, x, lengths):
        x = self.proj(x)
        x_mean = torch.zeros(x.shape[0], x.shape[1])
        x_std = torch.zeros(x.shape[0], x.shape[1])
        for i in range(x.shape[0]):
            x_mean[i, :] = x[i, :, :lengths[i]].mean(dim=1)
            x_std[i, :] = x[i, :, :lengths[i]].std(dim=1)
        normed = (x - x_mean.unsqueeze(2)) / (x_std.unsqueeze(2) + 1e-5)
        for b in range(normed.shape[0]):
            normed[b] = normed[b] - normed[b, :, 0:lengths[b]].mean(1, keepdim=True)
        return normed


def make_model():
    torch.manual_seed(0)
    return PerItemNorm().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5, 9), torch.tensor([9, 4]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 5, 13), torch.tensor([2, 13, 7])), (torch.randn(1, 5, 4), torch.tensor([3]))]


DYNAMIC = {0: {0: "batch", 2: "time"}, 1: {0: "batch"}}
