"""The protocol's rows: each ranking variant a family of rankings over a grid of points
(TriedOptions, the app's signals and the tried ones), in the order the table shows them."""

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from bench.pool.scoring import (
    AppRanking,
    Ranking,
    at_depth,
    keyword_only,
    side_alone,
    today_ranking,
)

Variant = tuple[str, Callable[[Any], Ranking], list[Any]]

SHARES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
WEIGHTS = (0.1, 0.25, 0.5, 1.0)


# Signals kept alone that the joint tuning turned off on every fold (2026-11-28, commit
# 7297eb5: coherence_boost 0 for each held-out set and on all five), left out of the joint
# grid so that it stays affordable (each kept axis multiplies it); their own rows still show.
RETIRED = ("+ file coherence",)


# Signals that lost alone but may win with the kept ones (they build on them: the files the
# symbol table links are lifted by the best files, which the kept signals find): each is
# tuned jointly with the kept signals under the same folds and kept when that row wins over
# the kept signals' own. The others are offered one at a time on top of the shipped row
# (`stack`), which multiplies no grid.
ON_TOP = ("+ files the symbol table links",)


def grid(**axes: Sequence[Any]) -> list[Any]:
    """Today's ranking with each combination of the axes' values (the first axis slowest)."""
    points = [today_ranking()]
    for field, values in axes.items():
        points = [dataclasses.replace(p, **{field: v}) for p in points for v in values]
    return points


def variants(depth: int) -> Iterator[Variant]:
    """(name, family, grid): each variant a family of rankings over a parameter grid; a
    grid of one point is a fixed ranking. The last, the kept signals tuned jointly, has
    no grid of its own ({}): protocol.evaluate builds it from the kept rows."""
    from ragspace.ranking.candidates import Side

    def product(options: Any) -> Ranking:
        return AppRanking(options, depth)

    yield "vector", lambda _p: at_depth(side_alone(Side.VECTOR), depth), [None]
    yield "keyword", lambda _p: at_depth(side_alone(Side.KEYWORD), depth), [None]
    # before the vectors land: the app's keyword-only ranking, as shipped (not tuned here)
    yield "keyword-only ranking", lambda _p: at_depth(keyword_only, depth), [None]
    yield "hybrid (today)", product, [today_ranking()]
    for name, points in (*_fusions(), *_evidence(), *_files()):
        yield name, product, points
    yield "kept signals, tuned jointly", product, {}  # type: ignore[misc]


def _fusions() -> Iterator[tuple[str, list[Any]]]:
    from ragspace.models import Fusion

    yield "convex, share chosen", grid(vector_share=SHARES)
    yield (
        "rrf, k and weight chosen",
        grid(fusion=[Fusion.RRF], rrf_k=(10, 30, 60), keyword_weight=(0.5, 0.75, 1.0, 1.25)),
    )
    yield "distribution scaling", grid(scaling=["distribution"], vector_share=SHARES)
    yield (
        "confidence weights",
        grid(confidence_power=(0.5, 1.0, 2.0), vector_share=(0.4, 0.5, 0.6)),
    )
    yield (
        "symbol-aware share",
        grid(vector_share=(0.5, 0.6, 0.7), symbol_vector_share=(0.2, 0.3, 0.4, 0.5)),
    )


def _evidence() -> Iterator[tuple[str, list[Any]]]:
    yield "+ definitions", grid(definition_boost=(0.1, 0.25, 0.5, 1.0, 2.0))
    yield (
        "+ definitions by how few files define the name",
        grid(definition_boost=(0.5, 1.0, 2.0), definition_specificity=(1.0,)),
    )
    yield (
        "+ definitions by the parse where a grammar parses",
        grid(definition_boost=(0.5, 1.0, 2.0), text_definition_factor=(0.0,)),
    )
    yield (
        "+ each file's definitions once",
        grid(definition_boost=(0.5, 1.0, 2.0), definition_once_per_file=[True]),
    )
    yield "+ file names", grid(name_boost=(0.1, 0.25, 0.5))
    yield "+ code files' names", grid(name_boost=(0.1, 0.25, 0.5), names_of_code_only=[True])
    yield "+ file coherence", grid(coherence_boost=(0.1, 0.2, 0.4))
    yield "+ tests/examples lowered", grid(secondary_factor=(0.5, 0.7, 0.85))
    yield "+ prose lowered for questions about code", grid(prose_factor=(0.3, 0.5, 0.7))
    yield "+ files spread", grid(file_decay=(0.5, 0.7, 0.85))
    yield (
        "+ files spread by competition",
        grid(file_decay=(0.3, 0.5), file_spread_power=(1.0, 2.0, 4.0)),
    )
    yield "+ whole-document BM25", grid(document_weight=(0.1, 0.25, 0.5, 1.0))
    yield "+ sub-questions", grid(sub_question_weight=(0.5, 0.75, 0.9, 1.0))


def _files() -> Iterator[tuple[str, list[Any]]]:
    yield from _cards()
    yield (
        "+ file cards, files spread",
        grid(file_weight=(0.25, 0.5, 1.0), file_decay=(0.5, 0.7, 0.85)),
    )
    # as the cards: the file rises by its best chunk
    chunk_sides = {"lift_best_chunk": [True]}
    yield "+ files' best vector chunks", grid(file_vector_weight=(*WEIGHTS, 2.0), **chunk_sides)
    yield (
        "+ files' best keyword chunks",
        grid(file_keyword_weight=(*WEIGHTS, 2.0), **chunk_sides),
    )
    yield "+ files the symbol table links", grid(neighbour_weight=(0.1, 0.2, 0.3, 0.5))


def _cards() -> Iterator[tuple[str, list[Any]]]:
    """The file cards' rows: alone, by their confidence, with the pages spread."""
    # the cards by their confidence, each file by its best chunk: the pages' spread rows' base
    confident_cards = {
        "file_weight": (0.25, 0.5),
        "file_confidence_power": (2.0,),
        "lift_best_chunk": [True],
    }
    yield "+ file cards", grid(file_weight=WEIGHTS)
    yield "+ file cards, best chunk lifted", grid(file_weight=WEIGHTS, lift_best_chunk=[True])
    yield (
        "+ file cards, by their confidence",
        grid(
            file_weight=WEIGHTS,
            file_confidence_power=(1.0, 2.0, 4.0),
            lift_best_chunk=[False, True],
        ),
    )
    yield (
        "+ file cards by their confidence, pages spread",
        grid(
            **confident_cards,
            page_decay=(0.5, 0.7),
        ),
    )
    yield (
        "+ file cards by their confidence, pages spread by competition",
        grid(
            **confident_cards,
            page_decay=(0.5, 0.7),
            page_spread_power=(2.0, 4.0, 8.0),
        ),
    )
    # the power fixed where a page's sections spread only when another page nearly ties
    # with it (competition 0.9: 0.43 of the decay, 0.7: 0.06): chosen in sample after the
    # row above, whose folds without claude-docs choose 2.0 and cost it (docs/benchmarks-log.md)
    yield (
        "+ file cards by their confidence, pages spread when they nearly tie",
        grid(
            **confident_cards,
            page_decay=(0.5, 0.7),
            page_spread_power=(8.0,),
        ),
    )
    yield (
        "+ code files' cards by their confidence",
        grid(
            file_weight=WEIGHTS,
            file_confidence_power=(1.0, 2.0, 4.0),
            lift_best_chunk=[True],
            cards_of_code_only=[True],
        ),
    )


def axes_of(points: Sequence[Any]) -> dict[str, list[Any]]:
    """The fields a grid varies, with the values it tries and the default's."""
    from bench.experiments.tried_signals.options import fields_in_order

    default = today_ranking()
    axes: dict[str, list[Any]] = {}
    for point in points:
        for field in fields_in_order(point):
            value = getattr(point, field.name)
            if value != getattr(default, field.name):
                values = axes.setdefault(field.name, [getattr(default, field.name)])
                if value not in values:
                    values.append(value)
    return axes
