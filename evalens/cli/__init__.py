"""The command-line faces of evalens (argparse lives here and nowhere else)."""

from evalens.cli.main import main

__all__ = ["main"]
