import torch


def _onnx_until_stop(op, parts, stops, dim=0, which=0):
    # A `for` loop left by `break` on a tensor value, run to its last step while exporting (ONX612):
    # each step recorded, where the loop would have tested its exit, the lengths of the lists it
    # collects and the test as a tensor. `op` (torch.cat or torch.stack, as the code wrote it) of
    # the list, cut after the parts collected before the first test that held: what the loop that
    # broke there collected. In eager the loop breaks itself and records nothing: `op` as written.
    joined = op(parts, dim)
    if not stops:
        return joined
    stacked = joined.dim() > parts[0].dim()
    lengths = [1 if stacked else part.shape[dim] for part in parts]
    ends = torch.stack([torch.scalar_tensor(sum(lengths[:counts[which]]), dtype=torch.int64, device=joined.device)
                        for counts, _ in stops])
    held = torch.stack([torch.as_tensor(test, device=joined.device).reshape(()).to(torch.bool) for _, test in stops])
    # the first test that held (argmax finds the first maximum), or every part when none did
    keep = torch.where(held.any(), ends[held.to(torch.int64).argmax()], joined.shape[dim])
    index = torch.arange(joined.shape[dim], device=joined.device)
    return joined.index_select(dim, index[index < keep])
