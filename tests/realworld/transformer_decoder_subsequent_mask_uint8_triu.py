"""Transformer (attention-is-all-you-need style) decoder self-attention: `get_subsequent_mask` builds the causal
mask with `torch.triu(torch.ones((len_s, len_s), device=seq.device, dtype=torch.uint8), diagonal=1)` and adds it
to the key-padding mask; the report's torch.onnx.export fails on `triu` (a uint8 triangle; with dtype=torch.bool
instead the export fails too). On torch 2.13 triu exports as ONNX Trilu on tensor(uint8), which onnxruntime has
no kernel for.

Source: https://github.com/pytorch/pytorch/issues/25838
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"tgt_seq": {0: "batch", 1: "length"}}
BLIND = "operators-24"

PAD = 0


def get_attn_key_pad_mask(seq_k, seq_q):
    ''' For masking out the padding part of key sequence. '''
    # Expand to fit the shape of key query attention matrix.
    len_q = seq_q.size(1)
    padding_mask = seq_k.eq(PAD)
    padding_mask = padding_mask.unsqueeze(1).expand(-1, len_q, -1)  # b x lq x lk
    return padding_mask


def get_subsequent_mask(seq):
    ''' For masking out the subsequent info. '''
    sz_b, len_s = seq.size()
    subsequent_mask = torch.triu(
        torch.ones((len_s, len_s), device=seq.device, dtype=torch.uint8), diagonal=1)
    subsequent_mask = subsequent_mask.unsqueeze(0).expand(sz_b, -1, -1)  # b x ls x ls
    return subsequent_mask


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, q, k, v, mask=None):
        attn = torch.bmm(q, k.transpose(1, 2))
        attn = attn / self.temperature
        if mask is not None:
            attn = attn.masked_fill(mask, -np.inf)
        attn = F.softmax(attn, dim=2)
        return torch.bmm(attn, v)


class Decoder(nn.Module):
    def __init__(self, n_tgt_vocab=50, d_model=32):
        super().__init__()
        self.tgt_word_emb = nn.Embedding(n_tgt_vocab, d_model, padding_idx=PAD)
        self.w_qs = nn.Linear(d_model, d_model)
        self.w_ks = nn.Linear(d_model, d_model)
        self.w_vs = nn.Linear(d_model, d_model)
        self.attention = ScaledDotProductAttention(temperature=np.power(d_model, 0.5))
        self.fc = nn.Linear(d_model, n_tgt_vocab)

    def forward(self, tgt_seq):
        # -- Prepare masks
        slf_attn_mask_subseq = get_subsequent_mask(tgt_seq)
        slf_attn_mask_keypad = get_attn_key_pad_mask(seq_k=tgt_seq, seq_q=tgt_seq)
        slf_attn_mask = (slf_attn_mask_keypad + slf_attn_mask_subseq).gt(0)

        dec_output = self.tgt_word_emb(tgt_seq)
        q, k, v = self.w_qs(dec_output), self.w_ks(dec_output), self.w_vs(dec_output)
        dec_output = self.attention(q, k, v, mask=slf_attn_mask)
        return self.fc(dec_output)


def make_model():
    return Decoder().eval()


def example_inputs():
    return (torch.randint(1, 50, (2, 7)),)


def other_inputs():
    a = torch.randint(1, 50, (3, 11))
    a[0, -3:] = PAD
    b = torch.randint(1, 50, (1, 5))
    return [(a,), (b,)]


def probe_inputs():
    return other_inputs()
