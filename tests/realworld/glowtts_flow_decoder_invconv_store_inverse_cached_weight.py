"""Glow-TTS flow decoder run in reverse (inference): each InvConvNear layer caches
`self.weight_inv = torch.inverse(self.weight...)` as a plain tensor attribute after `store_inverse()`;
tracing the flow fails with "Cannot insert a Tensor that requires grad as a constant" at
`weight = weight.view(self.n_split, self.n_split, 1, 1)`, and the report says ONNX conversion of the
normalizing flows does not work out of the box.

Source: https://github.com/jaywalnut310/glow-tts/issues/39
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "frames"}, "x_mask": {0: "batch", 2: "frames"}}
BLIND = "domains-74"


class ActNorm(nn.Module):
  def __init__(self, channels, ddi=False, **kwargs):
    super().__init__()
    self.channels = channels
    self.initialized = not ddi
    self.logs = nn.Parameter(torch.randn(1, channels, 1) * 0.1)
    self.bias = nn.Parameter(torch.randn(1, channels, 1) * 0.1)

  def forward(self, x, x_mask=None, reverse=False, **kwargs):
    if x_mask is None:
      x_mask = torch.ones(x.size(0), 1, x.size(2)).to(device=x.device, dtype=x.dtype)
    x_len = torch.sum(x_mask, [1, 2])
    if reverse:
      z = (x - self.bias) * torch.exp(-self.logs) * x_mask
      logdet = None
    else:
      z = (self.bias + torch.exp(self.logs) * x) * x_mask
      logdet = torch.sum(self.logs) * x_len # [b]
    return z, logdet

  def store_inverse(self):
    pass


class InvConvNear(nn.Module):
  def __init__(self, channels, n_split=4, no_jacobian=False, **kwargs):
    super().__init__()
    assert(n_split % 2 == 0)
    self.channels = channels
    self.n_split = n_split
    self.no_jacobian = no_jacobian

    w_init = torch.qr(torch.FloatTensor(self.n_split, self.n_split).normal_())[0]
    if torch.det(w_init) < 0:
      w_init[:,0] = -1 * w_init[:,0]
    self.weight = nn.Parameter(w_init)

  def forward(self, x, x_mask=None, reverse=False, **kwargs):
    b, c, t = x.size()
    assert(c % self.n_split == 0)
    if x_mask is None:
      x_mask = 1
      x_len = torch.ones((b,), dtype=x.dtype, device=x.device) * t
    else:
      x_len = torch.sum(x_mask, [1, 2])

    x = x.view(b, 2, c // self.n_split, self.n_split // 2, t)
    x = x.permute(0, 1, 3, 2, 4).contiguous().view(b, self.n_split, c // self.n_split, t)

    if reverse:
      if hasattr(self, "weight_inv"):
        weight = self.weight_inv
      else:
        weight = torch.inverse(self.weight.float()).to(dtype=self.weight.dtype)
      logdet = None
    else:
      weight = self.weight
      if self.no_jacobian:
        logdet = 0
      else:
        logdet = torch.logdet(self.weight) * (c / self.n_split) * x_len # [b]

    weight = weight.view(self.n_split, self.n_split, 1, 1)
    z = F.conv2d(x, weight)

    z = z.view(b, 2, self.n_split // 2, c // self.n_split, t)
    z = z.permute(0, 1, 3, 2, 4).contiguous().view(b, c, t) * x_mask
    return z, logdet

  def store_inverse(self):
    self.weight_inv = torch.inverse(self.weight.float()).to(dtype=self.weight.dtype)


class FlowSpecDecoder(nn.Module):
  def __init__(self, in_channels=8, n_blocks=3, n_split=4):
    super().__init__()
    self.flows = nn.ModuleList()
    for b in range(n_blocks):
      self.flows.append(ActNorm(channels=in_channels))
      self.flows.append(InvConvNear(channels=in_channels, n_split=n_split))

  def forward(self, x, x_mask, g=None, reverse=True):
    if not reverse:
      flows = self.flows
      logdet_tot = 0
    else:
      flows = reversed(self.flows)
      logdet_tot = None
    for f in flows:
      if not reverse:
        x, logdet = f(x, x_mask, g=g, reverse=reverse)
        logdet_tot += logdet
      else:
        x, logdet = f(x, x_mask, g=g, reverse=reverse)
    return x

  def store_inverse(self):
    for f in self.flows:
      f.store_inverse()


def make_model():
  model = FlowSpecDecoder().eval()
  model.store_inverse()  # as in glow-tts inference: model.decoder.store_inverse()
  return model


def _inputs(b, t):
  lengths = torch.randint(t // 2, t + 1, (b,))
  lengths[0] = t
  x_mask = (torch.arange(t)[None, :] < lengths[:, None]).unsqueeze(1).float()
  return (torch.randn(b, 8, t) * x_mask, x_mask)


def example_inputs():
  return _inputs(2, 30)


def other_inputs():
  return [_inputs(3, 41), _inputs(1, 17)]


def probe_inputs():
  return other_inputs()
