"""SpeechBrain ECAPA-TDNN speaker-embedding model: `forward` feeds every block with
`try: x = layer(x, lengths=lengths) except TypeError: x = layer(x)` (the first TDNNBlock takes no lengths),
then attentive statistics pooling masks frames with `length_to_mask`; exporting the embedding model fails
because the exception is part of the control flow: the half-entered layer stays on the tracer's module stack and
the trace ends with a key mismatch (the PR's repro is `torch.export.export(enc.mods.embedding_model, ...)`).
Reduced to three blocks and a small ASP.

Source: https://github.com/speechbrain/speechbrain/pull/2982
"""
import torch
import torch.nn as nn

CLASS = "cross-call"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "frames"}, "lengths": {0: "batch"}}
BLIND = "domains-11"


def length_to_mask(length, max_len=None, dtype=None, device=None):
    if max_len is None:
        max_len = length.max().long().item()
    mask = torch.arange(max_len, device=length.device, dtype=length.dtype).expand(
        len(length), max_len) < length.unsqueeze(1)
    if dtype is None:
        dtype = length.dtype
    if device is None:
        device = length.device
    mask = torch.as_tensor(mask, dtype=dtype, device=device)
    return mask


class TDNNBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dilation):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, dilation=dilation,
                              padding=dilation * (kernel_size - 1) // 2)
        self.activation = nn.ReLU()
        self.norm = nn.BatchNorm1d(out_channels)

    def forward(self, x):
        return self.norm(self.activation(self.conv(x)))


class SEBlock(nn.Module):
    def __init__(self, in_channels, se_channels, out_channels):
        super().__init__()
        self.conv1 = nn.Conv1d(in_channels, se_channels, 1)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv1d(se_channels, out_channels, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x, lengths=None):
        L = x.shape[-1]
        if lengths is not None:
            mask = length_to_mask(lengths * L, max_len=L, device=x.device)
            mask = mask.unsqueeze(1)
            total = mask.sum(dim=2, keepdim=True)
            s = (x * mask).sum(dim=2, keepdim=True) / total
        else:
            s = x.mean(dim=2, keepdim=True)
        s = self.sigmoid(self.conv2(self.relu(self.conv1(s))))
        return s * x


class SEResBlock(nn.Module):
    def __init__(self, channels, kernel_size, dilation, se_channels=8):
        super().__init__()
        self.tdnn1 = TDNNBlock(channels, channels, 1, 1)
        self.tdnn2 = TDNNBlock(channels, channels, kernel_size, dilation)
        self.se_block = SEBlock(channels, se_channels, channels)

    def forward(self, x, lengths=None):
        residual = x
        x = self.tdnn2(self.tdnn1(x))
        x = self.se_block(x, lengths)
        return x + residual


class AttentiveStatisticsPooling(nn.Module):
    def __init__(self, channels, attention_channels=16):
        super().__init__()
        self.eps = 1e-12
        self.tdnn = TDNNBlock(channels * 3, attention_channels, 1, 1)
        self.tanh = nn.Tanh()
        self.conv = nn.Conv1d(attention_channels, channels, 1)

    def forward(self, x, lengths=None):
        L = x.shape[-1]

        def _compute_statistics(x, m, dim=2, eps=self.eps):
            mean = (m * x).sum(dim)
            std = torch.sqrt((m * (x - mean.unsqueeze(dim)).pow(2)).sum(dim).clamp(eps))
            return mean, std

        if lengths is None:
            lengths = torch.ones(x.shape[0], device=x.device)
        mask = length_to_mask(lengths * L, max_len=L, device=x.device)
        mask = mask.unsqueeze(1)
        total = mask.sum(dim=2, keepdim=True).float()
        mean, std = _compute_statistics(x, mask / total)
        mean = mean.unsqueeze(2).repeat(1, 1, L)
        std = std.unsqueeze(2).repeat(1, 1, L)
        attn = torch.cat([x, mean, std], dim=1)
        attn = self.conv(self.tanh(self.tdnn(attn)))
        attn = attn.masked_fill(mask == 0, float("-inf"))
        attn = torch.softmax(attn, dim=2)
        mean, std = _compute_statistics(x, attn)
        pooled_stats = torch.cat((mean, std), dim=1)
        return pooled_stats.unsqueeze(2)


class ECAPA_TDNN(nn.Module):
    def __init__(self, input_size=20, channels=32, lin_neurons=24):
        super().__init__()
        self.blocks = nn.ModuleList()
        self.blocks.append(TDNNBlock(input_size, channels, 5, 1))
        self.blocks.append(SEResBlock(channels, 3, 2))
        self.blocks.append(SEResBlock(channels, 3, 3))
        self.mfa = TDNNBlock(channels * 2, channels, 1, 1)
        self.asp = AttentiveStatisticsPooling(channels)
        self.asp_bn = nn.BatchNorm1d(channels * 2)
        self.fc = nn.Conv1d(channels * 2, lin_neurons, 1)

    def forward(self, x, lengths=None):
        # Minimize transpose for efficiency
        x = x.transpose(1, 2)

        xl = []
        for layer in self.blocks:
            try:
                x = layer(x, lengths=lengths)
            except TypeError:
                x = layer(x)
            xl.append(x)

        # Multi-layer feature aggregation
        x = torch.cat(xl[1:], dim=1)
        x = self.mfa(x)

        # Attentive Statistical Pooling
        x = self.asp(x, lengths=lengths)
        x = self.asp_bn(x)

        # Final linear transformation
        x = self.fc(x)

        x = x.transpose(1, 2)
        return x


def make_model():
    return ECAPA_TDNN().eval()


def example_inputs():
    # relative lengths, as SpeechBrain passes them (wav_lens)
    return (torch.randn(2, 50, 20), torch.tensor([1.0, 0.8]))


def other_inputs():
    return [(torch.randn(3, 73, 20), torch.tensor([1.0, 0.6, 0.9])),
            (torch.randn(1, 31, 20), torch.tensor([1.0]))]


def probe_inputs():
    return other_inputs()
