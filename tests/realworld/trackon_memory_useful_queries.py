"""Track-On online point tracker, Query_Decoder.memory_forward: only the point queries whose memory is
not all masked (`past_q[~all_masked]`, `useful_query_num = (~all_masked).sum()`) go through the
memory attention; export fails with "Could not guard on data-dependent expression Eq(256*u0, 256)".

Source: https://github.com/pytorch/pytorch/issues/147672
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"q_init_t": {1: "points"}, "context_memory": {1: "points"}, "past_mask": {1: "points"},
           "queried_now_or_before": {1: "points"}}
BLIND = "domains-3"


class MHA_Block(nn.Module):
    def __init__(self, d_model, nhead, dropout=0.1):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.GELU(), nn.Linear(2 * d_model, d_model))
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, q, k, v, mask=None, full_attn_mask=None):
        q = q + self.dropout1(self.mha(q, k, v, key_padding_mask=mask, attn_mask=full_attn_mask, need_weights=False)[0])
        q = self.norm1(q)
        q = q + self.dropout2(self.ffn(q))
        q = self.norm2(q)
        return q


class Query_Decoder(nn.Module):
    def __init__(self, num_layers=1, embedding_dim=32, memory_size=4, nhead=4):
        super().__init__()
        self.num_layers = num_layers
        self.embedding_dim = embedding_dim
        self.memory_size = memory_size
        self.token_to_query = nn.ModuleList([MHA_Block(embedding_dim, nhead) for _ in range(num_layers)])
        self.query_to_query = nn.ModuleList([MHA_Block(embedding_dim, nhead) for _ in range(num_layers)])
        self.memory_to_query = nn.ModuleList([MHA_Block(embedding_dim, nhead) for _ in range(num_layers)])
        self.time_embedding = nn.Parameter(torch.zeros(1, self.memory_size + 1, self.embedding_dim))
        nn.init.trunc_normal_(self.time_embedding, std=0.02)

    def memory_forward(self, q_t, past_q, past_q_mask, iter_num):
        B, N, C = q_t.shape

        q_t = q_t.view(B * N, 1, C)                # (B * N, 1, C)
        past_q = past_q.view(B * N, -1, C)         # (B * N, memory_size, C)
        past_q_mask = past_q_mask.view(B * N, -1)  # (B * N, memory_size)

        # True if all masked
        all_masked = past_q_mask.all(dim=-1)       # (B * N)

        if all_masked.all():
            return q_t.view(B, N, C), past_q.view(B, N, -1, C)

        useful_query_num = (~all_masked).sum()
        qkv = torch.cat([past_q[~all_masked], q_t[~all_masked]], dim=1)                    # (useful_query_num, memory_size + 1, C)
        mask = torch.cat([past_q_mask[~all_masked],
                          torch.zeros(useful_query_num, 1).bool().to(q_t.device)], dim=1)  # (useful_query_num, memory_size + 1)

        q = qkv + self.time_embedding
        k = qkv + self.time_embedding
        v = qkv

        qkv = self.memory_to_query[iter_num](q=q, k=k, v=v, mask=mask)  # (useful_query_num, memory_size + 1, C)

        q_t[~all_masked] = qkv[:, -1].unsqueeze(1)      # (useful_query_num, 1, C)
        past_q[~all_masked] = qkv[:, :-1]               # (useful_query_num, memory_size, C)

        return q_t.view(B, N, C), past_q.view(B, N, -1, C)

    def forward(self, q_start, f_t, past_q, past_q_mask, queried_now_or_before):
        past_q = past_q[:, :, -self.memory_size:]               # (B, N, memory_size)
        past_q_mask = past_q_mask[:, :, -self.memory_size:]     # (B, N, memory_size)
        sa_mask = ~queried_now_or_before                        # (B, N), True if will be queried later

        memory = past_q
        q_t = q_start
        for i in range(self.num_layers):
            q_t = self.token_to_query[i](q_t, f_t, f_t)     # (B, N, C)
            q_t = self.query_to_query[i](q_t, q_t, q_t, mask=sa_mask)
            q_t, memory = self.memory_forward(q_t, memory, past_q_mask, i)
        return q_t


class TrackOnStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.query_decoder = Query_Decoder()

    def forward(self, q_init_t, f_t, context_memory, past_mask, queried_now_or_before):
        q_t = self.query_decoder(q_init_t, f_t, context_memory.clone(), past_mask, queried_now_or_before)  # (B, N, C)
        return q_t


def make_model():
    return TrackOnStep().eval()


def _inputs(n, p=48):
    past_mask = torch.rand(1, n, 4) < 0.5
    past_mask[:, ::3] = True            # points with no memory yet
    queried = torch.rand(1, n) < 0.7
    queried[:, 0] = True
    return (torch.randn(1, n, 32), torch.randn(1, p, 32), torch.randn(1, n, 4, 32), past_mask, queried)


def example_inputs():
    return _inputs(8)


def other_inputs():
    return [_inputs(13), _inputs(5)]


def probe_inputs():
    return other_inputs()
