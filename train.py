"""PPO self-play training, from a clone: ``python train.py --config configs/default.yaml [key=value ...]``.

The algorithm is one page, :mod:`agents.training.train` (``python -m agents.training.train`` from an installed
package); ``python train.py --help`` lists the options."""

import sys
import time

#: when this script began to run, before its heavy imports: the start of the time budget
STARTED = time.monotonic()

from agents.training.train import main  # after STARTED: the time budget counts the imports

if __name__ == "__main__":
    sys.exit(main(started=STARTED))
