"""evalens: understand and run evals for AI-agent skills."""

__version__ = "0.1.0"
