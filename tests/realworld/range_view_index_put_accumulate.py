"""LiDAR range-view model that scatters per-point features into the flattened range image with
`index_put_((new_indicies,), values, accumulate=True)` (several points can fall in one pixel) and averages them;
after ONNX export the result is "the unaccumulated version" (onnxruntime keeps only one of the duplicates).

Source: https://github.com/pytorch/pytorch/issues/39227
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {2: "num_points"}, "proj_x": {0: "num_points"}, "proj_y": {0: "num_points"}}
BLIND = "operators-2"


class Model(nn.Module):
    def __init__(self, channels=4, height=16, width=64):
        super(Model, self).__init__()
        self.register_buffer("img", torch.zeros(channels, height, width))

    def compute_divide(self, x, img, proj_x, proj_y):

        desired_channel = img.size(0)
        len_indices = proj_x.size(0)

        x = x.squeeze(0)

        fast_idx = torch.arange(desired_channel).unsqueeze(1).expand(desired_channel, len_indices).transpose(1,
                                                                    0).flatten()

        y_max = img.size(1)
        x_max = img.size(2)

        unet_rv_img_orig_flat = img.flatten()

        proj_x_ex = proj_x.unsqueeze(1).expand(len_indices, desired_channel).flatten()
        proj_y_ex = proj_y.unsqueeze(1).expand(len_indices, desired_channel).flatten()

        new_indicies = (fast_idx * x_max * y_max) + (proj_y_ex * x_max) + proj_x_ex

        values = x.transpose(1, 0).flatten()
        out = unet_rv_img_orig_flat.clone().index_put_((new_indicies,), values, accumulate=True)
        count = torch.zeros_like(unet_rv_img_orig_flat).index_put_(
            (new_indicies,), torch.ones_like(values), accumulate=True)
        out = out / count.clamp(min=1)
        return out.view(desired_channel, y_max, x_max)

    def forward(self, x, proj_x, proj_y):
        return self.compute_divide(x, self.img, proj_x, proj_y)


def make_model():
    return Model()


def _inputs(n):
    x = torch.randn(1, 4, n)
    proj_x = torch.randint(0, 64, (n,))
    proj_y = torch.randint(0, 16, (n,))
    # several points project to the same pixel
    proj_x[1::3] = proj_x[0::3][: proj_x[1::3].numel()]
    proj_y[1::3] = proj_y[0::3][: proj_y[1::3].numel()]
    return (x, proj_x, proj_y)


def example_inputs():
    return _inputs(50)


def other_inputs():
    return [_inputs(120), _inputs(17)]


def probe_inputs():
    return other_inputs()
