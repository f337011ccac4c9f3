"""BigDL Chronos AutoformerForecaster decoder block (time-series forecasting): the decoder's cross
AutoCorrelation compares the decoder length L (label_len + pred_len) with the encoder length S and either
zero-pads or truncates keys/values in a Python `if L > S:` branch before the FFT period search. The PR
notes that `AutoCorrelation.forward` "contains if", so a traced/exported model keeps the branch (and the
`top_k` from `math.log(length)`) of the example lengths and goes wrong for other window lengths.

Source: https://github.com/intel/ipex-llm/pull/6452
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x_dec": {0: "batch", 1: "dec_len"}, "enc_out": {0: "batch", 1: "enc_len"}}
BLIND = "domains-79"


class AutoCorrelation(nn.Module):
    def __init__(self, mask_flag=True, factor=1, scale=None, attention_dropout=0.1, output_attention=False):
        super(AutoCorrelation, self).__init__()
        self.factor = factor
        self.scale = scale
        self.mask_flag = mask_flag
        self.output_attention = output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def time_delay_agg_inference(self, values, corr):
        batch = values.shape[0]
        head = values.shape[1]
        channel = values.shape[2]
        length = values.shape[3]
        # index init
        init_index = torch.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0)\
            .repeat(batch, head, channel, 1).to(values.device)
        # find top k
        top_k = int(self.factor * math.log(length))
        mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
        weights, delay = torch.topk(mean_value, top_k, dim=-1)
        # update corr
        tmp_corr = torch.softmax(weights, dim=-1)
        # aggregation
        tmp_values = values.repeat(1, 1, 1, 2)
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            tmp_delay = init_index + delay[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length)
            pattern = torch.gather(tmp_values, dim=-1, index=tmp_delay)
            delays_agg = delays_agg + pattern * \
                (tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length))
        return delays_agg

    def forward(self, queries, keys, values, attn_mask):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        if L > S:
            zeros = torch.zeros_like(queries[:, :(L - S), :]).float()
            values = torch.cat([values, zeros], dim=1)
            keys = torch.cat([keys, zeros], dim=1)
        else:
            values = values[:, :L, :, :]
            keys = keys[:, :L, :, :]

        # period-based dependencies
        q_fft = torch.fft.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)
        k_fft = torch.fft.rfft(keys.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = q_fft * torch.conj(k_fft)
        corr = torch.fft.irfft(res, dim=-1)

        # time delay agg
        V = self.time_delay_agg_inference(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        return (V.contiguous(), None)


class AutoCorrelationLayer(nn.Module):
    def __init__(self, correlation, d_model, n_heads):
        super(AutoCorrelationLayer, self).__init__()
        d_keys = d_model // n_heads
        self.inner_correlation = correlation
        self.query_projection = nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = nn.Linear(d_model, d_keys * n_heads)
        self.out_projection = nn.Linear(d_keys * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values, attn_mask):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_correlation(queries, keys, values, attn_mask)
        out = out.view(B, L, -1)
        return self.out_projection(out), attn


class AutoformerDecoderCross(nn.Module):
    """Decoder input embedding + cross AutoCorrelation against the encoder output."""

    def __init__(self, dec_in=7, d_model=16, n_heads=2, factor=1):
        super().__init__()
        self.dec_embedding = nn.Linear(dec_in, d_model)
        self.cross_attention = AutoCorrelationLayer(AutoCorrelation(False, factor), d_model, n_heads)
        self.projection = nn.Linear(d_model, dec_in)

    def forward(self, x_dec, enc_out):
        x = self.dec_embedding(x_dec)
        x = x + self.cross_attention(x, enc_out, enc_out, attn_mask=None)[0]
        return self.projection(x)


def make_model():
    return AutoformerDecoderCross().eval()


def example_inputs():
    # label_len + pred_len = 36 decoder steps, 48-step encoder window (L < S)
    return (torch.randn(2, 36, 7), torch.randn(2, 48, 16))


def other_inputs():
    # longer horizon than the lookback (L > S), and another L < S pair
    return [(torch.randn(3, 60, 7), torch.randn(3, 40, 16)),
            (torch.randn(1, 20, 7), torch.randn(1, 64, 16))]


def probe_inputs():
    return other_inputs()
