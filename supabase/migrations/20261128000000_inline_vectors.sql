-- Vectors are kept inside the chunk's row instead of in the TOAST table (issue 42). A DocSet
-- small enough is searched exactly: every one of its vectors is read and compared, and a vector
-- stored out of line costs a TOAST index probe and a second page per row (measured: 10,000
-- chunks read 59,657 buffers and took 30 ms; inline, 4,360 buffers and 8 ms). MAIN keeps the
-- value inline and moves the row's other long values (content, full-text vector) out first;
-- only a row that still does not fit moves its vector out too.
--
-- Rows already stored keep their place until they are written again (a re-embedding or
-- re-sync): rewriting every row here would re-insert each into the HNSW indexes, hours on a
-- large database, for a speed-up that search does not need to be correct.
alter table chunks alter column embedding set storage main;
alter table chunks alter column fast_embedding set storage main;
