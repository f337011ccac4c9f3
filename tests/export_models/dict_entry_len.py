"""NequIP's per-frame sum: `dim_size=num_frames(data)` with `num_frames` returning
`len(data["num_atoms"])`, a tensor held in a dict. The legacy trace records the length as a constant
(TracerWarning "Using len to get tensor shape"), so another count of frames scatters out of bounds in
onnxruntime; the static rules cannot tell the dict's entry is a tensor, the run can."""
import torch
from torch import nn

DYNAMIC = {"atoms": {0: "atoms"}, "frame_of_atom": {0: "atoms"}, "num_atoms": {0: "frames"}}


def num_frames(data):
    return len(data["num_atoms"])


class PerFrameEnergy(nn.Module):
    def __init__(self):
        super().__init__()
        self.energy = nn.Linear(4, 1)

    def forward(self, atoms, frame_of_atom, num_atoms):
        data = {"atoms": atoms, "frame": frame_of_atom, "num_atoms": num_atoms}
        per_atom = self.energy(data["atoms"]).squeeze(-1)
        total = torch.zeros(num_frames(data), dtype=per_atom.dtype)
        return total.scatter_add(0, data["frame"], per_atom)


def make_model():
    torch.manual_seed(0)
    return PerFrameEnergy().eval()


def _frames(counts):
    counts = torch.tensor(counts)
    return (torch.randn(int(counts.sum()), 4), torch.repeat_interleave(torch.arange(len(counts)), counts), counts)


def example_inputs():
    return _frames([3, 2])


def probe_inputs():
    return [_frames([2, 4, 1]), _frames([5])]
