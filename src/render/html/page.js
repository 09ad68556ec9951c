// hipport review page: renders the file list from the embedded JSON, filters it by the state
// in the URL fragment and moves between open items from the keyboard. Text only ever reaches
// the page through textContent, never as markup. No network, no libraries.
(function () {
  'use strict';
  var body = document.body;
  var problems = [];
  function trap(what) {
    problems.push(String(what));
    body.setAttribute('data-errors', problems.join(' | '));
  }
  window.addEventListener('error', function (e) { trap(e.message || 'error'); });
  window.addEventListener('unhandledrejection', function (e) { trap('rejection: ' + e.reason); });
  document.addEventListener('securitypolicyviolation', function (e) {
    trap('blocked by the page policy: ' + e.violatedDirective + ' ' + (e.blockedURI || ''));
  });

  var D = JSON.parse(document.getElementById('hipport-data').textContent);
  var STATUSES = ['BLOCKER', 'REMEDIATION', 'UNKNOWN', 'PASS'];
  var F = D.findings;
  var files = D.files;
  var listEl = document.getElementById('files');
  var shownEl = document.getElementById('shown');

  // Lower-case text each finding is searched in: message, rule, names, fix and its source line.
  var hay = F.map(function (f) {
    return [f.rule, f.name, f.category, f.status, f.phase, f.path + ':' + f.line, f.message,
      f.suggestion || '', f.fix || '', f.decision || ''].join('\n').toLowerCase();
  });
  files.forEach(function (file) {
    file.rows.forEach(function (r) {
      if (!r.f) return;
      var t = ('\n' + (r.a || '') + '\n' + (r.b || '')).toLowerCase();
      r.f.forEach(function (id) { hay[id] += t; });
    });
  });
  var byFile = files.map(function () { return []; });
  F.forEach(function (f) { byFile[f.file].push(f); });

  // ---- state <-> URL fragment --------------------------------------------------------------
  var state = blank();
  function blank() {
    return { status: [], category: '', rule: '', path: '', q: '', view: 'split', item: null };
  }
  function parseHash() {
    var h = location.hash.replace(/^#/, '');
    if (h.indexOf('=') < 0) return null; // a plain anchor, not a view
    var p = new URLSearchParams(h), s = blank();
    s.status = (p.get('status') || '').split(',').filter(function (x) { return STATUSES.indexOf(x) >= 0; });
    s.category = p.get('category') || '';
    s.rule = p.get('rule') || '';
    s.path = p.get('path') || '';
    s.q = p.get('q') || '';
    s.view = p.get('view') === 'unified' ? 'unified' : 'split';
    var it = parseInt(p.get('item'), 10);
    s.item = it >= 0 && it < F.length ? it : null;
    return s;
  }
  function hashOf(s) {
    var p = new URLSearchParams();
    if (s.status.length) p.set('status', s.status.join(','));
    ['category', 'rule', 'path', 'q'].forEach(function (k) { if (s[k]) p.set(k, s[k]); });
    if (s.view !== 'split') p.set('view', s.view);
    if (s.item !== null) p.set('item', String(s.item));
    var t = p.toString();
    return t ? '#' + t : '#review';
  }
  function saveHash() {
    var h = hashOf(state);
    if (h === location.hash) return;
    try { history.replaceState(null, '', h); } catch (e) { location.hash = h; }
  }

  // ---- filtering ----------------------------------------------------------------------------
  function matches(f) {
    if (state.status.length && state.status.indexOf(f.status) < 0) return false;
    if (state.category && f.category !== state.category) return false;
    if (state.rule && f.rule !== state.rule) return false;
    if (state.q && hay[f.id].indexOf(state.q.toLowerCase()) < 0) return false;
    return true;
  }
  function findingFilter() {
    return state.status.length || state.category || state.rule || state.q;
  }
  var visible = [];   // file indices shown, in path order
  var shownIds = {};  // finding id -> true
  var openOrder = []; // ids of shown non-PASS findings, in page order

  // `save`: write the state into the address. Never on load: the address already holds it, and
  // changing it while the page loads would count as a navigation.
  function apply(save) {
    var pathQ = state.path.toLowerCase();
    var anyFilter = findingFilter();
    visible = [];
    shownIds = {};
    openOrder = [];
    var nShown = 0, nOpen = 0;
    files.forEach(function (file, i) {
      if (pathQ && file.path.toLowerCase().indexOf(pathQ) < 0) return;
      var m = byFile[i].filter(matches);
      if (anyFilter && !m.length) return;
      visible.push(i);
      m.forEach(function (f) { shownIds[f.id] = true; nShown++; });
    });
    visible.forEach(function (i) {
      orderOf(i).forEach(function (id) {
        if (shownIds[id] && F[id].status !== 'PASS') { openOrder.push(id); nOpen++; }
      });
    });
    shownEl.textContent = 'Showing ' + nShown + ' of ' + F.length + ' findings (' + nOpen +
      ' open) in ' + visible.length + ' of ' + files.length + ' files';
    shownEl.setAttribute('data-findings', String(nShown));
    shownEl.setAttribute('data-open', String(nOpen));
    shownEl.setAttribute('data-files', String(visible.length));
    syncForm();
    renderList();
    if (save) saveHash();
  }

  // Finding ids of a file in the order the page shows them (top list, then by row).
  function orderOf(i) {
    var file = files[i], out = (file.top || []).slice();
    file.rows.forEach(function (r) { if (r.f) out.push.apply(out, r.f); });
    return out;
  }

  // ---- rendering ----------------------------------------------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  var rendered = {};
  var queue = [];
  var generation = 0;

  function renderList() {
    generation++;
    rendered = {};
    listEl.textContent = '';
    var frag = document.createDocumentFragment();
    visible.forEach(function (i) { frag.appendChild(fileShell(i)); });
    listEl.appendChild(frag);
    if (!visible.length) listEl.appendChild(el('p', 'empty', 'No file matches these filters.'));
    queue = visible.slice();
    body.removeAttribute('data-complete');
    pump(generation);
  }

  // Bodies are rendered a few at a time so the first screen appears at once on large reports.
  function pump(gen) {
    if (gen !== generation) return;
    var t0 = Date.now();
    while (queue.length && Date.now() - t0 < 12) fileBody(queue.shift());
    if (queue.length) setTimeout(function () { pump(gen); }, 0);
    else {
      body.setAttribute('data-complete', '1');
      body.setAttribute('data-complete-ms', String(Math.round(performance.now())));
    }
  }

  function counts(list) {
    var c = {};
    list.forEach(function (f) { c[f.status] = (c[f.status] || 0) + 1; });
    return STATUSES.filter(function (s) { return c[s]; }).map(function (s) { return c[s] + ' ' + s; });
  }

  function fileShell(i) {
    var file = files[i];
    var sec = el('section', 'file');
    sec.id = 'file-' + i;
    sec.setAttribute('data-path', file.path);
    var det = el('details');
    var shown = byFile[i].filter(function (f) { return shownIds[f.id]; });
    var hasOpen = shown.some(function (f) { return f.status !== 'PASS'; });
    det.open = hasOpen || (!shown.length && file.changed && visible.length <= 20);
    var sum = el('summary');
    var h = el('h3', 'path', file.path);
    sum.appendChild(h);
    var meta = el('span', 'fmeta');
    var c = counts(shown);
    meta.textContent = (c.length ? c.join(', ') : 'no findings shown') + ' · ' +
      (file.changed ? '+' + file.added + ' −' + file.removed + ' lines in the port' :
        (file.note ? file.note : 'not changed by the port'));
    sum.appendChild(meta);
    det.appendChild(sum);
    var b = el('div', 'fbody');
    b.appendChild(el('p', 'loading', 'Rendering…'));
    det.appendChild(b);
    sec.appendChild(det);
    return sec;
  }

  function fileBody(i) {
    if (rendered[i]) return;
    rendered[i] = true;
    var sec = document.getElementById('file-' + i);
    if (!sec) return;
    var b = sec.querySelector('.fbody');
    b.textContent = '';
    var file = files[i];
    if (file.note) b.appendChild(el('p', 'note', file.note));
    (file.top || []).forEach(function (id) { if (shownIds[id]) b.appendChild(finding(F[id])); });
    if (!file.rows.length) return;
    var unified = state.view === 'unified';
    var twoSides = file.changed && !unified;
    var table = el('table', 'code ' + (file.changed ? (unified ? 'unified' : 'split') : 'plain'));
    var cap = el('caption', 'visually-hidden', file.changed ?
      (unified ? 'Unified diff of the port' : 'Side-by-side diff of the port: CUDA left, HIP right') :
      'Source lines with findings');
    table.appendChild(cap);
    var cols = twoSides ? ['ln', 'sign', 'src', 'ln', 'sign', 'src'] :
      (file.changed ? ['ln', 'ln', 'sign', 'src'] : ['ln', 'src']);
    var cg = el('colgroup');
    cols.forEach(function (c) { cg.appendChild(el('col', 'c-' + c)); });
    table.appendChild(cg);
    var tb = el('tbody');
    var width = cols.length;
    var pending = []; // unified: findings wait for the end of a change run
    var dels = [], adds = [];
    function flush() {
      dels.forEach(function (r) { tb.appendChild(uniRow(r.o, null, '−', r.a, 'del', r.wa)); });
      adds.forEach(function (r) { tb.appendChild(uniRow(null, r.n, '+', r.b, 'ins', r.wb)); });
      dels = []; adds = [];
      pending.forEach(function (id) { tb.appendChild(findingRow(id, width)); });
      pending = [];
    }
    file.rows.forEach(function (r) {
      if (unified && r.k === 1) {
        if (r.a !== undefined) dels.push(r);
        if (r.b !== undefined) adds.push(r);
        if (r.f) pending.push.apply(pending, r.f.filter(function (id) { return shownIds[id]; }));
        return;
      }
      if (unified) flush();
      if (r.k === 2) {
        var tr = el('tr', 'gap');
        var td = el('td', null, '⋯ ' + r.g + ' unchanged line' + (r.g === 1 ? '' : 's') + ' not shown');
        td.colSpan = width;
        tr.appendChild(td);
        tb.appendChild(tr);
        return;
      }
      if (!file.changed) tb.appendChild(plainRow(r));
      else if (unified) tb.appendChild(uniRow(r.o, r.n, ' ', r.a, 'ctx'));
      else tb.appendChild(splitRow(r));
      (r.f || []).forEach(function (id) { if (shownIds[id]) tb.appendChild(findingRow(id, width)); });
    });
    if (unified) flush();
    table.appendChild(tb);
    b.appendChild(table);
  }

  function num(n) { return el('td', 'ln', n === undefined || n === null ? '' : String(n)); }
  // words: [start, end) spans (UTF-16 units) of the changed words, marked inside the line.
  function codeCell(text, cls, words) {
    var td = el('td', 'src ' + (cls || ''));
    if (text !== undefined && text !== null) {
      var tag = cls === 'del' ? 'del' : cls === 'ins' ? 'ins' : 'span';
      if (!words || !words.length) {
        td.appendChild(el(tag, null, text));
        return td;
      }
      var line = el(tag);
      var at = 0;
      words.forEach(function (w) {
        if (w[0] > at) line.appendChild(document.createTextNode(text.slice(at, w[0])));
        line.appendChild(el('mark', 'word', text.slice(w[0], w[1])));
        at = w[1];
      });
      if (at < text.length) line.appendChild(document.createTextNode(text.slice(at)));
      td.appendChild(line);
    }
    return td;
  }
  function plainRow(r) {
    var tr = el('tr', r.f ? 'ctx flagged' : 'ctx');
    tr.appendChild(num(r.o));
    tr.appendChild(codeCell(r.a, 'ctx'));
    return tr;
  }
  function splitRow(r) {
    var tr = el('tr', r.k === 1 ? 'chg' : 'ctx');
    var chg = r.k === 1;
    tr.appendChild(num(r.o));
    tr.appendChild(el('td', 'sign', chg && r.a !== undefined ? '−' : ''));
    tr.appendChild(codeCell(r.a, chg ? 'del' : 'ctx', r.wa));
    tr.appendChild(num(r.n));
    tr.appendChild(el('td', 'sign', chg && r.b !== undefined ? '+' : ''));
    tr.appendChild(codeCell(chg ? r.b : r.a, chg ? 'ins' : 'ctx', r.wb));
    return tr;
  }
  function uniRow(o, n, sign, text, cls, words) {
    var tr = el('tr', cls === 'ctx' ? 'ctx' : 'chg');
    tr.appendChild(num(o));
    tr.appendChild(num(n));
    tr.appendChild(el('td', 'sign', sign));
    tr.appendChild(codeCell(text, cls, words));
    return tr;
  }
  function findingRow(id, width) {
    var tr = el('tr', 'frow');
    var td = el('td');
    td.colSpan = width;
    td.appendChild(finding(F[id]));
    tr.appendChild(td);
    return tr;
  }

  function finding(f) {
    var pass = f.status === 'PASS';
    var box = el(pass ? 'details' : 'article', 'finding s-' + f.status);
    box.id = 'f-' + f.id;
    box.tabIndex = -1;
    box.setAttribute('data-id', String(f.id));
    box.setAttribute('data-path', f.path);
    box.setAttribute('data-line', String(f.line));
    box.setAttribute('data-status', f.status);
    box.setAttribute('data-rule', f.rule);
    var head = el(pass ? 'summary' : 'p', 'fhead');
    head.appendChild(el('span', 'pill s-' + f.status, f.status));
    if (f.new) head.appendChild(el('span', 'pill new', 'NEW'));
    var a = el('a', 'rule', f.rule);
    a.href = '#rule-' + f.rule;
    head.appendChild(a);
    head.appendChild(el('span', 'rname', f.name));
    head.appendChild(el('span', 'where', f.category + ' · fails at ' + f.phase + ' · line ' + f.line + ':' + f.column));
    if (pass) head.appendChild(el('span', 'msg-inline', f.message));
    box.appendChild(head);
    if (!pass) box.appendChild(el('p', 'msg', f.message));
    var rule = D.rules[f.rule];
    var todo = f.suggestion || (rule ? rule.fix : '');
    if (todo) {
      var p = el('p', 'todo');
      p.appendChild(el('strong', null, 'What to do: '));
      p.appendChild(document.createTextNode(todo));
      box.appendChild(p);
    }
    if (f.fix) {
      var q = el('p', 'fix');
      q.appendChild(el('strong', null, 'Replace with: '));
      q.appendChild(el('code', null, f.fix));
      box.appendChild(q);
    }
    if (f.decision) box.appendChild(el('p', 'decision', 'Decision: ' + f.decision));
    return box;
  }

  // ---- the form -----------------------------------------------------------------------------
  var form = document.getElementById('filters');
  var boxes = STATUSES.map(function (s) { return document.getElementById('st-' + s); });
  var catSel = document.getElementById('f-category');
  var ruleSel = document.getElementById('f-rule');
  var pathIn = document.getElementById('f-path');
  var qIn = document.getElementById('f-q');
  var viewSplit = document.getElementById('view-split');
  var viewUni = document.getElementById('view-unified');
  function syncForm() {
    boxes.forEach(function (b, i) { b.checked = state.status.indexOf(STATUSES[i]) >= 0; });
    catSel.value = state.category;
    if (catSel.value !== state.category) catSel.value = '';
    ruleSel.value = state.rule;
    if (ruleSel.value !== state.rule) ruleSel.value = '';
    if (document.activeElement !== pathIn) pathIn.value = state.path;
    if (document.activeElement !== qIn) qIn.value = state.q;
    viewSplit.checked = state.view === 'split';
    viewUni.checked = state.view === 'unified';
  }
  function readForm() {
    state.status = STATUSES.filter(function (s, i) { return boxes[i].checked; });
    state.category = catSel.value;
    state.rule = ruleSel.value;
    state.path = pathIn.value.trim();
    state.q = qIn.value.trim();
    state.view = viewUni.checked ? 'unified' : 'split';
    state.item = null;
  }
  var timer = null;
  form.addEventListener('change', function () { readForm(); apply(true); });
  form.addEventListener('input', function (e) {
    if (e.target !== pathIn && e.target !== qIn) return;
    clearTimeout(timer);
    timer = setTimeout(function () { readForm(); apply(true); }, 150);
  });
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  document.getElementById('f-reset').addEventListener('click', function () {
    state = blank();
    apply(true);
  });

  // ---- navigation ---------------------------------------------------------------------------
  var current = -1;
  function reveal(id, save) {
    var f = F[id];
    fileBody(f.file);
    var sec = document.getElementById('file-' + f.file);
    if (!sec) return false;
    sec.querySelector('details').open = true;
    var box = document.getElementById('f-' + id);
    if (!box) return false;
    if (box.tagName === 'DETAILS') box.open = true;
    box.scrollIntoView({ block: 'center' });
    box.focus({ preventScroll: true });
    current = openOrder.indexOf(id);
    state.item = id;
    if (save) saveHash();
    return true;
  }
  function step(d) {
    if (!openOrder.length) return;
    current = current < 0 ? (d > 0 ? 0 : openOrder.length - 1) :
      (current + d + openOrder.length) % openOrder.length;
    reveal(openOrder[current], true);
  }
  function stepFile(d) {
    if (!visible.length) return;
    var y = window.scrollY + 5, idx = -1;
    visible.forEach(function (i, k) {
      var s = document.getElementById('file-' + i);
      if (s && s.getBoundingClientRect().top + window.scrollY <= y) idx = k;
    });
    var next = Math.min(Math.max(idx + d, 0), visible.length - 1);
    var sec = document.getElementById('file-' + visible[next]);
    fileBody(visible[next]);
    sec.scrollIntoView({ block: 'start' });
    sec.querySelector('summary').focus({ preventScroll: true });
  }
  var help = document.getElementById('keys-help');
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
    if (typing) {
      if (e.key === 'Escape') t.blur();
      return;
    }
    var k = e.key;
    if (k === 'j') step(1);
    else if (k === 'k') step(-1);
    else if (k === 'n') stepFile(1);
    else if (k === 'p') stepFile(-1);
    else if (k === '/') qIn.focus();
    else if (k === 'u') { state.view = state.view === 'split' ? 'unified' : 'split'; apply(true); }
    else if (k === '?') help.hidden = !help.hidden;
    else if (k === 'Escape') help.hidden = true;
    else return;
    e.preventDefault();
  });
  window.addEventListener('hashchange', function () {
    var s = parseHash();
    if (!s) return;
    state = s;
    apply(false);
    if (state.item !== null) reveal(state.item, false);
  });
  window.addEventListener('beforeprint', function () {
    while (queue.length) fileBody(queue.shift());
    body.setAttribute('data-complete', '1');
    Array.prototype.forEach.call(listEl.querySelectorAll('section.file > details'), function (d) {
      d.open = true;
    });
  });

  state = parseHash() || blank();
  apply(false);
  if (state.item !== null) {
    if (!shownIds[state.item]) { var keep = state.item; state = blank(); state.item = keep; apply(false); }
    reveal(state.item, false);
  }
  body.setAttribute('data-ready', '1');
  body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
})();
