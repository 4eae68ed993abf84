"""A documentation site that publishes llms.txt and llms-full.txt, on 127.0.0.1.

Twelve pages of the (fictional) Beacon job scheduler, each served as HTML with a sidebar
linking every page (as documentation sites do) and as markdown next to it (`page.md`);
`/llms.txt` lists the markdown pages (plus a robots-disallowed one, one outside /docs/, one on
another site and one that redirects to another host), `/llms-full.txt` holds every page's text
under its H1 with a `Source:` line. Used by tests/sources/test_llms_txt.py and
bench/llms_txt.py (which also asks a question per page).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from tests.fakes.docs_site import DocsSite, page, running_site

# slug -> (title, [(section heading, paragraph)], a question only this page answers)
PAGES: dict[str, tuple[str, list[tuple[str, str]], str]] = {
    "install": (
        "Installing Beacon",
        [
            (
                "Requirements",
                "Beacon needs Python 3.11 and a PostgreSQL 15 database reachable "
                "from every worker host.",
            ),
            (
                "Install with pip",
                "Run pip install beacon-scheduler inside a virtual environment; "
                "the beacon command is then on your PATH.",
            ),
        ],
        "Which Python version does Beacon need?",
    ),
    "quickstart": (
        "Quickstart",
        [
            (
                "Your first job",
                "Create jobs.toml with a [job.hello] table whose command is echo "
                "hello, then run beacon run hello.",
            ),
            (
                "Watching it run",
                "beacon tail hello streams the job's output and exits when the job finishes.",
            ),
        ],
        "How do I stream a job's output while it runs?",
    ),
    "cron": (
        "Cron schedules",
        [
            (
                "Cron syntax",
                "A schedule is a five-field cron expression such as 30 2 * * 1 for "
                "half past two every Monday.",
            ),
            (
                "Time zones",
                "Schedules run in UTC unless the job sets timezone = "
                '"Europe/Paris" or another IANA zone name.',
            ),
        ],
        "Which time zone do schedules use by default?",
    ),
    "retries": (
        "Retries and backoff",
        [
            (
                "Retry policy",
                "max_attempts sets how often a failed job is tried again; the "
                "default is three attempts.",
            ),
            (
                "Exponential backoff",
                "Waits double after each failure, starting at backoff_base "
                "seconds and capped by backoff_max.",
            ),
        ],
        "How many attempts does a failed job get by default?",
    ),
    "concurrency": (
        "Concurrency limits",
        [
            (
                "Per-job limits",
                "max_running = 1 keeps a second run of the same job from starting "
                "while one is still going.",
            ),
            (
                "Worker slots",
                "Each worker host offers slots; a job waits in the queue until a slot is free.",
            ),
        ],
        "How do I stop two runs of the same job overlapping?",
    ),
    "secrets": (
        "Secrets",
        [
            (
                "Secret stores",
                "Secrets come from environment variables or from a Vault path "
                'given as secret = "vault:kv/payments#token".',
            ),
            ("Masking", "Secret values are masked as *** in job logs and in the web console."),
        ],
        "How are secret values shown in job logs?",
    ),
    "notifications": (
        "Notifications",
        [
            ("Slack alerts", "notify_slack posts to a webhook when a job fails twice in a row."),
            (
                "E-mail digests",
                "A daily digest e-mail lists every failed run of the last 24 hours.",
            ),
        ],
        "When does Beacon post a Slack alert?",
    ),
    "dependencies": (
        "Job dependencies",
        [
            (
                "after",
                'after = ["extract"] starts a job only once extract has succeeded in the '
                "same schedule window.",
            ),
            (
                "Cycles",
                "A dependency cycle is refused when jobs.toml is loaded, naming the jobs "
                "in the cycle.",
            ),
        ],
        "What happens when job dependencies form a cycle?",
    ),
    "logs": (
        "Logs and retention",
        [
            (
                "Where logs go",
                "Each run's output is stored in the database and kept for "
                "log_retention_days, 30 by default.",
            ),
            ("Exporting", "beacon logs export writes runs as JSON lines for a log pipeline."),
        ],
        "How long are run logs kept by default?",
    ),
    "api": (
        "HTTP API",
        [
            (
                "Authentication",
                "Send Authorization: Bearer with a token created by beacon token create.",
            ),
            (
                "Triggering a run",
                "POST /api/jobs/{name}/runs starts a run at once and returns its run id.",
            ),
        ],
        "Which endpoint starts a job run immediately?",
    ),
    "upgrading": (
        "Upgrading",
        [
            (
                "Database migrations",
                "beacon migrate applies schema changes; run it once before "
                "starting upgraded workers.",
            ),
            (
                "Rolling upgrades",
                "Workers of two adjacent versions may run side by side during an upgrade.",
            ),
        ],
        "What must I run before starting upgraded workers?",
    ),
    "faq": (
        "FAQ",
        [
            (
                "Why the name",
                "Beacon lights the way for nightly batch work that used to run unseen.",
            ),
            ("Is there a GUI", "Yes, beacon console serves a read-only web console on port 8200."),
        ],
        "Which port does the web console use?",
    ),
}


def markdown_of(slug: str) -> str:
    """A page's markdown, as its `.md` twin serves it."""
    title, sections, _ = PAGES[slug]
    body = "".join(f"\n## {heading}\n\n{text}\n" for heading, text in sections)
    return f"# {title}\n{body}"


def html_of(slug: str) -> bytes:
    """A page's HTML with a sidebar linking every page."""
    title, sections, _ = PAGES[slug]
    nav = "".join(f'<li><a href="/docs/{s}.html">{PAGES[s][0]}</a></li>' for s in PAGES)
    body = "".join(f"<h2>{heading}</h2><p>{text}</p>" for heading, text in sections)
    return page(title, f"<aside><ul>{nav}</ul></aside><h1>{title}</h1>{body}")


def llms_txt(origin: str) -> str:
    """The site's llms.txt: every page's markdown, and four links the rules leave out."""
    links = "\n".join(f"- [{PAGES[s][0]}]({origin}/docs/{s}.md): {PAGES[s][0]}" for s in PAGES)
    return (
        "# Beacon\n\n> Beacon is a job scheduler for nightly batch work.\n\n## Docs\n\n"
        f"{links}\n\n## Optional\n\n"
        "- [Internal runbook](/private/runbook.md)\n"
        "- [Blog](/blog/launch.md)\n"
        "- [Elsewhere](https://elsewhere.example/beacon.md)\n"
        "- [Moved page](/docs/moved.md)\n"
    )


def llms_full_txt(origin: str) -> str:
    """Every page's markdown under its H1, with the page's address on a Source line."""
    return "\n".join(
        markdown_of(s).replace("\n", f"\nSource: {origin}/docs/{s}.html\n", 1) for s in PAGES
    )


def build_llms_site(site: DocsSite, llms: bool = True, full: bool = True) -> None:
    """Replace the lantern routes with Beacon's; with or without the llms files."""
    origin = site.origin
    site.routes.clear()
    site.routes["/robots.txt"] = (
        200,
        {"Content-Type": "text/plain"},
        b"User-agent: *\nDisallow: /private/\n",
    )
    index = "".join(f'<li><a href="/docs/{s}.html">{PAGES[s][0]}</a></li>' for s in PAGES)
    site.html("/docs/", page("Beacon docs", f"<h1>Beacon</h1><ul>{index}</ul>"))
    for slug in PAGES:
        site.html(f"/docs/{slug}.html", html_of(slug))
        site.routes[f"/docs/{slug}.md"] = (
            200,
            {"Content-Type": "text/markdown; charset=utf-8"},
            markdown_of(slug).encode(),
        )
    for path in ("/private/runbook.md", "/blog/launch.md"):
        site.routes[path] = (200, {"Content-Type": "text/markdown"}, b"# Not for the index\n")
    # a listed page that redirects to another host name of this machine: the guard's case
    host = origin.replace("127.0.0.1", "localhost")
    site.routes["/docs/moved.md"] = (302, {"Location": f"{host}/docs/faq.md"}, b"")
    text = {"Content-Type": "text/plain; charset=utf-8"}
    if llms:
        site.routes["/llms.txt"] = (200, text, llms_txt(origin).encode())
    if full:
        site.routes["/llms-full.txt"] = (200, text, llms_full_txt(origin).encode())


@contextmanager
def running_llms_site(llms: bool = True, full: bool = True) -> Iterator[DocsSite]:
    """Serve Beacon's docs on a free port."""
    with running_site() as site:
        build_llms_site(site, llms, full)
        yield site
