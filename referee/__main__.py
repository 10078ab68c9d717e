"""Allow ``python -m referee``."""

from referee.cli import main

raise SystemExit(main())
