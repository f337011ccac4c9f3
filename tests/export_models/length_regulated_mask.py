"""FastPitch's length regulator and mel mask (NeMo, blind case domains-45): the mel length is a
Python int taken from the predicted durations, `max_len = int(lens.max().item())`. The legacy
exporter bakes the example's length; torch.export stops on `int()` of a value read from the data
("Could not extract specialized integer from data-dependent expression u0"), in strict mode too
once the mask meets the regulated frames."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"durations": {0: "batch", 1: "tokens"}, "x": {0: "batch", 1: "tokens"}}


def mask_from_lens(lens):
    max_len = int(lens.max().item())
    ids = torch.arange(0, max_len, device=lens.device, dtype=lens.dtype)
    return torch.lt(ids, lens.unsqueeze(1))


class Regulator(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, durations, x):
        dec_lens = durations.sum(dim=1)
        cumsum = torch.cumsum(F.pad(durations, (1, 0, 0, 0), value=0), dim=1)[:, None, :].to(x.dtype)
        frames = torch.arange(dec_lens.max())[None, :, None]
        mult = ((cumsum[:, :, :-1] <= frames) & (cumsum[:, :, 1:] > frames)).to(x.dtype)
        mel = torch.matmul(mult, self.proj(x))
        return mel * mask_from_lens(dec_lens).unsqueeze(-1)


def make_model():
    torch.manual_seed(0)
    return Regulator().eval()


def example_inputs():
    return (torch.tensor([[2, 3, 1], [1, 1, 2]]), torch.rand(2, 3, 8))


def probe_inputs():
    return [(torch.tensor([[4, 4, 1, 2], [1, 2, 2, 1], [3, 3, 3, 3]]), torch.rand(3, 4, 8)),
            (torch.tensor([[1, 1]]), torch.rand(1, 2, 8))]
