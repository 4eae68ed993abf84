"""Lines that say nothing by themselves: what an extractive answer does not quote.

A heading, markup, licence text, a bare `def`/`class` line (or a decorator), a docstring
opener or an import names what follows or where it comes from; the line a user needs is the
statement or sentence that does the thing (issue 69). bench/answer_quality.py counts the
quoted lines this calls boilerplate.
"""

import re

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+<>])\1{2,}\s*$")
_REST_MARKUP = re.compile(
    r":[a-z:]+:`|^\s*\.\. [a-z-]+::|`[^`]+ <[^>]+>`_|\w`_(?!\w)"
    r"|(?<!\w)[A-Za-z][A-Za-z0-9]*_(?=\s|$)"
)
_MD_MARKUP = re.compile(r"\]\([^)]*\)|^\s*</?[a-zA-Z!][^>]*>\s*$|\{%|%\}")
_LICENCE = re.compile(
    r"copyright \(c\)|copyright \d{4}|licensed under|spdx-license|without warrant|"
    r"permission is hereby granted|general public license|all rights reserved|"
    r"apache license|mit license|redistribution and use",
    re.IGNORECASE,
)
_MODIFIERS = (
    r"((public|private|protected|internal|export|default|abstract|final|static|sealed|open|"
    r"data|inline|virtual|async|unsafe|const|extern|override|pub(\([\w:]+\))?)\s+)*"
)
_BARE_DEFINITION = re.compile(
    r"^\s*("
    r"@[\w.]+(\(.*\))?"  # a decorator or annotation
    r"|(async\s+)?def\s.*:|class\s+\w+(\(.*\))?:"  # Python
    rf"|{_MODIFIERS}(class|struct|interface|enum|trait|impl|namespace|module|object|record|"
    r"union|protocol|extension)\b[^;=]*\{?"  # a type's header in a braces language
    rf"|{_MODIFIERS}(fn|func|function|fun)\b[^;=]*[{{(]?"  # a function's, by its keyword
    r"|template\s*<.*>"
    r"|(?!(if|for|while|switch|catch|else|do|try|return|synchronized|using)\b)"
    r"[\w<>\[\]:,.*&~\s]+\([^;{}]*\)\s*(const|noexcept|override|final|throws [\w., ]+|"
    r"->\s*[^{;]+)?\s*\{"  # a C-like signature opening its body
    r")\s*$"
)
_DOCSTRING_OPENER = re.compile(r'^\s*[rbuf]?("""|\'\'\')\s*\S{0,60}$')
_IMPORT = re.compile(r"^\s*(import\s|from\s+\S+\s+import\s|use\s+[\w:]+|#include\s|require\()")


def boilerplate_kind(line: str, code: bool = False) -> str | None:
    """What kind of boilerplate a line is, or None when it can say something itself; in
    `code`, a `# ...` line is a comment (it can explain), not a heading."""
    if not line.strip():
        return None
    if is_underline(line) or (not code and _HEADING.match(line)):
        return "heading"
    if _LICENCE.search(line):
        return "licence"
    if _DOCSTRING_OPENER.match(line):
        return "docstring opener"
    if _BARE_DEFINITION.match(line):
        return "bare definition"
    if _IMPORT.match(line):
        return "import"
    if _REST_MARKUP.search(line) or _MD_MARKUP.search(line):
        return "markup"
    return None


def is_underline(line: str) -> bool:
    """A line of one repeated punctuation mark: a reST title's underline, a rule."""
    return bool(_UNDERLINE.match(line))


def is_boilerplate(line: str, code: bool = False) -> bool:
    """True for a heading, markup, licence, bare definition, docstring opener or import."""
    return boilerplate_kind(line, code) is not None


_ROLE = re.compile(r":[a-z]+(?::[a-z]+)*:`(?:~|!)?([^`<]*?)\s*(?:<[^>]*>)?`")
_NAMED_LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`__?")
_LINK_TARGET = re.compile(r"`([^`]+)`__?(?!\w)")
_BARE_TARGET = re.compile(r"(?<!\w)([A-Za-z][A-Za-z0-9]*)_(?=[\s.,;:)]|$)")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_DOUBLE_BACKTICKS = re.compile(r"``([^`]+)``")
_LITERAL_COLONS = re.compile(r"(?<=\S)::$")


def as_text(sentence: str, rst: bool = False) -> str:
    """A prose sentence with its Markdown (and, for reST, reST) markup rendered as text:
    links by their title; in reST also roles and link targets, ``literals`` as `code` and a
    literal block's `::` as `:`."""
    if not rst:
        return _MD_LINK.sub(r"\1", sentence)
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", sentence)
    text = _NAMED_LINK.sub(r"\1", text)
    text = _DOUBLE_BACKTICKS.sub(r"`\1`", text)
    text = _LINK_TARGET.sub(r"\1", text)
    text = _BARE_TARGET.sub(r"\1", text)
    return _LITERAL_COLONS.sub(":", text)
