"""The stems questions, lines and quotes are compared by."""

import threading

from ragspace.text.terms import covers, term_pairs, terms

WORDS = " ".join(
    f"{word}{suffix}"
    for word in ("connect", "retry", "embed", "backup", "index", "happy", "generous")
    for suffix in ("", "s", "ed", "ing", "ion", "ions", "ness", "ly", "ies")
)


def test_words_meet_by_stem_and_stop_words_are_left_out() -> None:
    assert terms("How are backups restored?") == terms("backup restore")
    assert "how" not in terms("How many retries")
    assert covers("RETRIES = 3", "How many retries?")


def test_threads_stem_at_the_same_time_without_mixing_words() -> None:
    # a snowball stemmer holds the word it works on: a shared one mixed concurrent words up
    # (IndexError under load in the app); each thread has its own
    expected = terms(WORDS)
    start = threading.Barrier(8)
    results: list[set[str]] = []
    failures: list[BaseException] = []

    def stem() -> None:
        start.wait()
        try:
            results.extend(terms(WORDS) for _ in range(200))
        except BaseException as exc:  # collected: an exception in a thread would be lost
            failures.append(exc)

    threads = [threading.Thread(target=stem) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(results) == 1_600 and all(result == expected for result in results)


def test_pairs_are_terms_in_order_with_stop_words_skipped() -> None:
    assert ("ref", "index") in term_pairs("a ref that is not indexed")
    assert ("ask", "ref") not in term_pairs("ask take an optional ref")
    assert term_pairs("retry") == set()
