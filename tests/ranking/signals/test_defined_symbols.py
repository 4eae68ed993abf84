"""A chunk that defines a symbol the question names rises."""

import dataclasses

import pytest

from ragspace.models import Fusion, Hit
from ragspace.ranking import ranker
from ragspace.ranking.candidates import Candidate
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import canonical, rank_offer
from tests.ranking.made import candidate, hit, in_language

# every definition alike: the boost with none of its refinements
ALIKE = RankingOptions(
    definition_boost=1.0,
    definition_specificity=0.0,
    text_definition_factor=1.0,
    definition_once_per_file=False,
)


def rank(candidates: list[Candidate], options: RankingOptions, question: str) -> list[int]:
    return [h.chunk_id for h in ranker.rank(candidates, options, question)]


def test_a_definition_of_a_named_symbol_rises() -> None:
    cands = [
        candidate(hit(1, "calls.py", "    session.send(request)"), vector=(1, 0.6)),
        candidate(hit(2, "sessions.py", "def send(self, request):"), vector=(2, 0.55)),
        candidate(hit(3, "other.py", "x = 1"), vector=(3, 0.3)),
    ]
    plain = fusion_only(RankingOptions(fusion=Fusion.CONVEX))
    boosted = RankingOptions(fusion=Fusion.CONVEX, definition_boost=0.5)
    question = "What does `send` do with the request?"
    assert rank(cands, plain, question) == [1, 2, 3]
    assert rank(cands, boosted, question) == [2, 1, 3]
    assert rank(cands, RankingOptions(), question) == [2, 1, 3]


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
    assert rank(cands, RankingOptions(), "what does `render` do")[0] == 2


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


def test_a_name_many_files_define_lifts_them_less_than_a_name_one_file_defines() -> None:
    # three headers declare `class Mutex;` ahead of its use; only mutex.h defines MutexLock
    question = "absl::Mutex and MutexLock for synchronization"
    cands = [
        candidate(hit(n, f"absl/m{n}.h", "namespace absl {\nclass Mutex;"), vector=(n, s))
        for n, s in ((1, 0.9), (2, 0.85), (3, 0.8))
    ]
    cands.append(candidate(hit(4, "absl/mutex.h", "class MutexLock {\n};"), vector=(4, 0.75)))
    cands.append(candidate(hit(5, "absl/other.h", "int x;"), vector=(5, 0.1)))
    offer = Offer(question, cands)
    assert offer.definition_weights == {
        1: pytest.approx(1 / 3),
        2: pytest.approx(1 / 3),
        3: 1 / 3,
        4: 1.0,
    }
    alike = ALIKE
    by_files = dataclasses.replace(alike, definition_specificity=1.0)
    assert rank(cands, alike, question)[0] == 1  # every definition alike: the best stays first
    assert rank(cands, by_files, question)[0] == 4  # the one file defining MutexLock rises


def test_where_a_grammar_parses_the_text_patterns_alone_define_nothing() -> None:
    """`const absl::Time t` reads as a definition of Time to the patterns; the C++ parse
    of that chunk declares nothing, so its boost goes; a Time the parse declares keeps it."""
    question = "how is absl::Time compared"
    use = hit(1, "absl/clock.cc", "const absl::Time t = Now();")
    declared = {"language": "cpp", "defines": [{"name": "Time", "kind": "class", "line": 1}]}
    cands = [
        candidate(in_language("cpp", use), vector=(1, 0.9)),
        candidate(
            hit(2, "absl/time.h", "class Time {").model_copy(update={"metadata": declared}),
            vector=(2, 0.6),
        ),
        candidate(in_language("dart", hit(3, "a.dart", "class Time {}")), vector=(3, 0.5)),
        candidate(hit(4, "other.cc", "int x;"), vector=(4, 0.1)),
    ]
    offer = Offer(question, cands)
    assert offer.defining == {1, 2, 3}
    assert offer.read_off_the_text == {1}  # no grammar for dart: its pattern stands
    alike = ALIKE
    parsed = dataclasses.replace(alike, text_definition_factor=0.0)
    assert rank(cands, alike, question)[0] == 1
    assert rank(cands, parsed, question)[0] == 2
    assert rank_offer(offer, canonical(parsed, offer)) == rank_offer(offer, parsed)


def test_a_files_definitions_count_once() -> None:
    """Three StrJoin overloads in str_join.h fill the list when each keeps its boost; once
    per file, the header defining StrSplit comes second."""
    question = "StrSplit and StrJoin for splitting and joining"

    def defining(n: int, path: str, name: str) -> Hit:
        parsed = {"language": "cpp", "defines": [{"name": name, "kind": "function", "line": 1}]}
        return hit(n, path, f"{name}(", 4 if name == "StrSplit" else 1).model_copy(
            update={"metadata": parsed}
        )

    found = [defining(n, "str_join.h", "StrJoin") for n in (1, 2, 3)]
    found += [defining(4, "str_split.h", "StrSplit"), hit(5, "other.h", "int x;", 5)]
    cands = [
        candidate(h, vector=(n, s))
        for n, (h, s) in enumerate(zip(found, (0.9, 0.85, 0.8, 0.5, 0.1), strict=True), 1)
    ]
    every = ALIKE
    once = dataclasses.replace(every, definition_once_per_file=True)
    offer = Offer(question, cands)
    assert offer.defining == {1, 2, 3, 4}
    assert rank(cands, every, question)[:4] == [1, 2, 3, 4]
    assert rank(cands, once, question)[:2] == [1, 4]
    assert rank_offer(offer, canonical(once, offer)) == rank_offer(offer, once)
