import torch


def _onnx_sparse_float_tensor(indices, values, size):
    # The legacy constructor torch.sparse.FloatTensor(indices, values, size): while exporting,
    # _onnx_sparse_coo_tensor's dense tensor of float32 values. Eager keeps the constructor.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.sparse.FloatTensor(indices, values, size)
    return _onnx_sparse_coo_tensor(indices, values.float(), size)
