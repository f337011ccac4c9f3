"""int16 PCM audio zero-padded with `torch.constant_pad_nd` before framing. torch.onnx's own op-consistency
test xfails `constant_pad_nd` for int16 ("ONNX Runtime does not support Constant_pad_nd int16"): the export
succeeds, but onnxruntime's CPU provider has no int16 kernel for the ONNX `Pad` node
("NOT_IMPLEMENTED : Could not find an implementation for Pad").

Source: https://github.com/pytorch/pytorch/blob/00b86c8d4ed53a80e8a93ab63c40e8384b717387/test/onnx/test_fx_op_consistency.py
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"pcm": {0: "batch", 1: "samples"}}
BLIND = "operators-31"


class Int16PcmPadFrames(nn.Module):
    def __init__(self, frame=160):
        super().__init__()
        self.frame = frame

    def forward(self, pcm):
        # pcm: (batch, samples) int16; pad half a frame of silence on both sides (still int16)
        padded = torch.constant_pad_nd(pcm, (self.frame // 2, self.frame // 2), 0)
        # frame energy in float for the rest of the front-end
        return padded.to(torch.float32).div(32768.0).pow(2)


def make_model():
    return Int16PcmPadFrames().eval()


def _pcm(b, n):
    return torch.randint(-32768, 32767, (b, n), dtype=torch.int16)


def example_inputs():
    return (_pcm(2, 1600),)


def other_inputs():
    return [(_pcm(3, 2400),), (_pcm(1, 800),)]


def probe_inputs():
    return other_inputs()
