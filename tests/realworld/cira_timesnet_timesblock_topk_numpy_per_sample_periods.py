"""CiRA FutureEdge Studio's TimesNet motion classifier (a port of thuml's TimesNet): `TimesBlock` picks the
top-k FFT frequencies per sample, converts them with `top_indices.detach().cpu().numpy()`, and loops
`for i in range(B)` / `for j in range(self.top_k)` computing `period = self.seq_len // freq_idx` and the
reshape lengths in Python. The project's bug analysis reports the exported ONNX model is "locked" to the
export sample: sample 0 matches, every other window gives very different logits (60% vs 91% accuracy),
with TracerWarnings on the `.numpy()` call and the `if length > 0` / `if padding > 0` branches.

Source: https://github.com/siridech-bo/cira-futureedge-studio/blob/41a47acaf0516cdcc8e62e89bd2ffdf7a27ac2f7/ONNX_EXPORT_BUG_ANALYSIS.md
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-40"


class DataEmbedding(nn.Module):
    def __init__(self, c_in: int, d_model: int, dropout: float = 0.1):
        super(DataEmbedding, self).__init__()
        self.value_embedding = nn.Linear(c_in, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = self.value_embedding(x)
        return self.dropout(x)


class Inception_Block_V1(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, num_kernels: int = 6):
        super(Inception_Block_V1, self).__init__()
        kernels = []
        for i in range(num_kernels):
            kernel_size = 2 * i + 1
            padding = kernel_size // 2
            kernels.append(nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, padding=padding))
        self.kernels = nn.ModuleList(kernels)

    def forward(self, x):
        res_list = []
        for kernel in self.kernels:
            res_list.append(kernel(x))
        res = torch.stack(res_list, dim=-1).mean(-1)
        return res


class TimesBlock(nn.Module):
    def __init__(self, seq_len: int, d_model: int, d_ff: int, num_kernels: int = 6, top_k: int = 5):
        super(TimesBlock, self).__init__()
        self.seq_len = seq_len
        self.top_k = top_k
        self.conv = nn.Sequential(
            Inception_Block_V1(d_model, d_ff, num_kernels=num_kernels),
            nn.GELU(),
            Inception_Block_V1(d_ff, d_model, num_kernels=num_kernels)
        )

    def forward(self, x):
        B, T, N = x.size()

        # Period detection using FFT
        x_freq = torch.fft.rfft(x, dim=1)
        freq_amp = torch.abs(x_freq)
        freq_amp = freq_amp.mean(dim=-1)  # Average across features

        # Select top-k frequencies
        _, top_indices = torch.topk(freq_amp, self.top_k, dim=1)
        top_indices = top_indices.detach().cpu().numpy()

        res = torch.zeros_like(x)

        # Process each period component
        for i in range(B):
            for j in range(self.top_k):
                freq_idx = top_indices[i, j]
                if freq_idx == 0:
                    period = self.seq_len
                else:
                    period = self.seq_len // freq_idx
                period = max(period, 2)

                length = (T // period) * period
                if length > 0:
                    padding = T - length
                    x_period = x[i:i+1, :length, :]
                    x_period = x_period.reshape(1, T // period, period, N)
                    x_period = x_period.permute(0, 3, 1, 2).contiguous()
                    x_period = self.conv(x_period)
                    x_period = x_period.permute(0, 2, 3, 1).contiguous()
                    x_period = x_period.reshape(1, length, N)
                    if padding > 0:
                        x_period = F.pad(x_period, (0, 0, 0, padding))
                    res[i:i+1] += x_period

        res = res / self.top_k
        res = res + x
        return res


class TimesNet(nn.Module):
    """'minimal' complexity config of create_timesnet_for_classification."""

    def __init__(self, seq_len=100, c_in=3, num_classes=5, d_model=16, d_ff=32, num_kernels=2, top_k=2,
                 e_layers=1, dropout=0.1):
        super(TimesNet, self).__init__()
        self.seq_len = seq_len
        self.enc_embedding = DataEmbedding(c_in, d_model, dropout)
        self.layers = nn.ModuleList([
            TimesBlock(seq_len, d_model, d_ff, num_kernels, top_k) for _ in range(e_layers)
        ])
        self.layer_norm = nn.LayerNorm(d_model)
        self.projection = nn.Linear(d_model * seq_len, num_classes)

    def forward(self, x):
        enc_out = self.enc_embedding(x)
        for layer in self.layers:
            enc_out = layer(enc_out)
        enc_out = self.layer_norm(enc_out)
        enc_out = enc_out.reshape(enc_out.shape[0], -1)
        output = self.projection(enc_out)
        return output


def make_model():
    return TimesNet().eval()


def _windows(b):
    # motion-like sensor windows (seq_len=100, 3 axes) with a different dominant frequency per window
    t = torch.arange(100, dtype=torch.float32)
    freqs = torch.randint(1, 20, (b, 1, 1)).float()
    return torch.sin(2 * torch.pi * freqs * t.view(1, 100, 1) / 100) + 0.1 * torch.randn(b, 100, 3)


def example_inputs():
    return (_windows(2),)


def other_inputs():
    return [(_windows(3),), (_windows(1),), (_windows(5),)]


def probe_inputs():
    return other_inputs()
