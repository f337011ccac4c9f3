"""iSTFTNet vocoder: the generator predicts magnitude/phase and the Conv1d-basis `STFT.inverse` (Prem Seetharaman's
pytorch-stft, as in Tacotron2) turns them into audio; `inverse` calls the NumPy `window_sumsquare(self.window,
magnitude.size(-1), ...)` and `np.where(window_sum > tiny(window_sum))` on every call, and the reporter asks how to get
the STFT module into ONNX, "particularly the window_sumsquare function when exporting to onnx model".

Source: https://github.com/rishikksh20/iSTFTNet-pytorch/issues/6
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable
from torch.nn import Conv1d, ConvTranspose1d

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "domains-21"

LRELU_SLOPE = 0.1


# ---- the few scipy / librosa helpers stft.py imports (scipy.signal.get_window, librosa.util.*) ----
def get_window(window, Nx, fftbins=True):
    n = np.arange(Nx)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * n / Nx)  # periodic 'hann'


def pad_center(data, size):
    lpad = int((size - data.shape[-1]) // 2)
    return np.pad(data, (lpad, int(size - data.shape[-1] - lpad)))


def tiny(x):
    return np.finfo(np.asarray(x).dtype).tiny


# ---- iSTFTNet stft.py ----
def window_sumsquare(window, n_frames, hop_length=200, win_length=800,
                     n_fft=800, dtype=np.float32, norm=None):
    if win_length is None:
        win_length = n_fft

    n = n_fft + hop_length * (n_frames - 1)
    x = np.zeros(n, dtype=dtype)

    # Compute the squared window at the desired length
    win_sq = get_window(window, win_length, fftbins=True)
    win_sq = win_sq ** 2  # librosa_util.normalize(win_sq, norm=None) is the identity
    win_sq = pad_center(win_sq, n_fft)

    # Fill the envelope
    for i in range(n_frames):
        sample = i * hop_length
        x[sample:min(n, sample + n_fft)] += win_sq[:max(0, min(n_fft, n - sample))]
    return x


class STFT(torch.nn.Module):
    """adapted from Prem Seetharaman's https://github.com/pseeth/pytorch-stft"""
    def __init__(self, filter_length=800, hop_length=200, win_length=800,
                 window='hann'):
        super(STFT, self).__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        self.window = window
        scale = self.filter_length / self.hop_length
        fourier_basis = np.fft.fft(np.eye(self.filter_length))

        cutoff = int((self.filter_length / 2 + 1))
        fourier_basis = np.vstack([np.real(fourier_basis[:cutoff, :]),
                                   np.imag(fourier_basis[:cutoff, :])])

        forward_basis = torch.FloatTensor(fourier_basis[:, None, :])
        inverse_basis = torch.FloatTensor(
            np.linalg.pinv(scale * fourier_basis).T[:, None, :])

        if window is not None:
            assert(filter_length >= win_length)
            fft_window = get_window(window, win_length, fftbins=True)
            fft_window = pad_center(fft_window, filter_length)
            fft_window = torch.from_numpy(fft_window).float()
            forward_basis *= fft_window
            inverse_basis *= fft_window

        self.register_buffer('forward_basis', forward_basis.float())
        self.register_buffer('inverse_basis', inverse_basis.float())

    def inverse(self, magnitude, phase):
        recombine_magnitude_phase = torch.cat(
            [magnitude*torch.cos(phase), magnitude*torch.sin(phase)], dim=1)

        inverse_transform = F.conv_transpose1d(
            recombine_magnitude_phase,
            Variable(self.inverse_basis, requires_grad=False),
            stride=self.hop_length,
            padding=0)

        if self.window is not None:
            window_sum = window_sumsquare(
                self.window, magnitude.size(-1), hop_length=self.hop_length,
                win_length=self.win_length, n_fft=self.filter_length,
                dtype=np.float32)
            # remove modulation effects
            approx_nonzero_indices = torch.from_numpy(
                np.where(window_sum > tiny(window_sum))[0])
            window_sum = torch.autograd.Variable(
                torch.from_numpy(window_sum), requires_grad=False)
            inverse_transform[:, :, approx_nonzero_indices] /= window_sum[approx_nonzero_indices]

            # scale by hop ratio
            inverse_transform *= float(self.filter_length) / self.hop_length

        inverse_transform = inverse_transform[:, :, int(self.filter_length/2):]
        inverse_transform = inverse_transform[:, :, :-int(self.filter_length/2):]

        return inverse_transform


# ---- iSTFTNet models.py Generator (one upsample stage, ResBlock2) ----
class ResBlock2(torch.nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3)):
        super(ResBlock2, self).__init__()
        self.convs = nn.ModuleList([
            Conv1d(channels, channels, kernel_size, 1, dilation=d, padding=(kernel_size * d - d) // 2)
            for d in dilation])

    def forward(self, x):
        for c in self.convs:
            xt = F.leaky_relu(x, LRELU_SLOPE)
            xt = c(xt)
            x = xt + x
        return x


class Generator(torch.nn.Module):
    def __init__(self, num_mels=80, ch=64):
        super(Generator, self).__init__()
        self.conv_pre = Conv1d(num_mels, ch, 7, 1, padding=3)
        self.ups = nn.ModuleList([ConvTranspose1d(ch, ch // 2, 16, 8, padding=4)])
        self.resblocks = nn.ModuleList([ResBlock2(ch // 2)])
        self.conv_post = Conv1d(ch // 2, 18, 7, 1, padding=3)
        self.reflection_pad = torch.nn.ReflectionPad1d((1, 0))

    def forward(self, x):
        x = self.conv_pre(x)
        x = F.leaky_relu(x, LRELU_SLOPE)
        x = self.ups[0](x)
        x = self.resblocks[0](x)
        x = F.leaky_relu(x)
        x = self.reflection_pad(x)
        x = self.conv_post(x)
        spec = torch.exp(x[:, :9, :])
        phase = torch.sin(x[:, 9:, :])
        return spec, phase


class ISTFTNetVocoder(nn.Module):
    """mel -> (spec, phase) -> waveform, as inference_e2e.py does with `stft.inverse(spec, phase)`."""

    def __init__(self):
        super().__init__()
        self.generator = Generator()
        self.stft = STFT(filter_length=16, hop_length=4, win_length=16)

    def forward(self, x):
        spec, phase = self.generator(x)
        y_g_hat = self.stft.inverse(spec, phase)
        return y_g_hat


def make_model():
    return ISTFTNetVocoder().eval()


def example_inputs():
    return (torch.randn(1, 80, 32),)


def other_inputs():
    return [(torch.randn(2, 80, 45),), (torch.randn(1, 80, 20),)]


def probe_inputs():
    return other_inputs()
