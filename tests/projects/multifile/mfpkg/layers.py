import torch
from thirdparty.layers import BaseLayer  # not in this project: Block is not known to be a module


class Block(BaseLayer):
    def __init__(self, width: int):
        super().__init__()
        self.lin = torch.nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        return y.reshape(y.shape[0], -1).data
