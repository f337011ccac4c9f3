import torch

from ..utils import to_int


def flatten_tokens(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return x.reshape(to_int(n), -1)
