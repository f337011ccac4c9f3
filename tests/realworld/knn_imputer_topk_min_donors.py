"""scikit-learn's KNNImputer ported to torch for export (tabular preprocessing): each column processor
finds the potential donors with `torch.nonzero`, the receivers with `flatnonzero`, and calls
`torch.topk(dist_pot_donors, n_neighbors, ...)` with `n_neighbors = min(self.n_neighbors,
len(potential_donors_idx))`, a k that depends on how many training values are present; the author
asks how to export a model using topk with a variable number of neighbours.

Source: https://github.com/pytorch/pytorch/issues/146990
"""
import torch

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"_mask_fit_X": {0: "n_fit"}, "_fit_X": {0: "n_fit"}, "X": {0: "rows"}}
BLIND = "domains-8"


def flatnonzero(x):
    return torch.nonzero(x.reshape((-1,)), as_tuple=True)[0]


def nan_euclidean(X, Y):
    mx, my = torch.isnan(X), torch.isnan(Y)
    X0, Y0 = torch.where(mx, 0.0, X), torch.where(my, 0.0, Y)
    px, py = (~mx).to(X.dtype), (~my).to(Y.dtype)
    d = -2 * X0 @ Y0.T + (X0 * X0) @ py.T + px @ (Y0 * Y0).T
    present = px @ py.T
    d = d.clamp(min=0) * X.shape[1] / present
    return torch.where(present == 0, torch.tensor(float("nan"), dtype=X.dtype), d).sqrt()


class CalcImpute(torch.nn.Module):
    """Implements sklearn's _calc_impute."""

    def __init__(self, weights):
        super().__init__()
        self.weights = weights

    def _calc_impute(self, dist_pot_donors, n_neighbors, fit_X_col, mask_fit_X_col):
        donors_idx = torch.topk(dist_pot_donors, n_neighbors, dim=1, largest=False, sorted=True).indices
        donors_dist = dist_pot_donors[torch.arange(donors_idx.shape[0])[:, None], donors_idx]
        weight_matrix = torch.ones_like(donors_dist)
        weight_matrix[torch.isnan(donors_dist)] = 0.0
        donors = fit_X_col.take(donors_idx)
        donors_mask = torch.tensor([1], dtype=donors_dist.dtype) - mask_fit_X_col.take(donors_idx).to(donors.dtype)
        new_weights = donors_mask * weight_matrix
        weights_sum = new_weights.sum(axis=1, keepdim=True)
        div = torch.where(
            weights_sum == 0, torch.tensor([1], dtype=weights_sum.dtype), weights_sum
        )
        res = (donors * new_weights).sum(axis=1, keepdim=True) / div
        return res.squeeze(dim=1).to(dist_pot_donors.dtype)

    def forward(self, dist_pot_donors, n_neighbors, fit_X_col, mask_fit_X_col):
        return self._calc_impute(dist_pot_donors, n_neighbors, fit_X_col, mask_fit_X_col)


class ColProcessor(torch.nn.Module):
    """Processes one column (= one feature)."""

    def __init__(self, col, n_neighbors, weights):
        super().__init__()
        self._calc_impute = CalcImpute(weights)
        self.col = col
        self.n_neighbors = n_neighbors

    def forward(self, X, dist_chunk, non_missing_fix_X, mask_fit_X, dist_idx_map, mask, row_missing_idx, _fit_X):
        col = self.col
        X = X.clone()
        row_missing_chunk = row_missing_idx
        col_mask = mask[row_missing_chunk, col]

        potential_donors_idx = torch.nonzero(non_missing_fix_X[:, col], as_tuple=True)[0]

        # receivers_idx are indices in X
        receivers_idx = row_missing_chunk[flatnonzero(col_mask)]

        # distances for samples that needed imputation for column
        dist_subset = dist_chunk[dist_idx_map[receivers_idx]][:, potential_donors_idx]

        n_neighbors = min(self.n_neighbors, len(potential_donors_idx))
        value = self._calc_impute(
            dist_subset,
            n_neighbors,
            _fit_X[potential_donors_idx, col],
            mask_fit_X[potential_donors_idx, col],
        )
        X[receivers_idx, col] = value
        return X


class TorchKNNImputer(torch.nn.Module):
    def __init__(self, n_features=2, n_neighbors=5, weights="uniform"):
        super().__init__()
        self.columns = torch.nn.ModuleList([ColProcessor(col, n_neighbors, weights) for col in range(n_features)])

    def _make_dict_idx_map(self, X, row_missing_idx):
        dist_idx_map = torch.zeros(X.shape[0], dtype=int)
        dist_idx_map[row_missing_idx] = torch.arange(row_missing_idx.shape[0])
        return dist_idx_map

    def transform(self, mask_fit_X, _valid_mask, _fit_X, X):
        X = X.clone()
        mask = torch.isnan(X)
        row_missing_idx = flatnonzero(mask[:, _valid_mask].any(axis=1))
        non_missing_fix_X = torch.logical_not(mask_fit_X)
        dist_idx_map = self._make_dict_idx_map(X, row_missing_idx)
        pairwise_distances = nan_euclidean(X[row_missing_idx, :], _fit_X)
        for col_processor in self.columns:
            X = col_processor(X, pairwise_distances, non_missing_fix_X, mask_fit_X,
                              dist_idx_map, mask, row_missing_idx, _fit_X)
        return X[:, _valid_mask]

    def forward(self, _mask_fit_X, _valid_mask, _fit_X, X):
        return self.transform(_mask_fit_X, _valid_mask, _fit_X, X)


def _data(size, sizey, n_fit_missing):
    X = torch.randn((size, 2))
    Y = torch.randn((sizey, 2))
    for i in range(n_fit_missing):
        X[i, i % 2] = torch.nan
    for i in range(min(sizey, 4)):
        Y[i, i % 2] = torch.nan
    return torch.isnan(X), torch.tensor([True, True]), X, Y


def make_model():
    return TorchKNNImputer()


def example_inputs():
    return _data(10, 6, 5)


def other_inputs():
    return [_data(7, 9, 4), _data(4, 5, 2)]


def probe_inputs():
    return other_inputs()
