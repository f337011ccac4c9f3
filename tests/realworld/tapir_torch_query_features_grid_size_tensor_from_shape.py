"""TAPIR (tapnet's PyTorch port) `get_query_features`: `utils.convert_grid_coordinates(query_points, shape[1:4],
feature_grid.shape[1:4], coordinate_format='tyx')` turns the torch.Size slices into `torch.tensor(...)` inside the
model and checks `if input_grid_size[0] != output_grid_size[0]: raise`, and `map_coordinates_3d` divides by
`torch.tensor(x.shape[2:])`; the commit "addressing Torchscript compatibility" (torch.jit.script/trace) rewrote
these calls. (ResNet backbone cut to two strided convs; one resolution, no refinement.)

Source: https://github.com/google-deepmind/tapnet/commit/28252f04e4323e3fcdd04a9cc118b65a2dcb2b14
"""
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"video": {1: "frames", 2: "height", 3: "width"}, "query_points": {1: "num_points"}}
BLIND = "domains-62"


def map_coordinates_3d(feats: torch.Tensor, coordinates: torch.Tensor) -> torch.Tensor:
  x = feats.permute(0, 4, 1, 2, 3)
  y = coordinates[:, :, None, None, :].float()
  y[..., 0] += 0.5
  y = 2 * (y / torch.tensor(x.shape[2:], device=y.device)) - 1
  y = torch.flip(y, dims=(-1,))
  out = (
      F.grid_sample(
          x, y, mode='bilinear', align_corners=False, padding_mode='border'
      )
      .squeeze(dim=(3, 4))
      .permute(0, 2, 1)
  )
  return out


def convert_grid_coordinates(
    coords: torch.Tensor,
    input_grid_size: Sequence[int],
    output_grid_size: Sequence[int],
    coordinate_format: str = 'xy',
) -> torch.Tensor:
  """Convert grid coordinates to correct format."""
  if isinstance(input_grid_size, tuple):
    input_grid_size = torch.tensor(input_grid_size, device=coords.device)
  if isinstance(output_grid_size, tuple):
    output_grid_size = torch.tensor(output_grid_size, device=coords.device)

  if coordinate_format == 'xy':
    if input_grid_size.shape[0] != 2 or output_grid_size.shape[0] != 2:
      raise ValueError(
          'If coordinate_format is xy, the shapes must be length 2.'
      )
  elif coordinate_format == 'tyx':
    if input_grid_size.shape[0] != 3 or output_grid_size.shape[0] != 3:
      raise ValueError(
          'If coordinate_format is tyx, the shapes must be length 3.'
      )
    if input_grid_size[0] != output_grid_size[0]:
      raise ValueError('converting frame count is not supported.')
  else:
    raise ValueError('Recognized coordinate formats are xy and tyx.')

  position_in_grid = coords
  position_in_grid = position_in_grid * output_grid_size / input_grid_size

  return position_in_grid


class TAPIRQueryFeatures(nn.Module):
  def __init__(self, dim=32):
    super().__init__()
    self.resnet_unit_1 = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
    self.resnet_unit_3 = nn.Sequential(nn.Conv2d(16, dim, 3, stride=2, padding=1), nn.ReLU())

  def forward(self, video: torch.Tensor, query_points: torch.Tensor):
    n, f, h, w, c = video.shape
    video_resize = video.view(n * f, h, w, c).permute(0, 3, 1, 2)
    u1 = self.resnet_unit_1(video_resize)
    u3 = self.resnet_unit_3(u1)
    latent = u3.permute(0, 2, 3, 1).detach()
    hires = u1.permute(0, 2, 3, 1).detach()
    latent = latent / torch.sqrt(
        torch.maximum(
            torch.sum(torch.square(latent), axis=-1, keepdims=True),
            torch.tensor(1e-12, device=latent.device),
        )
    )
    hires = hires / torch.sqrt(
        torch.maximum(
            torch.sum(torch.square(hires), axis=-1, keepdims=True),
            torch.tensor(1e-12, device=hires.device),
        )
    )
    feature_grid = latent[None, ...]
    hires_feats = hires[None, ...]

    shape = video.shape
    position_in_grid = convert_grid_coordinates(
        query_points,
        shape[1:4],
        feature_grid.shape[1:4],
        coordinate_format='tyx',
    )
    position_in_grid_hires = convert_grid_coordinates(
        query_points,
        shape[1:4],
        hires_feats.shape[1:4],
        coordinate_format='tyx',
    )
    interp_features = map_coordinates_3d(feature_grid, position_in_grid)
    hires_interp = map_coordinates_3d(hires_feats, position_in_grid_hires)
    return interp_features, hires_interp


def make_model():
  return TAPIRQueryFeatures().eval()


def _inputs(t, h, w, num_points):
  video = torch.rand(1, t, h, w, 3) * 2 - 1
  query_points = torch.rand(1, num_points, 3) * torch.tensor([t - 1, h - 1, w - 1])
  return (video, query_points)


def example_inputs():
  return _inputs(6, 64, 96, 10)


def other_inputs():
  return [_inputs(9, 96, 64, 7), _inputs(4, 128, 128, 16)]


def probe_inputs():
  return other_inputs()
