"""The Chat tab's Sources panel: each cited passage, its place, checks and snippet."""

import html
import re

from ragspace.actions.hit_view import source_views
from ragspace.answering.boilerplate import is_underline
from ragspace.answering.focus import is_prose_metadata
from ragspace.models import Answer, Citation
from ragspace_ui.escape import md

VERIFICATION_TEXT = {
    "verified": "✓ quote found in these lines",
    "paraphrased": "≈ a close paraphrase of these lines",
    "unsupported": "⚠ the quote was not found in these lines",
}
# a snippet shows the file's lines: code never wraps (its columns matter; it scrolls
# sideways), prose is shown by paragraphs, which the panel wraps at its own width (the
# file's hard-wrapped lines, re-wrapped at the panel's ~60 columns, read as ragged halves)
SNIPPET_CSS = """
#chat-sources pre.rs-snippet { white-space: pre; overflow-x: auto; overflow-wrap: normal; }
#chat-sources pre.rs-snippet.rs-prose { white-space: pre-wrap; overflow-wrap: anywhere; }
#chat-sources pre.rs-snippet code { white-space: inherit; overflow-wrap: inherit; }
"""
# lines that start a block of their own in Markdown or reStructuredText: never joined
_BLOCK_START = re.compile(r"\s*([-*+]\s|\d+[.)]\s|#|>|\||```|~~~|\.\. |:\w+:|…)")


def source_anchor(number: int) -> str:
    """The id of passage `number` in the sources panel."""
    return f"ragspace-source-{number}"


def scope_text(selected: list[str] | None, ref: str | None = None) -> str:
    """Which DocSets (and ref) a question searches, as the sources panel states it."""
    at = f" at ref **{md(ref)}**" if ref else ""
    if not selected:
        return f"Searched **all DocSets**{at}."
    return "Searched " + ", ".join(f"**{md(name)}**" for name in selected) + f"{at}."


def check_text(citation: Citation) -> str:
    """What the quote check found for a citation, as a suffix ("" when nothing was checked)."""
    if citation.verification is None:
        return ""
    return f" · _{VERIFICATION_TEXT[citation.verification]}_"


def _keeps_break(previous: str, line: str, fenced: bool) -> bool:
    """True when `line` starts a new line of its own rather than continuing `previous`."""
    if fenced or not previous.strip() or not line.strip():
        return True
    if previous.endswith(("  ", "\\")):  # a Markdown hard line break
        return True
    indented = line.startswith(("    ", "\t")) or previous.startswith(("    ", "\t"))
    if indented or _BLOCK_START.match(line) or is_underline(line):
        return True
    return bool(is_underline(previous) or previous.lstrip().startswith(("#", "|", "```")))


def paragraphs(text: str) -> str:
    """Prose with its hard-wrapped lines joined into paragraphs; blank lines, headings,
    list items, quotes, tables, indented and fenced blocks keep their own lines."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        fence = line.lstrip().startswith(("```", "~~~"))
        if out and not _keeps_break(out[-1], line, fenced):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
        fenced = fenced != fence  # a fence line opens or closes a code block
    return "\n".join(out)


def snippet_html(snippet: str, prose: bool) -> str:
    """A snippet as one HTML block (Markdown leaves a `<pre>` block alone, blank lines and
    all): code line for line, prose by paragraphs; the text escaped."""
    kind = "rs-prose" if prose else "rs-code"
    shown = paragraphs(snippet) if prose else snippet
    return f'<pre class="rs-snippet {kind}"><code>{html.escape(shown)}</code></pre>'


def sources_markdown(
    answer: Answer,
    selected: list[str] | None = None,
    ref: str | None = None,
    question: str = "",
) -> str:
    """The sources panel: each cited passage as every front end shows a hit (`hit_view`):
    its place, version, context, score and a snippet, with what the quote check found."""
    scope = scope_text(selected, ref)
    if not answer.citations and not answer.passages:
        return f"{scope}\n\n_No sources._"
    checks = {c.number: check_text(c) for c in answer.citations}
    prose = {p.number: is_prose_metadata(p.metadata) for p in answer.passages}
    parts = [scope]
    for view in source_views(answer, question):
        label = md(view.label)
        where = f"[{label}]({view.url})" if view.url else label
        context = f" — {md(view.context)}" if view.context else ""
        if view.ref:  # with several refs, every source says which version it is from
            context = f" · `{view.version}`{context}"
        score = "" if view.score is None else f" · score {view.score:.4f}"
        anchor = f'<span id="{source_anchor(view.number)}"></span>'
        opens = f"[**\\[{view.number}\\]**](#{source_anchor(view.number)})"  # the viewer
        # an empty snippet: the answer quotes the whole passage already
        shown = (
            snippet_html(view.snippet, prose[view.number])
            if view.snippet
            else "_Quoted in full in the answer._"
        )
        parts.append(f"{anchor}{opens} {where}{context}{score}{checks[view.number]}\n\n{shown}")
    cited = set(checks)
    unused = [p for p in answer.passages if p.number not in cited]
    if unused:
        parts.append(
            "_Also retrieved, not cited:_ "
            + ", ".join(f"\\[{p.number}\\] {md(p.path)}" for p in unused)
        )
    return "\n\n".join(parts)
