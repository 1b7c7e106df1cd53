// The ragkit search page: one request to /ask streams the passages, then the answer.
// Plain DOM code, no libraries, nothing fetched from anywhere but this server.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const KEY = "ragkit-api-key";
  let apiKey = sessionStorage.getItem(KEY) || "";
  let sources = [];
  let answerText = "";
  let running = null;

  function authHeaders(extra) {
    const h = Object.assign({}, extra || {});
    if (apiKey) h["Authorization"] = "Bearer " + apiKey;
    return h;
  }

  function setStatus(text, isError) {
    const el = $("status");
    el.textContent = text;
    el.classList.toggle("error", Boolean(isError));
  }

  async function loadInfo() {
    const reply = await fetch("/info", { headers: authHeaders() });
    if (reply.status === 401) {
      $("key-box").hidden = false;
      $("index-info").textContent = "this server needs an API key";
      return;
    }
    if (!reply.ok) {
      $("index-info").textContent = "cannot read /info (" + reply.status + ")";
      return;
    }
    $("key-box").hidden = true;
    const info = await reply.json();
    $("index-info").textContent = info.index + " · " + info.chunks + " chunks from " +
      info.documents + " documents · " + info.snapshot;
    const select = $("retriever");
    select.replaceChildren();
    const names = info.retrievers.length ? info.retrievers : [info.default_retriever];
    for (const name of names) {
      select.add(new Option(name, name, false, name === info.default_retriever));
    }
    $("k").max = String(info.limits.max_k);
    $("k").value = String(info.default_k);
    if (!info.answers) $("go").textContent = "Search";
  }

  function queryTerms(text) {
    const words = (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || []).filter((w) => w.length > 2);
    return Array.from(new Set(words));
  }

  function escapeRe(s) {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // Text with every query term wrapped in <mark>, built as DOM nodes (never as HTML).
  function highlighted(text, terms) {
    const out = document.createDocumentFragment();
    if (!terms.length) {
      out.append(text);
      return out;
    }
    // a term counts where a word starts ("tyre" marks "tyres", not "entyre")
    const pattern = new RegExp("(?<![\\p{L}\\p{N}_])(?:" + terms.map(escapeRe).join("|") + ")", "giu");
    let last = 0;
    for (const m of text.matchAll(pattern)) {
      if (m.index > last) out.append(text.slice(last, m.index));
      const mark = document.createElement("mark");
      mark.textContent = m[0];
      out.append(mark);
      last = m.index + m[0].length;
    }
    if (last < text.length) out.append(text.slice(last));
    return out;
  }

  function renderPassages(results, terms) {
    const list = $("passages");
    list.replaceChildren();
    for (const p of results) {
      const li = document.createElement("li");
      li.id = "passage-" + p.rank;
      li.className = "passage";
      const source = document.createElement("span");
      source.className = "source";
      source.textContent = p.source || "(source not shown)";
      li.append(source);
      if (typeof p.score === "number") {
        const score = document.createElement("span");
        score.className = "score";
        score.textContent = "score " + p.score.toFixed(4);
        li.append(score);
      }
      const snippet = document.createElement("p");
      snippet.className = "snippet";
      snippet.append(highlighted(p.snippet, terms));
      li.append(snippet);
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "whole passage";
      const full = document.createElement("p");
      full.append(highlighted(p.text, terms));
      details.append(summary, full);
      li.append(details);
      list.append(li);
    }
    $("passages-box").hidden = false;
  }

  // The answer so far, with [n] marks as links to passage n.
  function renderAnswer() {
    const el = $("answer");
    el.replaceChildren();
    const pattern = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
    let last = 0;
    for (const m of answerText.matchAll(pattern)) {
      if (m.index > last) el.append(answerText.slice(last, m.index));
      const numbers = m[1].split(",").map((n) => parseInt(n, 10));
      el.append("[");
      numbers.forEach((n, i) => {
        if (i) el.append(", ");
        if (n >= 1 && n <= sources.length) {
          const a = document.createElement("a");
          a.className = "cite";
          a.href = "#passage-" + n;
          a.textContent = String(n);
          a.title = sources[n - 1].source || "";
          a.addEventListener("click", () => flash(n));
          el.append(a);
        } else {
          el.append(String(n));
        }
      });
      el.append("]");
      last = m.index + m[0].length;
    }
    if (last < answerText.length) el.append(answerText.slice(last));
  }

  function flash(n) {
    const li = $("passage-" + n);
    if (!li) return;
    li.classList.add("flash");
    setTimeout(() => li.classList.remove("flash"), 1200);
  }

  function handle(name, data, terms) {
    if (name === "sources") {
      sources = data.results;
      renderPassages(sources, terms);
      setStatus(sources.length ? sources.length + " passages (" + data.retriever + ")" : "no passages found");
    } else if (name === "token") {
      answerText += data.text;
      $("answer-box").hidden = false;
      $("answer").hidden = false;
      renderAnswer();
    } else if (name === "answer") {
      answerText = data.answer;
      renderAnswer();
      $("answer-box").hidden = false;
    } else if (name === "notice") {
      const notice = $("notice");
      notice.textContent = data.message;
      notice.hidden = false;
      $("answer").hidden = true;
      $("answer-box").hidden = false;
    } else if (name === "error") {
      setStatus("error: " + data.message, true);
    }
  }

  async function ask(event) {
    event.preventDefault();
    const question = $("q").value.trim();
    if (!question) return;
    if (running) running.abort();
    running = new AbortController();
    sources = [];
    answerText = "";
    $("answer").replaceChildren();
    $("notice").hidden = true;
    $("answer-box").hidden = true;
    $("passages").replaceChildren();
    $("go").disabled = true;
    setStatus("searching…");
    const terms = queryTerms(question);
    const body = {
      question: question,
      retriever: $("retriever").value || null,
      k: parseInt($("k").value, 10) || null,
    };
    try {
      const reply = await fetch("/ask", {
        method: "POST",
        headers: authHeaders({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify(body),
        signal: running.signal,
      });
      if (!reply.ok) {
        let message = reply.status + "";
        try { message = (await reply.json()).error.message; } catch (e) { /* not JSON */ }
        if (reply.status === 401) $("key-box").hidden = false;
        setStatus("error: " + message, true);
        return;
      }
      const reader = reply.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop();
        for (const block of blocks) {
          let name = "message";
          const data = [];
          for (const line of block.split(/\r?\n/)) {
            if (line.startsWith("event:")) name = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          handle(name, data.length ? JSON.parse(data.join("\n")) : null, terms);
        }
      }
    } catch (err) {
      if (err.name !== "AbortError") setStatus("error: " + err.message, true);
    } finally {
      $("go").disabled = false;
      document.body.dataset.state = "done";
    }
  }

  $("search").addEventListener("submit", ask);
  $("key-box").addEventListener("submit", (event) => {
    event.preventDefault();
    apiKey = $("api-key").value.trim();
    sessionStorage.setItem(KEY, apiKey);
    loadInfo();
  });
  loadInfo().catch((err) => setStatus("error: " + err.message, true));
})();
