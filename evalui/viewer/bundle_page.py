"""The static viewer's page (see viewer_bundle): a list beside a transcript pane, with the dashboard's
filters, search, sorting, paging, keyboard (j / k, ↓ / ↑) and deep links (``#sample=ID``).

Written by hand rather than with a front-end framework: the bundle must open offline from file://
with nothing fetched, and this is one small script. It builds the list with textContent only; the
panes it inserts are the server-rendered, escaped HTML of viewer_transcript."""

from __future__ import annotations

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-__NONCE__'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<title>__TITLE__</title>
<style>
body { font-family: system-ui, sans-serif; margin: 12px 20px; color: #1f2328; }
header { margin-bottom: 8px; }
.evalui-filters { display: flex; gap: 12px; flex-wrap: wrap; margin: 8px 0; align-items: end; }
.evalui-filters label { display: flex; flex-direction: column; font-size: 12px; gap: 2px; }
.evalui-columns { display: flex; gap: 16px; align-items: flex-start; }
#evalui-list-pane { flex: 2; min-width: 320px; position: sticky; top: 8px; max-height: 95vh; overflow: auto; }
#evalui-detail { flex: 3; min-width: 0; }
__CSS__
</style></head>
<body>
<header><b id="evalui-title"></b> <span id="evalui-subtitle"></span></header>
<div class="evalui-filters">
  <label>Verdict <select id="evalui-verdict"></select></label>
  <label>Group <select id="evalui-group"></select></label>
  <label>Error type <select id="evalui-error-type"></select></label>
  <label>Finding <select id="evalui-finding"></select></label>
  <label>Search <input id="evalui-search" type="search" placeholder="words in prompts, replies, tool output"></label>
  <span id="evalui-position">0 / 0</span> <span id="evalui-hits" class="evalui-hits"></span>
</div>
<div class="evalui-columns">
  <div id="evalui-list-pane" tabindex="0"><div class="evalui-list"><div class="evalui-list-top">
    <div class="evalui-pager"><button id="evalui-prev-page" title="Previous page">&#9664;</button> <span id="evalui-page"
    class="evalui-page"></span> <button id="evalui-next-page" title="Next page">&#9654;</button></div></div>
    <table><thead><tr id="evalui-heads"></tr></thead><tbody id="evalui-rows"></tbody></table>
    <p id="evalui-empty" class="evalui-list-empty" hidden>No sample matches.</p></div></div>
  <div id="evalui-detail"></div>
</div>
<script type="application/json" id="evalui-data">__DATA__</script>
<script nonce="__NONCE__">
(() => {
  const data = JSON.parse(document.getElementById('evalui-data').textContent);
  const $ = (id) => document.getElementById(id);
  // Sample ids come from the store and the URL: looked up as own keys only, so that "constructor" or
  // "__proto__" finds no sample rather than Object.prototype's members.
  const own = (table, key) => Object.hasOwn(table, key) ? table[key] : undefined;
  const state = {sort: 'position', desc: false, page: 0, selected: null, shown: []};
  const order = ['correct', 'wrong', 'error', 'unscored', 'pending'];
  $('evalui-title').textContent = data.exp_id;
  $('evalui-subtitle').textContent = ' · ' + data.benchmark + ' · ' + data.model + ' · ' + data.status + ' · '
    + data.rows.length + ' samples' + (data.accuracy == null ? '' : ' · accuracy ' + (100 * data.accuracy).toFixed(1) + '%');
  const filters = {verdict: 'evalui-verdict', group: 'evalui-group', error_type: 'evalui-error-type', finding: 'evalui-finding'};
  for (const [key, id] of Object.entries(filters)) {
    for (const value of data.choices[key]) {
      const option = document.createElement('option'); option.value = value; option.textContent = value;
      $(id).appendChild(option);
    }
    $(id).addEventListener('change', () => refresh(true));
  }
  $('evalui-search').addEventListener('input', () => refresh(true));
  for (const [key, title] of Object.entries(data.columns)) {
    const head = document.createElement('th'); head.dataset.sort = key; head.tabIndex = 0; head.textContent = title;
    head.addEventListener('click', () => {
      state.desc = state.sort === key ? !state.desc : false; state.sort = key; refresh(false);
    });
    $('evalui-heads').appendChild(head);
  }
  const passes = (row, phrases) => {
    const chosen = (id) => $(id).value;
    if (![ 'all', row.verdict ].includes(chosen('evalui-verdict'))) return false;
    if (![ 'all', row.group ].includes(chosen('evalui-group'))) return false;
    if (![ 'all', row.error_type ].includes(chosen('evalui-error-type'))) return false;
    const finding = chosen('evalui-finding');
    if (finding === 'any invalid' ? !row.invalid : finding !== 'all' && !row.scanners.includes(finding)) return false;
    const parts = own(data.text, row.id) || [];
    return phrases.every((words) => parts.some((part) => part.includes(' ' + words.join(' '))));
  };
  // As the store's search (evalui.store.search) and the bundle's index (bundle.words_of): each
  // whitespace-separated piece is a phrase of words (letters and digits), lower-cased, Latin letters
  // without accents; its words in a row in one of the sample's parts, the last also as a prefix.
  const fold = (word) => Array.from(word.toLowerCase(), (c) => {
    const base = Array.from(c.normalize('NFD')), code = base[0].codePointAt(0);
    return base.length > 1 && (code < 0x250 || (code >= 0x1E00 && code <= 0x1EFF)) ? base[0] : c;
  }).join('');
  const piecesOf = (query) => query.split(/\\s+/)
    .map((piece) => piece.match(/[\\p{L}\\p{N}]+/gu) || []).filter((words) => words.length);
  const phrasesOf = (query) => piecesOf(query).map((words) => words.map(fold));
  // The hits in the pane, marked as the dashboard marks them (evalui.viewer.transcript.highlighted):
  // in its <pre> texts and folds' texts but the function docs; whole words, a piece's last word also
  // as a prefix; case-insensitive.
  const hitPattern = (pieces) => {
    const prefixes = new Set(pieces.map((words) => words[words.length - 1]));
    const whole = new Set(pieces.flatMap((words) => words.slice(0, -1)).filter((w) => !prefixes.has(w)));
    const escaped = (w) => w.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
    const longest = (a, b) => b.length - a.length;
    const terms = [...[...whole].sort(longest).map((w) => escaped(w) + '(?![\\\\p{L}\\\\p{N}])'),
      ...[...prefixes].sort(longest).map(escaped)];
    return terms.length ? new RegExp('(?<![\\\\p{L}\\\\p{N}])(?:' + terms.join('|') + ')', 'giu') : null;
  };
  function markHits(pieces) {
    const pattern = hitPattern(pieces);
    let count = 0;
    for (const target of pattern ? $('evalui-detail').querySelectorAll('pre.evalui-inspector-text, .evalui-fold-text') : []) {
      if (target.closest('details[data-kind="function-docs"]')) continue;
      const text = target.textContent, parts = [];
      let at = 0;
      for (const found of text.matchAll(pattern)) {
        const mark = document.createElement('mark');
        mark.className = 'evalui-hit'; mark.textContent = found[0];
        parts.push(text.slice(at, found.index), mark);
        at = found.index + found[0].length; count += 1;
      }
      if (!parts.length) continue;
      target.replaceChildren(...parts, text.slice(at));
      const fold = target.closest('details');
      if (fold && target.tagName === 'PRE') fold.open = true;
    }
    $('evalui-hits').dataset.hits = pattern ? count : '';
    $('evalui-hits').textContent = pattern ? count + ' matches in this sample' : '';
  }
  const sortKey = (row) => state.sort === 'verdict' ? order.indexOf(row.verdict) : row[state.sort];
  function refresh(reset) {
    const phrases = phrasesOf($('evalui-search').value);
    let shown = data.rows.filter((row) => passes(row, phrases));
    if (state.sort !== 'position') {
      const known = shown.filter((r) => r[state.sort] !== null && r[state.sort] !== '');
      const empty = shown.filter((r) => r[state.sort] === null || r[state.sort] === '');
      known.sort((a, b) => {
        const x = sortKey(a), y = sortKey(b);
        const c = x < y ? -1 : x > y ? 1 : 0;
        return (state.desc ? -c : c) || a.position - b.position;
      });
      shown = known.concat(empty);
    }
    state.shown = shown;
    const ids = shown.map((r) => r.id);
    if (reset || !ids.includes(state.selected)) state.selected = ids.length ? ids[0] : null;
    state.page = ids.includes(state.selected) ? Math.floor(ids.indexOf(state.selected) / data.page_size) : 0;
    render();
  }
  function cell(row, key) {
    const value = row[key];
    if (key === 'latency_s') return value == null ? '\\u2013' : value.toFixed(2) + ' s';
    return value === null || value === '' ? '\\u2013' : String(value);
  }
  function render() {
    const size = data.page_size, pages = Math.max(1, Math.ceil(state.shown.length / size));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const body = $('evalui-rows'); body.replaceChildren();
    for (const row of state.shown.slice(state.page * size, (state.page + 1) * size)) {
      const line = document.createElement('tr');
      line.dataset.id = row.id; line.dataset.verdict = row.verdict;
      if (row.id === state.selected) { line.className = 'evalui-selected'; line.setAttribute('aria-selected', 'true'); }
      for (const key of Object.keys(data.columns)) {
        const td = document.createElement('td'); td.dataset.col = key; td.textContent = cell(row, key); line.appendChild(td);
      }
      line.addEventListener('click', () => select(row.id));
      body.appendChild(line);
    }
    for (const head of $('evalui-heads').children) {
      const on = head.dataset.sort === state.sort;
      head.setAttribute('aria-sort', on ? (state.desc ? 'descending' : 'ascending') : 'none');
      head.textContent = data.columns[head.dataset.sort] + (on ? (state.desc ? ' \\u25BC' : ' \\u25B2') : '');
    }
    $('evalui-empty').hidden = state.shown.length > 0;
    $('evalui-page').textContent = 'page ' + (state.page + 1) + ' / ' + pages + ' \\u00B7 ' + state.shown.length + ' samples';
    $('evalui-prev-page').disabled = state.page <= 0; $('evalui-next-page').disabled = state.page + 1 >= pages;
    const ids = state.shown.map((r) => r.id);
    $('evalui-position').textContent = ids.length ? (ids.indexOf(state.selected) + 1) + ' / ' + ids.length : '0 / 0';
    // The pane is the dashboard's server-rendered transcript, in which every piece of model text is escaped.
    $('evalui-detail').innerHTML = state.selected === null ? '' : own(data.panes, state.selected) ?? '';
    markHits(piecesOf($('evalui-search').value));
  }
  function select(id) {
    state.selected = id;
    const ids = state.shown.map((r) => r.id);
    state.page = Math.floor(Math.max(0, ids.indexOf(id)) / data.page_size);
    history.replaceState(null, '', '#sample=' + encodeURIComponent(id));
    render();
  }
  function step(offset) {
    const ids = state.shown.map((r) => r.id);
    if (!ids.length) return;
    const at = ids.indexOf(state.selected);
    select(ids[Math.max(0, Math.min(at < 0 ? 0 : at + offset, ids.length - 1))]);
  }
  $('evalui-prev-page').addEventListener('click', () => { state.page -= 1; render(); });
  $('evalui-next-page').addEventListener('click', () => { state.page += 1; render(); });
  document.addEventListener('keydown', (event) => {
    if (event.target.closest('input, select, textarea') || event.ctrlKey || event.metaKey) return;
    const offset = {j: 1, ArrowDown: 1, k: -1, ArrowUp: -1}[event.key];
    if (offset) { event.preventDefault(); step(offset); }
  });
  refresh(true);
  const linked = new URLSearchParams(location.hash.slice(1)).get('sample');
  if (linked !== null && own(data.panes, linked) !== undefined) select(linked);
})();
</script>
</body></html>
"""
