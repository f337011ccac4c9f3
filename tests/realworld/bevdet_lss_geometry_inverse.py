"""BEVDet's Lift-Splat-Shoot view transformer maps the camera frustum to ego coordinates in `get_geometry`,
undoing the image augmentation with `torch.inverse(post_rots)` and the intrinsics with `torch.inverse(intrins)`;
"Exporting the operator 'aten::linalg_inv' to ONNX opset version 17 is not supported".

Source: https://github.com/HuangJunJie2017/BEVDet/issues/369
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "rots": {0: "batch"},
    "trans": {0: "batch"},
    "intrins": {0: "batch"},
    "post_rots": {0: "batch"},
    "post_trans": {0: "batch"},
}
BLIND = "operators-2"


class ViewTransformerGeometry(nn.Module):
    def __init__(self, grid_config=None, data_config=None, downsample=16):
        super(ViewTransformerGeometry, self).__init__()
        if grid_config is None:
            grid_config = {
                'xbound': [-51.2, 51.2, 0.8],
                'ybound': [-51.2, 51.2, 0.8],
                'zbound': [-10.0, 10.0, 20.0],
                'dbound': [1.0, 10.0, 1.0],}
        self.grid_config = grid_config
        if data_config is None:
            data_config = {'input_size': (64, 96)}
        self.data_config = data_config
        self.downsample = downsample
        self.frustum = self.create_frustum()
        self.D, _, _, _ = self.frustum.shape

    def create_frustum(self):
        # make grid in image plane
        ogfH, ogfW = self.data_config['input_size']
        fH, fW = ogfH // self.downsample, ogfW // self.downsample
        ds = torch.arange(*self.grid_config['dbound'], dtype=torch.float).view(-1, 1, 1).expand(-1, fH, fW)
        D, _, _ = ds.shape
        xs = torch.linspace(0, ogfW - 1, fW, dtype=torch.float).view(1, 1, fW).expand(D, fH, fW)
        ys = torch.linspace(0, ogfH - 1, fH, dtype=torch.float).view(1, fH, 1).expand(D, fH, fW)

        # D x H x W x 3
        frustum = torch.stack((xs, ys, ds), -1)
        return nn.Parameter(frustum, requires_grad=False)

    def get_geometry(self, rots, trans, intrins, post_rots, post_trans, offset=None):
        """Determine the (x,y,z) locations (in the ego frame)
        of the points in the point cloud.
        Returns B x N x D x H/downsample x W/downsample x 3
        """
        B, N, _ = trans.shape

        # undo post-transformation
        # B x N x D x H x W x 3
        points = self.frustum - post_trans.view(B, N, 1, 1, 1, 3)
        points = torch.inverse(post_rots).view(B, N, 1, 1, 1, 3, 3).matmul(points.unsqueeze(-1))

        # cam_to_ego
        points = torch.cat((points[:, :, :, :, :, :2] * points[:, :, :, :, :, 2:3],
                            points[:, :, :, :, :, 2:3]
                            ), 5)
        combine = rots.matmul(torch.inverse(intrins))
        points = combine.view(B, N, 1, 1, 1, 3, 3).matmul(points).squeeze(-1)
        points += trans.view(B, N, 1, 1, 1, 3)
        return points

    def forward(self, rots, trans, intrins, post_rots, post_trans):
        return self.get_geometry(rots, trans, intrins, post_rots, post_trans)


def make_model():
    return ViewTransformerGeometry().eval()


def _inputs(batch, n_cams=6):
    rots = torch.linalg.qr(torch.randn(batch, n_cams, 3, 3))[0]
    trans = torch.randn(batch, n_cams, 3)
    intrins = torch.tensor([[500.0, 0.0, 48.0], [0.0, 500.0, 32.0], [0.0, 0.0, 1.0]]).repeat(batch, n_cams, 1, 1)
    intrins = intrins + 0.1 * torch.rand(batch, n_cams, 3, 3)
    post_rots = torch.eye(3).repeat(batch, n_cams, 1, 1) * (0.8 + 0.4 * torch.rand(batch, n_cams, 1, 1))
    post_trans = torch.randn(batch, n_cams, 3)
    return (rots, trans, intrins, post_rots, post_trans)


def example_inputs():
    return _inputs(1)


def other_inputs():
    return [_inputs(2), _inputs(3)]


def probe_inputs():
    return other_inputs()
