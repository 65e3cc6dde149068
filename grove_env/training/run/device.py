"""The torch device a run asks for (``device: auto | cpu | cuda``), checked before any write."""

from __future__ import annotations


class DeviceError(RuntimeError):
    """The config asks for a torch device this machine does not have."""


def resolve_device(asked: str) -> str:
    """The torch device for ``device: auto | cpu | cuda``: ``auto`` is CUDA where torch
    finds a CUDA device, else the CPU; ``cuda`` without one is a :class:`DeviceError`
    (SB3 would quietly fall back to the CPU)."""
    import torch  # here, not at the top: a command line checks its config before torch loads

    if asked == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if asked == "cuda" and not torch.cuda.is_available():
        raise DeviceError(
            "device: cuda, but torch finds no CUDA device here; use device: cpu (or auto)"
        )
    return asked
