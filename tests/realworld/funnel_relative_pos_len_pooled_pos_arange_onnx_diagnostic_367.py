"""Funnel Transformer (transformers, relative_shift attention): `get_position_embeds` builds the relative position
vectors with `relative_pos()`, which counts `num_remove = shift * len(pooled_pos)` with the Python builtin and feeds
it, with 0-d tensor bounds, to `torch.arange(max_dist, min_dist - 1, -stride)`; onnx-diagnostic had to patch
`relative_pos` (`len(pooled_pos)` -> `pooled_pos.shape[0]`, bounds cast to tensors) before torch.export kept the
sequence length dynamic (unpatched, the sequence dim is specialized to the example's length).

Source: https://github.com/sdpython/onnx-diagnostic/pull/367
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"inputs_embeds": {0: "batch", 1: "sequence"}}
BLIND = "domains-52"


def _relative_shift_gather(positional_attn, context_len, shift):
    batch_size, n_head, seq_len, max_rel_len = positional_attn.shape
    positional_attn = torch.reshape(positional_attn, [batch_size, n_head, max_rel_len, seq_len])
    positional_attn = positional_attn[:, :, shift:, :]
    positional_attn = torch.reshape(positional_attn, [batch_size, n_head, seq_len, max_rel_len - shift])
    positional_attn = positional_attn[..., :context_len]
    return positional_attn


class FunnelRelPositionalAttention(nn.Module):
    def __init__(self, d_model=32, n_head=4, d_head=8, num_blocks=2, separate_cls=True, truncate_seq=True):
        super().__init__()
        self.d_model, self.n_head, self.d_head = d_model, n_head, d_head
        self.num_blocks = num_blocks
        self.separate_cls = separate_cls
        self.truncate_seq = truncate_seq
        self.block_index = 0
        self.sin_dropout = nn.Dropout(0.1)
        self.cos_dropout = nn.Dropout(0.1)
        self.q_head = nn.Linear(d_model, n_head * d_head, bias=False)
        self.r_r_bias = nn.Parameter(torch.randn([n_head, d_head]) * 0.02)
        self.r_kernel = nn.Parameter(torch.randn([d_model, n_head, d_head]) * 0.02)
        self.scale = 1.0 / (d_head**0.5)

    def get_position_embeds(self, seq_len, dtype, device):
        d_model = self.d_model
        freq_seq = torch.arange(0, d_model // 2, 1.0, dtype=torch.int64, device=device).to(dtype)
        inv_freq = 1 / (10000 ** (freq_seq / (d_model // 2)))
        # Maximum relative positions for the first input
        rel_pos_id = torch.arange(-seq_len * 2, seq_len * 2, 1.0, dtype=torch.int64, device=device).to(dtype)
        zero_offset = seq_len * 2
        sinusoid = rel_pos_id[:, None] * inv_freq[None]
        sin_embed = self.sin_dropout(torch.sin(sinusoid))
        cos_embed = self.cos_dropout(torch.cos(sinusoid))
        pos_embed = torch.cat([sin_embed, cos_embed], dim=-1)

        pos = torch.arange(0, seq_len, dtype=torch.int64, device=device).to(dtype)
        pooled_pos = pos
        position_embeds_list = []
        for block_index in range(0, self.num_blocks):
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
        if self.separate_cls:
            cls_pos = pos_id.new_tensor([-(2**block_index) + 1])
            pooled_pos_id = pos_id[1:-1] if self.truncate_seq else pos_id[1:]
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

    def relative_positional_attention(self, position_embeds, q_head, context_len, cls_mask=None):
        shift = 2 if q_head.shape[1] != context_len else 1
        r = position_embeds[self.block_index][shift - 1]
        v = self.r_r_bias * self.scale
        w_r = self.r_kernel
        r_head = torch.einsum("td,dnh->tnh", r, w_r)
        positional_attn = torch.einsum("binh,tnh->bnit", q_head + v, r_head)
        positional_attn = _relative_shift_gather(positional_attn, context_len, shift)

        if cls_mask is not None:
            positional_attn *= cls_mask
        return positional_attn

    def forward(self, inputs_embeds):
        batch_size, seq_len, _ = inputs_embeds.shape
        position_embeds = self.get_position_embeds(seq_len, inputs_embeds.dtype, inputs_embeds.device)
        cls_mask = (
            nn.functional.pad(inputs_embeds.new_ones([seq_len - 1, seq_len - 1]), (1, 0, 1, 0))
            if self.separate_cls
            else None
        )
        q_head = self.q_head(inputs_embeds).view(batch_size, seq_len, self.n_head, self.d_head)
        return self.relative_positional_attention(position_embeds, q_head, seq_len, cls_mask)


def make_model():
    return FunnelRelPositionalAttention().eval()


def example_inputs():
    return (torch.randn(2, 12, 32),)


def other_inputs():
    return [(torch.randn(3, 17, 32),), (torch.randn(1, 8, 32),)]


def probe_inputs():
    return other_inputs()
