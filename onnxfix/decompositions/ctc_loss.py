import torch


def _onnx_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    # ATen's CTC forward (alpha) recursion in log space, written for fixed sizes: every sample
    # runs over all T time steps and all 2 * S + 1 extended labels (S: the padded target
    # length), and the per-sample lengths pick the result with gathers instead of loops of
    # data-dependent length. Positions past a sample's labels never feed back into lower ones,
    # so they do not change its result. The loop over T is unrolled: T must be static.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.ctc_loss(
            log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    device = log_probs.device
    steps, batch = log_probs.shape[0], log_probs.shape[1]
    input_lengths = torch.as_tensor(input_lengths, device=device).reshape(-1).to(torch.int64)
    target_lengths = torch.as_tensor(target_lengths, device=device).reshape(-1).to(torch.int64)
    if targets.dim() == 1:
        # Concatenated targets: sample b's labels start at the sum of the previous lengths;
        # padding to the total length keeps the size static.
        starts = torch.cumsum(target_lengths, 0) - target_lengths
        width = targets.shape[0]
        positions = starts.unsqueeze(1) + torch.arange(width, device=device)
        targets = targets[positions.clamp(max=max(width - 1, 0))] if width > 0 else targets.reshape(batch, 0)
    width = targets.shape[1]
    label_index = torch.arange(width, device=device)
    labels = torch.where(label_index < target_lengths.unsqueeze(1), targets.to(torch.int64), blank)
    # Extended labels l': blank, l1, blank, l2, ..., blank (2 * width + 1 of them)
    extended = torch.full((batch, 2 * width + 1), blank, dtype=torch.int64, device=device)
    extended[:, 1::2] = labels
    size = extended.shape[1]
    # A skip from s - 2 is allowed when l'[s] is a label different from l'[s - 2]
    skip = torch.zeros((batch, size), dtype=torch.bool, device=device)
    skip[:, 2:] = extended[:, 2:] != extended[:, :-2]
    emissions = log_probs.gather(2, extended.unsqueeze(0).expand(steps, batch, size))  # (T, N, 2S+1)
    neginf = torch.tensor(float("-inf"), dtype=log_probs.dtype, device=device)
    first = torch.full((batch, size), float("-inf"), dtype=log_probs.dtype, device=device)
    first[:, 0] = emissions[0, :, 0]
    if size > 1:
        first[:, 1] = torch.where(target_lengths > 0, emissions[0, :, 1], neginf)
    alpha = first
    last = torch.where((input_lengths == 1).unsqueeze(1), alpha, first)
    pad1 = torch.full((batch, 1), float("-inf"), dtype=log_probs.dtype, device=device)
    pad2 = torch.full((batch, min(2, size)), float("-inf"), dtype=log_probs.dtype, device=device)
    for t in range(1, steps):  # noqa: ONX603 - T time steps, a static size
        la1 = alpha
        la2 = torch.cat([pad1, alpha[:, :-1]], 1)
        la3 = torch.where(skip, torch.cat([pad2, alpha[:, :-2]], 1), neginf)
        lamax = torch.maximum(torch.maximum(la1, la2), la3)
        lamax = torch.where(lamax == neginf, torch.zeros_like(lamax), lamax)  # no -inf - -inf
        alpha = torch.log(torch.exp(la1 - lamax) + torch.exp(la2 - lamax) + torch.exp(la3 - lamax)) + lamax + emissions[t]
        last = torch.where((input_lengths == t + 1).unsqueeze(1), alpha, last)
    # The likelihood sums the last label and the blank after it (eq. 8 of Graves et al.)
    end = (2 * target_lengths).unsqueeze(1)
    l1 = last.gather(1, end).squeeze(1)
    l2 = last.gather(1, (end - 1).clamp(min=0)).squeeze(1)
    m = torch.maximum(l1, l2)
    m = torch.where(m == neginf, torch.zeros_like(m), m)
    log_likelihood = torch.where(target_lengths == 0, last[:, 0], torch.log(torch.exp(l1 - m) + torch.exp(l2 - m)) + m)
    # No input steps: likelihood 1 for an empty target, 0 otherwise
    empty_input = torch.where(target_lengths == 0, torch.zeros_like(log_likelihood), neginf)
    loss = -torch.where(input_lengths == 0, empty_input, log_likelihood)
    if zero_infinity:
        loss = torch.where(loss == float("inf"), torch.zeros_like(loss), loss)
    if reduction == "mean":
        return (loss / target_lengths.to(loss.dtype).clamp(min=1)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
