"""ONX528: bool masks through ONNX ops without a bool form. PARSeq's padding mask
`(tgt == eos).cumsum(-1) > 0` (legacy: CumSum fed a bool, an invalid model), masks combined with
`+` (both exporters: Add takes no bool) and selected with `torch.where` (both: onnxruntime has no
bool Where). Fixed safely: `.long()` before the running count, `|`, and `&`/`|` selection."""
import torch
from torch import nn


class MaskHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.eos_id = 0
        self.proj = nn.Linear(6, 6)

    def forward(self, logits, scores):
        tokens = logits.argmax(-1)
        padding = (tokens == self.eos_id).cumsum(-1) > 0
        confident = self.proj(scores) > 0.0
        either = ~padding + confident
        keep = torch.where(padding, confident, either)
        return scores * keep, either, padding


def make_model():
    torch.manual_seed(0)
    return MaskHead()


def example_inputs():
    return (torch.randn(2, 6, 4), torch.randn(2, 6))


def probe_inputs():
    return [(torch.randn(5, 6, 4), torch.randn(5, 6)), (torch.randn(3, 6, 4), torch.randn(3, 6))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}}
