"""A chunk that defines a symbol the question names rises."""

from ragspace.models import Fusion
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from tests.ranking.made import candidate, hit


def test_a_definition_of_a_named_symbol_rises() -> None:
    cands = [
        candidate(hit(1, "calls.py", "    session.send(request)"), vector=(1, 0.6)),
        candidate(hit(2, "sessions.py", "def send(self, request):"), vector=(2, 0.55)),
        candidate(hit(3, "other.py", "x = 1"), vector=(3, 0.3)),
    ]
    plain = fusion_only(RankingOptions(fusion=Fusion.CONVEX))
    boosted = RankingOptions(fusion=Fusion.CONVEX, definition_boost=0.5)
    question = "What does `send` do with the request?"
    assert [h.chunk_id for h in rank(cands, plain, question)] == [1, 2, 3]
    assert [h.chunk_id for h in rank(cands, boosted, question)] == [2, 1, 3]
    assert [h.chunk_id for h in rank(cands, RankingOptions(), question)] == [2, 1, 3]


def test_the_parse_says_what_a_chunk_defines() -> None:
    """A chunk whose parse lists the symbol (chunking/syntax.py's `defines`) rises even
    when its text holds no definition line the patterns know (a Haskell equation here)."""
    parsed = {"defines": [{"name": "render", "kind": "function", "line": 3}]}
    cands = [
        candidate(hit(1, "Main.hs", "main = print (render page)"), vector=(1, 0.6)),
        candidate(
            hit(2, "Render.hs", "render page = concatMap line page").model_copy(
                update={"metadata": parsed}
            ),
            vector=(2, 0.55),
        ),
        candidate(hit(3, "Other.hs", "x = 1"), vector=(3, 0.3)),
    ]
    assert rank(cands, RankingOptions(), "what does `render` do")[0].chunk_id == 2


def test_a_docs_pages_example_defines_nothing() -> None:
    """`const config = defineConfig(...)` in a docs page is an example of using the name,
    not its definition: the page gains nothing; the code chunk defining it does."""
    question = "how does `defineConfig` merge options"
    page = hit(1, "docs/config.md", "```js\nconst defineConfig = (c) => c\n```")
    code = hit(2, "src/config.ts", "export function defineConfig(config) {")
    cands = [
        candidate(page.model_copy(update={"metadata": {"language": "markdown"}}), vector=(1, 0.9)),
        candidate(code.model_copy(update={"metadata": {"language": "ts"}}), vector=(2, 0.6)),
    ]
    assert Offer(question, cands).defining == {2}
