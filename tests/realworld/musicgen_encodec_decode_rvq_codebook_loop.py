"""MusicGen's EnCodec audio decoder exported as its own ONNX sub-model (optimum's Musicgen export): `decode`
checks `if len(audio_codes) != 1` and the residual quantizer rebuilds the embeddings with
`quantized_out = torch.tensor(0.0, ...)` and `for i, indices in enumerate(codes): layer = self.layers[i]`, i.e. a
Python loop over the codebook axis. The report (stereo MusicGen, twice as many codebooks) shows the TracerWarnings
"Iterating over a tensor ... won't change the number of iterations executed" on that loop and the export erroring for
the stereo model. (Decoder reduced to three convolutions; codebook count and frame count are the dynamic dims.)

Source: https://github.com/huggingface/optimum/issues/1297
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"audio_codes": {2: "num_codebooks", 3: "frames"}}
BLIND = "domains-31"


class EncodecEuclideanCodebook(nn.Module):
    def __init__(self, codebook_size, codebook_dim):
        super().__init__()
        self.register_buffer("embed", torch.randn(codebook_size, codebook_dim))

    def decode(self, embed_ind):
        quantize = nn.functional.embedding(embed_ind, self.embed)
        return quantize


class EncodecVectorQuantization(nn.Module):
    def __init__(self, codebook_size, codebook_dim):
        super().__init__()
        self.codebook = EncodecEuclideanCodebook(codebook_size, codebook_dim)

    def decode(self, embed_ind):
        quantize = self.codebook.decode(embed_ind)
        quantize = quantize.permute(0, 2, 1)
        return quantize


class EncodecResidualVectorQuantizer(nn.Module):
    def __init__(self, num_quantizers=8, codebook_size=64, codebook_dim=16):
        super().__init__()
        self.layers = nn.ModuleList(
            [EncodecVectorQuantization(codebook_size, codebook_dim) for _ in range(num_quantizers)]
        )

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        """Decode the given codes to the quantized representation."""
        quantized_out = torch.tensor(0.0, device=codes.device)
        for i, indices in enumerate(codes):
            layer = self.layers[i]
            quantized = layer.decode(indices)
            quantized_out = quantized_out + quantized
        return quantized_out


class EncodecDecodeModel(nn.Module):
    def __init__(self, codebook_dim=16):
        super().__init__()
        self.quantizer = EncodecResidualVectorQuantizer(codebook_dim=codebook_dim)
        self.decoder = nn.Sequential(
            nn.Conv1d(codebook_dim, 16, 7, padding=3),
            nn.ELU(),
            nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1),
            nn.ELU(),
            nn.Conv1d(8, 1, 7, padding=3),
        )

    def _decode_frame(self, codes, scale=None):
        codes = codes.transpose(0, 1)
        embeddings = self.quantizer.decode(codes)
        outputs = self.decoder(embeddings)
        if scale is not None:
            outputs = outputs * scale.view(-1, 1, 1)
        return outputs

    def forward(self, audio_codes):
        if len(audio_codes) != 1:
            raise ValueError(f"Expected one frame, got {len(audio_codes)}")
        audio_values = self._decode_frame(audio_codes[0], None)
        return audio_values


def make_model():
    return EncodecDecodeModel().eval()


def example_inputs():
    return (torch.randint(0, 64, (1, 2, 4, 25)),)


def other_inputs():
    return [(torch.randint(0, 64, (1, 2, 8, 31)),), (torch.randint(0, 64, (1, 2, 2, 17)),)]


def probe_inputs():
    return other_inputs()
