"""DeepFilterNet3 pure-torch streaming step (torchDF, ExportableStreamingTorchDF): the noisy-mix attenuation
limit is applied under `if torch.abs(atten_lim_db) > 0:` on the `atten_lim_db` model input; the exported
streaming ONNX model ignores that input ("An input of 0.0, 50.0, and 99.0 results in what sounds like
identical audio"), since the branch taken for the export example is frozen into the graph.

Source: https://github.com/Rikorose/DeepFilterNet/issues/430
"""
import math
from typing import Tuple

import torch
from torch import nn, Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-47"


class ExportableStreamingTorchDF(nn.Module):
    def __init__(self, fft_size=64, hop_size=32, nb_bands=8, df_order=5, lookahead=2, conv_lookahead=2,
                 normalize_atten_lim=20.0):
        super().__init__()
        self.fft_size = fft_size
        self.frame_size = hop_size
        self.window_size = fft_size
        self.window_size_h = fft_size // 2
        self.freq_size = fft_size // 2 + 1
        self.wnorm = 1. / (self.window_size ** 2 / (2 * self.frame_size))
        self.df_order = df_order
        self.lookahead = lookahead
        self.nb_bands = nb_bands
        window = torch.sin(0.5 * torch.pi * (torch.arange(self.fft_size) + 0.5) / self.window_size_h)
        window = torch.sin(0.5 * torch.pi * window ** 2)
        self.register_buffer('window', window)
        self.register_buffer('rfft_matrix', torch.view_as_real(torch.fft.rfft(torch.eye(self.window_size))).transpose(0, 1))
        self.register_buffer('irfft_matrix', torch.linalg.pinv(self.rfft_matrix))
        band = torch.div(torch.arange(self.freq_size) * nb_bands, self.freq_size, rounding_mode='floor')
        erb = torch.nn.functional.one_hot(band, nb_bands).float()
        self.register_buffer('forward_erb_matrix', erb / erb.sum(0))
        self.register_buffer('inverse_erb_matrix', erb.t().contiguous())
        self.erb_dec = nn.Sequential(nn.Linear(nb_bands, 16), nn.ReLU(), nn.Linear(16, nb_bands), nn.Sigmoid())
        self.lsnr_fc = nn.Linear(nb_bands, 1)
        self.normalize_atten_lim = torch.tensor(normalize_atten_lim)
        self.analysis_mem_shape = (self.frame_size, )
        self.synthesis_mem_shape = (self.frame_size, )
        self.rolling_spec_buf_x_shape = (max(self.df_order, conv_lookahead), self.freq_size, 2)
        self.state_lens = [math.prod(x) for x in (self.analysis_mem_shape, self.synthesis_mem_shape,
                                                   self.rolling_spec_buf_x_shape)]
        self.states_full_len = sum(self.state_lens)

    def erb(self, input_data: Tensor, erb_eps: float = 1e-10) -> Tensor:
        magnitude_squared = torch.sum(input_data ** 2, dim=-1)
        erb_features = magnitude_squared.matmul(self.forward_erb_matrix)
        return 10.0 * torch.log10(erb_features + erb_eps)

    def frame_analysis(self, input_frame: Tensor, analysis_mem: Tensor) -> Tuple[Tensor, Tensor]:
        buf = torch.cat([analysis_mem, input_frame]) * self.window
        rfft_buf = torch.matmul(buf, self.rfft_matrix) * self.wnorm
        return rfft_buf, input_frame

    def frame_synthesis(self, x: Tensor, synthesis_mem: Tensor) -> Tuple[Tensor, Tensor]:
        x = torch.einsum('fi,fij->j', x, self.irfft_matrix) * self.fft_size * self.window
        x_first, x_second = torch.split(x, [self.frame_size, self.window_size - self.frame_size])
        output = x_first + synthesis_mem
        return output, x_second

    def apply_mask(self, spec: Tensor, gains: Tensor) -> Tensor:
        gains = gains.matmul(self.inverse_erb_matrix)
        return spec * gains.unsqueeze(-1)

    def unpack_states(self, states: Tensor):
        splitted_states = torch.split(states, self.state_lens)
        analysis_mem = splitted_states[0].view(self.analysis_mem_shape)
        synthesis_mem = splitted_states[1].view(self.synthesis_mem_shape)
        rolling_spec_buf_x = splitted_states[2].view(self.rolling_spec_buf_x_shape)
        return analysis_mem, synthesis_mem, rolling_spec_buf_x

    def forward(self, input_frame: Tensor, states: Tensor, atten_lim_db: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        analysis_mem, synthesis_mem, rolling_spec_buf_x = self.unpack_states(states)

        spectrogram, new_analysis_mem = self.frame_analysis(input_frame, analysis_mem)
        spectrogram = spectrogram.unsqueeze(0)
        new_rolling_spec_buf_x = torch.cat([rolling_spec_buf_x[1:, ...], spectrogram])

        erb_feat = self.erb(spectrogram).squeeze(0)
        gains = self.erb_dec(erb_feat / 40.0)
        lsnr = self.lsnr_fc(erb_feat / 40.0).flatten()

        current_spec = new_rolling_spec_buf_x[self.df_order - 1]
        current_spec = self.apply_mask(current_spec.clone(), gains)

        # Mixing some noisy channel
        if torch.abs(atten_lim_db) > 0:
            spec_noisy = rolling_spec_buf_x[max(self.lookahead, self.df_order) - self.lookahead - 1]
            lim = 10 ** (-torch.abs(atten_lim_db) / self.normalize_atten_lim)
            current_spec = torch.lerp(current_spec, spec_noisy, lim)

        enhanced_audio_frame, new_synthesis_mem = self.frame_synthesis(current_spec, synthesis_mem)

        new_states = [new_analysis_mem, new_synthesis_mem, new_rolling_spec_buf_x]
        new_states = torch.cat([x.flatten() for x in new_states])
        return enhanced_audio_frame, new_states, lsnr


def make_model():
    return ExportableStreamingTorchDF().eval()


def _states():
    return torch.randn(ExportableStreamingTorchDF().states_full_len)


def example_inputs():
    return (torch.rand(32), _states(), torch.tensor(0.0))


def other_inputs():
    return [(torch.randn(32), _states(), torch.tensor(50.0)), (torch.randn(32), _states(), torch.tensor(99.0))]


def probe_inputs():
    return other_inputs()
