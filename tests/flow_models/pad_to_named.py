"""ONX601 on NeMo's FilterbankFeatures: frames padded to a multiple of `pad_to` with the remainder
and the multiple under local names (`pad_to = self.pad_to`, `pad_amt = x.size(-1) % pad_to`, then
`if pad_amt != 0:`). Both exporters decide the test on the example's frame count: a count that is a
multiple of 16 then gets 16 more frames, or none where it needs some. Fixed by padding always by
`(pad_to - pad_amt) % pad_to`, zero when the test was false."""
import torch
from torch import nn


class PadToMultiple(nn.Module):
    def __init__(self, pad_to: int = 16, pad_value: float = 0.0):
        super().__init__()
        self.pad_to = pad_to
        self.pad_value = pad_value
        self.proj = nn.Conv1d(4, 4, 1)

    def forward(self, x):
        x = self.proj(x)
        pad_to = self.pad_to
        if pad_to > 0:
            pad_amt = x.size(-1) % pad_to
            if pad_amt != 0:
                x = nn.functional.pad(x, (0, pad_to - pad_amt), value=self.pad_value)
        return x


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return PadToMultiple()


def example_inputs():
    return (torch.randn(2, 4, 37),)


def probe_inputs():
    return [(torch.randn(3, 4, 48),), (torch.randn(1, 4, 21),)]


DYNAMIC = {0: {0: "batch", 2: "frames"}}
