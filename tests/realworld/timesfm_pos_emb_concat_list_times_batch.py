"""TimesFM (google-research/timesfm, PyTorch patched decoder): `_preprocess_input` tiles the sinusoidal
positional embedding over the batch with a Python list product,
`torch.concat([pos_emb] * model_input.shape[0], dim=0)`, before shifting it by the padding; the ailia-models
port had to rewrite this line (and the decode loop) to get an ONNX export that works for other batch sizes.

Source: https://github.com/ailia-ai/ailia-models/issues/1521
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ts": {0: "batch", 1: "context"}, "input_padding": {0: "batch", 1: "context"}}
BLIND = "domains-6"


def _shift_padded_seq(mask: torch.Tensor, seq: torch.Tensor) -> torch.Tensor:
  batch_size, num_seq, feature_dim = seq.shape
  new_mask: torch.BoolTensor = mask == 0
  indices = new_mask.to(torch.int32).argmax(dim=1)
  indices[~new_mask.any(dim=1)] = -1
  idx_range = (torch.arange(num_seq).to(
      seq.device).unsqueeze(0).unsqueeze(-1).expand(batch_size, -1,
                                                    feature_dim))
  shifted_idx = (idx_range - indices[:, None, None]) % num_seq
  shifted_seq = seq.gather(1, shifted_idx)
  return shifted_seq


class PositionalEmbedding(torch.nn.Module):

  def __init__(self, embedding_dims: int, min_timescale: int = 1, max_timescale: int = 10_000) -> None:
    super().__init__()
    self.min_timescale = min_timescale
    self.max_timescale = max_timescale
    self.embedding_dims = embedding_dims

  def forward(self, seq_length=None, position=None):
    if position is None:
      assert seq_length is not None
      position = torch.arange(seq_length, dtype=torch.float32).unsqueeze(0)
    num_timescales = self.embedding_dims // 2
    log_timescale_increment = math.log(
        float(self.max_timescale) / float(self.min_timescale)) / max(
            num_timescales - 1, 1)
    inv_timescales = self.min_timescale * torch.exp(
        torch.arange(num_timescales, dtype=torch.float32) *
        -log_timescale_increment)
    scaled_time = position.unsqueeze(2) * inv_timescales.unsqueeze(0).unsqueeze(0)
    signal = torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=2)
    signal = F.pad(signal, (0, 0, 0, self.embedding_dims % 2))
    return signal


class PatchedTimeSeriesDecoder(nn.Module):

  def __init__(self, patch_len=8, hidden_size=32):
    super().__init__()
    self.patch_len = patch_len
    self.input_ff_layer = nn.Linear(2 * patch_len, hidden_size)
    self.position_emb = PositionalEmbedding(hidden_size)

  def forward(self, input_ts, input_padding):
    bsize = input_ts.shape[0]
    patched_inputs = input_ts.view(bsize, -1, self.patch_len)
    patched_pads = input_padding.view(bsize, -1, self.patch_len)
    patched_inputs = patched_inputs * (1.0 - patched_pads)
    concat_inputs = torch.cat([patched_inputs, patched_pads], dim=-1)
    model_input = self.input_ff_layer(concat_inputs)

    patched_padding = torch.min(patched_pads, dim=-1)[0]
    pos_emb = self.position_emb(model_input.shape[1]).to(model_input.device)
    pos_emb = torch.concat([pos_emb] * model_input.shape[0], dim=0)
    pos_emb = _shift_padded_seq(patched_padding, pos_emb)
    model_input += pos_emb
    return model_input, patched_padding


def _batch(b, n_patches, n_pad_patches):
  ts = torch.randn(b, n_patches * 8)
  pad = torch.zeros(b, n_patches * 8)
  pad[0, : n_pad_patches * 8] = 1.0   # left-padded first series
  return ts, pad


def make_model():
  return PatchedTimeSeriesDecoder()


def example_inputs():
  return _batch(2, 6, 2)


def other_inputs():
  return [_batch(4, 9, 3), _batch(1, 4, 1), _batch(3, 5, 0)]


def probe_inputs():
  return other_inputs()
