"""PolarNet (PolarSeg) LiDAR segmentation: the BEV encoder takes a point cloud of any size N, groups the
points by grid cell with `torch.unique(cat_pt_ind, return_inverse=True, return_counts=True, dim=0)`, caps
each cell at `max_pt` points with `grp_range_torch` (`torch.ones(idx[-1], ...)`, a size read from a tensor
value), max-pools per cell (torch_scatter.scatter_max) and scatters the result into the BEV grid; the
maintainer answers that the random input size and the scatter max pooling are what stands in the way of
the ONNX conversion. Training-time point shuffling trimmed; scatter_max copied as its scatter_reduce form.

Source: https://github.com/edwardzhou130/PolarSeg/issues/21
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pt_fea": {0: "num_points"}, "xy_ind": {0: "num_points"}}
BLIND = "domains-17"


def scatter_max(src, index, dim=0):
    # torch_scatter.scatter_max(src, index, dim=0)[0] for the non-empty groups that torch.unique produces
    dim_size = int(index.max()) + 1
    size = list(src.size())
    size[dim] = dim_size
    index = index.view(-1, 1).expand_as(src)
    out = src.new_full(size, float("-inf")).scatter_reduce(dim, index, src, reduce="amax", include_self=True)
    return (out,)


def grp_range_torch(a, dev):
    idx = torch.cumsum(a, 0)
    id_arr = torch.ones(idx[-1], dtype=torch.int64, device=dev)
    id_arr[0] = 0
    id_arr[idx[:-1]] = -a[:-1] + 1
    return torch.cumsum(id_arr, 0)


class ptBEVnet(nn.Module):
    def __init__(self, BEV_net, grid_size, fea_dim=3, kernal_size=3, out_pt_fea_dim=16, max_pt_per_encode=4):
        super().__init__()
        self.PPmodel = nn.Sequential(
            nn.BatchNorm1d(fea_dim),
            nn.Linear(fea_dim, 32),
            nn.BatchNorm1d(32),
            nn.ReLU(inplace=True),
            nn.Linear(32, out_pt_fea_dim),
        )
        self.BEV_model = BEV_net
        self.max_pt = max_pt_per_encode
        self.pt_selection = "random"
        self.grid_size = grid_size
        self.local_pool_op = torch.nn.MaxPool2d(kernal_size, stride=1, padding=(kernal_size - 1) // 2, dilation=1)
        self.pt_fea_dim = out_pt_fea_dim

    def forward(self, pt_fea, xy_ind, voxel_fea=None):
        cur_dev = pt_fea[0].device

        # concate everything
        cat_pt_ind = []
        for i_batch in range(len(xy_ind)):
            cat_pt_ind.append(F.pad(xy_ind[i_batch], (1, 0), "constant", value=i_batch))

        cat_pt_fea = torch.cat(pt_fea, dim=0)
        cat_pt_ind = torch.cat(cat_pt_ind, dim=0)
        pt_num = cat_pt_ind.shape[0]

        # unique xy grid index
        unq, unq_inv, unq_cnt = torch.unique(cat_pt_ind, return_inverse=True, return_counts=True, dim=0)
        unq = unq.type(torch.int64)

        # subsample pts
        if self.pt_selection == "random":
            grp_ind = grp_range_torch(unq_cnt, cur_dev)[torch.argsort(torch.argsort(unq_inv))]
            remain_ind = grp_ind < self.max_pt

        cat_pt_fea = cat_pt_fea[remain_ind, :]
        cat_pt_ind = cat_pt_ind[remain_ind, :]
        unq_inv = unq_inv[remain_ind]
        unq_cnt = torch.clamp(unq_cnt, max=self.max_pt)

        # process feature
        processed_cat_pt_fea = self.PPmodel(cat_pt_fea)
        pooled_data = scatter_max(processed_cat_pt_fea, unq_inv, dim=0)[0]
        processed_pooled_data = pooled_data

        # stuff pooled data into 4D tensor
        out_data_dim = [len(pt_fea), self.grid_size[0], self.grid_size[1], self.pt_fea_dim]
        out_data = torch.zeros(out_data_dim, dtype=torch.float32).to(cur_dev)
        out_data[unq[:, 0], unq[:, 1], unq[:, 2], :] = processed_pooled_data
        out_data = out_data.permute(0, 3, 1, 2)
        if self.local_pool_op != None:
            out_data = self.local_pool_op(out_data)

        # run through network
        net_return_data = self.BEV_model(out_data)
        return net_return_data


class PolarNetExport(nn.Module):
    """One scan per call: the exported graph takes the point features and their polar grid indices."""

    def __init__(self, grid_size=(16, 12)):
        super().__init__()
        bev = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 5, 1))
        self.net = ptBEVnet(bev, grid_size)

    def forward(self, pt_fea, xy_ind):
        return self.net([pt_fea], [xy_ind])


def _scan(n, grid=(16, 12)):
    xy = torch.stack([torch.randint(0, grid[0], (n,)), torch.randint(0, grid[1], (n,))], 1)
    return torch.randn(n, 3), xy


def make_model():
    return PolarNetExport().eval()


def example_inputs():
    return _scan(400)


def other_inputs():
    return [_scan(900), _scan(150)]


def probe_inputs():
    return other_inputs()
