"""Page scripts of the Chat tab (run once when the page loads)."""

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


# each new question is shown at the top of the chat, so its answer is read from its first
# line as it streams in (the chat no longer scrolls to its end at each step: an answer
# longer than the box was shown from its last lines, after a list of sources). A question
# is new when the chat holds more of them than before; it stays pinned at the top while
# its answer grows, until anything else scrolls the chat (the reader, a link scrolled into
# view): from then on the chat is left where it was put. Gradio's own autoscroll, which
# this replaces, jumped back to the end about 0.1 s after any scroll, so a click on a
# citation scrolled into view could land on whatever the jump brought there (the phone
# journey's [1] that did not open the viewer)
NEW_QUESTION_IN_VIEW = """() => {
  let questions = 0;
  let following = false;
  let pinnedAt = null;
  const chat = () => document.querySelector('#chatbot');
  const scroller = (element, root) => {
    for (let box = element.parentElement; box && box !== root.parentElement;
         box = box.parentElement) {
      const style = getComputedStyle(box).overflowY;
      if (style === 'auto' || style === 'scroll') return box;
    }
    return null;
  };
  const pin = () => {
    const root = chat();  // a tab's content may be rendered later than the page
    if (!root) return;
    const asked = root.querySelectorAll('.message.user');
    if (asked.length > questions) following = true;
    questions = asked.length;
    if (!following || !asked.length) return;
    const last = asked[asked.length - 1];
    const box = scroller(last, root);
    if (!box) return;
    // below the chat's floating label (about 30 px), which would cover the question's top
    const offset = last.getBoundingClientRect().top - box.getBoundingClientRect().top - 40;
    if (Math.abs(offset) > 1) box.scrollTop += offset;
    pinnedAt = box.scrollTop;
  };
  document.addEventListener('scroll', (event) => {
    const root = chat();
    const box = event.target;
    if (!root || !(box instanceof Element) || !root.contains(box)) return;
    if (pinnedAt === null || Math.abs(box.scrollTop - pinnedAt) > 1) following = false;
  }, true);
  new MutationObserver(pin).observe(document.body, {
    subtree: true, childList: true, characterData: true,
  });
}"""
