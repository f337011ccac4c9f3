"""FastSpeech-style length regulator: predict how many frames each phoneme lasts, repeat each
phoneme's encoding that many times, and pad the batch to the longest result.

The number of output frames depends on the predicted durations, that is on data: there is no
rewrite that makes this part exportable with a fixed graph, and onnxfix reports it without a
fix (a loop per phoneme with a data-dependent repeat count). The parts around it that do have
exact rewrites (a guard that branches on tensor values, an accumulation loop over phonemes)
are fixed by `--write --unsafe-fixes`.
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
    frames = []
    for i in range(encodings.shape[0]):
        frames.append(encodings[i].expand(durations[i], -1))
    return torch.cat(frames, dim=0)


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
        summary = torch.stack([utterance_summary(x[b]) for b in range(x.shape[0])])
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
    return [(torch.randn(2, 4, 8) * 2,), (torch.randn(3, 6, 8),)]


DYNAMIC = {0: {0: "batch", 1: "phonemes"}}
