"""Deep-Hough-style vote accumulator: a `@torch.jit.script_if_tracing` helper takes `torch.nonzero(img)`,
sets `n_feat = idxs.size(dim=0)` and, only `if n_feat>0`, scatters the voted pixels into a zeros accumulator
with `torch.index_put(..., accumulate=True)`. The report traces it for conversion and the converted model
does not work at inference (the number of nonzero pixels, and whether there are any, depends on the image).

Source: https://github.com/apple/coremltools/issues/1678
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}  # the report traces a fixed (1, 10, 100, 100) image; the accumulator is a fixed-size zeros
BLIND = "domains-19"


@torch.jit.script_if_tracing
def accumulator_iteration(img: torch.Tensor, accum: torch.Tensor) -> torch.Tensor:
    idxs = torch.nonzero(img).reshape(-1, 4).long()
    n_idxs = idxs[:, 0]
    c_idxs = idxs[:, 1]
    y_idxs = idxs[:, 2]
    x_idxs = idxs[:, 3]
    n_feat = idxs.size(dim=0)

    if n_feat > 0:
        c = torch.ones((n_feat,)).long()
        d = torch.ones((n_feat,)).long()
        accum = torch.index_put(accum, indices=[n_idxs, c_idxs, c, d],
                                values=img[n_idxs, c_idxs, y_idxs, x_idxs],
                                accumulate=True)
    return accum


class Test(nn.Module):
    def __init__(self):
        super(Test, self).__init__()

    def forward(self, img):
        accum = torch.zeros((1, 10, 100, 100)).float()
        return accumulator_iteration(img, accum)


def make_model():
    return Test().eval()


def example_inputs():
    return (torch.relu(torch.randn(1, 10, 100, 100)),)


def other_inputs():
    # a sparser edge map, and an image with no edge pixels at all (the `n_feat > 0` branch is skipped)
    return [(torch.relu(torch.randn(1, 10, 100, 100) - 1.5),), (torch.zeros(1, 10, 100, 100),)]


def probe_inputs():
    return other_inputs()
