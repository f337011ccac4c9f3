"""weaver-core ParticleTransformer (jet tagging, particle physics) exported by `weaver.train.onnx` with the
network config's `input_shapes`, whose batch axis is 1: tracing with that size-1 axis made the exporter
specialize it into the graph although it was declared dynamic, "so the exported model only accepted the exact
(batch=1) size used at export time". (Trimmed to the inference path without the pairwise embedding; particles padded to a fixed length.)

Source: https://github.com/hqucms/weaver-core/pull/29
"""
import torch
import torch.nn as nn

CLASS = "exporter-defaults"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "N"}, "mask": {0: "N"}}   # particles padded to a fixed length P
BLIND = "domains-6"


class Embed(nn.Module):
    def __init__(self, input_dim, dims, normalize_input=True, activation='gelu'):
        super().__init__()
        self.input_bn = nn.BatchNorm1d(input_dim) if normalize_input else None
        module_list = []
        for dim in dims:
            module_list.extend([
                nn.LayerNorm(input_dim),
                nn.Linear(input_dim, dim),
                nn.GELU() if activation == 'gelu' else nn.ReLU(),
            ])
            input_dim = dim
        self.embed = nn.Sequential(*module_list)

    def forward(self, x):
        if self.input_bn is not None:
            # x: (batch, embed_dim, seq_len)
            x = self.input_bn(x)
            x = x.permute(2, 0, 1).contiguous()
        # x: (seq_len, batch, embed_dim)
        return self.embed(x)


class Block(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4, ffn_ratio=4):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.ffn_dim = embed_dim * ffn_ratio
        self.pre_attn_norm = nn.LayerNorm(embed_dim)
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, dropout=0.1)
        self.post_attn_norm = nn.LayerNorm(embed_dim)
        self.pre_fc_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, self.ffn_dim)
        self.act = nn.GELU()
        self.post_fc_norm = nn.LayerNorm(self.ffn_dim)
        self.fc2 = nn.Linear(self.ffn_dim, embed_dim)
        self.c_attn = nn.Parameter(torch.ones(num_heads), requires_grad=True)
        self.w_resid = nn.Parameter(torch.ones(embed_dim), requires_grad=True)

    def forward(self, x, x_cls=None, padding_mask=None, attn_mask=None):
        if x_cls is not None:
            with torch.no_grad():
                # prepend one element for x_cls: -> (batch, 1+seq_len)
                padding_mask = torch.cat((torch.zeros_like(padding_mask[:, :1]), padding_mask), dim=1)
            residual = x_cls
            u = torch.cat((x_cls, x), dim=0)  # (seq_len+1, batch, embed_dim)
            u = self.pre_attn_norm(u)
            x = self.attn(x_cls, u, u, key_padding_mask=padding_mask)[0]  # (1, batch, embed_dim)
        else:
            residual = x
            x = self.pre_attn_norm(x)
            x = self.attn(x, x, x, key_padding_mask=padding_mask,
                          attn_mask=attn_mask)[0]  # (seq_len, batch, embed_dim)

        tgt_len = x.size(0)
        x = x.view(tgt_len, -1, self.num_heads, self.head_dim)
        x = torch.einsum('tbhd,h->tbdh', x, self.c_attn)
        x = x.reshape(tgt_len, -1, self.embed_dim)
        x = self.post_attn_norm(x)
        x += residual

        residual = x
        x = self.pre_fc_norm(x)
        x = self.act(self.fc1(x))
        x = self.post_fc_norm(x)
        x = self.fc2(x)
        residual = torch.mul(self.w_resid, residual)
        x += residual
        return x


class ParticleTransformer(nn.Module):
    def __init__(self, input_dim=7, num_classes=5, embed_dims=[32, 32], num_heads=4):
        super().__init__()
        embed_dim = embed_dims[-1]
        self.embed = Embed(input_dim, embed_dims)
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads) for _ in range(2)])
        self.cls_blocks = nn.ModuleList([Block(embed_dim, num_heads) for _ in range(1)])
        self.norm = nn.LayerNorm(embed_dim)
        self.fc = nn.Sequential(nn.Linear(embed_dim, num_classes))
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim), requires_grad=True)
        nn.init.trunc_normal_(self.cls_token, std=.02)
        self.for_inference = True

    def forward(self, x, mask):
        # x: (N, C, P)
        # mask: (N, 1, P) -- real particle = 1, padded = 0
        with torch.no_grad():
            mask = mask.bool()
            padding_mask = ~mask.squeeze(1)  # (N, P)

        x = self.embed(x).masked_fill(~mask.permute(2, 0, 1), 0)  # (P, N, C)
        attn_mask = None
        for block in self.blocks:
            x = block(x, x_cls=None, padding_mask=padding_mask, attn_mask=attn_mask)

        cls_tokens = self.cls_token.expand(1, x.size(1), -1)  # (1, N, C)
        for block in self.cls_blocks:
            cls_tokens = block(x, x_cls=cls_tokens, padding_mask=padding_mask)

        x_cls = self.norm(cls_tokens).squeeze(0)
        output = self.fc(x_cls)
        if self.for_inference:
            output = torch.softmax(output, dim=1)
        return output


def _jets(n, p):
    x = torch.randn(n, 7, p)
    n_real = torch.randint(1, p + 1, (n,))
    mask = (torch.arange(p)[None, :] < n_real[:, None]).float().unsqueeze(1)
    return x * mask, mask


def make_model():
    return ParticleTransformer().eval()


def example_inputs():
    # the network config's input_shapes: batch axis 1
    return _jets(1, 16)


def other_inputs():
    return [_jets(4, 16), _jets(3, 16), _jets(7, 16)]


def probe_inputs():
    return other_inputs()
