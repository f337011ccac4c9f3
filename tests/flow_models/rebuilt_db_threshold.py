"""ONX203 on SpeechBrain's Filterbank `_amplitude_to_DB`: the clip threshold is rebuilt with
`torch.tensor(float(x_db.max()) - self.top_db, dtype=x_db.dtype, device=x.device)`. The legacy
exporter records the export batch's maximum as a constant (silently wrong for other inputs).
Fixed by computing with the tensor: `(x_db.max() - self.top_db).detach().reshape(()).to(...)`
(unsafe: the subtraction runs in the tensor's dtype, where the original rounded once from a
Python float)."""
import torch
from torch import nn


class AmplitudeToDB(nn.Module):
    def __init__(self, top_db=20.0):
        super().__init__()
        self.top_db = top_db

    def forward(self, x):
        x_db = 10.0 * torch.log10(torch.clamp(x, min=1e-10))
        threshold = torch.tensor(float(x_db.max()) - self.top_db, dtype=x_db.dtype, device=x.device)
        return torch.max(x_db, threshold)


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return AmplitudeToDB()


def example_inputs():
    return (torch.rand(2, 40, 16) ** 4,)


def probe_inputs():
    return [(torch.rand(3, 40, 9) ** 4 * 100,), (torch.rand(1, 40, 20) ** 6,)]


DYNAMIC = {0: {0: "b", 2: "t"}}
