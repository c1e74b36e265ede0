"""``python -m autograph_lite``: the same commands as the ``autograph-lite`` script."""

from .cli import main

raise SystemExit(main())
