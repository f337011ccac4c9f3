"""ONX601 on a guard around a masked write that logs first: CosyVoice's (and WeNet's)
`add_optional_chunk_mask` ends with `if (chunk_masks.sum(dim=-1) == 0).sum().item() != 0:
logger.debug(...); chunk_masks[chunk_masks.sum(dim=-1) == 0] = True`. The dynamo exporter fails
on the `.item()` test and the legacy one freezes it. torch.export takes the branch (`if
torch.compiler.is_exporting() or (...)`): the write selects nothing where the test is false; eager
and the legacy trace test as before. (The legacy export of the bool write, kept from the example's
branch, is a Where on bool values, which onnxruntime's CPU provider cannot run, before and after:
`onnxfix export` computes it on uint8 while exporting.)"""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ChunkMask(nn.Module):
    def forward(self, x: torch.Tensor, masks: torch.Tensor):
        chunk_masks = masks & (x.unsqueeze(1) > 0)
        if (chunk_masks.sum(dim=-1) == 0).sum().item() != 0:
            logger.debug("get chunk_masks all false at some timestep, force set to true")
            chunk_masks[chunk_masks.sum(dim=-1) == 0] = True
        return chunk_masks.float() * x.unsqueeze(1)


def make_model():
    return ChunkMask()


def example_inputs():
    torch.manual_seed(0)
    x = torch.rand(2, 5) + 0.1
    x[1, :] = -1.0  # every position of the second row masked
    return (x, torch.ones(2, 5, 5, dtype=torch.bool))


def probe_inputs():
    torch.manual_seed(1)
    x = torch.randn(3, 7)
    x[0, :] = -1.0
    return [(x, torch.ones(3, 7, 7, dtype=torch.bool)), (torch.rand(1, 4) + 0.1, torch.zeros(1, 4, 4, dtype=torch.bool))]


DYNAMIC = {0: {0: "batch", 1: "time"}, 1: {0: "batch", 1: "time", 2: "time"}}
