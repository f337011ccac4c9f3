"""ONX608 on blocks that are empty when the amount is 0: Z-Image's patch sequence is padded to a
multiple of SEQ_MULTI_OF by repeating its last token, and its pad mask gets a block of ones, each
under `... if pad_len > 0 else ...`. Exported with a dynamic length, the side taken at export time
is kept. Where `pad_len` is 0 the blocks are empty and the concatenations give the other side's
values, so the side with the blocks is taken always (safe: `pad_len` is `(-n) % 4`, never
negative, and the kept tensors are not seen as themselves afterwards)."""
import torch
from torch import nn

SEQ_MULTI_OF = 4


class PatchSequence(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.pad_token = nn.Parameter(torch.randn(dim))

    def forward(self, tokens):
        ori_len = tokens.shape[0]
        pad_len = (-ori_len) % SEQ_MULTI_OF
        mask = torch.cat(
            [torch.zeros((ori_len,), dtype=torch.bool), torch.ones((pad_len,), dtype=torch.bool)], dim=0
        ) if pad_len > 0 else torch.zeros((ori_len,), dtype=torch.bool)
        feats = self.proj(tokens)
        padded = torch.cat([feats, feats[-1:].repeat(pad_len, 1)], dim=0) if pad_len > 0 else feats
        padded = torch.where(mask[:, None], self.pad_token, padded)
        return padded.reshape(-1, SEQ_MULTI_OF, padded.shape[-1]).mean(1)


def make_model():
    torch.manual_seed(0)
    return PatchSequence()


def example_inputs():
    return (torch.randn(12, 8),)


def probe_inputs():
    return [(torch.randn(13, 8),), (torch.randn(10, 8),), (torch.randn(8, 8),)]


DYNAMIC = {0: {0: "tokens"}}
