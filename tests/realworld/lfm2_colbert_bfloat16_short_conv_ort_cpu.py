"""LFM2-ColBERT (LiquidAI/LFM2-ColBERT-350M, late-interaction retrieval/reranking) exported with pylate-onnx-export:
the checkpoint loads in bfloat16, so the exported graph keeps bf16 weights and activations; the model "passed
check_model but failed at session creation" because ONNX Runtime's CPU provider has no bf16 kernel for several ops
(e.g. the Conv of the LFM2 short-conv block). Reduced to token embedding, one LFM2 short-conv block (use_cache=False
path), RMSNorm and the ColBERT linear projection + L2 normalisation, all in bfloat16 as loaded.

Source: https://github.com/lightonai/next-plaid/issues/93
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-14"


def apply_mask_to_padding_states(hidden_states, attention_mask):
    if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
        dtype = hidden_states.dtype
        hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
    return hidden_states


class Lfm2RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class Lfm2ShortConv(nn.Module):
    def __init__(self, hidden_size=64, conv_L_cache=3, bias=False):
        super().__init__()
        self.L_cache = conv_L_cache
        self.conv = nn.Conv1d(hidden_size, hidden_size, kernel_size=self.L_cache, groups=hidden_size,
                              padding=self.L_cache - 1, bias=bias)
        self.in_proj = nn.Linear(hidden_size, 3 * hidden_size, bias=bias)
        self.out_proj = nn.Linear(hidden_size, hidden_size, bias=bias)

    def slow_forward(self, x, attention_mask=None):
        seqlen = x.shape[1]
        x = apply_mask_to_padding_states(x, attention_mask)
        BCx = self.in_proj(x).transpose(-1, -2)
        B, C, x = BCx.chunk(3, dim=-2)
        Bx = B * x
        conv_out = self.conv(Bx)[..., :seqlen]
        y = C * conv_out
        y = y.transpose(-1, -2).contiguous()
        y = self.out_proj(y)
        return y

    def forward(self, hidden_states, attention_mask=None):
        return self.slow_forward(hidden_states, attention_mask)


class Lfm2ColBERT(nn.Module):
    def __init__(self, vocab_size=300, hidden_size=64, embedding_size=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.operator_norm = Lfm2RMSNorm(hidden_size)
        self.conv = Lfm2ShortConv(hidden_size)
        self.ffn_norm = Lfm2RMSNorm(hidden_size)
        self.feed_forward = nn.Sequential(nn.Linear(hidden_size, 2 * hidden_size, bias=False), nn.SiLU(),
                                          nn.Linear(2 * hidden_size, hidden_size, bias=False))
        self.embedding_norm = Lfm2RMSNorm(hidden_size)
        self.dense = nn.Linear(hidden_size, embedding_size, bias=False)  # pylate Dense projection

    def forward(self, input_ids, attention_mask):
        h = self.embed_tokens(input_ids)
        h = h + self.conv(self.operator_norm(h), attention_mask=attention_mask)
        h = h + self.feed_forward(self.ffn_norm(h))
        token_embeddings = self.embedding_norm(h)
        embeddings = self.dense(token_embeddings)
        embeddings = torch.nn.functional.normalize(embeddings, p=2, dim=-1)
        return embeddings * attention_mask.unsqueeze(-1).to(embeddings.dtype)


def make_model():
    # from_pretrained keeps the checkpoint's torch_dtype (bfloat16)
    return Lfm2ColBERT().to(torch.bfloat16).eval()


def _inputs(lengths, seq):
    ids = torch.zeros(len(lengths), seq, dtype=torch.long)
    mask = torch.zeros(len(lengths), seq, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, :n] = torch.randint(1, 300, (n,))
        mask[row, :n] = 1
    return ids, mask


def example_inputs():
    return _inputs([12, 9], 12)


def other_inputs():
    return [_inputs([5, 20, 14], 20), _inputs([7], 7)]


def probe_inputs():
    return other_inputs()
