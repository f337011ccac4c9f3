"""Conv-TasNet speech separation decoder: `overlap_and_add` builds its frame index with
`torch.arange(0, output_subframes).unfold(...)` and `signal.new_tensor(frame).long()` from the number of
encoder frames, then `index_add_`s the subframes; exporting the decoder warns that `output_subframes` and the
`new_tensor` are traced as constants and the export fails ("Unexpected node type: onnx::Cast").

Source: https://github.com/pytorch/pytorch/issues/47182
"""
import math

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"mixture_w": {0: "batch", 2: "frames"}, "est_mask": {0: "batch", 3: "frames"}}
BLIND = "domains-10"


def overlap_and_add(signal, frame_step):
    """Reconstructs a signal from a framed representation.
    output_size = (frames - 1) * frame_step + frame_length
    """
    outer_dimensions = signal.size()[:-2]
    frames, frame_length = signal.size()[-2:]

    subframe_length = math.gcd(frame_length, frame_step)  # gcd=Greatest Common Divisor
    subframe_step = frame_step // subframe_length
    subframes_per_frame = frame_length // subframe_length
    output_size = frame_step * (frames - 1) + frame_length
    output_subframes = output_size // subframe_length

    subframe_signal = signal.view(*outer_dimensions, -1, subframe_length)

    frame = torch.arange(0, output_subframes).unfold(0, subframes_per_frame, subframe_step)
    frame = signal.new_tensor(frame).long()  # signal may in GPU or CPU
    frame = frame.contiguous().view(-1)

    result = signal.new_zeros(*outer_dimensions, output_subframes, subframe_length)
    result.index_add_(-2, frame, subframe_signal)
    result = result.view(*outer_dimensions, -1)
    return result


class Decoder(nn.Module):
    def __init__(self, N, L):
        super(Decoder, self).__init__()
        # Hyper-parameter
        self.N, self.L = N, L
        # Components
        self.basis_signals = nn.Linear(N, L, bias=False)

    def forward(self, mixture_w, est_mask):
        """
        Args:
            mixture_w: [M, N, K]
            est_mask: [M, C, N, K]
        Returns:
            est_source: [M, C, T]
        """
        # D = W * M
        source_w = torch.unsqueeze(mixture_w, 1) * est_mask  # [M, C, N, K]
        source_w = torch.transpose(source_w, 2, 3)  # [M, C, K, N]
        # S = DV
        est_source = self.basis_signals(source_w)  # [M, C, K, L]
        est_source = overlap_and_add(est_source, self.L // 2)  # M x C x T
        return est_source


def make_model():
    return Decoder(N=32, L=16).eval()


def example_inputs():
    return (torch.randn(2, 32, 50), torch.rand(2, 2, 32, 50))


def other_inputs():
    return [
        (torch.randn(3, 32, 77), torch.rand(3, 2, 32, 77)),
        (torch.randn(1, 32, 23), torch.rand(1, 2, 32, 23)),
    ]


def probe_inputs():
    return other_inputs()
