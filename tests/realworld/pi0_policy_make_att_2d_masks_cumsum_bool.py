"""Mask building in the PI0 robot policy (LeRobot, copied from openpi / big_vision): `make_att_2d_masks`
and the position ids call `torch.cumsum` directly on the bool pad/attention masks. PyTorch promotes the bool
input to int64, but the exported graph feeds the bool tensor straight into ONNX CumSum, which has no bool
kernel. The LeRobot ONNX/OpenVINO export PR changed these calls to `torch.cumsum(att_masks.long(), dim=1)` so
the policy would export.

Source: https://github.com/huggingface/lerobot/pull/2822
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {
    "prefix_pad_masks": {0: "batch", 1: "prefix_len"},
    "prefix_att_masks": {0: "batch", 1: "prefix_len"},
    "suffix_pad_masks": {0: "batch"},
    "suffix_att_masks": {0: "batch"},
}
BLIND = "domains-52"

OPENPI_ATTENTION_MASK_VALUE = -2.3819763e38


def make_att_2d_masks(pad_masks, att_masks):  # see openpi `make_att_2d_masks` (exact copy)
    if att_masks.ndim != 2:
        raise ValueError(att_masks.ndim)
    if pad_masks.ndim != 2:
        raise ValueError(pad_masks.ndim)

    cumsum = torch.cumsum(att_masks, dim=1)
    att_2d_masks = cumsum[:, None, :] <= cumsum[:, :, None]
    pad_2d_masks = pad_masks[:, None, :] * pad_masks[:, :, None]
    return att_2d_masks & pad_2d_masks


class PI0MaskBuilder(nn.Module):
    """The mask / position-id part of PI0FlowMatching.forward before the PaliGemma + expert call."""

    def _prepare_attention_masks_4d(self, att_2d_masks):
        """Helper method to prepare 4D attention masks for transformer."""
        att_2d_masks_4d = att_2d_masks[:, None, :, :]
        return torch.where(att_2d_masks_4d, 0.0, OPENPI_ATTENTION_MASK_VALUE)

    def forward(self, prefix_pad_masks, prefix_att_masks, suffix_pad_masks, suffix_att_masks):
        pad_masks = torch.cat([prefix_pad_masks, suffix_pad_masks], dim=1)
        att_masks = torch.cat([prefix_att_masks, suffix_att_masks], dim=1)

        att_2d_masks = make_att_2d_masks(pad_masks, att_masks)
        position_ids = torch.cumsum(pad_masks, dim=1) - 1

        att_2d_masks_4d = self._prepare_attention_masks_4d(att_2d_masks)
        return att_2d_masks_4d, position_ids


def make_model():
    return PI0MaskBuilder().eval()


def _masks(batch, prefix_len, chunk_size=6):
    # prefix: image + language tokens (trailing language padding), bidirectional (att 0)
    prefix_pad = torch.ones(batch, prefix_len, dtype=torch.bool)
    prefix_pad[:, -2:] = False
    prefix_att = torch.zeros(batch, prefix_len, dtype=torch.bool)
    # suffix: state token + action chunk, causal start at state and first action
    suffix_pad = torch.ones(batch, chunk_size + 1, dtype=torch.bool)
    suffix_att = torch.zeros(batch, chunk_size + 1, dtype=torch.bool)
    suffix_att[:, :2] = True
    return (prefix_pad, prefix_att, suffix_pad, suffix_att)


def example_inputs():
    return _masks(2, 12)


def other_inputs():
    return [_masks(3, 17), _masks(1, 9)]


def probe_inputs():
    return other_inputs()
