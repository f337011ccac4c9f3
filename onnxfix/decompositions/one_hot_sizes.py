import torch


def _onnx_one_hot_sizes(tensor, num_classes=-1):
    # F.one_hot whose class count the exporters cannot follow: read from the input's sizes
    # (GCA-Matting's self-correlation mask `F.one_hot(torch.arange(h * w).view(h, w),
    # num_classes=h * w)`: the dynamo exporter writes the export's count into the graph), or left
    # to the data (-1, the default: max + 1, which torch.export cannot extract and the legacy
    # exporter writes as a OneHot depth onnxruntime rejects). Here each value is compared with
    # arange(num_classes), as int64 as F.one_hot returns: the same 0/1 table, its width a graph
    # value. Eager keeps the op (which also rejects values out of range and empty inputs).
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.one_hot(tensor, num_classes)
    count = tensor.max() + 1 if isinstance(num_classes, int) and num_classes == -1 else num_classes
    classes = torch.arange(count, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(torch.int64)
