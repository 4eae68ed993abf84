"""The keyword side's SQL: Okapi BM25 over the chunks' full-text vectors (and over the
documents' cards), its terms chosen first in a small query of their own (`weighted_terms`)."""

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql


@dataclass(frozen=True)
class WeightedTerms:
    """The query's lexemes the keyword side searches for, each with its IDF within the
    selected DocSets, their disjunction as a tsquery, and the DocSets' average lengths."""

    lexemes: list[str]
    idfs: list[float]
    match: str  # the tsquery's text: 'a' | 'b'
    average_words: float  # per chunk
    # the file side's terms: more of the question's words (a card per document is far fewer
    # rows than the chunks), the same IDFs
    card_lexemes: list[str]
    card_idfs: list[float]
    card_match: str

    def parameters(self) -> dict[str, Any]:
        return {
            "lexemes": self.lexemes,
            "idfs": self.idfs,
            "match": self.match,
            "average_words": self.average_words,
            "card_lexemes": self.card_lexemes,
            "card_idfs": self.card_idfs,
            "card_match": self.card_match,
        }


def weighted_terms(
    conn: psycopg.Connection[Any], parameters: dict[str, Any]
) -> WeightedTerms | None:
    """The keyword side's terms (see KEYWORD_TERMS); None when none occurs in the DocSets.

    Chosen in a query of their own so that the candidates' query carries the tsquery as a
    value: Postgres then estimates from the column's statistics how many chunks of the whole
    table match it, and for a small DocSet whose chosen words are common elsewhere reads the
    DocSet's rows instead of intersecting them with the full-text index's (at a million
    chunks, a 510,000-row bitmap for a 1,000-chunk DocSet: docs/benchmarks.md)."""
    row = conn.execute(WEIGHTED_TERMS, parameters, prepare=False).fetchone()
    if row is None or not row[0]:
        return None
    lexemes, idfs, match, average_words, card_lexemes, card_idfs, card_match = row
    return WeightedTerms(
        list(lexemes),
        [float(idf) for idf in idfs],
        match,
        average_words,
        list(card_lexemes),
        [float(idf) for idf in card_idfs],
        card_match,
    )


# Bounds of the keyword side's work per query (see KEYWORD_TERMS).
KEYWORD_MAX_TERMS = 8
# the file side's: not bounded by matches like the chunk side's, since a card per document
# is far fewer rows, and the words a question describes a file with are common in chunks
# (bounded to the chunk side's 2,000 matches, the held-out file R@10 fell from 0.764 /
# 0.510 / 0.609 to 0.659 / 0.446 / 0.519 on pytest / sphinx / pylint; cards matched by the
# chunk side's rare terms only and scored by all: no card signal survived the protocol)
FILE_MAX_TERMS = 16
KEYWORD_MAX_MATCHES = 2_000
# BM25's term-frequency saturation and length normalisation (Robertson's ranges: k1 1.2-2,
# b about 0.75); chosen on the docs set, confirmed on the code set (docs/benchmarks.md)
BM25_K1 = 2.0
BM25_B = 0.6


def _bm25(tf: str, length: str, average: str) -> str:
    """One term's Okapi BM25 in SQL, idf x tf (k1 + 1) / (tf + k1 (1 - b + b length /
    average)), for the term's IDF `w.idf`: the chunks' and the cards' alike."""
    return (
        f"w.idf * {tf} * (%(bm25_k1)s + 1) / ({tf} + %(bm25_k1)s * (1 - %(bm25_b)s"
        f" + %(bm25_b)s * {length} / {average}))"
    )


# Okapi BM25 keyword side: each query lexeme is weighted by its inverse document frequency
# within the selected DocSets (from `docset_terms`, kept by triggers), so rare identifiers
# outrank words that appear everywhere, and its frequency in a chunk counts
# tf (k1 + 1) / (tf + k1 (1 - b + b len / average len)): more occurrences count, with
# diminishing returns, and a long chunk needs more of them (lengths in indexed words, from
# `chunks.fts_words` and `docset_lengths`). Only the rarest lexemes pick the candidates,
# bounded by how many chunks they match, so a question made of common words cannot turn into
# a scan; lexemes in more than half the chunks are left out (their classic
# Robertson-Sparck Jones IDF is not positive) unless nothing rarer matched.
KEYWORD_TERMS = """
    corpus as (
        select greatest(coalesce(sum(chunk_count), 0), 1)::float8 as n,
               (select coalesce(sum(words)::float8 / nullif(sum(chunks), 0), 1.0)
                from docset_lengths where docset_id = any(%(docsets)s)) as average_words
        from documents where docset_id = any(%(docsets)s)
    ),
    query_lexemes as (
        select distinct lexeme
        from unnest(tsvector_to_array(
            to_tsvector('english', array_to_string(%(terms)s::text[], ' ')))) as lexeme
    ),
    term_frequencies as (
        select q.lexeme, sum(t.df)::float8 as df
        from query_lexemes q
        join docset_terms t on t.lexeme = q.lexeme and t.docset_id = any(%(docsets)s)
        group by q.lexeme
        having sum(t.df) > 0
    ),
    ranked_terms as (
        select t.lexeme, t.df, ln(1 + (corpus.n - t.df + 0.5) / (t.df + 0.5)) as idf,
               sum(t.df) over (order by t.df, t.lexeme) as matched_before_and_here,
               row_number() over (order by t.df, t.lexeme) as rarity
        from term_frequencies t cross join corpus
    ),
    weighted_terms as (
        select r.lexeme, quote_literal(r.lexeme)::tsquery as query, r.idf
        from ranked_terms r cross join corpus
        where r.rarity = 1
           or (r.rarity <= %(max_terms)s and r.matched_before_and_here <= %(max_matches)s
               and r.df <= corpus.n / 2)
    ),
    card_terms as (
        select r.lexeme, r.idf
        from ranked_terms r cross join corpus
        where r.rarity = 1 or (r.rarity <= %(file_max_terms)s and r.df <= corpus.n / 2)
    ),
"""
WEIGHTED_TERMS = (
    "with "
    + KEYWORD_TERMS.rstrip().removesuffix(",")
    + """
    select array_agg(lexeme order by lexeme), array_agg(idf order by lexeme),
           string_agg(quote_literal(lexeme), ' | ' order by lexeme)::tsquery::text,
           (select average_words from corpus),
           (select array_agg(lexeme order by lexeme) from card_terms),
           (select array_agg(idf order by lexeme) from card_terms),
           (select string_agg(quote_literal(lexeme), ' | ' order by lexeme)::tsquery::text
            from card_terms)
    from weighted_terms
"""
)
# The chunks that hold any chosen lexeme (one scan, by the full-text index or of the DocSets'
# rows, whichever the planner expects to be cheaper for this tsquery); for each, once, its
# vector cut down to those lexemes (`setweight` marks them A, as nothing else in `fts` is, and
# `ts_filter` keeps them: both in C, without expanding the whole vector) gives each lexeme's
# positions in the chunk: its term frequency.
KEYWORD_MATCHES = sql.SQL(
    """
    weighted_terms as (
        select lexeme, idf from unnest(%(lexemes)s::text[], %(idfs)s::float8[]) as w(lexeme, idf)
    ),
    corpus as (
        select %(average_words)s::float8 as average_words
    ),
    keyword_matches as materialized (
        select c.id, c.document_id, c.fts_words, u.lexeme, u.tf
        from chunks c
        cross join lateral (
            select lexeme, coalesce(array_length(positions, 1), 1) as tf
            from unnest(ts_filter(setweight(c.fts, 'A', %(lexemes)s::text[]), '{{a}}'))) u
        where c.fts @@ %(match)s::tsquery and c.docset_id = any(%(docsets)s){ref}
    ),
    keyword_chunks as (
        select m.id, m.document_id,
               sum("""
    + _bm25("m.tf", "m.fts_words", "corpus.average_words")
    + """) as score
        from keyword_matches m join weighted_terms w on w.lexeme = m.lexeme cross join corpus
        group by m.id, m.document_id
    ),
    """
)
KEYWORD_CANDIDATES = sql.SQL(
    """
    (select id, 'keyword'::text as side,
            row_number() over (order by score desc, id) as rank, score
     from keyword_chunks order by score desc, id limit %(candidates)s)
    """
)
# BM25 over the documents' cards (path, title, headings, definitions and their first
# docstring lines: migration 20261130000000_document_cards.sql), the chunks' constants, the
# cards' own average length. Each file is offered through its best keyword chunk, else its
# first: the ranking lifts a code file's best chunk and a page's every chunk by the card's
# score (RankingOptions.file_weight), so a question that describes a file finds it even when
# no single chunk carries its words.
FILE_MATCHES = sql.SQL(
    """
    card_corpus as (
        select coalesce(avg(words), 1)::float8 as average_words
        from document_cards where docset_id = any(%(docsets)s)
    ),
    file_cards as (
        select c.document_id, sum("""
    + _bm25("u.tf", "c.words", "k.average_words")
    + """) as score
        from document_cards c
        cross join card_corpus k
        cross join lateral (
            select lexeme, coalesce(array_length(positions, 1), 1) as tf
            from unnest(ts_filter(setweight(c.fts, 'A', %(card_lexemes)s::text[]), '{{a}}'))) u
        join unnest(%(card_lexemes)s::text[], %(card_idfs)s::float8[]) as w(lexeme, idf)
            on w.lexeme = u.lexeme
        where c.fts @@ %(card_match)s::tsquery and c.docset_id = any(%(docsets)s){ref}
        group by c.document_id
        order by score desc, c.document_id
        limit %(candidates)s
    ),
    """
)
FILE_CANDIDATES = sql.SQL(
    """
    (select coalesce(
                (select k.id from keyword_chunks k where k.document_id = f.document_id
                 order by k.score desc, k.id limit 1),
                first_chunk.id) as id,
            'file'::text as side,
            row_number() over (order by f.score desc, f.document_id) as rank, f.score
     from file_cards f
     -- a document without chunks (not stored yet) is not offered
     join lateral (select c.id from chunks c where c.document_id = f.document_id
                   order by c.ordinal limit 1) first_chunk on true)
    """
)
