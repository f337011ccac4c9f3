"""FireRedASR-AED ConformerEncoder builds its padding mask with `padding_position_is_0`, a Python loop
over the batch (`for i in range(N): mask[i, input_lengths[i]:] = 0`). The FireRedASR-AED-ONNX export
wrapper (AudioEncoderTensorCache: encoder + per-layer cross-attention K/V) replaces it, noting that with
the original function "the dynamic batch does not work properly for the exported onnx model ...
because when exporting onnx, N and T are considered constants".

Source: https://github.com/coolhuhu/FireRedASR-AED-ONNX/blob/4e2b0ecc93afeb3e54930500dc6d111a6bbc2bc0/model_wrapper.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input": {0: "N", 1: "T"}, "input_length": {0: "N"}}
BLIND = "domains-84"


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class Conv2dSubsampling(nn.Module):
    def __init__(self, idim, d_model, out_channels=32):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, out_channels, 3, 2),
            nn.ReLU(),
            nn.Conv2d(out_channels, out_channels, 3, 2),
            nn.ReLU(),
        )
        subsample_idim = ((idim - 1) // 2 - 1) // 2
        self.out = nn.Linear(out_channels * subsample_idim, d_model)
        left_context = right_context = 3  # both exclude currect frame
        self.context = left_context + 1 + right_context  # 7

    def forward(self, x, x_mask):
        x = x.unsqueeze(1)
        x = self.conv(x)
        N, C, T, D = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(N, T, C * D))
        mask = x_mask[:, :, :-2:2][:, :, :-2:2]
        input_lengths = mask[:, -1, :].sum(dim=-1)
        return x, input_lengths, mask


class ConformerBlock(nn.Module):
    def __init__(self, d_model, n_head, kernel_size=33):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.ffn1 = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, d_model * 4), Swish(),
                                  nn.Linear(d_model * 4, d_model))
        self.layer_norm_q = nn.LayerNorm(d_model)
        self.w_qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.fc = nn.Linear(d_model, d_model, bias=False)
        self.pre_layer_norm = nn.LayerNorm(d_model)
        self.pointwise_conv1 = nn.Conv1d(d_model, d_model * 2, kernel_size=1, bias=False)
        self.depthwise_conv = nn.Conv1d(d_model, d_model, kernel_size, padding=(kernel_size - 1) // 2,
                                        groups=d_model, bias=False)
        self.pointwise_conv2 = nn.Conv1d(d_model, d_model, kernel_size=1, bias=False)
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, x, slf_attn_mask=None, pad_mask=None):
        out = 0.5 * x + 0.5 * (self.ffn1(x) + x)
        b, t, _ = out.size()
        q, k, v = self.w_qkv(self.layer_norm_q(out)).view(b, t, 3, self.n_head, self.d_k).permute(2, 0, 3, 1, 4)
        attn = torch.matmul(q, k.transpose(2, 3)) / self.d_k ** 0.5
        mask = slf_attn_mask.unsqueeze(1).eq(0)
        attn = attn.masked_fill(mask, -float('inf'))
        attn = torch.softmax(attn, dim=-1).masked_fill(mask, 0.0)
        out = out + self.fc(torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, t, -1))
        residual = out
        y = self.pre_layer_norm(out).transpose(1, 2)
        y.masked_fill_(pad_mask.ne(1), 0.0)
        y = self.pointwise_conv2(F.silu(self.depthwise_conv(F.glu(self.pointwise_conv1(y), dim=1))))
        y.masked_fill_(pad_mask.ne(1), 0.0)
        return self.layer_norm(y.transpose(1, 2) + residual)


class ConformerEncoder(nn.Module):
    def __init__(self, idim=80, n_layers=2, n_head=4, d_model=64):
        super().__init__()
        self.input_preprocessor = Conv2dSubsampling(idim, d_model)
        self.layer_stack = nn.ModuleList([ConformerBlock(d_model, n_head) for _ in range(n_layers)])

    def forward(self, padded_input, input_lengths, pad=True):
        if pad:
            padded_input = F.pad(padded_input,
                (0, 0, 0, self.input_preprocessor.context - 1), 'constant', 0.0)
        src_mask = self.padding_position_is_0(padded_input, input_lengths)

        embed_output, input_lengths, src_mask = self.input_preprocessor(padded_input, src_mask)
        enc_output = embed_output
        for enc_layer in self.layer_stack:
            enc_output = enc_layer(enc_output, slf_attn_mask=src_mask, pad_mask=src_mask)
        return enc_output, input_lengths, src_mask

    def padding_position_is_0(self, padded_input, input_lengths):
        N, T = padded_input.size()[:2]
        mask = torch.ones((N, T)).to(padded_input.device)
        for i in range(N):
            mask[i, input_lengths[i]:] = 0
        mask = mask.unsqueeze(dim=1)
        return mask.to(torch.uint8)


class DecoderLayer(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.cross_attn = nn.Module()
        self.cross_attn.w_ks = nn.Linear(d_model, d_model, bias=False)
        self.cross_attn.w_vs = nn.Linear(d_model, d_model, bias=False)


class TransformerDecoder(nn.Module):
    def __init__(self, d_model=64, n_layers=2):
        super().__init__()
        self.layer_stack = nn.ModuleList([DecoderLayer(d_model) for _ in range(n_layers)])


class AudioEncoderTensorCache(nn.Module):
    def __init__(self, encoder: ConformerEncoder, decoder: TransformerDecoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, input, input_length):
        encoder_output, _, encoder_mask = self.encoder(input, input_length)

        n_layer_cross_k_list = []
        n_layer_cross_v_list = []
        for layer in self.decoder.layer_stack:
            n_layer_cross_k_list.append(layer.cross_attn.w_ks(encoder_output))
            n_layer_cross_v_list.append(layer.cross_attn.w_vs(encoder_output))

        encoder_mask = encoder_mask.to(torch.float32)
        encoder_mask[encoder_mask == 0] = -torch.inf
        encoder_mask[encoder_mask == 1] = 0.0

        return (torch.stack(n_layer_cross_k_list),
                torch.stack(n_layer_cross_v_list),
                encoder_mask)


def make_model():
    return AudioEncoderTensorCache(ConformerEncoder(), TransformerDecoder()).eval()


def _inputs(lens):
    return torch.randn(len(lens), max(lens), 80), torch.tensor(lens, dtype=torch.int64)


def example_inputs():
    return _inputs([100, 63])


def other_inputs():
    return [_inputs([57, 80, 41]), _inputs([120])]


def probe_inputs():
    return other_inputs()
