"""StreakNet (underwater streak-tube imaging lidar signal classifier): each branch of the embedding
takes the raw streak signal [batch, len] and computes `torch.fft.fft(x, self.n_fft, dim=1)` followed by
`torch.real`/`torch.imag`; for ONNX the authors added an `export=True` path that skips the FFT, and the
ONNX Runtime demo does the FFT in NumPy ("ONNX does not support FFT operators").

Source: https://github.com/AIFlowPlayer/StreakNet/blob/6a4a9253fda3240f8fb57d5e6d933ae0fe47644d/demo/ONNXRuntime/onnx_inference.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"signal": {0: "batch", 1: "length"}, "template": {0: "batch", 1: "length"}}
BLIND = "operators-23"


class FrequencyDomainFilteringBlock(nn.Module):
    def __init__(self, width=1.0, dropout=0.4, act='silu', export=False):
        super(FrequencyDomainFilteringBlock, self).__init__()
        self.export = export
        self.n_fft = 4096
        self.embedding_size = round(1024 * width)
        self.flatten = nn.Flatten(1)
        self.dense = nn.Linear(self.n_fft * 2, self.embedding_size)
        self.norm = nn.LayerNorm((self.embedding_size,))
        self.dropout = nn.Dropout(dropout)
        self.act = nn.SiLU()

    def forward(self, x):
        """ export mode:
                x.shape:[batch, 2, self.n_fft]
            else:
                x.shape:[batch, len]
        """
        if not self.export:
            signal_freq = torch.fft.fft(x, self.n_fft, dim=1)
            signal_real = torch.real(signal_freq)
            signal_imag = torch.imag(signal_freq)
            concat_signal = torch.concat([signal_real, signal_imag], dim=1)
        else:
            concat_signal = x
        concat_signal = self.flatten(concat_signal).unsqueeze(1)
        pred = self.norm(self.dense(concat_signal))
        pred = self.dropout(pred)
        pred = self.act(pred)
        return pred


class FrequencyDomainFilteringEmbedding(nn.Module):
    def __init__(self, width=1.0, dropout=0.4, act='silu', export=False):
        super(FrequencyDomainFilteringEmbedding, self).__init__()
        self.signal_embedding_block = FrequencyDomainFilteringBlock(width, dropout, act, export)
        self.template_embedding_block = FrequencyDomainFilteringBlock(width, dropout, act, export)

    def forward(self, signal, template):
        signal_embedding = self.signal_embedding_block(signal)
        template_embedding = self.template_embedding_block(template)
        ret = torch.concat([signal_embedding, template_embedding], dim=1)
        return ret


class StreakNet(nn.Module):
    """Embedding -> small classifier head (the transformer backbone is left out)."""

    def __init__(self, width=0.25):
        super().__init__()
        self.embedding = FrequencyDomainFilteringEmbedding(width=width)
        dim = round(1024 * width)
        self.head = nn.Sequential(nn.Flatten(1), nn.Linear(2 * dim, 2))

    def forward(self, signal, template):
        embedding = self.embedding(signal, template)
        return self.head(embedding).softmax(-1)


def make_model():
    return StreakNet().eval()


def example_inputs():
    return (torch.rand(4, 2048), torch.rand(4, 2048))


def other_inputs():
    return [(torch.rand(6, 2560), torch.rand(6, 2560)), (torch.rand(1, 1800), torch.rand(1, 1800))]


def probe_inputs():
    return other_inputs()
