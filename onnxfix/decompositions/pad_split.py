import torch


def _onnx_pad_split(tokens, lengths, batch_first=False, padding_value=0.0):
    # torch.nn.utils.rnn.pad_sequence(tokens.split(lengths.tolist()), batch_first, padding_value)
    # without reading the lengths in Python (the split's sizes are data, which the exporters
    # cannot follow): one gather from the tokens with a padding row appended; row i takes
    # tokens[start_i + t] for t < lengths[i], then the padding row.
    lengths = torch.as_tensor(lengths, device=tokens.device).to(torch.int64)
    total = tokens.shape[0]
    if lengths.dim() == 0:  # one number: chunks of that many rows, the last one shorter
        size = lengths.clamp(min=1)
        chunks = ((total + size - 1) // size).clamp(min=1)
        lengths = torch.minimum(total - torch.arange(chunks, device=tokens.device) * lengths, lengths)
    starts = lengths.cumsum(0) - lengths
    steps = torch.arange(lengths.max(), device=tokens.device)
    index = torch.where(steps < lengths[:, None], starts[:, None] + steps, total)
    padding = torch.full((1,) + tokens.shape[1:], padding_value, dtype=tokens.dtype, device=tokens.device)
    padded = torch.cat([tokens, padding])[index]
    return padded if batch_first else padded.transpose(0, 1).contiguous()
