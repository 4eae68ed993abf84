"""Which language a file is written in, from its name (and for `.h` / `.m`, its content)."""

import re
from pathlib import PurePosixPath

# Prose formats are split at headings and paragraphs; everything else here is code.
PROSE_LANGUAGES = frozenset({"markdown", "rst", "text", "html"})

_BY_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".py": "python",
    ".pyi": "python",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".jsx": "js",
    ".ts": "ts",
    ".tsx": "ts",
    ".mts": "ts",
    ".cts": "ts",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".sc": "scala",
    ".swift": "swift",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".lua": "lua",
    ".pl": "perl",
    ".pm": "perl",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".zig": "zig",
    ".dart": "dart",
    ".m": "objc",
    ".mm": "objc",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".cljc": "clojure",
    ".jl": "julia",
    ".nim": "nim",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".fs": "fsharp",
    ".fsi": "fsharp",
    ".fsx": "fsharp",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".gd": "gdscript",
    ".ex": "elixir",
    ".exs": "elixir",
    ".r": "r",
    ".sol": "sol",
    ".proto": "proto",
    ".ps1": "powershell",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".sql": "sql",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".ini": "ini",
    ".cfg": "ini",
    ".tex": "latex",
    ".css": "css",
    ".scss": "css",
    ".vue": "html",
    ".svelte": "html",
    ".xml": "xml",
    ".bat": "batch",
    ".cmd": "batch",
    ".cnf": "ini",
    ".conf": "ini",
    ".lock": "toml",
    ".in": "text",
    ".jinja": "template",
    ".jinja2": "template",
    ".j2": "template",
    ".djhtml": "template",
    ".tmpl": "template",
    ".tpl": "template",
    ".mako": "template",
    ".hbs": "template",
    ".mustache": "template",
    ".njk": "template",
    ".liquid": "template",
    ".twig": "template",
}
# HTML inside a source tree is a template (Jinja, Django...): code with exact lines
TREE_HTML_SUFFIXES = frozenset({".html", ".htm"})
_BY_NAME = {
    "dockerfile": "dockerfile",
    "makefile": "makefile",
    "license": "text",
    "readme": "text",
    "changelog": "text",
    "authors": "text",
    "notice": "text",
    "gnumakefile": "makefile",
    "manifest": "text",
    "procfile": "text",
}


def detect_language(path: str) -> str | None:
    """The language of a text file by its name, or None when the type is not supported."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    stem = name.lower().split(".", 1)[0]
    return _BY_NAME.get(stem)


def is_prose(language: str) -> bool:
    """True for documentation formats, False for code and configuration."""
    return language in PROSE_LANGUAGES


_OBJC = re.compile(r"^[ \t]*(?:@interface|@implementation|@protocol|@end|#import)\b", re.MULTILINE)
_CPP = re.compile(
    r"^[ \t]*(?:namespace\b|template[ \t]*<|class[ \t]+\w+[^;]*$|using[ \t]+|"
    r"(?:public|private|protected)[ \t]*:)|\bstd::|\bconstexpr\b|\bnullptr\b",
    re.MULTILINE,
)
_MATLAB = re.compile(r"^[ \t]*(?:function\b|%)", re.MULTILINE)
_SNIFF_CHARS = 200_000  # the start of a header says what it is


def detect_language_of(path: str, text: str) -> str | None:
    """Like `detect_language`, telling `.h` apart as C, C++ or Objective-C, `.m` as MATLAB."""
    language = detect_language(path)
    suffix = PurePosixPath(path).suffix.lower()
    head = text[:_SNIFF_CHARS]
    if suffix == ".h":
        if _OBJC.search(head):
            return "objc"
        return "cpp" if _CPP.search(head) else "c"
    if suffix == ".m" and not _OBJC.search(head) and _MATLAB.search(head):
        return "matlab"
    return language
