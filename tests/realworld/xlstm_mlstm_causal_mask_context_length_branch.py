"""xLSTM mLSTM layer (parallel stabilized mLSTM cell with a multi-head group-norm): the backend picks
its causal mask with `if lower_triangular_matrix is None or S < lower_triangular_matrix.size(-1)`, so a
sequence as long as the cell's `context_length` uses the registered (context_length, context_length)
`causal_mask` buffer while shorter ones build `torch.tril(torch.ones((S, S)))`; the report says
`torch.onnx.dynamo_export` fails on the dynamic arguments and the conditionals, and the traced export
keeps only one branch.

Source: https://github.com/NX-AI/xlstm/issues/3
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "domains-23"


def parallel_stabilized_simple(queries, keys, values, igate_preact, fgate_preact,
                               lower_triangular_matrix=None, stabilize_rowwise=True, eps=1e-6, **kwargs):
    B, NH, S, DH = queries.shape
    _dtype, _device = queries.dtype, queries.device

    # forget gate matrix
    log_fgates = torch.nn.functional.logsigmoid(fgate_preact)  # (B, NH, S, 1)
    if lower_triangular_matrix is None or S < lower_triangular_matrix.size(-1):
        ltr = torch.tril(torch.ones((S, S), dtype=torch.bool, device=_device))
    else:
        ltr = lower_triangular_matrix
    assert ltr.dtype == torch.bool, f"lower_triangular_matrix must be of dtype bool, got {ltr.dtype}"

    log_fgates_cumsum = torch.cat(
        [
            torch.zeros((B, NH, 1, 1), dtype=_dtype, device=_device),
            torch.cumsum(log_fgates, dim=-2),
        ],
        dim=-2,
    )  # (B, NH, S+1, 1)
    rep_log_fgates_cumsum = log_fgates_cumsum.repeat(1, 1, 1, S + 1)  # (B, NH, S+1, S+1)
    _log_fg_matrix = rep_log_fgates_cumsum - rep_log_fgates_cumsum.transpose(-2, -1)  # (B, NH, S+1, S+1)
    log_fg_matrix = torch.where(ltr, _log_fg_matrix[:, :, 1:, 1:], -float("inf"))  # (B, NH, S, S)

    log_D_matrix = log_fg_matrix + igate_preact.transpose(-2, -1)  # (B, NH, S, S)
    if stabilize_rowwise:
        max_log_D, _ = torch.max(log_D_matrix, dim=-1, keepdim=True)  # (B, NH, S, 1)
    else:
        max_log_D = torch.max(log_D_matrix.view(B, NH, -1), dim=-1, keepdim=True)[0].unsqueeze(-1)
    log_D_matrix_stabilized = log_D_matrix - max_log_D  # (B, NH, S, S)
    D_matrix = torch.exp(log_D_matrix_stabilized)  # (B, NH, S, S)

    keys_scaled = keys / math.sqrt(DH)

    qk_matrix = queries @ keys_scaled.transpose(-2, -1)  # (B, NH, S, S)
    C_matrix = qk_matrix * D_matrix  # (B, NH, S, S)
    normalizer = torch.maximum(C_matrix.sum(dim=-1, keepdim=True).abs(), torch.exp(-max_log_D))  # (B, NH, S, 1)
    C_matrix_normalized = C_matrix / (normalizer + eps)

    h_tilde_state = C_matrix_normalized @ values  # (B, NH, S, DH)
    return h_tilde_state


class MultiHeadLayerNorm(nn.Module):
    def __init__(self, ndim=-1, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(ndim))
        self.bias = None
        self.eps = eps

    @property
    def weight_proxy(self):
        return 1.0 + self.weight

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        assert input.dim() == 4, "Input must be 4D tensor (B, NH, S, DH)"
        B, NH, S, DH = input.shape

        gn_in_1 = input.transpose(1, 2)  # (B, S, NH, DH)
        gn_in_2 = gn_in_1.reshape(B * S, NH * DH)  # (B * S, NH * DH)
        out = F.group_norm(gn_in_2, num_groups=NH, weight=self.weight_proxy, bias=self.bias, eps=self.eps)
        out = out.view(B, S, NH, DH).transpose(1, 2)
        return out


@dataclass
class mLSTMCellConfig:
    context_length: int = -1
    embedding_dim: int = -1
    num_heads: int = -1


class mLSTMCell(nn.Module):
    def __init__(self, config: mLSTMCellConfig):
        super().__init__()
        self.config = config
        self.backend_fn = parallel_stabilized_simple
        self.igate = nn.Linear(3 * config.embedding_dim, config.num_heads)
        self.fgate = nn.Linear(3 * config.embedding_dim, config.num_heads)
        self.outnorm = MultiHeadLayerNorm(ndim=config.embedding_dim)
        self.register_buffer(
            "causal_mask",
            torch.tril(torch.ones(config.context_length, config.context_length, dtype=torch.bool)),
            persistent=False,
        )

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, **kwargs) -> torch.Tensor:
        B, S, _ = q.shape  # (B, S, H)

        if_gate_input = torch.cat([q, k, v], dim=-1)
        q = q.view(B, S, self.config.num_heads, -1).transpose(1, 2)  # (B, NH, S, DH)
        k = k.view(B, S, self.config.num_heads, -1).transpose(1, 2)
        v = v.view(B, S, self.config.num_heads, -1).transpose(1, 2)

        igate_preact = self.igate(if_gate_input).transpose(-1, -2).unsqueeze(-1)  # (B, NH, S, 1)
        fgate_preact = self.fgate(if_gate_input).transpose(-1, -2).unsqueeze(-1)  # (B, NH, S, 1)

        h_state = self.backend_fn(
            queries=q,
            keys=k,
            values=v,
            igate_preact=igate_preact,
            fgate_preact=fgate_preact,
            lower_triangular_matrix=self.causal_mask,
        )  # (B, NH, S, DH)

        h_state_norm = self.outnorm(h_state)  # (B, NH, S, DH)
        h_state_norm = h_state_norm.transpose(1, 2).reshape(B, S, -1)  # (B, S, H)
        return h_state_norm


class mLSTMLayer(nn.Module):
    def __init__(self, embedding_dim=32, num_heads=4, context_length=16):
        super().__init__()
        self.q_proj = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.k_proj = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.v_proj = nn.Linear(embedding_dim, embedding_dim, bias=False)
        self.mlstm_cell = mLSTMCell(mLSTMCellConfig(context_length, embedding_dim, num_heads))
        self.proj_down = nn.Linear(embedding_dim, embedding_dim)

    def forward(self, x):
        h = self.mlstm_cell(q=self.q_proj(x), k=self.k_proj(x), v=self.v_proj(x))
        return self.proj_down(h) + x


def make_model():
    return mLSTMLayer().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)   # a full context window


def other_inputs():
    return [(torch.randn(3, 9, 32),), (torch.randn(1, 12, 32),)]


def probe_inputs():
    return other_inputs()
