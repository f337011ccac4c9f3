"""O-CNN octree convolution (ocnn-pytorch 2.2, as used by Pointcept's octree backbones): OctreeConv's default
block-GEMM path runs through the Python `torch.autograd.Function` OctreeConvFunction, whose forward sizes its
buffers from the octree's int32 node-count tensors (`octree.nnum_nempty[depth]`) and fills them with a masked
gather over the neighbour table; exporting it fails with "ONNX export failed: Couldn't export Python operator
OctreeConvFunction". The octree build is trimmed: its neighbour/child tables are passed in.

Source: https://github.com/octree-nn/ocnn-pytorch/issues/46
"""
import math
from typing import List

import torch
import torch.nn
from torch.autograd import Function

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"feat": {0: "nempty_nodes"}, "neigh": {0: "nodes"}, "child": {0: "nodes"}}
BLIND = "domains-59"


class Octree:
  def __init__(self, depth: int, full_depth: int = 2, batch_size: int = 1, device='cpu'):
    self.depth = depth
    self.full_depth = full_depth
    self.batch_size = batch_size
    self.device = device
    num = self.depth + 1
    self.neighs = [None] * num
    self.children = [None] * num
    self.nnum = torch.zeros(num, dtype=torch.int32)
    self.nnum_nempty = torch.zeros(num, dtype=torch.int32)

  def get_neigh(self, depth: int, kernel: str = '333', stride: int = 1, nempty: bool = False):
    neigh = self.neighs[depth]
    if nempty:
      child = self.children[depth]
      if stride == 1:
        nempty_node = child >= 0
        neigh = neigh[nempty_node]
      valid = neigh >= 0
      neigh[valid] = child[neigh[valid]].long()  # remap the index
    return neigh


def resize_with_last_val(list_in: list, num: int = 3):
  assert (type(list_in) is list and len(list_in) < num + 1)
  for _ in range(len(list_in), num):
    list_in.append(list_in[-1])
  return list_in


class _OctreeConv:
  def __init__(self, in_channels, out_channels, kernel_size=[3], stride=1, nempty=False, max_buffer=int(2e8)):
    self.in_channels = in_channels
    self.out_channels = out_channels
    self.kernel_size = resize_with_last_val(kernel_size)
    self.kernel = ''.join([str(x) for x in self.kernel_size])
    self.stride = stride
    self.nempty = nempty
    self.max_buffer = max_buffer
    self.kdim = self.kernel_size[0] * self.kernel_size[1] * self.kernel_size[2]
    self.in_conv = in_channels
    self.out_conv = out_channels
    self.weights_shape = (self.kdim, self.in_conv, self.out_conv)

  def setup(self, octree: Octree, depth: int):
    self.in_depth = depth
    self.out_depth = depth
    self.neigh_depth = depth
    if self.nempty:
      self.in_h = octree.nnum_nempty[self.in_depth]
      self.out_h = octree.nnum_nempty[self.out_depth]
    else:
      self.in_h = octree.nnum[self.in_depth]
      self.out_h = octree.nnum[self.out_depth]
    self.in_shape = (self.in_h, self.in_channels)
    self.out_shape = (self.out_h, self.out_channels)

    self.neigh = octree.get_neigh(self.neigh_depth, self.kernel, self.stride, self.nempty)

    self.buffer_n = 1
    self.buffer_h = self.neigh.shape[0]
    ideal_size = self.buffer_h * self.kdim * self.in_conv
    if ideal_size > self.max_buffer:
      kc = self.kdim * self.in_conv
      max_buffer = self.max_buffer // kc * kc
      self.buffer_n = (ideal_size + max_buffer - 1) // max_buffer
      self.buffer_h = (self.buffer_h + self.buffer_n - 1) // self.buffer_n
    self.buffer_shape = (self.buffer_h, self.kdim, self.in_conv)

  def check_and_init(self, data: torch.Tensor):
    check = tuple(data.shape) == self.in_shape
    assert check, 'The shape of input data is wrong.'
    out = data.new_zeros(self.out_shape)
    return out

  def forward_gemm(self, out: torch.Tensor, data: torch.Tensor, weights: torch.Tensor):
    buffer = data.new_empty(self.buffer_shape)
    for i in range(self.buffer_n):
      start = i * self.buffer_h
      end = (i + 1) * self.buffer_h
      if end > self.neigh.shape[0]:
        dis = end - self.neigh.shape[0]
        end = self.neigh.shape[0]
        buffer, _ = buffer.split([self.buffer_h-dis, dis])
      neigh_i = self.neigh[start:end]
      valid = neigh_i >= 0
      buffer.fill_(0)
      buffer[valid] = data[neigh_i[valid]]
      out[start:end] = torch.mm(buffer.flatten(1, 2), weights.flatten(0, 1))
    return out


class OctreeConvFunction(Function):
  @staticmethod
  def forward(ctx, data: torch.Tensor, weights: torch.Tensor, octree: Octree,
              depth: int, in_channels: int, out_channels: int,
              kernel_size: List[int] = [3, 3, 3], stride: int = 1,
              nempty: bool = False, max_buffer: int = int(2e8)):
    octree_conv = _OctreeConv(in_channels, out_channels, kernel_size, stride, nempty, max_buffer)
    octree_conv.setup(octree, depth)
    out = octree_conv.check_and_init(data)
    out = octree_conv.forward_gemm(out, data, weights)
    ctx.save_for_backward(data, weights)
    return out

  @staticmethod
  def backward(ctx, grad):
    raise NotImplementedError


octree_conv = OctreeConvFunction.apply


class OctreeConv(torch.nn.Module):
  def __init__(self, in_channels: int, out_channels: int, kernel_size: List[int] = [3], stride: int = 1,
               nempty: bool = False, use_bias: bool = False, max_buffer: int = int(2e8)):
    super().__init__()
    self.in_channels = in_channels
    self.out_channels = out_channels
    self.kernel_size = resize_with_last_val(kernel_size)
    self.stride = stride
    self.nempty = nempty
    self.max_buffer = max_buffer
    kdim = self.kernel_size[0] * self.kernel_size[1] * self.kernel_size[2]
    self.use_bias = use_bias
    self.weights = torch.nn.Parameter(torch.Tensor(kdim, in_channels, out_channels))
    if self.use_bias:
      self.bias = torch.nn.Parameter(torch.Tensor(out_channels))
    a = math.sqrt(3.0) * math.sqrt(2.0 / float(kdim * in_channels + kdim * out_channels))
    torch.nn.init.uniform_(self.weights, -a, a)
    if self.use_bias:
      torch.nn.init.zeros_(self.bias)

  def forward(self, data: torch.Tensor, octree: Octree, depth: int):
    out = octree_conv(
        data, self.weights, octree, depth, self.in_channels,
        self.out_channels, self.kernel_size, self.stride, self.nempty,
        self.max_buffer)
    if self.use_bias:
      out += self.bias
    return out


class MyModel(torch.nn.Module):
  def __init__(self, depth: int = 4):
    super().__init__()
    self.depth = depth
    self.model = OctreeConv(8, 8, kernel_size=[3], stride=1, nempty=True, use_bias=True)

  def forward(self, feat, neigh, child):
    # octreelization (trimmed): the octree tables of the finest depth
    octree = Octree(self.depth)
    octree.neighs[self.depth] = neigh
    octree.children[self.depth] = child
    octree.nnum[self.depth] = neigh.shape[0]
    octree.nnum_nempty[self.depth] = (child >= 0).sum()
    return self.model(feat, octree, self.depth)


def make_model():
  return MyModel()


def _inputs(nodes, nempty):
  child = torch.full((nodes,), -1, dtype=torch.long)
  idx = torch.randperm(nodes)[:nempty].sort().values
  child[idx] = torch.arange(nempty)
  neigh = torch.randint(-1, nodes, (nodes, 27))
  neigh[:, 13] = torch.arange(nodes)
  return (torch.randn(nempty, 8), neigh, child)


def example_inputs():
  return _inputs(64, 40)


def other_inputs():
  return [_inputs(96, 53), _inputs(40, 17)]


def probe_inputs():
  return other_inputs()
