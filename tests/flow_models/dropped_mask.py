"""ONX601 on transformers' Mamba-family `_update_mamba_mask`: the padding mask is dropped (`= None`)
when every token is attended, `if attention_mask is not None and torch.all(attention_mask == 1):`.
torch.export cannot decide the test (GuardOnDataDependentSymNode); the legacy tracer drops the mask
for every input when the example is unpadded. A second shortcut has the general path in an `else`
(Phi-4-multimodal's vision tower). Fixed by skipping the shortcut while exporting: the
mask then multiplies by ones, which changes nothing; eager keeps the test."""
import torch
from torch import nn


class MaskedMixer(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x, attention_mask):
        mask = attention_mask
        if attention_mask is not None and torch.all(attention_mask == 1):
            mask = None
        # Phi-4-multimodal's vision tower: the general path in an `else`
        if not torch.any(attention_mask == 0):
            bias = None
        else:
            bias = (1.0 - attention_mask[:, :, None].to(x.dtype)) * -1e4
        h = self.proj(x)
        if mask is not None:
            h = h * mask[:, :, None].to(h.dtype)
        if bias is not None:
            h = h + bias
        return h.cumsum(1)


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return MaskedMixer()


def example_inputs():
    return (torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.long))


def probe_inputs():
    padded = torch.ones(3, 7, dtype=torch.long)
    padded[0, :3] = 0
    return [(torch.randn(3, 7, 8), padded), (torch.randn(1, 4, 8), torch.ones(1, 4, dtype=torch.long))]


DYNAMIC = {0: {0: "batch", 1: "tokens"}, 1: {0: "batch", 1: "tokens"}}
