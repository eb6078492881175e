"""The authoring core: positioned documents, formats, models, validation and the package index.

The language server and the runner both read eval files through this package; neither owns it.
"""
