"""MusicGen's `MusicgenForCausalLM.build_delay_pattern_mask` (exported by Optimum as its own ONNX part for
text-to-audio generation) shifts each codebook's prompt by its index, builds the delay mask, then finds where
generation starts with `start_ids = (first_codebook_ids == -1).nonzero()[:, 1]` / `if len(start_ids) > 0:
first_start_id = min(start_ids)` and slices `input_ids[..., :first_start_id]`; Optimum's ONNX model patcher
replaces the method for export, using `start_ids.min()` without the length check and a hand-written triu.

Source: https://github.com/huggingface/optimum-onnx/blob/1939f27a1d04bd9fdf4c3b17eaa70a99dcd380c6/optimum/exporters/onnx/model_patcher.py#L1056
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch_x_codebooks", 1: "sequence"}}
BLIND = "domains-53"


class MusicgenConfig:
    num_codebooks = 4
    audio_channels = 1
    pad_token_id = 2048


class GenerationConfig:
    max_length = 40


class MusicgenForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_codebooks = config.num_codebooks
        self.generation_config = GenerationConfig()

    def build_delay_pattern_mask(self, input_ids: torch.LongTensor, pad_token_id: int, max_length: int = None):
        """Build a delayed pattern mask to the input_ids. Each codebook is offset by the previous codebook by
        one, giving a delayed pattern mask at the start of sequence and end of sequence."""
        # (bsz * num_codebooks, seq_len) -> (bsz, num_codebooks, seq_len)
        input_ids = input_ids.reshape(-1, self.num_codebooks, input_ids.shape[-1])
        bsz, num_codebooks, seq_len = input_ids.shape

        max_length = max_length if max_length is not None else self.generation_config.max_length
        input_ids_shifted = (
            torch.ones((bsz, num_codebooks, max_length), dtype=torch.long, device=input_ids.device) * -1
        )

        channel_codebooks = num_codebooks // 2 if self.config.audio_channels == 2 else num_codebooks
        # we only apply the mask if we have a large enough seq len - otherwise we return as is
        if max_length < 2 * channel_codebooks - 1:
            return input_ids.reshape(bsz * num_codebooks, -1), input_ids_shifted.reshape(bsz * num_codebooks, -1)

        # fill the shifted ids with the prompt entries, offset by the codebook idx
        for codebook in range(channel_codebooks):
            if self.config.audio_channels == 1:
                # mono channel - loop over the codebooks one-by-one
                input_ids_shifted[:, codebook, codebook : seq_len + codebook] = input_ids[:, codebook]
            else:
                # left/right channels are interleaved in the generated codebooks, so handle one then the other
                input_ids_shifted[:, 2 * codebook, codebook : seq_len + codebook] = input_ids[:, 2 * codebook]
                input_ids_shifted[:, 2 * codebook + 1, codebook : seq_len + codebook] = input_ids[:, 2 * codebook + 1]

        # construct a pattern mask that indicates the positions of padding tokens for each codebook
        # first fill the upper triangular part (the EOS padding)
        delay_pattern = torch.triu(
            torch.ones((channel_codebooks, max_length), dtype=torch.bool), diagonal=max_length - channel_codebooks + 1
        )
        # then fill the lower triangular part (the BOS padding)
        delay_pattern = delay_pattern + torch.tril(torch.ones((channel_codebooks, max_length), dtype=torch.bool))

        if self.config.audio_channels == 2:
            # for left/right channel we need to duplicate every row of the pattern mask in an interleaved fashion
            delay_pattern = delay_pattern.repeat_interleave(2, dim=0)

        mask = ~delay_pattern.to(input_ids.device)
        input_ids = mask * input_ids_shifted + ~mask * pad_token_id

        # find the first position to start generating - this is the first place we have the -1 token
        # and will always be in the first codebook (since it has no codebook offset)
        first_codebook_ids = input_ids[:, 0, :]
        start_ids = (first_codebook_ids == -1).nonzero()[:, 1]
        if len(start_ids) > 0:
            first_start_id = min(start_ids)
        else:
            # we have no tokens that need to be filled - return entire matrix of input ids
            first_start_id = seq_len

        # (bsz * num_codebooks, seq_len) -> (bsz, num_codebooks, seq_len)
        pattern_mask = input_ids.reshape(bsz * num_codebooks, -1)
        input_ids = input_ids[..., :first_start_id].reshape(bsz * num_codebooks, -1)
        return input_ids, pattern_mask

    def forward(self, input_ids):
        return self.build_delay_pattern_mask(input_ids, pad_token_id=self.config.pad_token_id)


def make_model():
    return MusicgenForCausalLM(MusicgenConfig()).eval()


def example_inputs():
    return (torch.randint(0, 2048, (2 * 4, 7)),)


def other_inputs():
    return [(torch.randint(0, 2048, (1 * 4, 12)),), (torch.randint(0, 2048, (3 * 4, 3)),)]


def probe_inputs():
    return other_inputs()
