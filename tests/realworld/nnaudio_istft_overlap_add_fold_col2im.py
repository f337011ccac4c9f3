"""nnAudio's conv-based iSTFT (used to turn predicted spectrograms back into waveforms): the
overlap-add and the window-sum-square both call `torch.nn.functional.fold` with an output length
computed from the number of frames; exporting the iSTFT layer fails with "Exporting the operator
col2im to ONNX opset version 12 is not supported".

Source: https://github.com/KinWaiCheuk/nnAudio/issues/102
"""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.functional import conv2d, fold

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"X": {0: "batch", 2: "frames"}}
BLIND = "operators-6"


def overlap_add(X, stride):
    n_fft = X.shape[1]
    output_len = n_fft + stride*(X.shape[2]-1)
    return fold(X, (1,output_len), kernel_size=(1,n_fft), stride=stride).flatten(1)


def torch_window_sumsquare(w, n_frames, stride, n_fft, power=2):
    w_stacks = w.unsqueeze(-1).repeat((1,n_frames)).unsqueeze(0)
    # Window length + stride*(frames-1)
    output_len = w_stacks.shape[1] + stride*(w_stacks.shape[2]-1)
    return fold(w_stacks**power, (1,output_len), kernel_size=(1,n_fft), stride=stride)


def extend_fbins(X):
    """Extending the number of frequency bins from `n_fft//2+1` back to `n_fft`"""
    X_upper = X[:,1:-1].flip(1)
    X_upper[:,:,:,1] = -X_upper[:,:,:,1] # For the imaganinry part, it is an odd function
    return torch.cat((X[:, :, :], X_upper), 1)


class iSTFT(nn.Module):
    def __init__(self, n_fft=64, hop_length=None, center=True, refresh_win=True):
        super().__init__()
        if hop_length == None:
            hop_length = int(n_fft // 4)
        self.n_fft = n_fft
        self.stride = hop_length
        self.center = center
        self.pad_amount = self.n_fft // 2
        self.refresh_win = refresh_win
        s = np.arange(0, n_fft, 1.)
        wsin = np.stack([np.sin(2*np.pi*k*s/n_fft) for k in range(n_fft)])[:, None, :]
        wcos = np.stack([np.cos(2*np.pi*k*s/n_fft) for k in range(n_fft)])[:, None, :]
        window_mask = 0.5 - 0.5 * np.cos(2 * np.pi * s / n_fft)  # get_window('hann', n_fft)
        self.register_buffer("kernel_sin", torch.tensor(wsin, dtype=torch.float).unsqueeze(-1))
        self.register_buffer("kernel_cos", torch.tensor(wcos, dtype=torch.float).unsqueeze(-1))
        self.register_buffer("window_mask", torch.tensor(window_mask, dtype=torch.float).unsqueeze(0).unsqueeze(-1))

    def inverse_stft(self, X, kernel_cos, kernel_sin, onesided=True, length=None, refresh_win=True):
        if onesided:
            X = extend_fbins(X)  # extend freq
        X_real, X_imag = X[:, :, :, 0], X[:, :, :, 1]
        X_real_bc = X_real.unsqueeze(1)
        X_imag_bc = X_imag.unsqueeze(1)
        a1 = conv2d(X_real_bc, kernel_cos, stride=(1, 1))
        b2 = conv2d(X_imag_bc, kernel_sin, stride=(1, 1))
        real = a1 - b2
        real = real.squeeze(-2) * self.window_mask
        real /= self.n_fft
        # Overlap and Add algorithm to connect all the frames
        real = overlap_add(real, self.stride)
        if hasattr(self, "w_sum") == False or refresh_win == True:
            self.w_sum = torch_window_sumsquare(
                self.window_mask.flatten(), X.shape[2], self.stride, self.n_fft
            ).flatten()
            self.nonzero_indices = self.w_sum > 1e-10
        real[:, self.nonzero_indices] = real[:, self.nonzero_indices].div(self.w_sum[self.nonzero_indices])
        if length is None:
            if self.center:
                real = real[:, self.pad_amount : -self.pad_amount]
        return real

    def forward(self, X, onesided=True, length=None, refresh_win=None):
        if refresh_win == None:
            refresh_win = self.refresh_win
        assert X.dim() == 4
        return self.inverse_stft(X, self.kernel_cos, self.kernel_sin, onesided, length, refresh_win)


def make_model():
    return iSTFT(n_fft=64).eval()


def example_inputs():
    return (torch.randn(2, 33, 20, 2),)


def other_inputs():
    return [(torch.randn(3, 33, 31, 2),), (torch.randn(1, 33, 12, 2),)]


def probe_inputs():
    return other_inputs()
