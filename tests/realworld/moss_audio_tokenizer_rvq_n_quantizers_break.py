"""MOSS Audio Tokenizer (neural audio codec) encode path: the residual VQ runs
`n_quantizers = n_quantizers or self.num_quantizers` and `for i, quantizer in enumerate(self.quantizers):
if i >= n_quantizers: break`, stacking one code row per used quantizer. The ONNX export PR has to rewrite the
loop ("unrolled over all num_quantizers steps; inactive steps are masked via torch.where so n_quantizers
remains a runtime input") because the early `break` on the runtime `n_quantizers` does not export.

Source: https://github.com/OpenMOSS/MOSS-Audio-Tokenizer/pull/5
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_values": {0: "batch", 2: "samples"}}
BLIND = "domains-14"


class MossAudioTokenizerPatchedPretransform(nn.Module):
    def __init__(self, patch_size: int):
        super().__init__()
        self.patch_size = patch_size

    def forward(self, x, input_lengths):
        b, d, _ = x.shape
        h = self.patch_size
        x = x.reshape(b, d, -1, h).permute(0, 1, 3, 2).reshape(b, d * h, -1)
        output_lengths = input_lengths // self.patch_size
        return x, output_lengths


class ConvEncoderBlock(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.conv = nn.Conv1d(in_dim, out_dim, 3, padding=1)

    def forward(self, x, input_lengths):
        return torch.nn.functional.gelu(self.conv(x)), input_lengths


class MossAudioTokenizerVectorQuantize(nn.Module):
    def __init__(self, input_dim: int, codebook_size: int, codebook_dim: int):
        super().__init__()
        self.in_proj = nn.Conv1d(input_dim, codebook_dim, kernel_size=1)
        self.out_proj = nn.Conv1d(codebook_dim, input_dim, kernel_size=1)
        self.codebook = nn.Embedding(codebook_size, codebook_dim)

    @torch.no_grad()
    def forward(self, z: torch.Tensor):
        z = z.float()
        z_e = self.in_proj(z).float()
        encodings = z_e.transpose(1, 2).reshape(-1, z_e.shape[1])
        codebook_weight = self.codebook.weight
        dist = (
            encodings.pow(2).sum(1, keepdim=True)
            - 2 * encodings @ codebook_weight.float().t()
            + codebook_weight.float().pow(2).sum(1, keepdim=True).t()
        )
        indices = (-dist).max(1)[1]
        indices = indices.reshape(z.size(0), -1)
        z_q = self.codebook(indices).transpose(1, 2).float()
        z_q = self.out_proj(z_q).float()
        return z_q, indices, z_e


class MossAudioTokenizerResidualVQ(nn.Module):
    def __init__(self, input_dim=32, rvq_dim=16, num_quantizers=4, codebook_size=32, codebook_dim=8):
        super().__init__()
        self.num_quantizers = num_quantizers
        self.input_proj = nn.Conv1d(input_dim, rvq_dim, kernel_size=1)
        self.output_proj = nn.Conv1d(rvq_dim, input_dim, kernel_size=1)
        self.quantizers = nn.ModuleList(
            [MossAudioTokenizerVectorQuantize(rvq_dim, codebook_size, codebook_dim) for _ in range(num_quantizers)]
        )

    @torch.no_grad()
    def forward(self, z, input_length, n_quantizers=None):
        z = self.input_proj(z)

        batch_size, _, max_time = z.shape
        mask = torch.arange(max_time, device=z.device).expand(batch_size, max_time) < input_length.unsqueeze(1)

        quantized_out = torch.zeros_like(z, dtype=torch.float32)
        residual = z.clone().float()
        all_indices = []

        n_quantizers = n_quantizers or self.num_quantizers

        for i, quantizer in enumerate(self.quantizers):
            if i >= n_quantizers:
                break

            masked_residual = residual * mask.unsqueeze(1)
            z_q_i, indices_i, _ = quantizer(masked_residual)

            update_mask = mask.unsqueeze(1)
            quantized_out = quantized_out + z_q_i * update_mask
            residual = residual - z_q_i * update_mask
            all_indices.append(indices_i)

        all_indices = torch.stack(all_indices)  # (N, B, T)
        quantized_out = self.output_proj(quantized_out)

        return quantized_out, all_indices, input_length


class MossAudioTokenizerEncoder(nn.Module):
    """`_encode_frame` (the waveform is already padded to a multiple of `downsample_rate` by the caller)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.ModuleList([MossAudioTokenizerPatchedPretransform(4), ConvEncoderBlock(4, 32)])
        self.quantizer = MossAudioTokenizerResidualVQ()

    def forward(self, input_values, n_quantizers):
        B, _, T = input_values.shape
        input_lengths = torch.full((B,), T, device=input_values.device, dtype=torch.long)

        e, e_lengths = input_values, input_lengths
        for encoder_module in self.encoder:
            e, e_lengths = encoder_module(e, e_lengths)

        zq, audio_codes, audio_codes_lengths = self.quantizer(e, e_lengths, n_quantizers)
        return audio_codes, audio_codes_lengths


def make_model():
    return MossAudioTokenizerEncoder().eval()


def example_inputs():
    return (torch.randn(1, 1, 160), torch.tensor(2))


def other_inputs():
    return [(torch.randn(2, 1, 256), torch.tensor(4)), (torch.randn(3, 1, 96), torch.tensor(1))]


def probe_inputs():
    return other_inputs()
