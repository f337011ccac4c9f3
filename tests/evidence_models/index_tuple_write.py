import torch
from torch import nn


class GlobalScores(nn.Module):
    """Longformer's global attention: the nonzero indices kept as tuples, then written through two of
    them with a slice between (the legacy exporter's "Only consecutive 1-d tensor indices")."""

    def indices(self, mask):
        return mask.nonzero(as_tuple=True), (~mask).nonzero(as_tuple=True)

    def forward(self, scores, mask):
        scores = scores.clone()
        global_index, local_index = self.indices(mask)
        scores[local_index[0], :, local_index[1]] = -10000.0
        return scores, global_index[0]


def make_model():
    return GlobalScores().eval()


def example_inputs():
    return torch.randn(2, 3, 5), torch.tensor([[True, False, False, True, False], [False, True, False, False, False]])
