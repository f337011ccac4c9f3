"""ChatRWKV (RWKV-4 "Raven" language model, rwkv pip package) exported with `torch.onnx.export(model, ...)`:
with RWKV_JIT_ON=1 the model class derives from `torch.jit.ScriptModule` and only the per-layer helpers
(`att_one`, `ffn_one`) are `@torch.jit.script_method`s, while `forward` stays a plain Python method; the exporter
takes the ScriptModule path and reads `model.forward.graph`, failing with "AttributeError: 'function' object has no
attribute 'graph'". (Trimmed to the single-token path and 2 tiny layers; weights in the `self.w` dict and the state list built
in forward, as ChatRWKV does; only `tokens` is passed, as in the report.)

Source: https://github.com/BlinkDL/RWKV-LM/issues/140
"""
import types

import torch
from torch.nn import functional as F

CLASS = "exporter-defaults"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-17"

# os.environ["RWKV_JIT_ON"] == '1' in ChatRWKV's chat.py
MyModule = torch.jit.ScriptModule
MyFunction = torch.jit.script_method


class RWKV(MyModule):
    def __init__(self, n_layer=2, n_embd=16, vocab=50):
        super().__init__()
        self.args = types.SimpleNamespace(n_layer=n_layer, n_embd=n_embd)
        w = {"emb.weight": torch.randn(vocab, n_embd), "head.weight": torch.randn(n_embd, vocab) * 0.1,
             "ln_out.weight": torch.ones(n_embd), "ln_out.bias": torch.zeros(n_embd)}
        for i in range(n_layer):
            b, att, ffn = f"blocks.{i}.", f"blocks.{i}.att.", f"blocks.{i}.ffn."
            for ln in ("ln1", "ln2"):
                w[f"{b}{ln}.weight"], w[f"{b}{ln}.bias"] = torch.ones(n_embd), torch.zeros(n_embd)
            for k in ("time_mix_k", "time_mix_v", "time_mix_r"):
                w[f"{att}{k}"] = torch.rand(n_embd)
                w[f"{ffn}{k}"] = torch.rand(n_embd)
            w[f"{att}time_decay"] = -torch.exp(torch.randn(n_embd))
            w[f"{att}time_first"] = torch.randn(n_embd)
            for k in ("key", "value", "receptance", "output"):
                w[f"{att}{k}.weight"] = torch.randn(n_embd, n_embd) * 0.1
            w[f"{ffn}key.weight"] = torch.randn(n_embd, 4 * n_embd) * 0.1
            w[f"{ffn}value.weight"] = torch.randn(4 * n_embd, n_embd) * 0.1
            w[f"{ffn}receptance.weight"] = torch.randn(n_embd, n_embd) * 0.1
        self.w = w

    @MyFunction
    def ffn_one(self, x, sx, ln_w, ln_b, k_mix, r_mix, kw, vw, rw):
        xx = F.layer_norm(x, (x.shape[-1],), weight=ln_w, bias=ln_b)
        kx = xx * k_mix + sx * (1 - k_mix)
        rx = xx * r_mix + sx * (1 - r_mix)
        r = torch.sigmoid(rx @ rw)
        vx = torch.square(torch.relu(kx @ kw))
        out = r * (vx @ vw)
        return x + out, xx

    @MyFunction
    def att_one(self, x, sx, aa, bb, pp, ln_w, ln_b, k_mix, v_mix, r_mix, t_decay, t_first, kw, vw, rw, ow):
        xx = F.layer_norm(x, (x.shape[-1],), weight=ln_w, bias=ln_b)
        kx = xx * k_mix + sx * (1 - k_mix)
        vx = xx * v_mix + sx * (1 - v_mix)
        rx = xx * r_mix + sx * (1 - r_mix)
        r = torch.sigmoid(rx @ rw)
        k = (kx @ kw).float()
        v = (vx @ vw).float()
        ww = t_first + k
        p = torch.maximum(pp, ww)
        e1 = torch.exp(pp - p)
        e2 = torch.exp(ww - p)
        wkv = ((e1 * aa + e2 * v) / (e1 * bb + e2)).to(dtype=x.dtype)
        ww = t_decay + pp
        p = torch.maximum(ww, k)
        e1 = torch.exp(ww - p)
        e2 = torch.exp(k - p)
        out = (r * wkv) @ ow
        return x + out, xx, e1 * aa + e2 * v, e1 * bb + e2, p

    def forward(self, tokens, state=None):
        with torch.no_grad():
            w = self.w
            args = self.args
            if state == None:
                state = [None] * args.n_layer * 5
                for i in range(args.n_layer):
                    state[i * 5 + 0] = torch.zeros(args.n_embd)
                    state[i * 5 + 1] = torch.zeros(args.n_embd, dtype=torch.float)
                    state[i * 5 + 2] = torch.zeros(args.n_embd, dtype=torch.float)
                    state[i * 5 + 3] = torch.zeros(args.n_embd, dtype=torch.float) - 1e30
                    state[i * 5 + 4] = torch.zeros(args.n_embd)
            x = w["emb.weight"][tokens[0]]
            for i in range(args.n_layer):
                bbb = f"blocks.{i}."
                att = f"blocks.{i}.att."
                ffn = f"blocks.{i}.ffn."
                x, state[i * 5 + 0], state[i * 5 + 1], state[i * 5 + 2], state[i * 5 + 3] = self.att_one(
                    x, state[i * 5 + 0], state[i * 5 + 1], state[i * 5 + 2], state[i * 5 + 3],
                    w[f"{bbb}ln1.weight"], w[f"{bbb}ln1.bias"],
                    w[f"{att}time_mix_k"], w[f"{att}time_mix_v"], w[f"{att}time_mix_r"],
                    w[f"{att}time_decay"], w[f"{att}time_first"],
                    w[f"{att}key.weight"], w[f"{att}value.weight"], w[f"{att}receptance.weight"],
                    w[f"{att}output.weight"])
                x, state[i * 5 + 4] = self.ffn_one(
                    x, state[i * 5 + 4], w[f"{bbb}ln2.weight"], w[f"{bbb}ln2.bias"],
                    w[f"{ffn}time_mix_k"], w[f"{ffn}time_mix_r"],
                    w[f"{ffn}key.weight"], w[f"{ffn}value.weight"], w[f"{ffn}receptance.weight"])
            x = F.layer_norm(x, (args.n_embd,), weight=w["ln_out.weight"], bias=w["ln_out.bias"])
            x = x @ w["head.weight"]
            return x.float(), state


def make_model():
    return RWKV().eval()


def example_inputs():
    return (torch.tensor([7]),)


def other_inputs():
    return [(torch.tensor([3]),), (torch.tensor([41]),)]


def probe_inputs():
    return other_inputs()
