import torch


def _onnx_isin(elements, test_elements, *, assume_unique=False, invert=False):
    # Compare every element with every test element (O(N * M) memory); NaN is in nothing.
    # assume_unique only lets torch pick a faster algorithm: the result is the same.
    elements, test_elements = torch.as_tensor(elements), torch.as_tensor(test_elements)
    found = (elements.unsqueeze(-1) == test_elements.reshape(-1)).any(-1)
    return ~found if invert else found
