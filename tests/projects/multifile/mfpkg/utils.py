import torch


def to_int(t: torch.Tensor) -> int:
    return t.item()


def log_loss(loss: torch.Tensor) -> float:
    return loss.item()
