"""
 * [INPUT]: None.
 * [OUTPUT]: Marks `scripts` as a Python package. No exports.
 * [POS]: Root of the `scripts/` module, imported by CLI entry point and by tests.
 * [PROTOCOL]: Update this header when changed, then check CLAUDE.md
"""
