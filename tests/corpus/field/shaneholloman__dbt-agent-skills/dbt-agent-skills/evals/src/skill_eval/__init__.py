"""Skill evaluation CLI for A/B testing LLM skills."""

__version__ = "0.1.0"
