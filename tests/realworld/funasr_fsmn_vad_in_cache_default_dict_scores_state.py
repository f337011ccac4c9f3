"""FunASR FSMN-VAD, streaming scorer: `E2EVadModel.forward(feats, ..., in_cache=dict())` calls `ComputeScores`, which
runs the FSMN encoder with the `in_cache` dict (each `BasicBlock` creates `in_cache['cache_layer_i']` with
`torch.zeros(...)` on the first chunk and overwrites it with the last frames of every chunk, "self.in_cache will update
automatically") and appends the chunk's scores to `self.scores` with `torch.cat`. The ONNX export commit adds an
export copy of the FSMN encoder and of `E2EVadModel` that take the four caches as inputs and return them as outputs,
because the dict cache and the accumulated scores live in Python, not in the graph.

Source: https://github.com/modelscope/FunASR/commit/c776f8afc0c24dd687b14035b94808fd1a5d48bf
"""
from typing import Dict

import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"feats": {1: "frames"}}
BLIND = "domains-53"


class AffineTransform(nn.Module):

    def __init__(self, input_dim, output_dim):
        super(AffineTransform, self).__init__()
        self.linear = nn.Linear(input_dim, output_dim)

    def forward(self, input):
        return self.linear(input)


class FSMNBlock(nn.Module):

    def __init__(self, input_dim: int, output_dim: int, lorder=None, rorder=None, lstride=1, rstride=1):
        super(FSMNBlock, self).__init__()
        self.dim = input_dim
        self.lorder = lorder
        self.rorder = rorder
        self.lstride = lstride
        self.rstride = rstride
        self.conv_left = nn.Conv2d(
            self.dim, self.dim, [lorder, 1], dilation=[lstride, 1], groups=self.dim, bias=False)
        self.conv_right = None

    def forward(self, input: torch.Tensor, cache: torch.Tensor):
        x = torch.unsqueeze(input, 1)
        x_per = x.permute(0, 3, 2, 1)  # B D T C

        cache = cache.to(x_per.device)
        y_left = torch.cat((cache, x_per), dim=2)
        cache = y_left[:, :, -(self.lorder - 1) * self.lstride:, :]
        y_left = self.conv_left(y_left)
        out = x_per + y_left

        out_per = out.permute(0, 3, 2, 1)
        output = out_per.squeeze(1)

        return output, cache


class BasicBlock(nn.Sequential):
    def __init__(self, linear_dim, proj_dim, lorder, rorder, lstride, rstride, stack_layer):
        super(BasicBlock, self).__init__()
        self.lorder = lorder
        self.lstride = lstride
        self.stack_layer = stack_layer
        self.linear = nn.Linear(linear_dim, proj_dim, bias=False)
        self.fsmn_block = FSMNBlock(proj_dim, proj_dim, lorder, rorder, lstride, rstride)
        self.affine = AffineTransform(proj_dim, linear_dim)
        self.relu = nn.ReLU()

    def forward(self, input: torch.Tensor, in_cache: Dict[str, torch.Tensor]):
        x1 = self.linear(input)  # B T D
        cache_layer_name = 'cache_layer_{}'.format(self.stack_layer)
        if cache_layer_name not in in_cache:
            in_cache[cache_layer_name] = torch.zeros(x1.shape[0], x1.shape[-1], (self.lorder - 1) * self.lstride, 1)
        x2, in_cache[cache_layer_name] = self.fsmn_block(x1, in_cache[cache_layer_name])
        x3 = self.affine(x2)
        x4 = self.relu(x3)
        return x4


class FsmnStack(nn.Sequential):
    def __init__(self, *args):
        super(FsmnStack, self).__init__(*args)

    def forward(self, input: torch.Tensor, in_cache: Dict[str, torch.Tensor]):
        x = input
        for module in self._modules.values():
            x = module(x, in_cache)
        return x


class FSMN(nn.Module):
    def __init__(self, input_dim=40, input_affine_dim=32, fsmn_layers=2, linear_dim=32, proj_dim=16,
                 lorder=5, rorder=0, lstride=1, rstride=0, output_affine_dim=32, output_dim=8):
        super(FSMN, self).__init__()
        self.in_linear1 = AffineTransform(input_dim, input_affine_dim)
        self.in_linear2 = AffineTransform(input_affine_dim, linear_dim)
        self.relu = nn.ReLU()
        self.fsmn = FsmnStack(*[BasicBlock(linear_dim, proj_dim, lorder, rorder, lstride, rstride, i) for i in
                                range(fsmn_layers)])
        self.out_linear1 = AffineTransform(linear_dim, output_affine_dim)
        self.out_linear2 = AffineTransform(output_affine_dim, output_dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, input: torch.Tensor, in_cache: Dict[str, torch.Tensor]) -> torch.Tensor:
        x1 = self.in_linear1(input)
        x2 = self.in_linear2(x1)
        x3 = self.relu(x2)
        x4 = self.fsmn(x3, in_cache)  # self.in_cache will update automatically in self.fsmn
        x5 = self.out_linear1(x4)
        x6 = self.out_linear2(x5)
        x7 = self.softmax(x6)
        return x7


class E2EVadModel(nn.Module):
    def __init__(self):
        super(E2EVadModel, self).__init__()
        self.encoder = FSMN()
        self.frm_cnt = 0
        self.scores = None

    def ComputeScores(self, feats: torch.Tensor, in_cache: Dict[str, torch.Tensor]) -> None:
        scores = self.encoder(feats, in_cache)  # return B * T * D
        assert scores.shape[1] == feats.shape[1], "The shape between feats and scores does not match"
        self.frm_cnt += scores.shape[1]  # count total frames
        if self.scores is None:
            self.scores = scores  # the first calculation
        else:
            self.scores = torch.cat((self.scores, scores), dim=1)

    def forward(self, feats: torch.Tensor, in_cache: Dict[str, torch.Tensor] = dict()):
        self.ComputeScores(feats, in_cache)
        # (the VAD state machine then walks self.scores frame by frame; trimmed)
        return self.scores


def make_model():
    return E2EVadModel().eval()


def example_inputs():
    return (torch.randn(1, 30, 40),)


def other_inputs():
    # streaming chunks of one utterance (the model only supports batch size 1)
    return [(torch.randn(1, 45, 40),), (torch.randn(1, 12, 40),)]


def probe_inputs():
    return other_inputs()
