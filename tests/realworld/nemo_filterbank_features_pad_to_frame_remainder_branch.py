"""NeMo's mel preprocessor (`FilterbankFeatures.forward`, used by the Sortformer diarizer and Parakeet ASR) ends by
padding the frame axis to a multiple of `pad_to` (16) with `pad_amt = x.size(-1) % pad_to` / `if pad_amt != 0:`
`F.pad(x, (0, pad_to - pad_amt))`; ExecuTorch's Sortformer export sets `featurizer.pad_to = 0` first because this
"creates a data-dependent branch on frame count % 16" that blocks torch.export with a dynamic frame count.

Source: https://github.com/pytorch/executorch/pull/17360
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"power_spec": {0: "batch", 2: "frames"}, "seq_len": {0: "batch"}}
BLIND = "domains-53"

CONSTANT = 1e-5


class FilterbankFeatures(nn.Module):
    """Tail of NeMo's FilterbankFeatures: mel projection, log, normalization, masking and pad_to."""

    def __init__(self, n_fft=64, nfilt=16, log=True, log_zero_guard_value=2 ** -24, pad_to=16, pad_value=0.0,
                 mag_power=2.0):
        super().__init__()
        self.log = log
        self.log_zero_guard_type = "add"
        self.log_zero_guard_value = log_zero_guard_value
        self.pad_to = pad_to
        self.pad_value = pad_value
        self.mag_power = mag_power
        # stands in for librosa.filters.mel(sr, n_fft, n_mels=nfilt)
        fb = torch.relu(torch.randn(nfilt, n_fft // 2 + 1)).unsqueeze(0)
        self.register_buffer("fb", fb)

    def normalize_batch(self, x, seq_len):
        # "per_feature" normalization over the valid frames
        x_mean = None
        x_std = None
        batch_size = x.shape[0]
        max_time = x.shape[2]
        time_steps = torch.arange(max_time, device=x.device).unsqueeze(0).expand(batch_size, max_time)
        valid_mask = time_steps < seq_len.unsqueeze(1)
        x_mean_numerator = torch.where(valid_mask.unsqueeze(1), x, 0.0).sum(axis=2)
        x_mean_denominator = valid_mask.sum(axis=1)
        x_mean = x_mean_numerator / x_mean_denominator.unsqueeze(1)
        x_std = torch.sqrt(
            torch.sum(torch.where(valid_mask.unsqueeze(1), x - x_mean.unsqueeze(2), 0.0) ** 2, axis=2)
            / (x_mean_denominator.unsqueeze(1) - 1.0)
        )
        x_std = x_std.masked_fill(x_std.isnan(), 0.0)
        x_std += CONSTANT
        return (x - x_mean.unsqueeze(2)) / x_std.unsqueeze(2), x_mean, x_std

    def forward(self, power_spec, seq_len):
        # power_spec: (B, n_fft // 2 + 1, T) magnitude spectrogram from the STFT, seq_len: (B,) valid frames
        x = power_spec
        if self.mag_power != 1.0:
            x = x.pow(self.mag_power / 2.0)

        # dot with filterbank energies
        x = torch.matmul(self.fb.to(x.dtype), x)

        # log features if required
        if self.log:
            if self.log_zero_guard_type == "add":
                x = torch.log(x + self.log_zero_guard_value)
            else:
                raise ValueError("log_zero_guard_type was not understood")

        # normalize if required
        x, _, _ = self.normalize_batch(x, seq_len)

        # mask to zero any values beyond seq_len in batch, pad to multiple of `pad_to` (for efficiency)
        max_len = x.size(-1)
        mask = torch.arange(max_len, device=x.device)
        mask = mask.repeat(x.size(0), 1) >= seq_len.unsqueeze(1)
        x = x.masked_fill(mask.unsqueeze(1).type(torch.bool).to(device=x.device), self.pad_value)
        del mask
        pad_to = self.pad_to
        if pad_to == "max":
            x = nn.functional.pad(x, (0, self.max_length - x.size(-1)), value=self.pad_value)
        elif pad_to > 0:
            pad_amt = x.size(-1) % pad_to
            if pad_amt != 0:
                x = nn.functional.pad(x, (0, pad_to - pad_amt), value=self.pad_value)
        return x, seq_len


def make_model():
    return FilterbankFeatures().eval()


def _batch(b, t):
    spec = torch.rand(b, 33, t) * 4
    seq_len = torch.randint(t // 2, t + 1, (b,))
    seq_len[0] = t
    return spec, seq_len


def example_inputs():
    return _batch(2, 45)


def other_inputs():
    return [_batch(3, 64), _batch(1, 27), _batch(2, 80)]


def probe_inputs():
    return other_inputs()
