"""What the symbol table holds: a file's definitions and references, and what lookups return."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

# Bounded rows per document: a generated or vendored file cannot flood the table.
MAX_DEFINITIONS_PER_DOCUMENT = 5_000
MAX_REFERENCES_PER_DOCUMENT = 20_000
SIGNATURE_CHARS = 240
DOC_CHARS = 200


@dataclass(frozen=True)
class DefinitionDraft:
    """A definition found in a file: 1-based inclusive lines, signature, first doc line."""

    name: str
    qualified_name: str  # the scope chain joined by dots: `Session.request`
    kind: str
    start_line: int
    end_line: int
    signature: str = ""
    doc: str = ""
    depth: int = 0  # 0: top level of the file


class ReferenceDraft(NamedTuple):
    """A use of a name in a file (a call, a type, a base class...) and where it sits (a
    tuple: a file has thousands, and a frozen dataclass takes three times as long to make)."""

    name: str
    kind: str
    line: int  # 1-based
    # the first line of the innermost definition around it (0 at the top level of the
    # file); a lookup reads that definition's qualified name from the document's rows
    enclosing_line: int = 0


@dataclass(frozen=True)
class FileSymbols:
    """Everything the symbol table stores for one document."""

    definitions: list[DefinitionDraft] = field(default_factory=list)
    references: list[ReferenceDraft] = field(default_factory=list)
    truncated: bool = False  # a cap cut rows off


@dataclass(frozen=True)
class SymbolLocation:
    """A definition or reference found by a lookup, with what citing its lines needs."""

    document_id: int
    docset: str
    path: str
    title: str
    name: str
    qualified_name: str  # of the definition; of the enclosing one for a reference
    kind: str
    start_line: int
    end_line: int
    content: str  # the lines start_line..end_line (a reference: its line)
    signature: str = ""
    doc: str = ""
    cite: dict[str, Any] = field(default_factory=dict)  # the document's citation facts
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None
    language: str = ""


@dataclass(frozen=True)
class NameTarget:
    """A definition a name on screen may refer to (the viewer resolves which)."""

    name: str
    qualified_name: str
    path: str
    kind: str
    depth: int
    start_line: int
    end_line: int


@dataclass(frozen=True)
class MapEntry:
    """A definition of the repository map with how often its name is referenced: uses in
    all, and how many other files of the DocSet use the name (`repo_map.importance`)."""

    path: str
    name: str
    kind: str
    signature: str
    start_line: int
    depth: int
    references: int
    referring_files: int = 0
    end_line: int = 0
    document_id: int = 0
    qualified_name: str = ""
