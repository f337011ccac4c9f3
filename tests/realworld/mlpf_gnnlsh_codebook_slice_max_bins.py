"""CMS MLPF GNN-LSH particle-flow model: the LSH message-building layer derives the number of bins
from the element count with Python ints (`n_points % self.bin_size`, `max(1, n_bins // 2)` to slice the
random-rotation codebook) and `reverse_lsh` loops `for ibatch in range(batch_dim)`; ONNX export with dynamic
`num_batch`/`num_elements` axes broke, fixed upstream "by using symbolic shapes" (n_bins as a tensor).

Source: https://github.com/jpata/particleflow/pull/477
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"X_features": {0: "num_batch", 1: "num_elements"}, "mask": {0: "num_batch", 1: "num_elements"}}
BLIND = "domains-12"


def point_wise_feed_forward_network(d_in, d_hidden, d_out, num_layers=1, activation="ELU", dropout=0.0):
    layers = []
    layers.append(nn.Linear(d_in, d_hidden))
    layers.append(getattr(nn, activation)())
    for ilayer in range(num_layers - 1):
        layers.append(nn.Linear(d_hidden, d_hidden))
        layers.append(getattr(nn, activation)())
    layers.append(nn.Linear(d_hidden, d_out))
    return nn.Sequential(*layers)


def split_indices_to_bins_batch(cmul, nbins, bin_size, msk, stable_sort=False):
    a = torch.argmax(cmul, axis=-1)
    b = torch.zeros(msk.shape, dtype=torch.int64, device=cmul.device)
    b[~msk.to(torch.bool)] = nbins - 1
    bin_idx = a + b
    if stable_sort:
        bins_split = torch.argsort(bin_idx, stable=True)
    else:
        bins_split = torch.argsort(bin_idx)
    bins_split = bins_split.reshape((cmul.shape[0], nbins, bin_size))
    return bins_split


def pairwise_l2_dist(A, B):
    A_fp32 = A.to(torch.float32)
    B_fp32 = B.to(torch.float32)
    na = torch.sum(torch.square(A_fp32), -1)
    nb = torch.sum(torch.square(B_fp32), -1)
    na = torch.unsqueeze(na, -1)
    nb = torch.unsqueeze(nb, -2)
    D = torch.sqrt(torch.clip(na - 2 * torch.matmul(A_fp32, torch.transpose(B_fp32, -1, -2)) + nb, 1e-6, 1e6))
    return D.to(A.dtype)


class GHConvDense(nn.Module):
    def __init__(self, *args, **kwargs):
        self.activation = getattr(nn.functional, kwargs.pop("activation"))
        self.output_dim = kwargs.pop("output_dim")
        self.hidden_dim = kwargs.pop("hidden_dim")
        super(GHConvDense, self).__init__(*args, **kwargs)
        self.W_t = torch.nn.Parameter(data=torch.randn(self.hidden_dim, self.output_dim), requires_grad=True)
        self.b_t = torch.nn.Parameter(data=torch.randn(self.output_dim), requires_grad=True)
        self.W_h = torch.nn.Parameter(data=torch.randn(self.hidden_dim, self.output_dim), requires_grad=True)
        self.theta = torch.nn.Parameter(data=torch.randn(self.hidden_dim, self.output_dim), requires_grad=True)

    def forward(self, inputs):
        x, adj, msk = inputs
        adj = torch.squeeze(adj, axis=-1)
        f_hom = torch.linalg.matmul(x * msk, self.theta) * msk
        f_hom = torch.linalg.matmul(adj, f_hom)
        f_het = torch.linalg.matmul(x * msk, self.W_h)
        gate = torch.sigmoid(torch.linalg.matmul(x, self.W_t) + self.b_t)
        out = gate * f_hom + (1.0 - gate) * f_het
        return self.activation(out) * msk


class NodePairGaussianKernel(nn.Module):
    def __init__(self, **kwargs):
        self.clip_value_low = kwargs.pop("clip_value_low", 0.0)
        self.dist_mult = kwargs.pop("dist_mult", 0.1)
        self.dist_norm = pairwise_l2_dist
        super(NodePairGaussianKernel, self).__init__(**kwargs)

    def forward(self, x_msg_binned, msk, training=False):
        x = x_msg_binned * msk
        dm = torch.unsqueeze(self.dist_norm(x, x), axis=-1)
        dm = torch.exp(-self.dist_mult * dm)
        dm = torch.clip(dm, self.clip_value_low, 1)
        return dm


def split_msk_and_msg(bins_split, cmul, x_msg, x_node, msk, n_bins, bin_size):
    bins_split_2 = torch.reshape(bins_split, (bins_split.shape[0], bins_split.shape[1] * bins_split.shape[2]))

    bins_split_3 = torch.unsqueeze(bins_split_2, axis=-1).expand(bins_split_2.shape[0], bins_split_2.shape[1], x_msg.shape[-1])
    x_msg_binned = torch.gather(x_msg, 1, bins_split_3)
    x_msg_binned = torch.reshape(x_msg_binned, (cmul.shape[0], n_bins, bin_size, x_msg_binned.shape[-1]))

    bins_split_3 = torch.unsqueeze(bins_split_2, axis=-1).expand(bins_split_2.shape[0], bins_split_2.shape[1], x_node.shape[-1])
    x_features_binned = torch.gather(x_node, 1, bins_split_3)
    x_features_binned = torch.reshape(x_features_binned, (cmul.shape[0], n_bins, bin_size, x_features_binned.shape[-1]))

    msk_f_binned = torch.gather(msk, 1, bins_split_2)
    msk_f_binned = torch.reshape(msk_f_binned, (cmul.shape[0], n_bins, bin_size, 1))
    return x_msg_binned, x_features_binned, msk_f_binned


def reverse_lsh(bins_split, points_binned_enc):
    shp = points_binned_enc.shape
    batch_dim = shp[0]
    n_points = shp[1] * shp[2]
    n_features = shp[-1]

    bins_split_flat = torch.reshape(bins_split, (batch_dim, n_points))
    points_binned_enc_flat = torch.reshape(points_binned_enc, (batch_dim, n_points, n_features))

    ret = torch.zeros(batch_dim, n_points, n_features, device=points_binned_enc.device, dtype=points_binned_enc.dtype)
    for ibatch in range(batch_dim):
        ret[ibatch][bins_split_flat[ibatch]] = points_binned_enc_flat[ibatch]
    return ret


class MessageBuildingLayerLSH(nn.Module):
    def __init__(self, distance_dim=128, max_num_bins=200, bin_size=128, kernel=NodePairGaussianKernel(), **kwargs):
        super(MessageBuildingLayerLSH, self).__init__(**kwargs)
        self.distance_dim = distance_dim
        self.max_num_bins = max_num_bins
        self.bin_size = bin_size
        self.kernel = kernel
        self.stable_sort = False
        self.codebook_random_rotations = nn.Parameter(
            torch.randn(self.distance_dim, self.max_num_bins // 2),
            requires_grad=False,
        )

    def forward(self, x_msg, x_node, msk, training=False):
        shp = x_msg.shape
        n_points = shp[1]

        if n_points % self.bin_size != 0:
            raise Exception("Number of elements per event must be exactly divisible by the bin size")

        # compute the number of LSH bins to divide the input points into on the fly
        n_bins = n_points // self.bin_size

        # Use ONNX-friendly operations for codebook slicing
        codebook_slice = max(1, n_bins // 2)
        mul = torch.linalg.matmul(x_msg.float(), self.codebook_random_rotations[:, :codebook_slice].float())
        cmul = torch.concatenate([mul.to(x_msg.dtype), -mul.to(x_msg.dtype)], axis=-1)
        bins_split = split_indices_to_bins_batch(cmul, n_bins, self.bin_size, msk, self.stable_sort)

        x_msg_binned, x_features_binned, msk_f_binned = split_msk_and_msg(bins_split, cmul, x_msg, x_node, msk, n_bins, self.bin_size)
        dm = self.kernel(x_msg_binned, msk_f_binned, training=training)

        msk_f_binned_squeeze = torch.squeeze(msk_f_binned, axis=-1)
        shp_dm = dm.shape
        rshp_row = [shp_dm[0], shp_dm[1], shp_dm[2], 1, 1]
        rshp_col = [shp_dm[0], shp_dm[1], 1, shp_dm[3], 1]
        msk_row = torch.reshape(msk_f_binned_squeeze, rshp_row).to(dm.dtype)
        msk_col = torch.reshape(msk_f_binned_squeeze, rshp_col).to(dm.dtype)
        dm = torch.multiply(dm, msk_row)
        dm = torch.multiply(dm, msk_col)
        return bins_split, x_features_binned, dm, msk_f_binned


class CombinedGraphLayer(nn.Module):
    def __init__(self, inout_dim=32, max_num_bins=8, bin_size=16, distance_dim=16, num_node_messages=1):
        super().__init__()
        self.layernorm1 = torch.nn.LayerNorm(inout_dim, eps=1e-6)
        self.ffn_dist = point_wise_feed_forward_network(inout_dim, 32, distance_dim, num_layers=2)
        self.dist_activation = torch.nn.functional.elu
        self.message_building_layer = MessageBuildingLayerLSH(
            distance_dim=distance_dim, max_num_bins=max_num_bins, bin_size=bin_size, kernel=NodePairGaussianKernel())
        self.message_passing_layers = nn.ModuleList()
        for iconv in range(num_node_messages):
            self.message_passing_layers.append(GHConvDense(output_dim=inout_dim, hidden_dim=inout_dim, activation="elu"))

    def forward(self, x, msk, initial_embedding):
        x = self.layernorm1(x)
        x_dist = self.dist_activation(self.ffn_dist(x))
        bins_split, x, dm, msk_f = self.message_building_layer(x_dist, x, msk)
        for msg in self.message_passing_layers:
            x = msg((x, dm, msk_f))
        x = reverse_lsh(bins_split, x)
        return x


class MLPF(nn.Module):
    """Embedding FFN -> one GNN-LSH layer -> particle-id head (the `gnnlsh` conv_type, trimmed)."""

    def __init__(self, input_dim=17, embedding_dim=32, num_classes=6):
        super().__init__()
        self.nn0_id = point_wise_feed_forward_network(input_dim, 32, embedding_dim)
        self.conv_id = nn.ModuleList([CombinedGraphLayer(inout_dim=embedding_dim)])
        self.nn_pid = point_wise_feed_forward_network(embedding_dim, 32, num_classes)

    def forward(self, X_features, mask):
        embedding_id = self.nn0_id(X_features)
        embeddings_id = []
        for num, conv in enumerate(self.conv_id):
            conv_input = embedding_id if num == 0 else embeddings_id[-1]
            embeddings_id.append(conv(conv_input, mask, embedding_id))
        return self.nn_pid(embeddings_id[-1])


def make_model():
    return MLPF().eval()


def _event(batch, n_elements, n_real):
    X = torch.randn(batch, n_elements, 17)
    mask = (torch.arange(n_elements) < n_real).float().expand(batch, n_elements).contiguous()
    return X * mask.unsqueeze(-1), mask


def example_inputs():
    return _event(2, 64, 50)


def other_inputs():
    return [_event(3, 128, 100), _event(1, 32, 20), _event(2, 96, 90)]


def probe_inputs():
    return other_inputs()
