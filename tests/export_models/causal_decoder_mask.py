"""DeepPhonemizer's decoder (pytorch/pytorch#110255): an nn.TransformerDecoder given a float
`tgt_mask` and no `tgt_is_causal`, which compares the mask's values with a causal mask
(`_detect_is_causal_mask`): torch.export cannot guard on that comparison. The
causal_mask_check_off repair, named by the failing frame, applies the mask as given while
exporting."""
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0)
        self.decoder = nn.TransformerDecoder(layer, num_layers=2)

    def forward(self, tgt, memory, tgt_mask):
        return self.decoder(tgt, memory, tgt_mask=tgt_mask)


def make_model():
    torch.manual_seed(0)
    return Decoder().eval()


def _causal(n):
    mask = torch.triu(torch.ones(n, n), 1)
    return mask.masked_fill(mask == 1, float("-inf"))


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(5, 2, 16), torch.randn(7, 2, 16), _causal(5)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(8, 3, 16), torch.randn(4, 3, 16), _causal(8)),
            (torch.randn(3, 2, 16), torch.randn(9, 2, 16), _causal(3))]


DYNAMIC = {0: {0: "tgt_len", 1: "batch"}, 1: {0: "src_len", 1: "batch"}, 2: {0: "tgt_len", 1: "tgt_len"}}
