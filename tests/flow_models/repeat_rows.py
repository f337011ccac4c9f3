"""ONX603: a length regulator repeating each phoneme's encoding a predicted number of times."""
import torch
from torch import nn


def repeat_frames(encodings: torch.Tensor, durations: torch.Tensor) -> torch.Tensor:
    frames = []
    for i in range(encodings.shape[0]):
        frames.append(encodings[i].expand(int(durations[i]), -1))
    return torch.cat(frames, dim=0)


class Regulator(nn.Module):
    def forward(self, encodings: torch.Tensor, durations: torch.Tensor):
        return repeat_frames(encodings, durations) * 2


def make_model():
    return Regulator()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 3), torch.tensor([2, 0, 1, 3]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 3), torch.tensor([1, 1, 4, 2])), (torch.randn(6, 3), torch.tensor([3, 1, 0, 2, 2, 1]))]


DYNAMIC = {0: {0: "phonemes"}, 1: {0: "phonemes"}}
