"""Blocks of data in a prompt, and what keeps their text from closing or forging one.

Every block a prompt holds (a passage, the repository map) is made by `prompt_block`: its
body, and each attribute before it is escaped, go through `defuse_tags`, which finds every
spelling of every delimiter tag (`DELIMITERS`) a reader could take for the real one and
replaces the character standing for its `<` with U+FFFD (not `&lt;`: readers decode
entities). Tags are looked for in one normalized form of the text (`_Folding`):

- escapes decoded, up to three rounds (`&amp;lt;` is `<` to a reader that decodes twice):
  HTML entities, named or numeric with any number of leading zeros (`&#x00000003c;`),
  percent escapes (`%3C`) and backslash escapes (`\\u003c`, `\\x3c`);
- invisible characters dropped: format characters (category Cf), the grapheme joiner,
  Hangul fillers, variation selectors, the Braille blank;
- NFKC, then each character Unicode's confusables list pairs with an ASCII one read as that
  one (`confusable-homoglyphs`), plus the angle brackets 〈 ⟨;

and a tag is a `<`, then any run of spaces, slashes and backslashes (`< /`, `<\\/`), then a
delimiter's name in any case. The rest of the text is unchanged.
"""

import bisect
import functools
import html
import re
import unicodedata
from collections.abc import Callable

DELIMITERS = ("passage", "repo_map")
DEFUSED = "\ufffd"
_TAG = re.compile(r"<[\s/\\]{0,16}(?:" + "|".join(map(re.escape, DELIMITERS)) + ")", re.IGNORECASE)
_ESCAPE = re.compile(
    r"&(?:#0*[0-9]{1,7};?|#[xX]0*[0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)"
    r"|%[0-9a-fA-F]{2}"
    r"|\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2})"
)
# what can start an escape: text without any of them needs no decoding round
_ESCAPE_STARTS = re.compile(r"[&%\\]")
# the text's pieces: a run that folds to itself (printable ASCII that starts no escape),
# an escape, or any other single character
_PIECE = re.compile(
    r"(?P<plain>[ -$'-\[\]-~\t\n\r]+)|(?P<escape>" + _ESCAPE.pattern + r")|(?P<other>.)", re.S
)
_ROUNDS = 3
# invisible yet not format characters (category Cf is dropped as a whole): the grapheme
# joiner, Hangul fillers, Khmer inherent vowels, Mongolian selectors, the Braille blank,
# variation selectors
_UNSEEN = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


def prompt_block(tag: str, body: str, **attributes: object) -> str:
    """`body` inside `<tag attribute="value" ...>` and `</tag>`: neither the body nor an
    attribute can close the block or forge another (each is defused, then escaped)."""
    assert tag in DELIMITERS, tag  # a new block's tag must be a delimiter that is looked for
    opened = "".join(
        f' {name}="{html.escape(defuse_tags(str(value)), quote=True)}"'
        for name, value in attributes.items()
    )
    return f"<{tag}{opened}>\n{defuse_tags(body)}\n</{tag}>"


def defuse_tags(text: str) -> str:
    """`text` with the `<` of every delimiter tag replaced, look-alikes included."""
    if text.isascii() and not _ESCAPE_STARTS.search(text):
        return _TAG.sub(lambda m: DEFUSED + m.group()[1:], text)
    folded = _Folding(text)
    for _ in range(_ROUNDS - 1):
        if not _ESCAPE_STARTS.search(folded.text):
            break
        folded = _Folding(folded.text, folded.origin)
    opens = sorted({folded.origin(m.start()) for m in _TAG.finditer(folded.text)})
    parts: list[str] = []
    done = 0
    for start, end in opens:
        if start >= done:
            parts += [text[done:start], DEFUSED]
            done = end
    return "".join([*parts, text[done:]]) if opens else text


Origin = Callable[[int], tuple[int, int]]


class _Folding:
    """One round of the normalized form of `text`, and where each of its characters came
    from in the original (`origin`: its span there), kept as runs: a run of characters that
    fold to themselves maps by offset, a decoded or replaced character to its whole span."""

    def __init__(self, text: str, before: Origin | None = None) -> None:
        self._before = before
        self._out: list[str] = []
        self._starts: list[int] = []  # where each run starts in the folded text
        self._runs: list[tuple[int, int, bool]] = []  # (start, end, by offset) in `text`
        self._size = 0
        for piece in _PIECE.finditer(text):
            start, end, kind = piece.start(), piece.end(), piece.lastgroup
            if kind == "plain":
                self._add(piece.group(), start, end, by_offset=True)
            elif kind == "escape":
                self._add(_seen(_decoded(piece.group())), start, end)
            else:
                shown = _seen(piece.group())
                self._add(shown, start, end, by_offset=shown == piece.group())
        self.text = "".join(self._out)

    def _add(self, folded: str, start: int, end: int, by_offset: bool = False) -> None:
        if not folded:
            return
        last = self._runs[-1] if self._runs else None
        if by_offset and last is not None and last[2] and last[1] == start:
            self._runs[-1] = (last[0], end, True)  # one run goes on
        else:
            self._starts.append(self._size)
            self._runs.append((start, end, by_offset))
        self._out.append(folded)
        self._size += len(folded)

    def origin(self, position: int) -> tuple[int, int]:
        """The span, in the first round's original text, of the folded character here."""
        run = bisect.bisect_right(self._starts, position) - 1
        start, end, by_offset = self._runs[run]
        span = (start + position - self._starts[run],) * 2 if by_offset else (start, end - 1)
        if self._before is None:
            return span[0], span[1] + 1
        return self._before(span[0])[0], self._before(span[1])[1]


def _decoded(escape: str) -> str:
    """What an entity, a percent escape or a backslash escape stands for."""
    if escape.startswith("&#"):
        digits = escape[2:].rstrip(";")
        number = int(digits[1:], 16) if digits[:1] in "xX" else int(digits)
        return chr(number) if 0 < number <= 0x10FFFF else DEFUSED
    if escape.startswith("&"):
        return html.unescape(escape)
    if escape.startswith("%"):
        return chr(int(escape[1:], 16))
    return chr(int(escape[2:], 16))  # \uXXXX, \UXXXXXXXX, \xXX


@functools.lru_cache(maxsize=4096)
def _seen(text: str) -> str:
    """What a reader sees of `text` (one character or an escape's): invisible characters
    dropped, NFKC, look-alikes as the ASCII they imitate."""
    shown: list[str] = []
    skeletons = _skeletons()
    for char in text:
        if char in _UNSEEN or unicodedata.category(char) == "Cf":
            continue
        shown += [skeletons.get(part, part) for part in unicodedata.normalize("NFKC", char)]
    return "".join(shown)


@functools.cache
def _skeletons() -> dict[str, str]:
    """Each non-ASCII character Unicode lists as confusable with an ASCII one, mapped to
    that one (ASCII stays itself: the list also pairs `O` with `0`, `I` with `l`)."""
    from confusable_homoglyphs import utils  # 0.15 s: loaded at the first non-ASCII passage

    data: dict[str, list[dict[str, str]]] = utils.load("confusables.json")
    table: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) == 1 and char.isascii() and char.isprintable():
            for glyph in glyphs:
                if not glyph["c"].isascii():
                    table.setdefault(glyph["c"], char)
    for glyph in data.get("\u276c", []):  # ❬'s group: the angle brackets 〈 ⟨ 〈
        table.setdefault(glyph["c"], "<")
    table.setdefault("\u276c", "<")
    for glyph in data.get("\u276d", []):
        table.setdefault(glyph["c"], ">")
    table.setdefault("\u276d", ">")
    return table
