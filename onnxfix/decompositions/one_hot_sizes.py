import torch


def _onnx_one_hot_sizes(tensor, num_classes=-1):
    # F.one_hot with a class count read from the input's sizes (GCA-Matting's self-correlation
    # mask `F.one_hot(torch.arange(h * w).view(h, w), num_classes=h * w)`): the dynamo exporter
    # writes the export's count into the graph (onnxruntime fails or is wrong on other sizes).
    # Here each value is compared with arange(num_classes), as int64 as F.one_hot returns: the
    # same 0/1 table. Eager keeps the op (which also rejects values out of range).
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.one_hot(tensor, num_classes)
    classes = torch.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(torch.int64)
