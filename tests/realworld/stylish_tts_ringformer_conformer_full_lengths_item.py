"""Stylish-TTS Ringformer vocoder: after every upsampling stage the generator builds
`lengths = torch.full((x.shape[0],), x.shape[2], device=x.device)` and runs a torchaudio `Conformer(x, lengths)`,
whose `_lengths_to_padding_mask` takes `max_length = int(torch.max(lengths).item())` to build the key padding
mask; the ONNX export of the model did not work until the PR ("ONNX export finally works") replaced the
torchaudio Conformer by a lengths-free Conformer. (torchaudio's Conformer copied, trimmed to one layer.)

Source: https://github.com/Stylish-TTS/stylish-tts/pull/37
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "domains-14"


def _lengths_to_padding_mask(lengths: torch.Tensor) -> torch.Tensor:
    batch_size = lengths.shape[0]
    max_length = int(torch.max(lengths).item())
    padding_mask = torch.arange(max_length, device=lengths.device, dtype=lengths.dtype).expand(
        batch_size, max_length
    ) >= lengths.unsqueeze(1)
    return padding_mask


class ConformerLayer(nn.Module):
    def __init__(self, input_dim, ffn_dim, num_attention_heads, depthwise_conv_kernel_size):
        super().__init__()
        self.ffn1 = nn.Sequential(nn.LayerNorm(input_dim), nn.Linear(input_dim, ffn_dim), nn.SiLU(),
                                  nn.Linear(ffn_dim, input_dim))
        self.self_attn_layer_norm = nn.LayerNorm(input_dim)
        self.self_attn = nn.MultiheadAttention(input_dim, num_attention_heads)
        self.conv_layer_norm = nn.LayerNorm(input_dim)
        self.depthwise_conv = nn.Conv1d(input_dim, input_dim, depthwise_conv_kernel_size,
                                        padding=(depthwise_conv_kernel_size - 1) // 2, groups=input_dim)
        self.final_layer_norm = nn.LayerNorm(input_dim)

    def forward(self, input, key_padding_mask):
        residual = input
        x = self.ffn1(input)
        x = x * 0.5 + residual

        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(query=x, key=x, value=x, key_padding_mask=key_padding_mask, need_weights=False)
        x = x + residual

        residual = x
        x = self.conv_layer_norm(x).permute(1, 2, 0)  # (T, B, C) -> (B, C, T)
        x = F.silu(self.depthwise_conv(x)).permute(2, 0, 1)
        x = x + residual
        return self.final_layer_norm(x)


class Conformer(nn.Module):
    def __init__(self, input_dim, num_heads, ffn_dim, num_layers, depthwise_conv_kernel_size):
        super().__init__()
        self.conformer_layers = nn.ModuleList(
            [ConformerLayer(input_dim, ffn_dim, num_heads, depthwise_conv_kernel_size) for _ in range(num_layers)]
        )

    def forward(self, input, lengths):
        encoder_padding_mask = _lengths_to_padding_mask(lengths)
        x = input.transpose(0, 1)
        for layer in self.conformer_layers:
            x = layer(x, encoder_padding_mask)
        return x.transpose(0, 1), lengths


class RingformerGenerator(nn.Module):
    def __init__(self, in_channels=16, upsample_initial_channel=32, upsample_rates=(2, 2)):
        super().__init__()
        self.num_upsamples = len(upsample_rates)
        self.conv_pre = nn.Conv1d(in_channels, upsample_initial_channel, 7, 1, padding=3)
        self.ups = nn.ModuleList()
        self.conformers = nn.ModuleList()
        self.alphas = nn.ParameterList()
        for i, u in enumerate(upsample_rates):
            ch = upsample_initial_channel // (2**i)
            self.alphas.append(nn.Parameter(torch.ones(1, ch, 1)))
            self.conformers.append(Conformer(input_dim=ch, num_heads=4, ffn_dim=ch * 4, num_layers=1,
                                             depthwise_conv_kernel_size=7))
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, u * 2, u, padding=u // 2))
        self.conv_post = nn.Conv1d(upsample_initial_channel // (2**self.num_upsamples), 1, 7, 1, padding=3)

    def forward(self, x):
        x = self.conv_pre(x)
        for i in range(self.num_upsamples):
            x = x + (1 / self.alphas[i]) * (torch.sin(self.alphas[i] * x) ** 2)
            lengths = torch.full((x.shape[0],), x.shape[2], device=x.device)
            x = x.transpose(1, 2)  # rearrange(x, "b f t -> b t f")
            x, _ = self.conformers[i](x, lengths)
            x = x.transpose(1, 2)  # rearrange(x, "b t f -> b f t")
            x = self.ups[i](x)
        x = self.conv_post(F.leaky_relu(x))
        return torch.tanh(x)


def make_model():
    return RingformerGenerator().eval()


def example_inputs():
    return (torch.randn(1, 16, 40),)


def other_inputs():
    return [(torch.randn(2, 16, 57),), (torch.randn(3, 16, 23),)]


def probe_inputs():
    return other_inputs()
