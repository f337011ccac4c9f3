import torch


def _onnx_einsum_ellipsis(equation, *operands):
    # `torch.einsum` with `...` in an explicit equation (`"...ik, ...j -> ij"`): onnxruntime's
    # shape inference rejects an ONNX Einsum whose ellipsis covers a different number of dims in
    # two inputs ("Ellipsis for input 1 represents 0 dimensions"). While exporting, the ellipsis
    # is spelled out as letters the equation does not use, right-aligned across the inputs as
    # einsum broadcasts them (the ranks are the example's, which a traced graph keeps anyway).
    # Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.einsum(equation, *operands)
    tensors = operands[0] if len(operands) == 1 and isinstance(operands[0], (list, tuple)) else operands
    compact = equation.replace(" ", "")
    if "..." not in compact or "->" not in compact or len(compact.split("->")[0].split(",")) != len(tensors):
        return torch.einsum(equation, *operands)
    inputs, output = compact.split("->")
    terms = inputs.split(",")
    spans = [t.dim() - len(term.replace("...", "")) if "..." in term else 0 for term, t in zip(terms, tensors)]
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in compact]
    widest = max(spans)
    if widest > len(free) or min(spans) < 0:
        return torch.einsum(equation, *operands)
    letters = "".join(free[:widest])
    spelled = [term.replace("...", letters[widest - span:]) for term, span in zip(terms, spans)]
    return torch.einsum(",".join(spelled) + "->" + output.replace("...", letters), *tensors)
