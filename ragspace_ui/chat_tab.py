"""Chat tab: pick DocSets, ask, watch the answer stream in, read its cited passages."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ragspace.actions import Actions
from ragspace.actions.hit_view import source_views
from ragspace.answering.answer import fenced
from ragspace.answering.citations import link_citations
from ragspace.models import Answer, Citation, Message, RetrievalMode, SearchQuery
from ragspace_ui.error_messages import inline_errors, user_errors
from ragspace_ui.escape import md
from ragspace_ui.ref_picker import chosen_ref, ref_choices, ref_picker
from ragspace_ui.viewer import EMPTY_VIEWER, open_citation, viewer_notice

ChatHistory = list[dict[str, Any]]
ALL_DOCSETS_HINT = "Leave every box empty to search all DocSets."
SEARCHING = "_Searching…_"
WRITING = "_Writing the answer…_"
NO_ANSWER = "_No answer: the reason is in the message that appeared._"
EXTRACTIVE_NOTICE = (
    "Answers are **extractive** (sentences quoted from your documents) until `OPENAI_API_KEY` "
    "is set; then a model writes them and each quote is checked."
)
VERIFICATION_TEXT = {
    "verified": "✓ quote found in these lines",
    "paraphrased": "≈ a close paraphrase of these lines",
    "unsupported": "⚠ the quote was not found in these lines",
}
OpenableSources = list[dict[str, Any]]  # each cited passage: its citation and DocSet
ChatTurn = tuple[ChatHistory, str, str, OpenableSources]  # chat, sources panel, question box


def source_anchor(number: int) -> str:
    """The id of passage `number` in the sources panel."""
    return f"ragspace-source-{number}"


# a plain click on a citation `[n]` (in the answer or the sources panel) opens passage n
# in the viewer, next to the chat; a GitHub citation's link keeps its commit-pinned URL, so
# Ctrl/Cmd/middle-click (and a copied answer) still open the lines at the commit. The click
# writes `n:<click count>` into a hidden textbox (a new value each click), whose change
# the server answers with the viewer's HTML; once that arrives, its highlighted lines are
# scrolled into view
OPEN_FROM_LINK = """() => {
  let clicks = 0;
  document.addEventListener('click', (event) => {
    const link = event.target.closest('#chatbot a, #chat-sources a');
    const box = document.querySelector('#viewer-open textarea, #viewer-open input');
    const viewer = document.querySelector('#source-viewer');
    if (!link || !box || !viewer) return;
    const cited = link.textContent.trim().match(/^\\[(\\d+)\\]$/);
    if (!cited || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const number = cited[1];
    const head = viewer.querySelector('.rs-viewer-head');
    if (head && head.textContent.startsWith('[' + number + ']')) {  // already open
      viewer.querySelector('.rs-focus')?.scrollIntoView({ block: 'center' });
      return;
    }
    clicks += 1;
    const before = viewer.innerHTML;
    box.value = number + ':' + clicks;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    let tries = 0;
    const timer = setInterval(() => {
      const focus = viewer.querySelector('.rs-focus');
      tries += 1;
      if ((viewer.innerHTML !== before && focus) || tries > 150) {
        clearInterval(timer);
        if (focus) focus.scrollIntoView({ block: 'center' });
      }
    }, 100);
  }, true);
}"""


def link_number(value: str | None) -> int | None:
    """The citation number a `[n]` click wrote (`n:<click count>`), or None."""
    head = (value or "").split(":", 1)[0]
    return int(head) if head.isdigit() else None


def citation_href(citation: Citation) -> str:
    """Where `[n]` in an answer leads: the exact lines at their origin, else the sources panel."""
    return citation.url or f"#{source_anchor(citation.number)}"


def answer_markdown(text: str, citations: list[Citation]) -> str:
    """The answer with every known `[n]` made a link."""
    linked = [c.model_copy(update={"url": citation_href(c)}) for c in citations]
    return link_citations(text, linked)


def scope_text(selected: list[str] | None, ref: str | None = None) -> str:
    """Which DocSets (and ref) a question searches, as the sources panel states it."""
    at = f" at ref **{md(ref)}**" if ref else ""
    if not selected:
        return f"Searched **all DocSets**{at}."
    return "Searched " + ", ".join(f"**{md(name)}**" for name in selected) + f"{at}."


def sources_markdown(
    answer: Answer,
    selected: list[str] | None = None,
    ref: str | None = None,
    question: str = "",
) -> str:
    """The sources panel: each cited passage as every front end shows a hit (`hit_view`):
    its place, version, context, score and a snippet, with what the quote check found."""
    scope = scope_text(selected, ref)
    if not answer.citations and not answer.passages:
        return f"{scope}\n\n_No sources._"
    checks = {c.number: check_text(c) for c in answer.citations}
    parts = [scope]
    for view in source_views(answer, question):
        label = md(view.label)
        where = f"[{label}]({view.url})" if view.url else label
        context = f" — {md(view.context)}" if view.context else ""
        if view.ref:  # with several refs, every source says which version it is from
            context = f" · `{view.version}`{context}"
        score = "" if view.score is None else f" · score {view.score:.4f}"
        anchor = f'<span id="{source_anchor(view.number)}"></span>'
        opens = f"[**\\[{view.number}\\]**](#{source_anchor(view.number)})"  # the viewer
        # an empty snippet: the answer quotes the whole passage already
        shown = fenced(view.snippet, "") if view.snippet else "_Quoted in full above._"
        parts.append(f"{anchor}{opens} {where}{context}{score}{checks[view.number]}\n\n{shown}")
    cited = set(checks)
    unused = [p for p in answer.passages if p.number not in cited]
    if unused:
        parts.append(
            "_Also retrieved, not cited:_ "
            + ", ".join(f"\\[{p.number}\\] {md(p.path)}" for p in unused)
        )
    return "\n\n".join(parts)


def check_text(citation: Citation) -> str:
    """What the quote check found for a citation, as a suffix ("" when nothing was checked)."""
    if citation.verification is None:
        return ""
    return f" · _{VERIFICATION_TEXT[citation.verification]}_"


def _history_messages(history: ChatHistory) -> list[Message]:
    return [
        {"role": str(m["role"]), "content": str(m["content"])}
        for m in history
        if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
    ]


def answer_turns(
    actions: Actions,
    text: str,
    history: ChatHistory,
    selected: list[str] | None,
    mode_value: str,
    use_rerank: bool,
    ref: str | None = None,
) -> Iterator[ChatTurn]:
    """Chat, sources panel and question box after each step of a streamed answer."""
    query = SearchQuery(
        question=text,
        docsets=tuple(selected or ()),
        mode=RetrievalMode(mode_value),
        ref=ref,
        rerank=use_rerank,
        history=tuple(_history_messages(history)),
    )
    updates = actions.answers.ask(query)
    shown = [*history, {"role": "user", "content": text}]
    yield [*shown, {"role": "assistant", "content": SEARCHING}], SEARCHING, "", []
    try:
        for update in updates:
            text_shown = (
                answer_markdown(update.text, update.answer.citations)
                if update.answer
                else update.text
            )
            reply = {"role": "assistant", "content": text_shown}
            panel = (
                sources_markdown(update.answer, selected, ref, text) if update.answer else WRITING
            )
            openable = openable_sources(update.answer) if update.answer else []
            yield [*shown, reply], panel, "", openable
    except Exception:
        # no answer bubble left saying "Searching…"; the error itself is shown as a message
        yield shown, NO_ANSWER, "", []
        raise


def with_viewer_updates(turns: Iterator[ChatTurn]) -> Iterator[tuple[Any, ...]]:
    """Each step of an answer with the source picker's update and the viewer's.

    A new question empties the viewer once, at its first step, and the picker is sent its
    list only when the list changes: a citation opened while the answer is still finishing
    stays open (every step used to send the picker an empty value, whose change event then
    emptied the viewer: seen in a browser test).
    """
    listed: list[tuple[str, int]] | None = None
    for step, (*turn, cited) in enumerate(turns):
        choices = viewer_choices(cited)
        pick = gr.update(choices=choices, value=None) if choices != listed else gr.update()
        listed = choices
        yield *turn, cited, pick, EMPTY_VIEWER if step == 0 else gr.update()


def openable_sources(answer: Answer) -> OpenableSources:
    """The cited passages the viewer can open: each citation with the DocSet it is from."""
    docsets = {p.number: p.docset_name for p in answer.passages}
    return [
        {"citation": c.model_dump(mode="json"), "docset": docsets[c.number]}
        for c in answer.citations
        if c.number in docsets
    ]


def viewer_choices(openable: OpenableSources) -> list[tuple[str, int]]:
    """Dropdown entries: `[n] path (lines a-b)`, valued by the citation number."""
    return [
        (f"[{o['citation']['number']}] {o['citation']['label']}", o["citation"]["number"])
        for o in openable
    ]


SOURCES_FORGOTTEN = (
    "The sources of this answer are no longer held by the server (this page was idle while "
    "many others were used). Ask the question again to open them."
)


def open_source(actions: Actions, number: int, openable: OpenableSources) -> str:
    """The viewer's HTML for citation `number` of the last answer."""
    chosen = next((o for o in openable if o["citation"]["number"] == number), None)
    if chosen is None:  # the server forgot this session (RAGSPACE_SESSION_CAPACITY)
        return viewer_notice(SOURCES_FORGOTTEN)
    return open_citation(actions, Citation.model_validate(chosen["citation"]), chosen["docset"])


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatTab:
    """The tab's components: for its own wiring, and the DocSet list and viewer other tabs
    refresh."""

    docsets: gr.CheckboxGroup
    ref: gr.Dropdown
    chatbot: gr.Chatbot
    question: gr.Textbox
    ask: gr.Button
    clear: gr.Button
    mode: gr.Radio
    rerank: gr.Checkbox
    pick: gr.Dropdown
    viewer: gr.HTML
    opened_by_link: gr.Textbox
    sources: gr.Markdown
    openable: gr.State  # the last answer's cited passages (OpenableSources)


def advanced_options(actions: Actions) -> tuple[gr.Radio, gr.Checkbox]:
    """The retrieval mode and the rerank switch, folded away."""
    with gr.Accordion("Advanced", open=False):
        mode = gr.Radio(
            label="Retrieval mode",
            choices=[m.value for m in RetrievalMode],
            value=actions.search.default_mode.value,
        )
        rerank = gr.Checkbox(
            label="Rerank with the chat model (when an API key is set)",
            info="A DocSet whose evaluation showed reranking not helping can keep "
            "its fused order (Evaluate tab).",
            value=True,
        )
    return mode, rerank


def layout_chat_tab(actions: Actions) -> ChatTab:
    """Lay out the chat tab: DocSets and ref to search, the conversation, viewer and sources."""
    if not actions.mode.llm_answers:
        gr.Markdown(EXTRACTIVE_NOTICE, elem_id="extractive-notice")
    docsets = gr.CheckboxGroup(
        label="DocSets to search (none ticked = all)",
        info=ALL_DOCSETS_HINT,
        choices=[],
        interactive=True,
    )
    ref = ref_picker()
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Chat", height=520, buttons=["copy"], elem_id="chatbot")
            question = gr.Textbox(
                label="Question", placeholder="Ask about your documents…", lines=2
            )
            with gr.Row():
                ask = gr.Button("Ask", variant="primary")
                clear = gr.Button("Clear conversation")
            mode, rerank = advanced_options(actions)
        with gr.Column(scale=2):
            pick = gr.Dropdown(
                label="Open a source in the viewer",
                choices=[],
                value=None,
                interactive=True,
                elem_id="viewer-pick",
            )
            viewer = gr.HTML(EMPTY_VIEWER, elem_id="source-viewer")
            opened_by_link = gr.Textbox(
                elem_id="viewer-open", elem_classes=["rs-hidden"], show_label=False
            )
            gr.Markdown("### Sources")
            sources = gr.Markdown(
                "_Ask a question to see the passages it rests on._", elem_id="chat-sources"
            )
    openable = gr.State([])
    return ChatTab(
        docsets=docsets,
        ref=ref,
        chatbot=chatbot,
        question=question,
        ask=ask,
        clear=clear,
        mode=mode,
        rerank=rerank,
        pick=pick,
        viewer=viewer,
        opened_by_link=opened_by_link,
        sources=sources,
        openable=openable,
    )


# --- wiring ---------------------------------------------------------------------------


def wire_chat_tab(actions: Actions, tab: ChatTab) -> None:
    """Attach the streaming question handler, the ref selector and the viewer's openers."""

    @inline_errors(outputs=6, message_at=1)  # the reason shows in the sources panel
    def on_ask(
        text: str,
        history: ChatHistory,
        selected: list[str],
        mode_value: str,
        use_rerank: bool,
        ref_value: str | None,
    ) -> Iterator[tuple[Any, ...]]:
        turns = answer_turns(
            actions, text, history, selected, mode_value, use_rerank, chosen_ref(ref_value)
        )
        yield from with_viewer_updates(turns)

    @user_errors
    def on_docsets(selected: list[str] | None, current: str | None) -> dict[str, Any]:
        return ref_choices(actions, selected, current)

    @user_errors
    def on_open(number: int | None, cited: OpenableSources) -> Any:
        # none chosen: a new answer emptied the picker, and the viewer with it
        return gr.update() if number is None else open_source(actions, number, cited)

    t = tab
    t.docsets.change(on_docsets, [t.docsets, t.ref], t.ref, show_progress="hidden")
    inputs = [t.question, t.chatbot, t.docsets, t.mode, t.rerank, t.ref]
    outputs = [t.chatbot, t.sources, t.question, t.openable, t.pick, t.viewer]
    t.ask.click(on_ask, inputs, outputs)
    t.question.submit(on_ask, inputs, outputs)
    t.clear.click(
        lambda: ([], "_Cleared._", "", [], gr.update(choices=[], value=None), EMPTY_VIEWER),
        None,
        outputs,
    )
    t.pick.change(on_open, [t.pick, t.openable], t.viewer)
    t.opened_by_link.change(
        lambda value, cited: on_open(link_number(value), cited),
        [t.opened_by_link, t.openable],
        t.viewer,
        show_progress="hidden",
    )
