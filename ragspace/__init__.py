"""RAGSpace: chat with DocSets built from files, GitHub repositories and documentation sites."""

__version__ = "0.1.0"
