-- Schema for a small library lending system.

CREATE TABLE members (
    id          bigserial PRIMARY KEY,
    email       text NOT NULL UNIQUE,
    joined_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE books (
    id          bigserial PRIMARY KEY,
    isbn        text NOT NULL UNIQUE,
    title       text NOT NULL,
    copies      integer NOT NULL CHECK (copies >= 0)
);

CREATE TABLE loans (
    id          bigserial PRIMARY KEY,
    member_id   bigint NOT NULL REFERENCES members (id),
    book_id     bigint NOT NULL REFERENCES books (id),
    due_on      date NOT NULL,
    returned_at timestamptz
);

CREATE INDEX loans_open_idx ON loans (book_id) WHERE returned_at IS NULL;

CREATE OR REPLACE FUNCTION available_copies(p_book bigint) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT b.copies - count(l.id)::integer
    FROM books b
    LEFT JOIN loans l ON l.book_id = b.id AND l.returned_at IS NULL
    WHERE b.id = p_book
    GROUP BY b.copies;
$$;
