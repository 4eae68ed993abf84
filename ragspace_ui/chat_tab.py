"""Chat tab: pick DocSets, ask, watch the answer stream in, read its cited passages."""

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ragspace.actions import Actions
from ragspace.actions.validation import valid_query
from ragspace.answering.answer import without_sources
from ragspace.answering.citations import link_citations
from ragspace.errors import RagspaceError
from ragspace.models import Answer, Citation, Message, RetrievalMode, SearchQuery
from ragspace_ui.chat_sources import source_anchor, sources_markdown
from ragspace_ui.error_messages import error_markdown, message_of, user_errors
from ragspace_ui.escape import md
from ragspace_ui.question_queue import QuestionQueue
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
QUESTION_HINT = "_Enter sends · Shift+Enter adds a line._"
OpenableSources = list[dict[str, Any]]  # each cited passage: its citation and DocSet
ChatTurn = tuple[ChatHistory, str, OpenableSources]  # chat, sources panel, openable sources


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
    """Chat, sources panel and openable sources after each step of a streamed answer.

    The chat shows the answer without the sources list an extractive answer ends with: the
    Sources panel beside it lists them (the chat scrolled past a repeated list to its end).
    """
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
    yield [*shown, {"role": "assistant", "content": SEARCHING}], SEARCHING, []
    try:
        for update in updates:
            text_shown = without_sources(update.text)
            if update.answer:
                text_shown = answer_markdown(text_shown, update.answer.citations)
            reply = {"role": "assistant", "content": text_shown}
            panel = (
                sources_markdown(update.answer, selected, ref, text) if update.answer else WRITING
            )
            openable = openable_sources(update.answer) if update.answer else []
            yield [*shown, reply], panel, openable
    except Exception:
        # no answer bubble left saying "Searching…"; the error itself is shown as a message
        yield shown, NO_ANSWER, []
        raise


def question_note(waiting: list[str], error: str = "") -> str:
    """Under the question box: how to send, the questions waiting their turn, or why the
    last one was not taken."""
    parts = [QUESTION_HINT]
    if waiting:
        quoted = ", ".join(f"“{md(q if len(q) <= 80 else q[:79] + '…')}”" for q in waiting)
        parts.append(f"Waiting: {quoted}, answered after the current answer.")
    if error:
        parts.append(error_markdown(error))
    return " ".join(parts)


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


def take_question(
    queue: QuestionQueue, tickets: Iterator[int], text: str, session: str
) -> tuple[Any, str, Any]:
    """Question box, note and ticket once a question is sent: queued (a new ticket starts the
    page's answering loop when none runs), or refused with the reason, the box kept."""
    try:
        question = valid_query(text)
    except RagspaceError as exc:
        return gr.update(), question_note(queue.waiting(session), message_of(exc)), gr.update()
    queue.put(session, question)
    if queue.claim(session):
        return "", question_note([]), str(next(tickets))
    # the running loop takes it in turn: one answering event per page (a second one,
    # pending, made the browser drop the running one's steps)
    return "", question_note(queue.waiting(session)), gr.update()


def queued_answers(
    actions: Actions,
    queue: QuestionQueue,
    session: str,
    history: ChatHistory,
    *asking: Any,  # DocSets, mode, rerank, ref: as `answer_turns` takes them
) -> Iterator[tuple[Any, ...]]:
    """A page's answering loop: each waiting question in turn, streamed, with the note under
    the box when the waiting questions change; a failure is said in the sources panel and
    the next question is asked."""
    try:
        noted: list[str] | None = None  # the waiting questions the note shows
        while (text := queue.next_question(session)) is not None:
            try:
                for step in with_viewer_updates(answer_turns(actions, text, history, *asking)):
                    history = step[0]
                    waiting = queue.waiting(session)
                    note = gr.update() if waiting == noted else question_note(waiting)
                    noted = waiting
                    yield *step, note
            except Exception as exc:
                yield gr.update(), error_markdown(message_of(exc)), *[gr.update()] * 4
    finally:
        queue.release(session)


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatTab:
    """The tab's components: for its own wiring, and the DocSet list and viewer other tabs
    refresh."""

    docsets: gr.CheckboxGroup
    ref: gr.Dropdown
    chatbot: gr.Chatbot
    question: gr.Textbox
    note: gr.Markdown  # under the question box: the keys, waiting questions, a refusal
    ask: gr.Button
    clear: gr.Button
    mode: gr.Radio
    rerank: gr.Checkbox
    pick: gr.Dropdown
    viewer: gr.HTML
    opened_by_link: gr.Textbox
    ticket: gr.Textbox  # hidden: a new value starts a page's answering loop
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


def question_box() -> tuple[gr.Textbox, gr.Markdown]:
    """The question box and the note under it."""
    # one line that grows: Gradio sends on Enter when `lines` is 1 (Shift+Enter on a
    # taller box), and Shift+Enter adds a line
    question = gr.Textbox(
        label="Question",
        placeholder="Ask about your documents…",
        lines=1,
        max_lines=8,
        elem_id="question",
    )
    note = gr.Markdown(question_note([]), elem_id="question-note")
    return question, note


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
            # no scrolling to the end at each step: a page script shows each new question
            # at the top, its answer's first line under it (NEW_QUESTION_IN_VIEW)
            chatbot = gr.Chatbot(
                label="Chat", height=520, buttons=["copy"], elem_id="chatbot", autoscroll=False
            )
            question, note = question_box()
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
            ticket = gr.Textbox(elem_id="chat-ticket", elem_classes=["rs-hidden"], show_label=False)
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
        note=note,
        ask=ask,
        clear=clear,
        mode=mode,
        rerank=rerank,
        pick=pick,
        viewer=viewer,
        opened_by_link=opened_by_link,
        ticket=ticket,
        sources=sources,
        openable=openable,
    )


# --- wiring ---------------------------------------------------------------------------


# every send is taken: Gradio's default ("once") ignored one made while another ran
QUICK: dict[str, Any] = {"trigger_mode": "multiple", "show_progress": "hidden"}


def wire_chat_tab(actions: Actions, tab: ChatTab) -> None:
    """Attach the question queue and its answering loop, the ref selector and the viewer's
    openers."""
    queue = QuestionQueue()

    tickets = itertools.count(1)

    def on_send(text: str, request: gr.Request) -> tuple[Any, str, Any]:
        return take_question(queue, tickets, text, request.session_hash or "")

    def on_answer(
        history: ChatHistory,
        selected: list[str],
        mode_value: str,
        use_rerank: bool,
        ref_value: str | None,
        request: gr.Request,
    ) -> Iterator[tuple[Any, ...]]:
        session = request.session_hash or ""  # its loop was claimed by `on_send`
        asking = (selected, mode_value, use_rerank, chosen_ref(ref_value))
        yield from queued_answers(actions, queue, session, history, *asking)

    @user_errors
    def on_docsets(selected: list[str] | None, current: str | None) -> dict[str, Any]:
        return ref_choices(actions, selected, current)

    @user_errors
    def on_open(number: int | None, cited: OpenableSources) -> Any:
        # none chosen: a new answer emptied the picker, and the viewer with it
        return gr.update() if number is None else open_source(actions, number, cited)

    def on_clear(request: gr.Request) -> tuple[Any, ...]:
        queue.drop(request.session_hash or "")
        empty_pick = gr.update(choices=[], value=None)
        return [], "_Cleared._", [], empty_pick, EMPTY_VIEWER, question_note([]), ""

    t = tab
    t.docsets.change(on_docsets, [t.docsets, t.ref], t.ref, show_progress="hidden")
    inputs = [t.chatbot, t.docsets, t.mode, t.rerank, t.ref]
    outputs = [t.chatbot, t.sources, t.openable, t.pick, t.viewer, t.note]
    for send in (t.ask.click, t.question.submit):
        send(on_send, t.question, [t.question, t.note, t.ticket], **QUICK)
    # "always_last": a ticket issued while the last loop's event is still closing is run after it
    t.ticket.change(on_answer, inputs, outputs, trigger_mode="always_last")
    t.clear.click(on_clear, None, [*outputs, t.question])
    t.pick.change(on_open, [t.pick, t.openable], t.viewer)
    t.opened_by_link.change(
        lambda value, cited: on_open(link_number(value), cited),
        [t.opened_by_link, t.openable],
        t.viewer,
        show_progress="hidden",
    )
