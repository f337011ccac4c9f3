"""AtmoRep (ERA5 atmospheric foundation model): `prepare_token` embeds the space-time token grid and adds
`positional_encoding_harmonic`, which sizes its index range with `torch.arange(np.prod(x.shape[1:-1]))` and
divides by `np.prod(num_tokens)` (NumPy products of tensor shapes); the PR making torch.compile (dynamic=True)
work replaced both with torch ops on the shapes. `x.get_device()` is read as `x.device` here so that it runs on CPU.

Source: https://github.com/clessig/atmorep/pull/82
"""
import numpy as np
import torch

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {
    "token_seq": {0: "batch", 3: "lat_tokens", 4: "lon_tokens"},
    "token_info": {0: "batch", 3: "lat_tokens", 4: "lon_tokens"},
}
BLIND = "domains-40"


def positional_encoding_harmonic(x, num_levels, num_tokens, with_cls=False):
  '''space time harmonic positional encoding'''

  dim_embed = x.shape[-1]
  dev = x.device

  idx = torch.arange( np.prod( x.shape[1:-1]), device=dev)
  num_tokens_t_lat_lon = np.prod( num_tokens)
  num_tokens_lat_lon = num_tokens[1] * num_tokens[2]
  idxs_v = (idx / num_tokens_t_lat_lon).int()
  temp = torch.remainder( idx, num_tokens_t_lat_lon)
  idxs_t = (temp / num_tokens_lat_lon).int()
  temp = torch.remainder( idx, num_tokens_lat_lon)
  idxs_lat = (temp / num_tokens[1]).int()
  idxs_lon = torch.remainder( temp, num_tokens[2])

  pe = torch.zeros( idx.shape[0], dim_embed, device=dev)
  xs = (2. * np.pi *  torch.arange( 0, dim_embed, 2, device=dev) / dim_embed)
  pe[:, 0::2] = 0.5 * torch.sin( torch.outer( 8 * idxs_lat, xs) ) \
                  + torch.sin( torch.outer( idxs_t, xs) )
  pe[:, 1::2] = 0.5 * torch.cos( torch.outer( 8 * idxs_lon, xs) ) \
                  + torch.cos( torch.outer( idxs_v , xs) )
  if with_cls :
    x[:,1:] += pe.reshape( x[0,1:].shape)
  else :
    x += pe.reshape( x[0].shape)

  return x


def prepare_token(xin, embed, embed_token_info):

  (token_seq, token_info) = xin
  num_tokens = token_seq.shape[-6:-3]
  num_levels = token_seq.shape[1]

  # embedding, flatten along token dimension and spatial dimensions
  token_seq_embed = embed( torch.flatten( torch.flatten( token_seq, -3, -1), -3, -2) )

  # add auxiliary, global token information
  token_info = embed_token_info( token_info).to( token_seq_embed.device, non_blocking=True )
  token_info = token_info.reshape([-1] + list(token_seq_embed.shape[1:-1])+[token_info.shape[-1]])
  token_seq_embed = torch.cat( [token_seq_embed, token_info], -1)

  # add positional encoding
  token_seq_embed = positional_encoding_harmonic( token_seq_embed, num_levels, num_tokens)

  return token_seq_embed


class AtmoRepFieldEmbed(torch.nn.Module):
  def __init__(self, token_size=(3, 4, 4), dim_embed=32, size_token_info=8, size_token_info_net=16):
    super().__init__()
    self.embed = torch.nn.Linear(int(np.prod(token_size)), dim_embed - size_token_info_net)
    self.embed_token_info = torch.nn.Linear(size_token_info, size_token_info_net)
    self.head = torch.nn.Linear(dim_embed, dim_embed)

  def forward(self, token_seq, token_info):
    fields_embed = prepare_token((token_seq, token_info), self.embed, self.embed_token_info)
    return self.head(fields_embed)


def make_model():
  return AtmoRepFieldEmbed()


def _sample(batch, lat, lon, levels=2, time=3):
  token_seq = torch.randn(batch, levels, time, lat, lon, 3, 4, 4)
  token_info = torch.rand(batch, levels, time, lat, lon, 8)
  return (token_seq, token_info)


def example_inputs():
  return _sample(2, 3, 5)


def other_inputs():
  return [_sample(3, 4, 6), _sample(1, 2, 7)]


def probe_inputs():
  return other_inputs()
