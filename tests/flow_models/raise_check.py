"""ONX601: an `if` on a tensor value whose only statement is `raise`, the input check of
GLM-Image's placeholder count. Dynamo fails on it; legacy drops it (harmless for valid inputs).
Fixed by skipping the check while exporting (`not torch.compiler.is_exporting() and ...`)."""
import torch
from torch import nn


class CheckedScale(nn.Module):
    def forward(self, x: torch.Tensor):
        if torch.isnan(x).any():
            raise ValueError("NaN in the features")
        return x * 2 + 1


def make_model():
    return CheckedScale()


def example_inputs():
    return (torch.tensor([[0.5, 3.0, 1.0], [2.0, 0.25, 1.5]]),)


def probe_inputs():
    return [(torch.tensor([[4.0, 9.0, 1.0], [2.0, 0.0, 1.5]]),), (torch.full((4, 3), 0.75),)]


DYNAMIC = {0: {0: "rows"}}
