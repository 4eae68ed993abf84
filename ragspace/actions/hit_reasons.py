"""Why a search hit was returned, in one line an assistant can read: the symbol it defines
(or sits inside) that the query names, the query's words it holds, how close it is in meaning."""

from typing import Any

from ragspace.models import Hit
from ragspace.ranking.query import QueryProfile
from ragspace.text.terms import matched_words

SHOWN_WORDS = 6
CLOSE = 0.5  # the bundled model's cosine from which a passage reads as close in meaning


def defined_names(metadata: dict[str, Any]) -> set[str]:
    """The names of the definitions that start in a chunk (tree-sitter `defines`)."""
    defines = metadata.get("defines") or []
    return {str(d.get("name")) for d in defines if isinstance(d, dict)}


def why_hit(query: str, hit: Hit) -> str:
    """`defines `Session.request`; words: retry, backoff (2 of 3); close in meaning (0.61)`."""
    return why(query, hit.content, hit.metadata, hit.vector_similarity)


def why(query: str, content: str, metadata: dict[str, Any], similarity: float | None) -> str:
    """Why a chunk (or a passage) with this text, metadata and similarity matched `query`."""
    profile = QueryProfile(query)
    reasons: list[str] = []
    names = defined_names(metadata)
    scope = {str(part) for part in metadata.get("scope") or []}
    for verb, among in (("defines", names), ("inside", scope - names)):
        symbols = [s for s in profile.symbols if s in among]
        if symbols:
            reasons.append(f"{verb} " + ", ".join(f"`{s}`" for s in symbols[:3]))
    place = str(metadata.get("heading_path") or metadata.get("symbol") or "")
    words = matched_words(f"{place} {content}", profile.terms)
    if words:
        shown = ", ".join(words[:SHOWN_WORDS]) + (" …" if len(words) > SHOWN_WORDS else "")
        reasons.append(f"words: {shown} ({len(words)} of {len(profile.terms)})")
    if similarity is not None and (similarity >= CLOSE or not reasons):
        reasons.append(f"close in meaning ({similarity:.2f})")
    return "; ".join(reasons) or "ranked by the fused order of meaning and words"
