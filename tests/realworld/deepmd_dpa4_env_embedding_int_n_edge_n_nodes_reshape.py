"""DeePMD-kit DPA4/SeZM descriptor (pt_expt backend, exported with torch.export): the environment-seed
embedding aggregates padded per-edge messages with `n_edge = int(dst.shape[0])` and
`nnei = _edge_layout(n_edge, int(n_nodes))`, then reshapes to `(n_nodes, nnei, ...)`. The PR says
casting these products (`nf*nloc*nnei`, `nf*nloc`) to Python ints "specializes them to the trace-time
sample shape, which breaks torch.export with a dynamic `nloc` dim".

Source: https://github.com/deepmodeling/deepmd-kit/pull/5540
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"nlist_vec": {1: "nloc"}, "nlist": {1: "nloc"}, "atype": {1: "nloc"}}
BLIND = "domains-55"


def _edge_layout(n_edge: int, n_nodes: int) -> int:
    """Validate the padded-edge layout and return ``nnei = E // N``."""
    if n_nodes <= 0 or n_edge % n_nodes != 0:
        raise ValueError(
            "padded-edge layout requires E to be a multiple of N; "
            f"got E={n_edge}, N={n_nodes}"
        )
    return n_edge // n_nodes


class EnvironmentInitialEmbedding(nn.Module):
    def __init__(self, ntypes=2, n_radial=8, type_dim=8, embed_dim=16, hidden_dim=16, axis_dim=4,
                 channels=8, eps=1e-7):
        super().__init__()
        self.embed_dim, self.axis_dim, self.eps = embed_dim, axis_dim, eps
        self.rbf_out_dim = max(32, embed_dim - 2 * type_dim)
        self.rbf_proj_layer1 = nn.Sequential(nn.Linear(n_radial, self.rbf_out_dim), nn.SiLU())
        self.rbf_proj_layer2 = nn.Linear(self.rbf_out_dim, self.rbf_out_dim)
        self.env_type_embed = nn.Embedding(ntypes, type_dim)
        self.g_layer1 = nn.Sequential(nn.Linear(self.rbf_out_dim + 2 * type_dim, hidden_dim), nn.SiLU())
        self.g_layer2 = nn.Linear(hidden_dim, embed_dim)
        self.output_proj = nn.Linear(embed_dim * axis_dim, 2 * channels, bias=False)

    def forward(self, edge_cache, atype_flat, n_nodes):
        src, dst = edge_cache["src"], edge_cache["dst"]
        edge_vec = edge_cache["edge_vec"]  # (E, 3)
        edge_rbf = edge_cache["edge_rbf"]  # (E, n_radial)
        edge_env = edge_cache["edge_env"]  # (E, 1)
        n_edge = int(dst.shape[0])
        nnei = _edge_layout(n_edge, int(n_nodes))

        r_sq = torch.sum(edge_vec * edge_vec, dim=-1, keepdim=True)  # (E, 1)
        inv_r = 1.0 / torch.sqrt(r_sq + self.eps * self.eps)
        s = edge_env * inv_r
        r_hat = edge_vec * inv_r
        r_tilde = torch.concat([s, s * r_hat], dim=-1)  # (E, 4)

        src_index = torch.reshape(src, (n_edge,)).to(torch.int64)
        dst_index = torch.reshape(dst, (n_edge,)).to(torch.int64)
        type_src = self.env_type_embed(torch.index_select(atype_flat, 0, src_index))
        type_dst = self.env_type_embed(torch.index_select(atype_flat, 0, dst_index))
        rbf_proj = self.rbf_proj_layer2(self.rbf_proj_layer1(edge_rbf))
        g = self.g_layer2(self.g_layer1(torch.concat([rbf_proj, type_src, type_dst], dim=-1)))

        outer = r_tilde[:, :, None] * g[:, None, :]  # (E, 4, embed_dim)
        outer_flat = torch.reshape(outer, (n_edge, 4 * self.embed_dim))
        edge_mask = edge_cache["edge_mask"]
        if edge_mask is not None:
            outer_flat = outer_flat * torch.reshape(edge_mask, (n_edge, 1)).to(outer_flat.dtype)
        env_agg = torch.sum(torch.reshape(outer_flat, (n_nodes, nnei, 4 * self.embed_dim)), dim=1)
        env_agg = torch.reshape(env_agg, (n_nodes, 4, self.embed_dim))
        env_agg = env_agg * edge_cache["inv_sqrt_deg"].to(env_agg.dtype)

        env_agg_t = torch.permute(env_agg, (0, 2, 1))  # (N, embed_dim, 4)
        mat_d = torch.matmul(env_agg_t, env_agg[:, :, : self.axis_dim])
        d_flat = torch.reshape(mat_d, (n_nodes, self.embed_dim * self.axis_dim))
        return self.output_proj(d_flat)


class DescrptDPA4Seed(nn.Module):
    """Builds the padded edge cache (E = nf*nloc*nnei) and calls the env-seed embedding."""

    def __init__(self, rcut=6.0, n_radial=8):
        super().__init__()
        self.rcut = rcut
        self.register_buffer("rbf_centers", torch.linspace(0.0, rcut, n_radial))
        self.env_seed = EnvironmentInitialEmbedding(n_radial=n_radial)

    def forward(self, nlist_vec, nlist, atype):
        nf, nloc, nnei = nlist.shape
        n_nodes = nf * nloc
        edge_mask = torch.reshape(nlist >= 0, (-1,))
        edge_vec = torch.reshape(nlist_vec, (-1, 3))
        r = torch.linalg.vector_norm(edge_vec, dim=-1, keepdim=True)
        edge_env = 0.5 * (torch.cos(torch.pi * torch.clamp(r / self.rcut, max=1.0)) + 1.0)
        edge_env = edge_env * edge_mask[:, None].to(edge_env.dtype)
        edge_rbf = torch.exp(-((r - self.rbf_centers) ** 2))
        frame_off = (torch.arange(nf, device=nlist.device) * nloc)[:, None, None]
        src = torch.reshape(torch.clamp(nlist, min=0) + frame_off, (-1,))
        dst = torch.reshape(torch.arange(n_nodes, device=nlist.device)[:, None].expand(n_nodes, nnei), (-1,))
        deg = torch.sum(torch.reshape(edge_env, (n_nodes, nnei)) ** 2, dim=1)
        inv_sqrt_deg = torch.reshape(1.0 / torch.sqrt(deg + 1.0), (n_nodes, 1, 1))
        edge_cache = {"src": src, "dst": dst, "edge_vec": edge_vec, "edge_rbf": edge_rbf,
                      "edge_env": edge_env, "edge_mask": edge_mask, "inv_sqrt_deg": inv_sqrt_deg}
        return self.env_seed(edge_cache, torch.reshape(atype, (-1,)), n_nodes)


def make_model():
    return DescrptDPA4Seed().eval()


def _inputs(nloc, nf=2, nnei=5):
    nlist = torch.randint(0, nloc, (nf, nloc, nnei))
    nlist[:, :, -1] = -1  # padded neighbour slots
    return (torch.randn(nf, nloc, nnei, 3) * 2.0, nlist, torch.randint(0, 2, (nf, nloc)))


def example_inputs():
    return _inputs(7)


def other_inputs():
    return [_inputs(11), _inputs(4)]


def probe_inputs():
    return other_inputs()
