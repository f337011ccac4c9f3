"""Funnel Transformer (transformers' modeling_funnel, relative_shift attention): the relative position
embeddings are built in forward from the sequence length, and `relative_pos` takes
`num_remove = shift * len(pooled_pos)` and a `torch.arange` whose ends are 0-dim tensors
(`pooled_pos[0] - pos[-1]`); the report's ONNX export prints "Using len to get tensor shape might cause
the trace to be incorrect" for that line (plus the other trace warnings of the pooling code).

Source: https://github.com/huggingface/optimum/pull/1231
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"inputs_embeds": {0: "batch", 1: "seq_len"}}
BLIND = "domains-21"


class FunnelConfig:
    d_model = 16
    n_head = 2
    d_head = 8
    num_blocks = 2
    separate_cls = True
    truncate_seq = True
    attention_type = "relative_shift"


def _relative_shift_gather(positional_attn, context_len, shift):
    batch_size, n_head, seq_len, max_rel_len = positional_attn.shape
    positional_attn = torch.reshape(positional_attn, [batch_size, n_head, max_rel_len, seq_len])
    positional_attn = positional_attn[:, :, shift:, :]
    positional_attn = torch.reshape(positional_attn, [batch_size, n_head, seq_len, max_rel_len - shift])
    positional_attn = positional_attn[..., :context_len]
    return positional_attn


class FunnelRelMultiheadAttention(nn.Module):
    def __init__(self, config, block_index):
        super().__init__()
        self.config = config
        self.block_index = block_index
        d_model, n_head, d_head = config.d_model, config.n_head, config.d_head
        self.q_head = nn.Linear(d_model, n_head * d_head, bias=False)
        self.k_head = nn.Linear(d_model, n_head * d_head)
        self.v_head = nn.Linear(d_model, n_head * d_head)
        self.r_w_bias = nn.Parameter(torch.randn([n_head, d_head]) * 0.1)
        self.r_r_bias = nn.Parameter(torch.randn([n_head, d_head]) * 0.1)
        self.r_kernel = nn.Parameter(torch.randn([d_model, n_head, d_head]) * 0.1)
        self.post_proj = nn.Linear(n_head * d_head, d_model)
        self.layer_norm = nn.LayerNorm(d_model)
        self.scale = 1.0 / (d_head**0.5)

    def relative_positional_attention(self, position_embeds, q_head, context_len):
        # relative_shift
        shift = 2 if q_head.shape[1] != context_len else 1
        r = position_embeds[self.block_index][shift - 1]
        v = self.r_r_bias * self.scale
        w_r = self.r_kernel
        r_head = torch.einsum("td,dnh->tnh", r, w_r)
        positional_attn = torch.einsum("binh,tnh->bnit", q_head + v, r_head)
        positional_attn = _relative_shift_gather(positional_attn, context_len, shift)
        return positional_attn

    def forward(self, query, key, value, position_embeds):
        batch_size, seq_len, _ = query.shape
        context_len = key.shape[1]
        n_head, d_head = self.config.n_head, self.config.d_head
        q_head = self.q_head(query).view(batch_size, seq_len, n_head, d_head)
        k_head = self.k_head(key).view(batch_size, context_len, n_head, d_head)
        v_head = self.v_head(value).view(batch_size, context_len, n_head, d_head)
        q_head = q_head * self.scale
        r_w_bias = self.r_w_bias * self.scale
        content_score = torch.einsum("bind,bjnd->bnij", q_head + r_w_bias, k_head)
        positional_attn = self.relative_positional_attention(position_embeds, q_head, context_len)
        attn_score = content_score + positional_attn
        attn_prob = torch.softmax(attn_score, dim=-1)
        attn_vec = torch.einsum("bnij,bjnd->bind", attn_prob, v_head)
        attn_out = self.post_proj(attn_vec.reshape(batch_size, seq_len, n_head * d_head))
        return self.layer_norm(query + attn_out)


class FunnelEncoder(nn.Module):
    def __init__(self, config=FunnelConfig()):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList([FunnelRelMultiheadAttention(config, i) for i in range(config.num_blocks)])

    def get_position_embeds(self, seq_len, dtype, device):
        d_model = self.config.d_model
        freq_seq = torch.arange(0, d_model // 2, 1.0, dtype=torch.int64, device=device).to(dtype)
        inv_freq = 1 / (10000 ** (freq_seq / (d_model // 2)))
        rel_pos_id = torch.arange(-seq_len * 2, seq_len * 2, 1.0, dtype=torch.int64, device=device).to(dtype)
        zero_offset = seq_len * 2
        sinusoid = rel_pos_id[:, None] * inv_freq[None]
        pos_embed = torch.cat([torch.sin(sinusoid), torch.cos(sinusoid)], dim=-1)

        pos = torch.arange(0, seq_len, dtype=torch.int64, device=device).to(dtype)
        pooled_pos = pos
        position_embeds_list = []
        for block_index in range(0, self.config.num_blocks):
            if block_index == 0:
                position_embeds_pooling = None
            else:
                pooled_pos = self.stride_pool_pos(pos, block_index)
                stride = 2 ** (block_index - 1)
                rel_pos = self.relative_pos(pos, stride, pooled_pos, shift=2)
                rel_pos = rel_pos[:, None] + zero_offset
                rel_pos = rel_pos.expand(rel_pos.size(0), d_model)
                position_embeds_pooling = torch.gather(pos_embed, 0, rel_pos)

            pos = pooled_pos
            stride = 2**block_index
            rel_pos = self.relative_pos(pos, stride)
            rel_pos = rel_pos[:, None] + zero_offset
            rel_pos = rel_pos.expand(rel_pos.size(0), d_model)
            position_embeds_no_pooling = torch.gather(pos_embed, 0, rel_pos)

            position_embeds_list.append([position_embeds_no_pooling, position_embeds_pooling])
        return position_embeds_list

    def stride_pool_pos(self, pos_id, block_index):
        if self.config.separate_cls:
            cls_pos = pos_id.new_tensor([-(2**block_index) + 1])
            pooled_pos_id = pos_id[1:-1] if self.config.truncate_seq else pos_id[1:]
            return torch.cat([cls_pos, pooled_pos_id[::2]], 0)
        else:
            return pos_id[::2]

    def relative_pos(self, pos, stride, pooled_pos=None, shift=1):
        if pooled_pos is None:
            pooled_pos = pos
        ref_point = pooled_pos[0] - pos[0]
        num_remove = shift * len(pooled_pos)
        max_dist = ref_point + num_remove * stride
        min_dist = pooled_pos[0] - pos[-1]
        return torch.arange(max_dist, min_dist - 1, -stride, dtype=torch.long, device=pos.device)

    def pool_tensor(self, tensor, mode="mean", stride=2):
        if self.config.separate_cls:
            suffix = tensor[:, :-1] if self.config.truncate_seq else tensor
            tensor = torch.cat([tensor[:, :1], suffix], dim=1)
        tensor = tensor[:, None, :, :]
        stride = (stride, 1)
        tensor = nn.functional.avg_pool2d(tensor, stride, stride=stride, ceil_mode=True)
        return tensor[:, 0]

    def forward(self, inputs_embeds):
        seq_len = inputs_embeds.size(1)
        position_embeds = self.get_position_embeds(seq_len, inputs_embeds.dtype, inputs_embeds.device)
        hidden = self.blocks[0](inputs_embeds, inputs_embeds, inputs_embeds, position_embeds)
        pooled = self.pool_tensor(hidden, mode="mean")
        return self.blocks[1](pooled, pooled, pooled, position_embeds)


def make_model():
    return FunnelEncoder().eval()


def example_inputs():
    return (torch.randn(2, 8, 16),)


def other_inputs():
    return [(torch.randn(3, 12, 16),), (torch.randn(1, 6, 16),)]


def probe_inputs():
    return other_inputs()
