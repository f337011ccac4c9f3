"""image-to-latex (formula recognition, ResNet encoder + Transformer decoder): the Lightning module's forward
calls `ResNetTransformer.predict`, a greedy decoding loop that stops early with
`if torch.all(has_ended): break` and then pads after the first EOS with `int(eos_positions[i].item())` per image;
exporting the checkpoint to ONNX fails (TracerWarnings on the size checks, then the export errors out).

Source: https://github.com/kingyiusuen/image-to-latex/issues/3
"""
import math
from typing import Union

import torch
import torch.nn as nn
from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-10"


class PositionalEncoding1D(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000) -> None:
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", self.make_pe(d_model, max_len))

    @staticmethod
    def make_pe(d_model: int, max_len: int) -> Tensor:
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe.unsqueeze(1)

    def forward(self, x: Tensor) -> Tensor:
        assert x.shape[2] == self.pe.shape[2]
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


class PositionalEncoding2D(nn.Module):
    def __init__(self, d_model: int, max_h: int = 2000, max_w: int = 2000) -> None:
        super().__init__()
        pe_h = PositionalEncoding1D.make_pe(d_model=d_model // 2, max_len=max_h).permute(2, 0, 1).expand(-1, -1, max_w)
        pe_w = PositionalEncoding1D.make_pe(d_model=d_model // 2, max_len=max_w).permute(2, 1, 0).expand(-1, max_h, -1)
        self.register_buffer("pe", torch.cat([pe_h, pe_w], dim=0))

    def forward(self, x: Tensor) -> Tensor:
        assert x.shape[1] == self.pe.shape[0]
        x = x + self.pe[:, : x.size(2), : x.size(3)]
        return x


def generate_square_subsequent_mask(size: int) -> Tensor:
    mask = (torch.triu(torch.ones(size, size)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
    return mask


def find_first(x: Tensor, element: Union[int, float], dim: int = 1) -> Tensor:
    mask = x == element
    found, indices = ((mask.cumsum(dim) == 1) & mask).max(dim)
    indices[(~found) & (indices == 0)] = x.shape[dim]
    return indices


class ResNetTransformer(nn.Module):
    def __init__(self, d_model=32, dim_feedforward=64, nhead=2, dropout=0.3, num_decoder_layers=1,
                 max_output_len=8, sos_index=0, eos_index=1, pad_index=2, num_classes=12):
        super().__init__()
        self.d_model = d_model
        self.max_output_len = max_output_len + 2
        self.sos_index = sos_index
        self.eos_index = eos_index
        self.pad_index = pad_index
        # stand-in for resnet18 conv1..layer3 (stride 16)
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 7, 2, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
            nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
        )
        self.bottleneck = nn.Conv2d(64, self.d_model, 1)
        self.image_positional_encoder = PositionalEncoding2D(self.d_model, max_h=64, max_w=64)
        self.embedding = nn.Embedding(num_classes, self.d_model)
        self.y_mask = generate_square_subsequent_mask(self.max_output_len)
        self.word_positional_encoder = PositionalEncoding1D(self.d_model, max_len=self.max_output_len)
        transformer_decoder_layer = nn.TransformerDecoderLayer(self.d_model, nhead, dim_feedforward, dropout)
        self.transformer_decoder = nn.TransformerDecoder(transformer_decoder_layer, num_decoder_layers)
        self.fc = nn.Linear(self.d_model, num_classes)

    def encode(self, x: Tensor) -> Tensor:
        if x.shape[1] == 1:
            x = x.repeat(1, 3, 1, 1)
        x = self.backbone(x)
        x = self.bottleneck(x)
        x = self.image_positional_encoder(x)
        x = x.flatten(start_dim=2)
        x = x.permute(2, 0, 1)
        return x

    def decode(self, y: Tensor, encoded_x: Tensor) -> Tensor:
        y = y.permute(1, 0)
        y = self.embedding(y) * math.sqrt(self.d_model)
        y = self.word_positional_encoder(y)
        Sy = y.shape[0]
        y_mask = self.y_mask[:Sy, :Sy].type_as(encoded_x)
        output = self.transformer_decoder(y, encoded_x, y_mask)
        output = self.fc(output)
        return output

    def predict(self, x: Tensor) -> Tensor:
        B = x.shape[0]
        S = self.max_output_len

        encoded_x = self.encode(x)

        output_indices = torch.full((B, S), self.pad_index).type_as(x).long()
        output_indices[:, 0] = self.sos_index
        has_ended = torch.full((B,), False)

        for Sy in range(1, S):
            y = output_indices[:, :Sy]
            logits = self.decode(y, encoded_x)
            output = torch.argmax(logits, dim=-1)
            output_indices[:, Sy] = output[-1:]

            # Early stopping of prediction loop to speed up prediction
            has_ended |= (output_indices[:, Sy] == self.eos_index).type_as(has_ended)
            if torch.all(has_ended):
                break

        # Set all tokens after end token to be padding
        eos_positions = find_first(output_indices, self.eos_index)
        for i in range(B):
            j = int(eos_positions[i].item()) + 1
            output_indices[i, j:] = self.pad_index

        return output_indices


class LitResNetTransformer(nn.Module):
    """The LightningModule, with the `forward` the reporter added for export."""

    def __init__(self):
        super().__init__()
        self.model = ResNetTransformer()

    def forward(self, x):
        return self.model.predict(x)


def make_model():
    return LitResNetTransformer().eval()


def example_inputs():
    return (torch.rand(2, 1, 64, 128),)


def other_inputs():
    return [(torch.rand(3, 1, 96, 160),), (torch.rand(1, 1, 48, 96),)]


def probe_inputs():
    return other_inputs()
