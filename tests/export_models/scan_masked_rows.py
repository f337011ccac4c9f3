"""LaneATT's anchor cut: a loop over the batch gathers each image's anchor features by index
tensors the model builds in __init__, zeroes the invalid ones with a bool mask written in place,
and writes each result into its row of a zeros buffer. torch.export unrolls the loop at the
example's batch; ONX603's scan takes the loop under export, the masked write made a new tensor
in the step (`_onnx_masked_write`)."""
import torch
from torch import nn


class AnchorCut(nn.Module):
    def __init__(self, n_fmaps=3, fmap_h=4, fmap_w=5, n_proposals=6):
        super().__init__()
        self.fmap_h, self.n_proposals = fmap_h, n_proposals
        self.cut_zs, self.cut_ys, self.cut_xs, self.invalid_mask = self.compute_cut_indices(
            n_fmaps, fmap_h, fmap_w, n_proposals)

    @staticmethod
    def compute_cut_indices(n_fmaps, fmap_h, fmap_w, n_proposals):
        g = torch.Generator().manual_seed(0)
        xs = torch.randint(-2, fmap_w + 2, (n_proposals, fmap_h), generator=g)
        invalid = ((xs < 0) | (xs >= fmap_w))[:, None, :, None].expand(n_proposals, n_fmaps, fmap_h, 1)
        zs = torch.arange(n_fmaps).repeat_interleave(fmap_h).repeat(n_proposals)[:, None]
        ys = torch.arange(fmap_h).repeat(n_fmaps * n_proposals)[:, None]
        cut_xs = xs.clamp(0, fmap_w - 1)[:, None, :].expand(n_proposals, n_fmaps, fmap_h).reshape(-1, 1)
        return zs, ys, cut_xs, invalid

    def forward(self, features):
        batch_size, n_fmaps = features.shape[0], features.shape[1]
        out = torch.zeros((batch_size, self.n_proposals, n_fmaps, self.fmap_h, 1), device=features.device)
        for batch_idx, img_features in enumerate(features):
            rois = img_features[self.cut_zs, self.cut_ys, self.cut_xs].view(self.n_proposals, n_fmaps, self.fmap_h, 1)
            rois[self.invalid_mask] = 0
            out[batch_idx] = rois
        return out.flatten(1) * 2


def make_model():
    return AnchorCut().eval()


def _features(batch, seed):
    return (torch.randn(batch, 3, 4, 5, generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _features(2, 0)


def probe_inputs():
    return [_features(3, 1), _features(1, 2)]
