"""Encodec 48 kHz (the audio encoder MusicGen needs for audio prompts): `EncodecModel.encode` splits the waveform
into overlapping chunks with `for offset in range(0, input_length - step, stride)` and stacks one code frame per
chunk, after a Python check `if (input_length % stride) - step != 0: raise`; the maintainers report the encode
path cannot be exported (it "has some unrollable loops") and needs jit.script/jit.trace mixing.

Source: https://github.com/huggingface/optimum/pull/1779
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_values": {0: "batch_size", 2: "num_samples"},
           "padding_mask": {0: "batch_size", 2: "num_samples"}}
BLIND = "domains-18"


class EncodecConfig:
    sampling_rate = 100
    chunk_length_s = 1.0
    overlap = 0.01
    normalize = True
    codebook_size = 32
    codebook_dim = 16
    num_quantizers = 2

    @property
    def chunk_length(self):
        return int(self.chunk_length_s * self.sampling_rate)

    @property
    def chunk_stride(self):
        return max(1, int((1.0 - self.overlap) * self.chunk_length))


class EncodecEuclideanCodebook(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.register_buffer("embed", torch.randn(config.codebook_size, config.codebook_dim))

    def quantize(self, hidden_states):
        embed = self.embed.t()
        scaled_states = hidden_states.pow(2).sum(1, keepdim=True)
        dist = -(scaled_states - 2 * hidden_states @ embed + embed.pow(2).sum(0, keepdim=True))
        embed_ind = dist.max(dim=-1).indices
        return embed_ind

    def encode(self, hidden_states):
        shape = hidden_states.shape
        hidden_states = hidden_states.reshape((-1, shape[-1]))
        embed_ind = self.quantize(hidden_states)
        return embed_ind.view(*shape[:-1])


class EncodecModel(nn.Module):
    def __init__(self, config=EncodecConfig()):
        super().__init__()
        self.config = config
        self.encoder = nn.Sequential(nn.Conv1d(2, 8, 7, padding=3), nn.ELU(), nn.Conv1d(8, 16, 4, stride=4))
        self.codebooks = nn.ModuleList([EncodecEuclideanCodebook(config) for _ in range(config.num_quantizers)])

    def _encode_frame(self, input_values, bandwidth, padding_mask):
        length = input_values.shape[-1]
        duration = length / self.config.sampling_rate
        if self.config.chunk_length_s is not None and duration > 1e-5 + self.config.chunk_length_s:
            raise RuntimeError(f"Duration of frame ({duration}) is longer than chunk {self.config.chunk_length_s}")
        scale = None
        if self.config.normalize:
            input_values = input_values * padding_mask
            mono = torch.sum(input_values, 1, keepdim=True) / input_values.shape[1]
            scale = mono.pow(2).mean(dim=-1, keepdim=True).sqrt() + 1e-8
            input_values = input_values / scale
        residual = self.encoder(input_values)
        all_indices = []
        for codebook in self.codebooks:
            indices = codebook.encode(residual.permute(0, 2, 1))
            residual = residual - nn.functional.embedding(indices, codebook.embed).permute(0, 2, 1)
            all_indices.append(indices)
        codes = torch.stack(all_indices).transpose(0, 1)
        return codes, scale

    def encode(self, input_values, padding_mask=None, bandwidth=None):
        _, channels, input_length = input_values.shape
        chunk_length = self.config.chunk_length
        if chunk_length is None:
            chunk_length = input_length
            stride = input_length
        else:
            stride = self.config.chunk_stride
        if padding_mask is None:
            padding_mask = torch.ones_like(input_values).bool()
        encoded_frames = []
        scales = []
        step = chunk_length - stride
        if (input_length % stride) - step != 0:
            raise ValueError(
                "The input length is not properly padded for batched chunked decoding. Make sure to pad the input correctly."
            )
        for offset in range(0, input_length - step, stride):
            mask = padding_mask[..., offset : offset + chunk_length].bool()
            frame = input_values[:, :, offset : offset + chunk_length]
            encoded_frame, scale = self._encode_frame(frame, bandwidth, mask)
            encoded_frames.append(encoded_frame)
            scales.append(scale)
        encoded_frames = torch.stack(encoded_frames)
        return (encoded_frames, scales)


class AudioEncoderWrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = EncodecModel()

    def forward(self, input_values, padding_mask):
        audio_codes, audio_scales = self.model.encode(input_values, padding_mask)
        return audio_codes, torch.stack(audio_scales)


def make_model():
    return AudioEncoderWrapper().eval()


def example_inputs():
    return (torch.randn(2, 2, 199), torch.ones(2, 2, 199, dtype=torch.bool))


def other_inputs():
    return [(torch.randn(1, 2, 298), torch.ones(1, 2, 298, dtype=torch.bool)),
            (torch.randn(3, 2, 100), torch.ones(3, 2, 100, dtype=torch.bool))]


def probe_inputs():
    return other_inputs()
