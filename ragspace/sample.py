"""The sample DocSet: a few files the package ships, for trying RAGSpace in one click."""

from importlib import resources
from pathlib import Path

from ragspace.models import UploadedFile

SAMPLE_DOCSET = "ragspace-sample"
SAMPLE_DESCRIPTION = "Sample documents shipped with RAGSpace: getting started, models, a module."


def sample_files() -> list[UploadedFile]:
    """The sample documents, in name order."""
    folder = resources.files("ragspace") / "data" / "sample"
    return [
        UploadedFile(entry.name, entry.read_bytes())
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.is_file()
    ]


def sample_questions_path() -> Path:
    """The sample question set (JSONL) that goes with the sample DocSet."""
    return Path(str(resources.files("ragspace") / "data" / "sample-questions.jsonl"))
