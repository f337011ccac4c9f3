"""ABINet language decoder (mmocr, exported through mmdeploy): `_get_length` greedily finds the first end token
with `out = (logit.argmax(dim=-1) == self.pad_idx)`, `out.any(dim)` and `out.cumsum(dim)` on the bool tensor,
then builds the key-padding mask from the lengths. The reporter rewrote `torch.any` for ONNX, but the exported
model still fails to load in onnxruntime: "Type 'tensor(bool)' of input parameter ... of operator (CumSum) ...
is invalid" (CumSum has no bool kernel).

Source: https://github.com/microsoft/onnxruntime/issues/13681
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "batch"}}
BLIND = "operators-24"


class ABILanguageDecoder(nn.Module):
    def __init__(self, d_model=32, n_head=4, num_classes=37, max_seq_len=26, pad_idx=36):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.pad_idx = pad_idx
        self.proj = nn.Linear(num_classes, d_model, False)
        self.pos = nn.Parameter(torch.randn(max_seq_len, d_model) * 0.02)
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.cls = nn.Linear(d_model, num_classes)

    def forward(self, logits):
        lengths = self._get_length(logits)
        lengths.clamp_(2, self.max_seq_len)
        tokens = torch.softmax(logits, dim=-1)
        embed = self.proj(tokens)  # (N, T, E)
        padding_mask = self._get_padding_mask(lengths, self.max_seq_len)
        query = self.pos.unsqueeze(1).expand(-1, embed.size(0), -1)  # (T, N, E)
        embed = embed.permute(1, 0, 2)
        location_mask = self._get_location_mask(self.max_seq_len, tokens.device)
        output, _ = self.attn(query, embed, embed, attn_mask=location_mask, key_padding_mask=padding_mask)
        output = output.permute(1, 0, 2)  # (N, T, E)
        return self.cls(output), lengths

    def _get_length(self, logit, dim=-1):
        """Greedy decoder to obtain length from logit.

        Returns the first location of padding index or the length of the
        entire tensor otherwise.
        """
        # out as a boolean vector indicating the existence of end token(s)
        out = (logit.argmax(dim=-1) == self.pad_idx)
        abn = out.any(dim)
        # Get the first index of end token
        out = ((out.cumsum(dim) == 1) & out).max(dim)[1]
        out = out + 1
        out = torch.where(abn, out, out.new_tensor(logit.shape[1]))
        return out

    @staticmethod
    def _get_padding_mask(length, max_length):
        length = length.unsqueeze(-1)
        grid = torch.arange(0, max_length, device=length.device).unsqueeze(0)
        return grid >= length

    @staticmethod
    def _get_location_mask(seq_len, device=None):
        mask = torch.eye(seq_len, device=device)
        mask = mask.float().masked_fill(mask == 1, float('-inf'))
        return mask


def make_model():
    return ABILanguageDecoder().eval()


def _logits(n, ends):
    x = torch.randn(n, 26, 37)
    for i, e in enumerate(ends):
        if e is not None:
            x[i, e:, 36] = 10.0
    return x


def example_inputs():
    return (_logits(2, [5, None]),)


def other_inputs():
    return [(_logits(3, [None, 9, 1]),), (_logits(1, [17]),)]


def probe_inputs():
    return other_inputs()
