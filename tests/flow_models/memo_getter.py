"""ONX609 on a memoised getter: TransformerEngine's `_get_default_causal_mask(sq)` keeps one causal
mask per length in a module-level dict (`if sq not in _masks: _masks[sq] = ...; return
_masks[sq]`). torch.export cannot hash the symbolic length ("unhashable type: non-nested
SymInt"). Fixed (safe) by returning the mask computed afresh under export, before the dict is
read or written; eager keeps its cache."""
import torch
from torch import nn

_default_causal_mask = {}


def _get_default_causal_mask(sq: int) -> torch.Tensor:
    if sq not in _default_causal_mask:
        _default_causal_mask[sq] = torch.triu(torch.ones(sq, sq), diagonal=1).bool()
    return _default_causal_mask[sq]


class MaskedSoftmax(nn.Module):
    def forward(self, scores):
        mask = _get_default_causal_mask(scores.shape[-1])
        return scores.masked_fill(mask, -10000.0).softmax(-1)


def make_model():
    torch.manual_seed(0)
    return MaskedSoftmax()


def example_inputs():
    return (torch.randn(2, 4, 6, 6),)


def probe_inputs():
    return [(torch.randn(1, 4, 9, 9),), (torch.randn(3, 4, 3, 3),)]


DYNAMIC = {0: {0: "batch", 2: "seq", 3: "seq"}}
