"""ONX601 on a guard around rows computed on a mask's selection and written back through it:
Diffusion Planner's static encoder, `if valid_indices.sum() > 0: x = x[valid_indices];
x = self.projection(x); x_result[valid_indices] = x`. The dynamo exporter fails on the count
(GuardOnDataDependentSymNode). torch.export takes the branch (`if torch.compiler.is_exporting() or
(...)`): the projection of no rows writes nothing; eager and the legacy trace test as before (the
legacy trace keeps the example's branch, which writes nothing either on an all-invalid input)."""
import torch
from torch import nn


class StaticEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.projection = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 8))

    def forward(self, x: torch.Tensor):
        B, P, _ = x.shape
        x_result = torch.zeros((B * P, 8))
        mask_p = torch.sum(torch.ne(x, 0), dim=-1) == 0
        valid_indices = ~mask_p.view(-1)
        if valid_indices.sum() > 0:
            x = x.view(B * P, -1)
            x = x[valid_indices]
            x = self.projection(x)
            x_result[valid_indices] = x
        return x_result.view(B, P, -1), mask_p


def make_model():
    torch.manual_seed(0)
    return StaticEncoder()


def example_inputs():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 6)
    x[0, 1:3] = 0.0  # padded objects
    return (x,)


def probe_inputs():
    torch.manual_seed(1)
    x = torch.randn(3, 4, 6)
    x[2] = 0.0
    return [(x,), (torch.zeros(1, 3, 6),)]  # the second: every object padded, the branch not taken


DYNAMIC = {0: {0: "batch", 1: "objects"}}
