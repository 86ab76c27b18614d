// The Lodestar console page: everything it shows arrives as server-sent events from the console's SDK view
// (/api/events); it fetches only when the operator opens something or an event says it changed. Never polls.
// Every API request carries the token the operator typed (kept for the browser tab in sessionStorage) in a header:
// the event stream too, so it is read with fetch (an EventSource cannot send a header).
'use strict';

const $ = (selector) => document.querySelector(selector);
// written: config versions this page made (its own rollbacks: no warning about them); warned: the last version
// the operator was warned about while editing (once per version, not on every refresh)
// last: the last state and config list received, shown again when a filter changes
const state = { service: null, config: null, readOnly: true, known: new Set(), written: new Set(), warned: null,
  last: null, configs: [] };

// A list's filter keeps the rows whose id contains its text, in any case.
function kept(filter, id) {
  return id.toLowerCase().includes($(filter).value.trim().toLowerCase());
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.substring(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function message(text, kind) {
  const box = $('#message');
  box.textContent = text;
  box.className = 'message ' + (kind || '');
  box.hidden = false;
  clearTimeout(message.timer);
  message.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

function tokenHeader() {
  return { 'X-Lodestar-Token': $('#token').value };
}

async function getJson(url) {
  const response = await fetch(url, { cache: 'no-store', headers: tokenHeader() });
  const body = await response.json();
  if (response.status === 401) askForToken();
  if (!response.ok) throw new Error(body.message || response.statusText);
  return body;
}

function askForToken() {
  message('Enter the console\'s token (printed when it started, or the read token you were given) to see the'
    + ' registry and configs', 'error');
  $('#token').focus();
}

async function write(url, payload) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...tokenHeader(),
      'Content-Type': 'application/json',
      'X-Lodestar-Operator': $('#operator').value,
    },
    body: JSON.stringify(payload),
  });
  const body = await response.json();
  if (!response.ok) {
    const refused = response.status === 401 || response.status === 403;
    message((refused ? 'Refused: ' : 'Failed: ') + body.message, 'error');
    throw new Error(body.message);
  }
  return body;
}

// Destructive writes (evict, roll back) are confirmed first, in the page's own dialog, which names what changes.
// Resolves true when the operator confirms; false on Cancel or Escape.
function confirmAction(text, action) {
  const dialog = $('#confirm');
  $('#confirm-text').textContent = text;
  $('#confirm-yes').textContent = action;
  return new Promise((resolve) => {
    const answer = (yes) => { dialog.close(); resolve(yes); };
    $('#confirm-yes').onclick = () => answer(true);
    $('#confirm-no').onclick = () => answer(false);
    dialog.oncancel = () => resolve(false);
    dialog.showModal();
  });
}

// ---- the address: the service and config on screen, so a reload or a shared link opens them again

function remember() {
  const params = new URLSearchParams();
  if (state.service) params.set('service', state.service);
  if (state.config) params.set('config', state.config);
  const hash = params.toString();
  history.replaceState(null, '', hash ? '#' + hash : location.pathname);
}

function restore() {
  const params = new URLSearchParams(location.hash.substring(1));
  if (params.get('service')) selectService(params.get('service'));
  if (params.get('config')) openConfig(params.get('config')).catch((e) => message(e.message, 'error'));
}

// ---- services and instances

function renderState(s) {
  state.last = s;
  $('#namespace').textContent = s.namespace;
  state.readOnly = s.readOnly;
  $('#mode').textContent = s.readOnly ? 'read-only' : 'writes need the token';
  $('#stale-banner').hidden = !s.stale;
  $('#stale-for').textContent = s.staleForSeconds;
  const body = $('#services tbody');
  body.replaceChildren(...s.services.filter((row) => kept('#service-filter', row.service)).map((row) => el('tr', {
    class: 'clickable' + (row.service === state.service ? ' selected' : ''),
    'data-service': row.service,
    onclick: () => selectService(row.service),
  }, el('td', {}, row.service), el('td', {}, row.instances), el('td', {}, row.up), el('td', {}, row.revision))));
  $('#no-services').hidden = s.services.length > 0;
}

async function selectService(id) {
  state.service = id;
  state.known = new Set();
  remember();
  document.querySelectorAll('#services tr').forEach((tr) => tr.classList.toggle('selected', tr.dataset.service === id));
  try {
    renderService(await getJson('/api/service?id=' + encodeURIComponent(id)));
  } catch (e) {
    message(e.message, 'error');
  }
}

function renderService(s) {
  if (s.service !== state.service) return;
  $('#selected-service').textContent = s.service;
  $('#selected-service').className = '';
  $('#service-revision').textContent = 'revision ' + s.revision;
  const first = state.known.size === 0;
  const rows = s.instances.map((i) => {
    const tags = Object.entries(i.metadata).map(([k, v]) => el('span', { class: 'meta-tag' }, k + '=' + v));
    const fresh = !first && !state.known.has(i.id);
    const actions = state.readOnly ? [] : [
      el('button', { class: 'small', 'data-toggle': i.id,
        onclick: () => setStatus(i.id, i.status === 'up' ? 'out-of-service' : 'up') },
        i.status === 'up' ? 'take out' : 'put in'),
      ' ',
      el('button', { class: 'small', 'data-evict': i.id, onclick: () => evict(i.id) }, 'evict'),
    ];
    return el('tr', { 'data-instance': i.id, class: fresh ? 'flash' : '' },
      el('td', {}, i.id), el('td', {}, i.address), el('td', {}, i.weight),
      el('td', { class: 'status-' + i.status }, i.status), el('td', {}, i.zone || '–'), el('td', {}, tags),
      el('td', {}, i.age || '–'), el('td', { 'data-ttl-left': i.id }, i.ttlLeft), el('td', {}, actions));
  });
  state.known = new Set(s.instances.map((i) => i.id));
  $('#instances tbody').replaceChildren(...rows);
}

// Renewals move deadlines without an event, so "TTL left" is the one value the page asks for again: every 5 s, for
// the service on screen, only those cells (instances themselves change through the event stream).
async function refreshTtlLeft() {
  if (!state.service) return;
  try {
    const s = await getJson('/api/service?id=' + encodeURIComponent(state.service));
    if (s.service !== state.service) return;
    s.instances.forEach((i) => {
      const cell = document.querySelector('td[data-ttl-left="' + CSS.escape(i.id) + '"]');
      if (cell) cell.textContent = i.ttlLeft;
    });
  } catch (e) {
    // Redis unreachable: the staleness banner says so
  }
}

async function setStatus(id, status) {
  await write('/api/instance/status?service=' + encodeURIComponent(state.service) + '&id=' + encodeURIComponent(id),
    { status }).then(() => message(id + ' is now ' + status, 'ok'), () => {});
}

async function evict(id) {
  if (!await confirmAction('Evict ' + id + ' from ' + state.service + '? It leaves the registry at once, and its'
    + ' owner stops renewing it instead of registering it again.', 'Evict')) return;
  await write('/api/instance/evict?service=' + encodeURIComponent(state.service) + '&id=' + encodeURIComponent(id),
    {}).then(() => message(id + ' evicted', 'ok'), () => {});
}

// ---- configs

async function loadConfigs() {
  try {
    state.configs = await getJson('/api/configs');
    renderConfigs();
  } catch (e) {
    if ($('#token').value) message('Configs: ' + e.message, 'error');
  }
}

function renderConfigs() {
  $('#configs tbody').replaceChildren(...state.configs.filter((c) => kept('#config-filter', c.id)).map((c) => el('tr', {
    class: 'clickable' + (c.id === state.config ? ' selected' : ''),
    'data-config': c.id,
    onclick: () => openConfig(c.id),
  }, el('td', {}, c.id), el('td', {}, c.version), el('td', {}, c.format),
  el('td', {}, new Date(c.updatedAt).toLocaleString()))));
}

async function openConfig(id) {
  const changedId = state.config !== id;
  state.config = id;
  if (changedId) remember();
  document.querySelectorAll('#configs tr').forEach((tr) => tr.classList.toggle('selected', tr.dataset.config === id));
  const view = await getJson('/api/config?id=' + encodeURIComponent(id));
  $('#config-panel').hidden = false;
  $('#config-id').textContent = id;
  const current = view.current;
  $('#config-version').textContent = current ? 'version ' + current.version : 'removed';
  $('#config-version').dataset.version = current ? current.version : 0;
  // a running gray release: which instances get other content than the current version (lodestar config gray)
  const gray = view.gray;
  $('#config-gray').hidden = !gray;
  $('#config-gray').textContent = gray ? 'Gray release beside version ' + gray.baseVersion + ' for ' + gray.rule
    + ' (' + gray.format + ', ' + gray.size + ' characters, revision ' + gray.revision + ')' : '';
  const editor = $('#config-content');
  if (changedId || !editor.dataset.dirty) {
    // the version an edit starts from: saving is a compare-and-set on it, so a change made meanwhile by someone
    // else is a conflict, never silently overwritten
    editor.value = current ? current.content : '';
    editor.dataset.dirty = '';
    editor.dataset.base = current ? current.version : 0;
    if (current) $('#config-format').value = current.format.toUpperCase();
  } else if (current && String(current.version) !== editor.dataset.base && !state.written.has(current.version)
      && state.warned !== current.version) {
    state.warned = current.version;
    message('Version ' + current.version + ' arrived while you were editing version ' + editor.dataset.base
      + ': saving will be refused as a conflict', 'error');
  }
  $('#save-version').textContent = Number(editor.dataset.base) > 0 ? editor.dataset.base : '0 (absent)';
  $('#history tbody').replaceChildren(...view.history.map((h) => el('tr', { 'data-version': h.version },
    el('td', {}, h.version), el('td', {}, h.format), el('td', {}, h.size),
    el('td', {}, new Date(h.updatedAt).toLocaleString()),
    el('td', {},
      el('button', { class: 'small', 'data-diff': h.version, onclick: () => showDiff(id, h.version) }, 'diff'), ' ',
      current && current.version === h.version || state.readOnly ? null
        : el('button', { class: 'small', 'data-rollback': h.version, onclick: () => rollback(id, h.version) },
          'roll back')))));
  if (changedId) $('#diff').hidden = true;
  // who runs what: the live clients that applied the config, per version and variant (this console among them)
  const behind = current ? view.applied.filter((a) => a.version < current.version).length : 0;
  $('#applied-summary').textContent = view.applied.length === 0 ? 'no live client applied it'
    : (view.applied.length - behind) + ' of ' + view.applied.length + ' live clients run the current version';
  $('#applied tbody').replaceChildren(...view.applied.map((a) => el('tr', { 'data-client': a.client },
    el('td', {}, a.version), el('td', {}, a.variant), el('td', {}, a.name + ' ' + a.client), el('td', {}, a.host),
    el('td', {}, a.pid), el('td', {}, new Date(a.appliedAt).toLocaleString()))));
}

async function showDiff(id, from) {
  try {
    const diff = await getJson('/api/config/diff?id=' + encodeURIComponent(id) + '&from=' + from);
    const pre = $('#diff');
    pre.replaceChildren(el('span', { class: 'muted' }, '--- version ' + diff.from + '\n+++ version ' + diff.to + '\n'),
      ...diff.lines.map((l) => el('span', { class: l.op === '+' ? 'add' : l.op === '-' ? 'del' : '' },
        l.op + ' ' + l.text + '\n')));
    pre.hidden = false;
  } catch (e) {
    message(e.message, 'error');
  }
}

async function rollback(id, version) {
  const expected = Number($('#config-version').dataset.version);
  if (!await confirmAction('Make the content of version ' + version + ' of ' + id + ' current again? It becomes'
    + ' a new version after version ' + expected + ', which every client of the config receives.', 'Roll back')) {
    return;
  }
  await write('/api/config/rollback?id=' + encodeURIComponent(id), { version, expectedVersion: expected })
    .then((entry) => {
      state.written.add(entry.version);
      message(id + ': version ' + entry.version + ' (content of version ' + version + ')', 'ok');
      openConfig(id);
    }, () => {});
}

async function save() {
  const id = state.config;
  const expected = Number($('#config-content').dataset.base);
  await write('/api/config/set?id=' + encodeURIComponent(id), {
    content: $('#config-content').value, format: $('#config-format').value, expectedVersion: expected,
  }).then((entry) => {
    $('#config-content').dataset.dirty = '';
    message(id + ': version ' + entry.version, 'ok');
    openConfig(id);
  }, () => {}); // the refusal or conflict stays on screen; the edit stays in the editor
}

// Back to the current version's content: the edit is dropped, and the next save starts from the current version.
function discard() {
  $('#config-content').dataset.dirty = '';
  if (state.config) openConfig(state.config);
}

// ---- audit

function auditItem(a) {
  return el('li', {}, el('span', { class: 'muted' }, new Date(a.at).toLocaleTimeString() + ' '), a.who + ' ',
    el('strong', {}, a.action), ' ' + a.target + ' — ' + a.outcome);
}

// ---- wiring

const handlers = {
  state: renderState,
  service: renderService,
  config: (change) => {
    loadConfigs();
    if (change.id === state.config) openConfig(change.id);
  },
  audit: (entry) => $('#audit').prepend(auditItem(entry)),
};

function live(text, kind) {
  $('#live').textContent = text;
  $('#live').className = 'pill ' + kind;
}

// One SSE block ("event: x\ndata: {...}"); comments (the keep-alive) and "retry:" carry no data.
function dispatch(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.substring(7);
    else if (line.startsWith('data: ')) data.push(line.substring(6));
  }
  if (data.length && handlers[event]) handlers[event](JSON.parse(data.join('\n')));
}

let stream = null; // the AbortController of the open event stream

// The event stream, with the token; reconnects a second after it ends (the console restarted, or dropped this page
// for falling behind), not when the token was refused (a new one reconnects).
async function connect() {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  try {
    const response = await fetch('/api/events', { cache: 'no-store', headers: tokenHeader(),
      signal: controller.signal });
    if (response.status === 401) {
      live('needs the token', 'down');
      askForToken();
      return;
    }
    if (!response.ok) throw new Error(response.statusText);
    live('live', 'live');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        dispatch(buffer.substring(0, end));
        buffer = buffer.substring(end + 2);
      }
    }
  } catch (e) {
    if (controller.signal.aborted) return;
  }
  if (stream !== controller) return;
  live('reconnecting…', 'down');
  setTimeout(() => { if (stream === controller) connect(); }, 1000);
}

async function loadAudit() {
  try {
    $('#audit').replaceChildren(...(await getJson('/api/audit')).map(auditItem));
  } catch (e) {
    // the message already asks for the token, or the banner says Redis is unreachable
  }
}

// A token typed (Enter, or leaving the field): kept for this browser tab, and everything read again with it.
function useToken() {
  sessionStorage.setItem('lodestar-token', $('#token').value);
  $('#message').hidden = true;
  connect();
  loadConfigs();
  loadAudit();
  restore();
}

document.addEventListener('DOMContentLoaded', () => {
  setInterval(refreshTtlLeft, 5000);
  $('#token').value = sessionStorage.getItem('lodestar-token') || '';
  $('#operator').value = localStorage.getItem('lodestar-operator') || '';
  $('#auth').addEventListener('submit', (e) => { e.preventDefault(); useToken(); });
  $('#token').addEventListener('change', useToken);
  $('#operator').addEventListener('change', () => localStorage.setItem('lodestar-operator', $('#operator').value));
  $('#config-content').addEventListener('input', () => { $('#config-content').dataset.dirty = 'yes'; });
  $('#config-save').addEventListener('click', save);
  $('#config-discard').addEventListener('click', discard);
  window.addEventListener('hashchange', restore);
  $('#service-filter').addEventListener('input', () => { if (state.last) renderState(state.last); });
  $('#config-filter').addEventListener('input', renderConfigs);
  if ($('#token').value) {
    useToken();
  } else {
    live('needs the token', 'down');
    askForToken();
  }
});
