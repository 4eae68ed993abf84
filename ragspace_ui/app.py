"""The Gradio app: tabs over one `Actions`."""

from dataclasses import dataclass
from typing import Any

import gradio as gr
from pygments.formatters import HtmlFormatter

from ragspace.access import Credentials
from ragspace.actions import Actions, AppMode
from ragspace.errors import RagspaceError
from ragspace.links import parse_line_link
from ragspace_ui.chat_scripts import NEW_QUESTION_IN_VIEW, OPEN_FROM_LINK
from ragspace_ui.chat_sources import SNIPPET_CSS
from ragspace_ui.chat_tab import ChatTab, layout_chat_tab, wire_chat_tab
from ragspace_ui.docset_forms import DOCSET_LIST_LANE
from ragspace_ui.docsets_tab import (
    DocsetsTab,
    docset_rows,
    layout_docsets_tab,
    wire_docsets_tab,
)
from ragspace_ui.error_messages import user_errors
from ragspace_ui.evaluate_panel import EvaluatePanel, layout_evaluate_panel, wire_evaluate_panel
from ragspace_ui.folder_upload import FILE_LIST_CSS, KEEP_FOLDER_PATHS
from ragspace_ui.mcp_tools import register_mcp_tools
from ragspace_ui.repo_map_view import MAP_CSS
from ragspace_ui.status_tab import StatusTab, layout_status_tab, wire_status_tab
from ragspace_ui.status_view import ALL
from ragspace_ui.viewer import VIEWER_CSS, open_line_link, viewer_notice

# passed to `launch(css=...)` (Gradio 6 takes page CSS there): cited snippets show the
# file's lines (SNIPPET_CSS), inline errors stand out, tables keep readable columns (scroll
# sideways rather than wrap a header one letter per line), and on phones every tab keeps its
# label (no "…" overflow menu)
CSS = (
    """
.inline-error { color: var(--error-text-color, #b91c1c); font-weight: 600; }
/* a header breaks between its words, never inside one ("Ch/un/ks") */
.readable-table th, .readable-table th * { word-break: keep-all; overflow-wrap: normal;
  hyphens: none; }
#mode-indicator p { margin: 0; font-size: var(--text-sm); }
@media (max-width: 640px) {
  /* Gradio moves tabs that do not fit into an unlabelled "…" menu: make all four fit */
  .tab-container button { padding: 4px 7px !important; font-size: 13px !important; }
  /* the question box above the fold: a shorter conversation pane */
  #chatbot { height: 300px !important; min-height: 0 !important; }
}
@media (max-width: 1024px) {
  /* tables scroll sideways instead of squeezing columns narrower than their headers (at
     700 px "Chunks" broke in two, "Progress" too) */
  .readable-table th, .readable-table .body-cell {
    width: 7rem !important; min-width: 7rem !important; max-width: 7rem !important;
    flex: 0 0 7rem !important;
  }
  .readable-table table, .readable-table .virtual-body { width: max-content !important; }
}
"""
    + SNIPPET_CSS
    + VIEWER_CSS
    + MAP_CSS
    + FILE_LIST_CSS
    + HtmlFormatter().get_style_defs(".rs-viewer")
)
# phones open on the Chat tab (the DocSets forms are long); desktops on DocSets
CHAT_FIRST_ON_PHONES = """() => {
  if (window.matchMedia('(max-width: 640px)').matches) {
    const chat = [...document.querySelectorAll('[role="tab"]')]
      .find((tab) => tab.textContent.trim() === 'Chat');
    if (chat) chat.click();
  }
}"""
SELECTED_DOCSET_KEY = "ragspace-selected-docset"
# The DocSet chosen is kept in this browser's storage by the page itself, the moment it
# changes: a server event (as gr.BrowserState's saving was) could still be queued when the
# user reloaded, and the reload then selected the DocSet chosen before (issue 67). Every
# refresh of the DocSet lists reads it back as its third input.
REMEMBER_DOCSET = f"""(name) => {{
  localStorage.setItem('{SELECTED_DOCSET_KEY}', name || '');
  return [];
}}"""
WITH_REMEMBERED = f"""(selected, checked, _remembered) =>
  [selected, checked, localStorage.getItem('{SELECTED_DOCSET_KEY}') || null]"""
UPLOAD_CACHE_SWEEP = (600, 1800)  # every 10 min, delete cached files older than 30 min
READ_ONLY_BANNER = (
    "🔒 **Read-only.** You can search and chat; creating, changing or deleting DocSets and "
    "adding sources are turned off here."
)


def mode_text(mode: AppMode) -> str:
    """The mode indicator: which embeddings and which kind of answers this app uses."""
    embeddings = (
        f"local model ({mode.embedding_model.split('/', 1)[-1]}, on this machine)"
        if mode.local_embeddings
        else f"OpenAI ({mode.embedding_model})"
    )
    model = f"`{mode.chat_model}`" if mode.chat_model else "the OpenAI chat model"
    answers = (
        f"written by the LLM ({model})"
        if mode.llm_answers
        else "extractive, quoted passages (set OPENAI_API_KEY for LLM-written answers)"
    )
    return f"**Embeddings:** {embeddings} · **Answers:** {answers}"


def pick_docset(names: list[str], selected: str | None, remembered: str | None) -> str | None:
    """The DocSet to select: the current one, else the one remembered, else the only one."""
    for candidate in (selected, remembered):
        if candidate in names:
            return candidate
    return names[0] if len(names) == 1 else None


def selection_update(names: list[str], selected: str | None, remembered: str | None) -> Any:
    """The DocSet dropdown after a refresh: new choices, and a value only when the choice
    changes (the one it had when the refresh was asked for is gone, or one is remembered).
    The list refreshes after every change and on every tab switch: re-sending a value read
    earlier could undo a choice made since, and sending None to a dropdown that had none,
    just before a new DocSet was selected, set off its change event in a loop (Gradio 6.31,
    under load)."""
    chosen = pick_docset(names, selected, remembered)
    if chosen == selected:  # still there, or still none
        return gr.update(choices=names)
    return gr.update(choices=names, value=chosen)


def checked_update(names: list[str], checked: list[str] | None) -> Any:
    """The Chat tab's ticked DocSets after a refresh: new choices, and a value only when a
    ticked DocSet is gone (a value read earlier could untick one ticked since)."""
    kept = [name for name in checked or [] if name in names]
    if len(kept) == len(checked or []):
        return gr.update(choices=names)
    return gr.update(choices=names, value=kept)


@dataclass(frozen=True)
class Page:
    """The page's tabs, and what the wiring across tabs needs."""

    tabs: gr.Tabs
    remembered: gr.Textbox  # the DocSet last selected in this browser (REMEMBER_DOCSET)
    docsets_page: gr.Tab
    chat_page: gr.Tab
    status_page: gr.Tab
    evaluate_page: gr.Tab
    docsets: DocsetsTab
    status: StatusTab
    chat: ChatTab
    evaluate: EvaluatePanel


def build_ui(actions: Actions, credentials: Credentials | None = None) -> gr.Blocks:
    """Build the Blocks app; launching it is the caller's job.

    `credentials` (RAGSPACE_AUTH) let MCP callers in: Gradio's login page does not guard MCP.
    """
    # uploads wait in Gradio's cache only until they are added; sweep any left behind. No
    # telemetry: Gradio would otherwise report every start to huggingface.co and ask it for
    # its latest version, from a self-hosted server that may not reach the internet at all
    demo = gr.Blocks(title="RAGSpace", delete_cache=UPLOAD_CACHE_SWEEP, analytics_enabled=False)
    with demo:
        # the tools come first, so they keep their plain API names (architecture.md)
        register_mcp_tools(actions, credentials)
        tools = set(demo.fns)
        page = layout_page(actions)
        wire_page(actions, demo, page)
    # the public API and MCP are the tools only, not the UI's internal event handlers
    for key, fn in demo.fns.items():
        if key not in tools:
            fn.api_visibility = "private"
    return demo


# --- layout ---------------------------------------------------------------------------


def layout_page(actions: Actions) -> Page:
    """Lay out the header, the mode indicator and every tab."""
    gr.Markdown("# RAGSpace\nChat with your docs and code, with line-exact citations.")
    gr.Markdown(mode_text(actions.mode), elem_id="mode-indicator")
    # filled from the browser's storage by each refresh (WITH_REMEMBERED); never shown
    remembered = gr.Textbox(visible=False)
    if actions.read_only:
        gr.Markdown(READ_ONLY_BANNER, elem_id="read-only-banner")
    with gr.Tabs() as tabs:
        with gr.Tab("DocSets", id="docsets") as docsets_page:
            docsets = layout_docsets_tab(actions)
        with gr.Tab("Embedding status", id="status") as status_page:
            status = layout_status_tab(actions)
        with gr.Tab("Chat", id="chat") as chat_page:
            chat = layout_chat_tab(actions)
        with gr.Tab("Evaluate", id="evaluate") as evaluate_page:
            evaluate = layout_evaluate_panel(actions)
    return Page(
        tabs=tabs,
        remembered=remembered,
        docsets_page=docsets_page,
        chat_page=chat_page,
        status_page=status_page,
        evaluate_page=evaluate_page,
        docsets=docsets,
        status=status,
        chat=chat,
        evaluate=evaluate,
    )


# --- wiring ---------------------------------------------------------------------------


def wire_page(actions: Actions, demo: gr.Blocks, page: Page) -> None:
    """Wire each tab, then what crosses tabs: DocSet lists, line links, page scripts."""
    changed = wire_docsets_tab(actions, page.docsets)
    others = (page.docsets_page, page.chat_page, page.evaluate_page)
    wire_status_tab(actions, page.status, page.status_page, others)
    wire_chat_tab(actions, page.chat)
    changed.append(wire_evaluate_panel(actions, page.evaluate, page.evaluate_page))
    docsets_tab, status_tab, chat_tab = page.docsets, page.status, page.chat

    @user_errors
    def refresh_docset_lists(
        selected: str | None, checked: list[str], remembered: str | None
    ) -> tuple[Any, ...]:
        rows = docset_rows(actions)
        names = [row[0] for row in rows]
        return (
            rows,
            selection_update(names, selected, remembered),
            gr.update(choices=[ALL, *names]),
            checked_update(names, checked),
            gr.update(visible=not names),
        )

    inputs = [docsets_tab.selected, chat_tab.docsets, page.remembered]
    outputs = [
        docsets_tab.table,
        docsets_tab.selected,
        status_tab.docset_filter,
        chat_tab.docsets,
        docsets_tab.empty_state,
    ]
    # raw values (preprocess=False): a refresh queued behind another may carry a selection
    # the one before it just removed, which Gradio would refuse as "not in the choices"
    refresh = {"preprocess": False, "js": WITH_REMEMBERED, **DOCSET_LIST_LANE}
    for event in changed:
        event.then(refresh_docset_lists, inputs, outputs, **refresh)
    demo.load(refresh_docset_lists, inputs, outputs, **refresh)
    demo.load(None, js=CHAT_FIRST_ON_PHONES)
    wire_line_links(actions, demo, page)
    demo.load(None, js=KEEP_FOLDER_PATHS)  # a folder upload keeps its files' paths
    # remember the selection in this browser (a reload or a new tab selects it again)
    for picked in (docsets_tab.selected.input, docsets_tab.selected.change):
        picked(None, [docsets_tab.selected], None, js=REMEMBER_DOCSET)
    # counts change while documents embed: show them fresh whenever a tab is opened
    for tab_page in (page.docsets_page, page.chat_page):
        tab_page.select(refresh_docset_lists, inputs, outputs, show_progress="hidden", **refresh)


def wire_line_links(actions: Actions, demo: gr.Blocks, page: Page) -> None:
    """`?docset=...&path=...&lines=a-b` (the `view_url` of MCP and CLI hits) opens those
    lines in the viewer, next to the chat."""

    @user_errors
    def open_linked_lines(request: gr.Request) -> tuple[Any, Any]:
        try:
            link = parse_line_link(dict(request.query_params))
            if link is None:
                return gr.update(), gr.update()
            shown = open_line_link(actions, link)
        except RagspaceError as exc:  # a stale or mistyped link: say so where it points
            shown = viewer_notice(f"The linked lines cannot be opened: {exc}")
        return shown, gr.Tabs(selected="chat")

    demo.load(open_linked_lines, None, [page.chat.viewer, page.tabs])
    demo.load(None, js=OPEN_FROM_LINK)
    demo.load(None, js=NEW_QUESTION_IN_VIEW)
