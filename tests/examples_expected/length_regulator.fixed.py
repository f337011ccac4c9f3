"""FastSpeech-style length regulator: predict how many frames each phoneme lasts, repeat each
phoneme's encoding that many times, and pad the batch to the longest result.

The number of output frames depends on the predicted durations, that is on data. Both exporters
can express that when the repeat is one `torch.repeat_interleave` (ONNX computes the output
length in the graph), but not as a Python loop with one `expand` per phoneme: `--write
--unsafe-fixes` rewrites that loop, the guard that branches on tensor values and the
accumulation loop over phonemes. The per-utterance comprehensions in `LengthRegulator.forward`
stay reported (ONX603, no fix): they unroll over the batch, so the batch size is static at
export (TTS inference runs a fixed batch, usually one utterance); the phoneme count is dynamic.
"""

import torch
import torch.nn.functional as F
from torch import nn


def utterance_summary(encodings: torch.Tensor) -> torch.Tensor:
    """Mean phoneme encoding of one utterance, used to condition the frames."""
    total = torch.zeros_like(encodings[0])
    total = total + encodings.sum(0)
    return total / encodings.shape[0]


def repeat_frames(encodings: torch.Tensor, durations: torch.Tensor) -> torch.Tensor:
    return torch.repeat_interleave(encodings, durations, dim=0)


class DurationPredictor(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.proj = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        durations = torch.round(torch.exp(self.proj(hidden).squeeze(-1))).clamp(min=0)
        # never produce an empty utterance
        durations = torch.where(durations.sum() == 0, torch.ones_like(durations), durations)
        return durations.long()


class LengthRegulator(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.predictor = DurationPredictor(dim)
        self.frame_proj = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        durations = self.predictor(x)
        expanded = [repeat_frames(x[b], durations[b]) for b in range(x.shape[0])]
        longest = max(e.shape[0] for e in expanded)
        frames = torch.stack([F.pad(e, (0, 0, 0, longest - e.shape[0])) for e in expanded])
        summary = (torch.vmap(lambda _onnx_row0: utterance_summary(_onnx_row0))(x) if torch.compiler.is_exporting() else torch.stack([utterance_summary(x[b]) for b in range(x.shape[0])]))
        conditioned = torch.cat([frames, summary[:, None, :].expand_as(frames)], dim=-1)
        return self.frame_proj(conditioned)


def make_model() -> nn.Module:
    torch.manual_seed(0)
    model = LengthRegulator().eval()
    with torch.no_grad():
        model.predictor.proj.bias.fill_(0.7)  # about two frames per phoneme
    return model


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 4, 8),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(2, 4, 8) * 2,), (torch.randn(2, 6, 8),)]


DYNAMIC = {0: {1: "phonemes"}}  # the batch is static: forward loops over it
