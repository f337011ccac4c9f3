"""ONX601: XMem's hidden-state update (`if h_out[0]==1 and self.is_hidden_updata:`): a tensor test
before a Python flag, and a branch that extends a feature map only to compute the new hidden
state. The flag is tested first, the one output kept is the hidden state (the extended map is
not read after the `if`, so branches of different widths are no obstacle)."""
import torch
from torch import nn


class HiddenUpdate(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.is_hidden_update = True
        self.hidden_update = nn.Linear(width + 1, width)

    def forward(self, features: torch.Tensor, hidden: torch.Tensor, h_out: torch.Tensor):
        logits = features.sum(-1, keepdim=True)
        if h_out[0] == 1 and self.is_hidden_update:
            features = torch.cat([features, logits], -1)
            hidden = torch.tanh(self.hidden_update(features)) + hidden
        return hidden, logits * 2


def make_model():
    torch.manual_seed(0)
    return HiddenUpdate().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4), torch.randn(3, 4), torch.tensor([1]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(5, 4), torch.randn(5, 4), torch.tensor([0])),
            (torch.randn(2, 4), torch.randn(2, 4), torch.tensor([1]))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}}
