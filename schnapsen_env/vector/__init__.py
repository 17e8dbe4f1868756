"""Batched implementations on PyTorch (needs the ``[train]`` extra's torch): :mod:`.engine`."""
