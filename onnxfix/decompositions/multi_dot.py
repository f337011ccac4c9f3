import torch


def _onnx_multi_dot(tensors):
    # ATen's multiplication order (same rounding as eager): a 1-D first/last operand is a row/
    # column vector; three matrices compare the two orders' costs; more use the matrix-chain
    # dynamic programme (first cheapest split). Shapes are static at export: the order is fixed
    # at trace time.
    # Both exporters run the decomposition: under torch.export, torch.linalg.multi_dot's own decomposition
    # turns a dynamic batch into a constant.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.linalg.multi_dot(tensors)
    mats = list(tensors)
    first_vector, last_vector = mats[0].dim() == 1, mats[-1].dim() == 1
    if first_vector:
        mats[0] = mats[0].unsqueeze(0)
    if last_vector:
        mats[-1] = mats[-1].unsqueeze(-1)
    count = len(mats)
    if count == 2:
        result = torch.mm(mats[0], mats[1])
    elif count == 3:
        a, b, c, d = mats[0].shape[0], mats[1].shape[0], mats[2].shape[0], mats[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            result = torch.mm(mats[0], torch.mm(mats[1], mats[2]))
        else:
            result = torch.mm(torch.mm(mats[0], mats[1]), mats[2])
    else:
        p = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
        cost = [[0] * count for _ in range(count)]  # noqa: ONX603 - static number of matrices
        split = [[0] * count for _ in range(count)]  # noqa: ONX603 - static number of matrices
        for length in range(1, count):  # noqa: ONX603 - static number of matrices
            for i in range(count - length):  # noqa: ONX603 - static number of matrices
                j = i + length
                cost[i][j] = None
                for k in range(i, j):  # noqa: ONX603 - static number of matrices
                    q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                    if cost[i][j] is None or q < cost[i][j]:
                        cost[i][j], split[i][j] = q, k

        def chain(i, j):
            if i == j:
                return mats[i]
            return torch.mm(chain(i, split[i][j]), chain(split[i][j] + 1, j))

        result = chain(0, count - 1)
    if first_vector:
        result = result.squeeze(0)
    if last_vector:
        result = result.squeeze(-1)
    return result
