"""ONX601 on ChatGLM2/3's `ChatGLMModel.forward`: the attention mask is built only when some token
is padded, `if attention_mask is not None and not attention_mask.all():`, and attention runs with
the causal triangle alone otherwise (the mask stays None). torch.export cannot decide the test
(GuardOnDataDependentSymNode); the legacy tracer keeps None for every input when the example is
unpadded, so left padding is ignored. Fixed by taking the tensor test as true while exporting:
the mask built from all-ones data is the causal triangle the None path applies, so nothing
changes there; `attention_mask is not None` still decides, and eager keeps the test."""
import torch
from torch import nn


class PaddedCausalMixer(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def get_masks(self, x, padding_mask):
        n = x.shape[1]
        causal = torch.ones(n, n, device=x.device).tril()
        return causal[None] * padding_mask[:, None, :].to(x.dtype)

    def forward(self, x, attention_mask=None):
        full_attention_mask = None
        if attention_mask is not None and not attention_mask.all():
            full_attention_mask = self.get_masks(x, attention_mask)
        scores = self.proj(x) @ x.transpose(1, 2)
        if full_attention_mask is None:
            n = x.shape[1]
            keep = torch.ones(n, n, device=x.device).tril()[None]
        else:
            keep = full_attention_mask
        scores = scores.masked_fill(keep == 0, -1e4)
        return scores.softmax(-1) @ x


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return PaddedCausalMixer()


def example_inputs():
    return (torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.long))


def probe_inputs():
    padded = torch.ones(3, 7, dtype=torch.long)
    padded[0, :3] = 0
    padded[2, :1] = 0
    return [(torch.randn(3, 7, 8), padded), (torch.randn(1, 4, 8), torch.ones(1, 4, dtype=torch.long))]


DYNAMIC = {0: {0: "batch", 1: "tokens"}, 1: {0: "batch", 1: "tokens"}}
