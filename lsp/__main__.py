"""``python -m phobos_tools.lsp``: the language server, as ``phobos-lsp``."""

import sys

from .server import main

sys.exit(main())
