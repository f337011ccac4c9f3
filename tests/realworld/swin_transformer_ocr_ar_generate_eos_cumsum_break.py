"""swin-transformer-ocr (Swin encoder + x-transformers autoregressive decoder) exported to ONNX as a whole:
`forward` builds the start tokens with `torch.LongTensor([self.bos_token]*len(x))` and runs
`CustomARWrapper.generate`, a sampling loop of `max_seq_len` steps that leaves early with
`if eos_token is not None and (torch.cumsum(out == eos_token, 1)[:, -1] >= 1).all(): break`; the export warns
"Converting a tensor to a Python boolean might cause the trace to be incorrect" and the seq2seq ONNX model comes out
unrolled and huge. (timm Swin reduced to a patch embedding, x-transformers Decoder to one self/cross attention
block; `top_k` copied from x-transformers 0.20.)

Source: https://github.com/YongWookHa/swin-transformer-ocr/issues/6
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-59"


def top_k(logits, thres = 0.9):
    k = int((1 - thres) * logits.shape[-1])
    val, ind = torch.topk(logits, k)
    probs = torch.full_like(logits, float('-inf'))
    probs.scatter_(1, ind, val)
    return probs


class TinyDecoderWrapper(nn.Module):
    """Stands in for TransformerWrapper(num_tokens, max_seq_len, attn_layers=Decoder(cross_attend...))."""

    def __init__(self, num_tokens, max_seq_len, dim=32, heads=4):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = nn.Embedding(max_seq_len, dim)
        self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, mask=None, context=None):
        h = self.token_emb(x) + self.pos_emb(torch.arange(x.shape[1], device=x.device))
        h = h + self.self_attn(h, h, h, key_padding_mask=~mask)[0]
        h = h + self.cross_attn(h, context, context)[0]
        return self.to_logits(self.norm(h))


class AutoregressiveWrapper(nn.Module):
    def __init__(self, net, ignore_index = -100, pad_value = 0):
        super().__init__()
        self.pad_value = pad_value
        self.ignore_index = ignore_index
        self.net = net
        self.max_seq_len = net.max_seq_len


class CustomARWrapper(AutoregressiveWrapper):
    def __init__(self, *cfg, **kwcfg):
        super(CustomARWrapper, self).__init__(*cfg, **kwcfg)

    @torch.no_grad()
    def generate(self, start_tokens, seq_len, eos_token=None, temperature=1., filter_logits_fn=top_k, filter_thres=0.9, **kwcfg):
        was_training = self.net.training
        num_dims = len(start_tokens.shape)

        if num_dims == 1:
            start_tokens = start_tokens[None, :]

        b, t = start_tokens.shape

        self.net.eval()
        out = start_tokens
        mask = kwcfg.pop('mask', None)
        if mask is None:
            mask = torch.full_like(out, True, dtype=torch.bool, device=out.device)

        for _ in range(seq_len):
            x = out[:, -self.max_seq_len:]
            mask = mask[:, -self.max_seq_len:]

            logits = self.net(x, mask=mask, **kwcfg)[:, -1, :]

            if filter_logits_fn in {top_k}:
                filtered_logits = filter_logits_fn(logits, thres=filter_thres)
                probs = F.softmax(filtered_logits / temperature, dim=-1)

            sample = torch.multinomial(probs, 1)

            out = torch.cat((out, sample), dim=-1)
            mask = F.pad(mask, (0, 1), value=True)

            if eos_token is not None and (torch.cumsum(out == eos_token, 1)[:, -1] >= 1).all():
                break

        out = out[:, t:]

        if num_dims == 1:
            out = out.squeeze(0)

        self.net.train(was_training)
        return out


class SwinTransformerOCR(nn.Module):
    def __init__(self, num_tokens=15, max_seq_len=12, bos_token=1, eos_token=2, temperature=0.2, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, dim, 4, stride=4), nn.Flatten(2))  # patch embed, (B, C, L)
        self.decoder = CustomARWrapper(TinyDecoderWrapper(num_tokens, max_seq_len, dim=dim), pad_value=0)
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.max_seq_len = max_seq_len
        self.temperature = temperature

    def forward(self, x):
        encoded = self.encoder(x).transpose(1, 2)  # B L C
        dec = self.decoder.generate(torch.LongTensor([self.bos_token]*len(x))[:, None].to(x.device), self.max_seq_len,
                                    eos_token=self.eos_token, context=encoded, temperature=self.temperature)
        return dec


def make_model():
    return SwinTransformerOCR().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 64),), (torch.randn(1, 3, 32, 64),)]


def probe_inputs():
    return other_inputs()
