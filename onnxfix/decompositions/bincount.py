import torch


def _onnx_bincount(input, weights=None, minlength=0):
    # torch.bincount with a minlength every value stays below (batch indices counted per image,
    # YOLO-World's NMS: minlength=batch_size): one comparison of each value with
    # arange(minlength), summed (weighted when weights are given). Its length is minlength;
    # torch's is max(minlength, max + 1), which the data decides. Eager keeps the op; the
    # exported graph counts only values below minlength.
    if not torch.onnx.is_in_onnx_export():
        return torch.bincount(input, weights, minlength)
    hits = input.unsqueeze(-1) == torch.arange(minlength, device=input.device)
    if weights is None:
        return hits.sum(0)
    return (hits * weights.unsqueeze(-1)).sum(0)
