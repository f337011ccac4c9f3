import torch


def _onnx_combinations(input, r=2, with_replacement=False):
    # The index tuples depend only on the static length n, so they are built in Python (in
    # torch's lexicographic order) and gathered; torch builds them with masked_select, whose
    # data-dependent size is what fails to export.
    if r == 0:
        return torch.empty((0,), dtype=input.dtype, device=input.device)
    n = input.shape[0]
    step = 0 if with_replacement else 1  # the next index may repeat the previous one
    tuples = [[]]
    for _ in range(r):  # noqa: ONX603 - r, a static count
        tuples = [t + [i] for t in tuples for i in range(t[-1] + step if t else 0, n)]  # noqa: ONX603 - static n
    index = torch.tensor(tuples, dtype=torch.int64, device=input.device).reshape(len(tuples), r)
    return input.index_select(0, index.reshape(-1)).reshape(len(tuples), r)
