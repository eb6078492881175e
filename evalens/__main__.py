"""Allow ``python -m evalens``."""

from evalens.cli import main

raise SystemExit(main())
