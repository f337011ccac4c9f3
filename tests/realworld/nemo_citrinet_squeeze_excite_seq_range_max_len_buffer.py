"""NeMo Citrinet masked Squeeze-Excite (added with "export Limited Context Citrinet"): `SqueezeExcite.forward`
grows a cached `seq_range` buffer only when the input is longer than `self.max_len` (`set_max_len`), and the
padding mask is `self.seq_range[:max_audio_length] < lengths`. NeMo's export first runs the model on its input
example (the review sets the example lengths to 8192 frames so the cache is big enough); the exported graph keeps
the buffer of the example's length, so longer audio fails in onnxruntime at the masked_fill broadcast.

Source: https://github.com/NVIDIA-NeMo/Speech/pull/3216
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "time"}, "lengths": {0: "batch"}}
BLIND = "domains-36"


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduction_ratio: int, context_window: int = -1):
        super(SqueezeExcite, self).__init__()
        activation = nn.ReLU(inplace=True)
        self.fc = nn.Sequential(
            nn.Linear(channels, channels // reduction_ratio, bias=False),
            activation,
            nn.Linear(channels // reduction_ratio, channels, bias=False),
        )
        self.context_window = context_window

        # Set default max sequence length
        self.set_max_len(1)

    def forward(self, x, lengths):
        max_audio_length: int = x.size(-1)
        if max_audio_length > self.max_len:
            self.set_max_len(max_audio_length)

        return self.forward_for_export(x, lengths)

    def forward_for_export(self, x, lengths):
        # Computes in float32 to avoid instabilities during training with AMP.
        with torch.cuda.amp.autocast(enabled=False):
            # Create sample mask - 1 represents value, 0 represents pad
            mask = self.make_pad_mask(lengths, max_audio_length=x.shape[-1], device=x.device)
            mask = ~mask  # 0 represents value, 1 represents pad
            x = x.float()  # For stable AMP, SE must be computed at fp32.
            x.masked_fill_(mask, 0.0)  # mask padded values explicitly to 0
            y = self._se_pool_step(x, mask)  # [B, C, 1]
            y = y.transpose(1, -1)  # [B, 1, C]
            y = self.fc(y)  # [B, 1, C]
            y = y.transpose(1, -1)  # [B, C, 1]

        y = torch.sigmoid(y)
        y = x * y
        return y, lengths

    def _se_pool_step(self, x, mask):
        # Negate mask back to represent 1 for signal and 0 for padded timestep.
        mask = ~mask
        # [B, C, 1] - Masked Average over value + padding.
        y = torch.sum(x, dim=-1, keepdim=True) / mask.sum(dim=-1, keepdim=True).type(x.dtype)
        return y

    def set_max_len(self, max_len):
        """ Sets maximum input length.
            Pre-calculates internal seq_range mask.
        """
        self.max_len = max_len
        device = next(self.parameters()).device
        seq_range = torch.arange(0, self.max_len, device=device)
        self.register_buffer('seq_range', seq_range, persistent=False)

    def make_pad_mask(self, seq_lens, max_audio_length, device=None):
        """Make masking for padding."""
        if device and self.seq_range.device != device:
            self.seq_range = self.seq_range.to(device)
        if self.seq_range.device != seq_lens.device:
            seq_lens = seq_lens.to(self.seq_range.device)

        mask = self.seq_range[:max_audio_length].expand(seq_lens.size(0), -1) < seq_lens.unsqueeze(-1)  # [B, T]
        mask = mask.unsqueeze(1)  # [B, 1, T]
        return mask


class CitrinetBlock(nn.Module):
    def __init__(self, feat_in=16, channels=32):
        super().__init__()
        self.conv = nn.Conv1d(feat_in, channels, kernel_size=5, padding=2, groups=1)
        self.bn = nn.BatchNorm1d(channels)
        self.se = SqueezeExcite(channels, reduction_ratio=8)
        self.out = nn.Conv1d(channels, 10, kernel_size=1)

    def forward(self, x, lengths):
        h = torch.relu(self.bn(self.conv(x)))
        h, lengths = self.se(h, lengths)
        return self.out(h).log_softmax(dim=1)


def make_model():
    model = CitrinetBlock().eval()
    # NeMo's Exportable.export runs forward on the input example first (output_example) before exporting
    with torch.no_grad():
        model(*example_inputs())
    return model


def example_inputs():
    return (torch.randn(2, 16, 24), torch.tensor([24, 19]))


def other_inputs():
    return [
        (torch.randn(3, 16, 57), torch.tensor([57, 40, 33])),
        (torch.randn(1, 16, 10), torch.tensor([10])),
    ]


def probe_inputs():
    return other_inputs()
