"""``train.py`` loaded as a module for the training tests (it is a script at the repository root)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_train():
    """A fresh module object of ``ROOT/train.py``."""
    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    mod = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # importlib's recipe: dataclasses look it up
    spec.loader.exec_module(mod)
    return mod
