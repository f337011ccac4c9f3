"""NeMo TitaNet speaker-embedding encoder (ConvASREncoder of MaskedConv1d blocks): every forward calls
`update_max_sequence_length(audio_signal.size(2))`, which grows `self.max_audio_length` and a `seq_range`
buffer (`torch.arange(0, max_audio_length)`) kept on the module and pushed into every MaskedConv1d's
`self.lens`; the masks are `self.lens[:max_len] < lens`. The exported ONNX (sherpa-onnx
nemo_en_titanet_large.onnx) fails on longer recordings in a `mconv/Where` node: "Attempting to broadcast an
axis by a dimension other than 1. 12288 by 20552".

Source: https://github.com/k2-fsa/sherpa-onnx/issues/2462
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}, "length": {0: "batch"}}
BLIND = "domains-7"


@torch.jit.script
def _masked_conv_init_lens(lens: torch.Tensor, current_maxlen: int, original_maxlen: torch.Tensor):
    if current_maxlen > original_maxlen:
        new_lens = torch.arange(current_maxlen)
        new_max_lens = torch.tensor(current_maxlen)
    else:
        new_lens = lens
        new_max_lens = original_maxlen
    return new_lens, new_max_lens


class MaskedConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0, use_mask=True):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=padding, bias=False)
        self.use_mask = use_mask
        if self.use_mask:
            self.max_len = torch.tensor(0)
            self.lens = torch.tensor(0)

    def forward(self, x, lens):
        if self.use_mask:
            # Generally will be called by ConvASREncoder, but kept as single gpu backup.
            if x.size(2) > self.max_len:
                self.update_masked_length(x.size(2), device=lens.device)
            x = self.mask_input(x, lens)
        out = self.conv(x)
        return out, lens

    def update_masked_length(self, max_len, seq_range=None, device=None):
        if seq_range is None:
            self.lens, self.max_len = _masked_conv_init_lens(self.lens, max_len, self.max_len)
            self.lens = self.lens.to(device)
        else:
            self.lens = seq_range
            self.max_len = torch.tensor(max_len)

    def mask_input(self, x, lens):
        max_len = x.size(2)
        mask = self.lens[:max_len].unsqueeze(0).to(lens.device) < lens.unsqueeze(1)
        x = x * mask.unsqueeze(1).to(device=x.device)
        return x


class JasperBlock(nn.Module):
    def __init__(self, inplanes, planes, kernel_size):
        super().__init__()
        self.mconv = nn.ModuleList([MaskedConv1d(inplanes, planes, kernel_size, padding=kernel_size // 2),
                                    nn.BatchNorm1d(planes), nn.ReLU()])

    def forward(self, input_):
        xs, lens_orig = input_
        out = xs[-1]
        lens = lens_orig
        for layer in self.mconv:
            if isinstance(layer, MaskedConv1d):
                out, lens = layer(out, lens)
            else:
                out = layer(out)
        return [out], lens


class ConvASREncoder(nn.Module):
    def __init__(self, feat_in=16, filters=(24, 24, 32)):
        super().__init__()
        layers = []
        for f in filters:
            layers.append(JasperBlock(feat_in, f, 3))
            feat_in = f
        self.encoder = nn.Sequential(*layers)
        self.max_audio_length = 0

    def forward(self, audio_signal, length):
        self.update_max_sequence_length(seq_length=audio_signal.size(2), device=audio_signal.device)
        s_input, length = self.encoder(([audio_signal], length))
        if length is None:
            return s_input[-1]
        return s_input[-1], length

    def update_max_sequence_length(self, seq_length: int, device):
        if seq_length > self.max_audio_length:
            if seq_length < 5000:
                seq_length = seq_length * 2
            elif seq_length < 10000:
                seq_length = seq_length * 1.5
            self.max_audio_length = seq_length

            device = next(self.parameters()).device
            seq_range = torch.arange(0, self.max_audio_length, device=device)
            if hasattr(self, 'seq_range'):
                self.seq_range = seq_range
            else:
                self.register_buffer('seq_range', seq_range, persistent=False)

            # Update all submodules
            for name, m in self.named_modules():
                if isinstance(m, MaskedConv1d):
                    m.update_masked_length(self.max_audio_length, seq_range=self.seq_range)


class TitaNetLite(nn.Module):
    def __init__(self, emb_dim=12):
        super().__init__()
        self.encoder = ConvASREncoder()
        self.emb_layer = nn.Linear(2 * 32, emb_dim)

    def forward(self, audio_signal, length):
        encoded, length = self.encoder(audio_signal=audio_signal, length=length)
        pooled = torch.cat([encoded.mean(dim=-1), encoded.std(dim=-1)], dim=-1)
        return self.emb_layer(pooled)


def make_model():
    return TitaNetLite().eval()


def example_inputs():
    return (torch.randn(2, 16, 100), torch.tensor([100, 80]))


def other_inputs():
    # a longer recording than the export example: more than twice its frames
    return [(torch.randn(3, 16, 260), torch.tensor([260, 200, 150])), (torch.randn(1, 16, 60), torch.tensor([60]))]


def probe_inputs():
    return other_inputs()
