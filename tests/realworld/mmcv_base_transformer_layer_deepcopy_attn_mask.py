"""mmocr ABINet language decoder built from mmcv's `BaseTransformerLayer`: when `attn_masks` is a single tensor
(ABINet passes its location mask), the layer copies it once per attention with
`[copy.deepcopy(attn_masks) for _ in range(self.num_attn)]`; exporting the recognizer fails inside that deepcopy
("NYI: Named tensors are not supported with the tracer"), and the PR replaces it with
`attn_masks.detach().clone()`.

Source: https://github.com/open-mmlab/mmcv/pull/2867
"""
import copy
import math
import warnings

import torch
import torch.nn as nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"logits": {0: "batch"}}
BLIND = "domains-63"


class MultiheadAttention(nn.Module):
    """mmcv.cnn.bricks.transformer.MultiheadAttention (batch_first=False)."""

    def __init__(self, embed_dims, num_heads, attn_drop=0., proj_drop=0.):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dims, num_heads, attn_drop)
        self.proj_drop = nn.Dropout(proj_drop)
        self.dropout_layer = nn.Identity()

    def forward(self, query, key=None, value=None, identity=None, query_pos=None, key_pos=None,
                attn_mask=None, key_padding_mask=None, **kwargs):
        if key is None:
            key = query
        if value is None:
            value = key
        if identity is None:
            identity = query
        if key_pos is None:
            if query_pos is not None and query_pos.shape == key.shape:
                key_pos = query_pos
        if query_pos is not None:
            query = query + query_pos
        if key_pos is not None:
            key = key + key_pos
        out = self.attn(query=query, key=key, value=value, attn_mask=attn_mask,
                        key_padding_mask=key_padding_mask)[0]
        return identity + self.dropout_layer(self.proj_drop(out))


class FFN(nn.Module):
    def __init__(self, embed_dims, feedforward_channels, ffn_drop=0.):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(embed_dims, feedforward_channels), nn.ReLU(inplace=True),
                                    nn.Dropout(ffn_drop), nn.Linear(feedforward_channels, embed_dims),
                                    nn.Dropout(ffn_drop))

    def forward(self, x, identity=None):
        out = self.layers(x)
        if identity is None:
            identity = x
        return identity + out


class BaseTransformerLayer(nn.Module):
    def __init__(self, operation_order, embed_dims, num_heads, feedforward_channels, dropout=0.1):
        super().__init__()
        self.operation_order = operation_order
        self.num_attn = operation_order.count('self_attn') + operation_order.count('cross_attn')
        self.pre_norm = operation_order[0] == 'norm'
        self.attentions = nn.ModuleList(
            [MultiheadAttention(embed_dims, num_heads, attn_drop=dropout) for _ in range(self.num_attn)])
        self.ffns = nn.ModuleList([FFN(embed_dims, feedforward_channels, dropout)
                                   for _ in range(operation_order.count('ffn'))])
        self.norms = nn.ModuleList([nn.LayerNorm(embed_dims) for _ in range(operation_order.count('norm'))])

    def forward(self, query, key=None, value=None, query_pos=None, key_pos=None, attn_masks=None,
                query_key_padding_mask=None, key_padding_mask=None, **kwargs):
        norm_index = 0
        attn_index = 0
        ffn_index = 0
        identity = query
        if attn_masks is None:
            attn_masks = [None for _ in range(self.num_attn)]
        elif isinstance(attn_masks, torch.Tensor):
            attn_masks = [
                copy.deepcopy(attn_masks) for _ in range(self.num_attn)
            ]
            warnings.warn(f'Use same attn_mask in all attentions in '
                          f'{self.__class__.__name__} ')
        else:
            assert len(attn_masks) == self.num_attn

        for layer in self.operation_order:
            if layer == 'self_attn':
                temp_key = temp_value = query
                query = self.attentions[attn_index](
                    query, temp_key, temp_value, identity if self.pre_norm else None, query_pos=query_pos,
                    key_pos=query_pos, attn_mask=attn_masks[attn_index],
                    key_padding_mask=query_key_padding_mask, **kwargs)
                attn_index += 1
                identity = query
            elif layer == 'norm':
                query = self.norms[norm_index](query)
                norm_index += 1
            elif layer == 'cross_attn':
                query = self.attentions[attn_index](
                    query, key, value, identity if self.pre_norm else None, query_pos=query_pos,
                    key_pos=key_pos, attn_mask=attn_masks[attn_index], key_padding_mask=key_padding_mask,
                    **kwargs)
                attn_index += 1
                identity = query
            elif layer == 'ffn':
                query = self.ffns[ffn_index](query, identity if self.pre_norm else None)
                ffn_index += 1
        return query


class PositionalEncoding(nn.Module):
    def __init__(self, d_hid=512, n_position=200, dropout=0):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        denominator = torch.Tensor([1.0 / math.pow(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid)])
        denominator = denominator.view(1, -1)
        pos_tensor = torch.arange(n_position).unsqueeze(-1).float()
        sinusoid_table = pos_tensor * denominator
        sinusoid_table[:, 0::2] = torch.sin(sinusoid_table[:, 0::2])
        sinusoid_table[:, 1::2] = torch.cos(sinusoid_table[:, 1::2])
        self.register_buffer('position_table', sinusoid_table.unsqueeze(0))

    def forward(self, x):
        x = x + self.position_table[:, :x.size(1)].clone().detach()
        return self.dropout(x)


class ABILanguageDecoder(nn.Module):
    def __init__(self, num_classes=37, d_model=64, n_head=4, d_inner=128, n_layers=2, max_seq_len=26,
                 dropout=0.1):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.proj = nn.Linear(num_classes, d_model, False)
        self.token_encoder = PositionalEncoding(d_model, n_position=self.max_seq_len, dropout=dropout)
        self.pos_encoder = PositionalEncoding(d_model, n_position=self.max_seq_len)
        self.decoder_layers = nn.ModuleList([
            BaseTransformerLayer(('cross_attn', 'norm', 'ffn', 'norm'), d_model, n_head, d_inner, dropout)
            for _ in range(n_layers)])
        self.cls = nn.Linear(d_model, num_classes)

    @staticmethod
    def _get_location_mask(seq_len, device=None):
        mask = torch.eye(seq_len, device=device)
        mask = mask.float().masked_fill(mask == 1, float('-inf'))
        return mask

    def forward(self, logits):
        tokens = torch.softmax(logits, dim=-1)
        embed = self.proj(tokens)  # (N, T, E)
        embed = self.token_encoder(embed)  # (N, T, E)
        zeros = embed.new_zeros(*embed.shape)
        query = self.pos_encoder(zeros)
        query = query.permute(1, 0, 2)  # (T, N, E)
        embed = embed.permute(1, 0, 2)
        location_mask = self._get_location_mask(self.max_seq_len, tokens.device)
        output = query
        for m in self.decoder_layers:
            output = m(query=output, key=embed, value=embed, attn_masks=location_mask)
        output = output.permute(1, 0, 2)  # (N, T, E)
        return self.cls(output)


def make_model():
    return ABILanguageDecoder().eval()


def example_inputs():
    return (torch.randn(2, 26, 37),)


def other_inputs():
    return [(torch.randn(5, 26, 37),), (torch.randn(1, 26, 37),)]


def probe_inputs():
    return other_inputs()
