"""RWKV-4 `RWKV_RNN` (RWKV-LM RWKV-v4/src/model_run.py), the RNN-mode token-by-token LM, turned into an nn.Module
for torch.onnx.export: its recurrent state lives in plain dicts on the module (`self.xx/aa/bb/pp`), created lazily on
the first call (`if name not in self.xx: ... torch.zeros`) and overwritten on every call, and the logits come back as
`x.cpu().numpy().tolist()`; the export cannot take this, and the fix exposes the state as forward inputs/outputs
(and drops the `.tolist()`). Trimmed to 2 tiny layers with random weights in the same `self.w` namespace layout.

Source: https://github.com/AXKuhta/RWKV-LM/commit/669a7e967d2dc0a41d7bb80527714268b945d530
"""
import types

import torch
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"ctx": {0: "ctx_len"}}
BLIND = "domains-36"

RUN_DEVICE = "cpu"


def _ln(n):
    return types.SimpleNamespace(weight=torch.ones(n), bias=torch.zeros(n))


def _lin(o, i):
    return types.SimpleNamespace(weight=torch.randn(o, i) * 0.1)


class RWKV_RNN(torch.nn.Module): # this is running in FP32 at this moment
    def __init__(self, model_type="RWKV", n_layer=2, n_embd=16, ctx_len=64, vocab_size=50):
        super().__init__()
        self.RUN_DEVICE = RUN_DEVICE
        self.model_type = model_type
        self.n_layer = n_layer
        self.n_embd = n_embd
        self.ctx_len = ctx_len

        self.w = types.SimpleNamespace()
        w = self.w
        w.emb = types.SimpleNamespace(weight=torch.randn(vocab_size, n_embd))
        w.ln_out = _ln(n_embd)
        w.head = _lin(vocab_size, n_embd)
        w.blocks = {}
        for i in range(n_layer):
            b = types.SimpleNamespace(ln1=_ln(n_embd), ln2=_ln(n_embd))
            if i == 0:
                b.ln0 = _ln(n_embd)
            b.att = types.SimpleNamespace(
                time_mix_k=torch.rand(n_embd), time_mix_v=torch.rand(n_embd), time_mix_r=torch.rand(n_embd),
                time_first=torch.randn(n_embd), time_decay=-torch.exp(torch.randn(n_embd)),
                key=_lin(n_embd, n_embd), value=_lin(n_embd, n_embd), receptance=_lin(n_embd, n_embd),
                output=_lin(n_embd, n_embd))
            b.ffn = types.SimpleNamespace(
                time_mix_k=torch.rand(n_embd), time_mix_r=torch.rand(n_embd),
                key=_lin(4 * n_embd, n_embd), value=_lin(n_embd, 4 * n_embd), receptance=_lin(n_embd, n_embd))
            w.blocks[i] = b

        self.clear()

    def clear(self):
        self.xx = {}
        self.aa = {}
        self.bb = {}
        self.pp = {}
        self.hk = None

    def LN(self, xx, w):
        return F.layer_norm(xx, (self.n_embd,), weight=w.weight, bias=w.bias)

    def FF(self, xx, w, name):
        if name not in self.xx:
            self.xx[name] = torch.zeros(self.n_embd, device=self.RUN_DEVICE)
        xk = xx * w.time_mix_k + self.xx[name] * (1 - w.time_mix_k)
        xr = xx * w.time_mix_r + self.xx[name] * (1 - w.time_mix_r)
        self.xx[name] = xx

        r = torch.sigmoid(w.receptance.weight @ xr)
        k = torch.square(torch.relu(w.key.weight @ xk))
        kv = w.value.weight @ k

        return r * kv

    def SA(self, xx, w, name):
        if name not in self.xx:
            self.xx[name] = torch.zeros(self.n_embd, device=self.RUN_DEVICE)
            self.aa[name] = torch.zeros(self.n_embd, device=self.RUN_DEVICE)
            self.bb[name] = torch.zeros(self.n_embd, device=self.RUN_DEVICE)
            self.pp[name] = torch.zeros(self.n_embd, device=self.RUN_DEVICE) - 1e30

        xk = xx * w.time_mix_k + self.xx[name] * (1 - w.time_mix_k)
        xv = xx * w.time_mix_v + self.xx[name] * (1 - w.time_mix_v)
        xr = xx * w.time_mix_r + self.xx[name] * (1 - w.time_mix_r)
        self.xx[name] = xx

        r = torch.sigmoid(w.receptance.weight @ xr)

        k = w.key.weight @ xk
        v = w.value.weight @ xv

        pp = self.pp[name]
        aa = self.aa[name]
        bb = self.bb[name]
        ww = w.time_first + k
        p = torch.maximum(pp, ww)
        e1 = torch.exp(pp - p)
        e2 = torch.exp(ww - p)
        a = e1 * aa + e2 * v
        b = e1 * bb + e2
        ww = pp + w.time_decay
        p = torch.maximum(ww, k)
        e1 = torch.exp(ww - p)
        e2 = torch.exp(k - p)
        self.aa[name] = e1 * aa + e2 * v
        self.bb[name] = e1 * bb + e2
        self.pp[name] = p

        rwkv = r * a / b

        return w.output.weight @ rwkv

    def forward(self, ctx):
        w = self.w
        x = w.emb.weight[ctx[-1]]

        for i in range(self.n_layer):
            if i == 0:
                x = self.LN(x, w.blocks[i].ln0)
            if i == 0 and self.model_type == 'RWKV-ffnPre':
                x = x + self.FF(self.LN(x, w.blocks[i].ln1), w.blocks[i].ffnPre, f'ffnPre.{i}')
            else:
                x = x + self.SA(self.LN(x, w.blocks[i].ln1), w.blocks[i].att, f'att.{i}')
            x = x + self.FF(self.LN(x, w.blocks[i].ln2), w.blocks[i].ffn, f'ffn.{i}')

        x = self.LN(x, w.ln_out)

        x = w.head.weight @ x
        x = x.cpu().numpy().tolist()

        return x


def make_model():
    return RWKV_RNN().eval()


def example_inputs():
    return (torch.randint(1, 50, (12,)),)


def other_inputs():
    # the next decoding calls: the context grows by the sampled tokens
    return [(torch.randint(1, 50, (13,)),), (torch.randint(1, 50, (20,)),)]


def probe_inputs():
    return other_inputs()
