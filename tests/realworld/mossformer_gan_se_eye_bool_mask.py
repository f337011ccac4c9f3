"""ClearerVoice MossFormerGAN_SE_16K speech enhancement: the MossFormer block's cross-frame quadratic
attention masks its diagonal with `torch.eye(quad_q_c.shape[-2], dtype=torch.bool, device=device)`;
the exported model does not load in onnxruntime: "NOT_IMPLEMENTED : Could not find an implementation
for EyeLike(9) node with name '/blocks.0/intra_mossformer/EyeLike'" (no bool EyeLike kernel).
(Rotary embedding, ConvModule and the GAN front/back ends trimmed; einops rearrange written as reshapes;
query_key_dim = 2 * dim so that v/u reshape like q/k, as in the released config.)

Source: https://github.com/microsoft/onnxruntime/issues/24441
"""
import torch
import torch.nn.functional as F
from torch import nn, einsum

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "operators-5"


def exists(val):
    return val is not None


class OffsetScale(nn.Module):
    def __init__(self, dim, heads=1):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(heads, dim))
        self.beta = nn.Parameter(torch.zeros(heads, dim))
        nn.init.normal_(self.gamma, std=0.02)

    def forward(self, x):
        out = einsum('... d, h d -> ... h d', x, self.gamma) + self.beta
        return out.unbind(dim=-2)


class FFConvM(nn.Module):
    def __init__(self, dim_in, dim_out, norm_klass=nn.LayerNorm, dropout=0.1):
        super().__init__()
        self.mdl = nn.Sequential(norm_klass(dim_in), nn.Linear(dim_in, dim_out), nn.SiLU(), nn.Dropout(dropout))

    def forward(self, x):
        output = self.mdl(x)
        return output


class MossFormer(nn.Module):
    def __init__(self, dim, query_key_dim=32, expansion_factor=4., dropout=0.1, norm_klass=nn.LayerNorm):
        super().__init__()
        hidden_dim = int(dim * expansion_factor)
        self.dropout = nn.Dropout(dropout)
        self.to_hidden = FFConvM(dim_in=dim, dim_out=hidden_dim, norm_klass=norm_klass, dropout=dropout)
        self.to_qk = FFConvM(dim_in=dim, dim_out=query_key_dim, norm_klass=norm_klass, dropout=dropout)
        self.qk_offset_scale = OffsetScale(query_key_dim, heads=4)
        self.to_out = FFConvM(dim_in=dim * int(expansion_factor // 2), dim_out=dim, norm_klass=norm_klass, dropout=dropout)
        self.gateActivate = nn.Sigmoid()

    def forward(self, x):
        B, T, Q, C = x.size()
        x = x.view(B * T, Q, C)
        normed_x = x
        x_shift, x_pass = normed_x.chunk(2, dim=-1)
        x_shift = F.pad(x_shift, (0, 0, 1, -1), value=0.)
        normed_x = torch.cat((x_shift, x_pass), dim=-1)
        v, u = self.to_hidden(normed_x).chunk(2, dim=-1)
        qk = self.to_qk(normed_x)
        quad_q, lin_q, quad_k, lin_k = self.qk_offset_scale(qk)
        att_v, att_u = self.cal_attention(x, quad_q, lin_q, quad_k, lin_k, v, u, B)
        out = (att_u * v) * self.gateActivate(att_v * u)
        x = x + self.to_out(out)
        return x.view(B, T, Q, C)

    def cal_attention(self, x, quad_q, lin_q, quad_k, lin_k, v, u, B, mask=None):
        b, n, device = x.shape[0], x.shape[-2], x.device
        # rearrange(t, 'b (g n) d -> b g n d', n = n) with a single group
        quad_q, quad_k, lin_q, lin_k, v, u = map(lambda t: t.reshape(t.shape[0], -1, n, t.shape[-1]), (quad_q, quad_k, lin_q, lin_k, v, u))
        BT, K, Q, C = quad_q.size()
        quad_q_c = quad_q.view(B, -1, Q, C).transpose(2, 1)
        quad_k_c = quad_k.view(B, -1, Q, C).transpose(2, 1)
        v_c = v.view(B, -1, Q, C).transpose(2, 1)
        u_c = u.view(B, -1, Q, C).transpose(2, 1)
        sim = einsum('... i d, ... j d -> ... i j', quad_q, quad_k) / n
        sim_c = einsum('... i d, ... j d -> ... i j', quad_q_c, quad_k_c) / quad_q_c.shape[-2]
        attn = F.relu(sim) ** 2
        attn = self.dropout(attn)
        attn_c = F.relu(sim_c) ** 2
        attn_c = self.dropout(attn_c)
        mask_c = torch.eye(quad_q_c.shape[-2], dtype=torch.bool, device=device)
        attn_c = attn_c.masked_fill(mask_c, 0.)  # Mask diagonal for attention
        quad_out_v = einsum('... i j, ... j d -> ... i d', attn, v)
        quad_out_u = einsum('... i j, ... j d -> ... i d', attn, u)
        quad_out_v_c = einsum('... i j, ... j d -> ... i d', attn_c, v_c)
        quad_out_u_c = einsum('... i j, ... j d -> ... i d', attn_c, u_c)
        quad_out_v_c = quad_out_v_c.transpose(2, 1).contiguous().view(BT, K, Q, C)
        quad_out_u_c = quad_out_u_c.transpose(2, 1).contiguous().view(BT, K, Q, C)
        quad_out_v = quad_out_v + quad_out_v_c
        quad_out_u = quad_out_u + quad_out_u_c
        lin_kv = einsum('b g n d, b g n e -> b d e', lin_k, v) / n
        lin_out_v = einsum('b g n d, b d e -> b g n e', lin_q, lin_kv)
        lin_ku = einsum('b g n d, b g n e -> b d e', lin_k, u) / n
        lin_out_u = einsum('b g n d, b d e -> b g n e', lin_q, lin_ku)
        # rearrange(t, 'b g n d -> b (g n) d')[:, :n]
        quad_attn_out_v, lin_attn_out_v = map(lambda t: t.reshape(t.shape[0], -1, t.shape[-1])[:, :n], (quad_out_v, lin_out_v))
        quad_attn_out_u, lin_attn_out_u = map(lambda t: t.reshape(t.shape[0], -1, t.shape[-1])[:, :n], (quad_out_u, lin_out_u))
        return quad_attn_out_v + lin_attn_out_v, quad_attn_out_u + lin_attn_out_u


class MossFormerSELite(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.inp = nn.Conv2d(2, dim, 1)
        self.intra_mossformer = MossFormer(dim=dim, query_key_dim=2 * dim)
        self.out = nn.Conv2d(dim, 2, 1)

    def forward(self, x):
        # x: (B, 2, T, F) real/imag spectrogram
        h = self.inp(x).permute(0, 2, 3, 1).contiguous()  # (B, T, F, C)
        h = self.intra_mossformer(h)
        mask = torch.tanh(self.out(h.permute(0, 3, 1, 2)))
        return x * mask


def make_model():
    return MossFormerSELite().eval()


def example_inputs():
    return (torch.randn(1, 2, 161, 201),)


def other_inputs():
    return [(torch.randn(2, 2, 120, 201),), (torch.randn(1, 2, 57, 201),)]


def probe_inputs():
    return other_inputs()
