"""``python -m phobos_tools`` is ``phobos-check``: ``python -m phobos_tools examples/``."""

import sys

from .cli.check import main

if __name__ == "__main__":
    sys.exit(main())
