"""CANINE's upsampling step `_repeat_molecules` computes the leftover characters as
`torch.fmod(torch.tensor(char_seq_length), torch.tensor(rate)).item()` from the (int) sequence length
and repeats the last molecule that many times; torch.export of CanineModel fails on it and the
TorchScript trace bakes the remainder in (the PR removes the tensor round-trip).

Source: https://github.com/huggingface/transformers/pull/37124
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"input_char_embeddings": {0: "batch", 1: "chars"}}
BLIND = "domains-12"


class CharactersToMolecules(nn.Module):
    def __init__(self, hidden_size, downsampling_rate):
        super().__init__()
        self.conv = nn.Conv1d(hidden_size, hidden_size, kernel_size=downsampling_rate, stride=downsampling_rate)
        self.activation = nn.GELU()
        self.LayerNorm = nn.LayerNorm(hidden_size)

    def forward(self, char_encoding):
        cls_encoding = char_encoding[:, 0:1, :]
        char_encoding = torch.transpose(char_encoding, 1, 2)
        downsampled = self.conv(char_encoding)
        downsampled = torch.transpose(downsampled, 1, 2)
        downsampled = self.activation(downsampled)
        downsampled_truncated = downsampled[:, 0:-1, :]
        result = torch.cat([cls_encoding, downsampled_truncated], dim=1)
        return self.LayerNorm(result)


class Config:
    hidden_size = 16
    downsampling_rate = 4


class CanineLite(nn.Module):
    def __init__(self, config=Config()):
        super().__init__()
        self.config = config
        self.chars_to_molecules = CharactersToMolecules(config.hidden_size, config.downsampling_rate)
        self.encoder = nn.Linear(config.hidden_size, config.hidden_size)
        self.projection = nn.Linear(2 * config.hidden_size, config.hidden_size)

    def _repeat_molecules(self, molecules: torch.Tensor, char_seq_length: torch.Tensor) -> torch.Tensor:
        """Repeats molecules to make them the same length as the char sequence."""
        rate = self.config.downsampling_rate
        molecules_without_extra_cls = molecules[:, 1:, :]
        repeated = torch.repeat_interleave(molecules_without_extra_cls, repeats=rate, dim=-2)
        last_molecule = molecules[:, -1:, :]
        remainder_length = torch.fmod(torch.tensor(char_seq_length), torch.tensor(rate)).item()
        remainder_repeated = torch.repeat_interleave(
            last_molecule,
            # +1 molecule to compensate for truncation.
            repeats=remainder_length + rate,
            dim=-2,
        )
        return torch.cat([repeated, remainder_repeated], dim=-2)

    def forward(self, input_char_embeddings):
        input_shape = input_char_embeddings.size()[:-1]
        init_molecule_encoding = self.chars_to_molecules(input_char_embeddings)
        molecule_sequence_output = torch.tanh(self.encoder(init_molecule_encoding))
        repeated_molecules = self._repeat_molecules(molecule_sequence_output, char_seq_length=input_shape[-1])
        concat = torch.cat([input_char_embeddings, repeated_molecules], dim=-1)
        return self.projection(concat)


def make_model():
    return CanineLite()


def example_inputs():
    return (torch.randn(2, 19, 16),)


def other_inputs():
    return [(torch.randn(3, 26, 16),), (torch.randn(1, 13, 16),)]


def probe_inputs():
    return other_inputs()
