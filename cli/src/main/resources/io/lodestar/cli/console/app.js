// The Lodestar console page: everything it shows arrives as server-sent events from the console's SDK view
// (/api/events); it fetches only when the operator opens something or an event says it changed. It polls only for
// what no event announces: the time left of the instances on screen, and (with remote regions) the regions card.
// Every API request carries the token the operator typed (kept for the browser tab in sessionStorage) in a header:
// the event stream too, so it is read with fetch (an EventSource cannot send a header). The token names a user;
// the page offers only what the user's role allows (the console checks every write again).
'use strict';

const $ = (selector) => document.querySelector(selector);
// written: config versions this page made (its own rollbacks: no warning about them); warned: the last version
// the operator was warned about while editing (once per version, not on every refresh)
// last: the last state and config list received, shown again when a filter changes
// ns: the namespace on screen; namespaces: those the user may see, with their role in each (from /api/me);
// role: the user's role in the namespace on screen (null until a token is accepted); pages: the page of each list
const state = { ns: null, namespaces: [], service: null, config: null, role: null, known: new Set(),
  written: new Set(), warned: null, last: null, configs: { items: [], offset: 0, total: 0 }, instances: {}, pages: { services: 0, configs: 0 } };

// Every API request names the namespace on screen (the console serves one or several).
function withNs(url) {
  return state.ns === null ? url : url + (url.includes('?') ? '&' : '?') + 'ns=' + encodeURIComponent(state.ns);
}

// Long lists are shown a page at a time: the rows of the list's current page, and its pager updated.
const PAGE = 50;
function paged(list, rows) {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.pages[list] = Math.min(state.pages[list], pages - 1);
  const first = state.pages[list] * PAGE;
  drawPager(list, first, rows.length);
  return rows.slice(first, first + PAGE);
}

// The pager of a list whose page starts at row `first` of `total`: for a list paged here or by the console.
function drawPager(list, first, total) {
  const pager = $('#' + list + '-pager');
  pager.hidden = total <= PAGE;
  pager.replaceChildren(
    el('button', { class: 'small', 'data-page': 'previous', disabled: first === 0 ? '' : null,
      onclick: () => turn(list, -1) }, '‹'),
    el('span', { class: 'muted' }, ' ' + (first + 1) + '–' + Math.min(first + PAGE, total) + ' of ' + total + ' '),
    el('button', { class: 'small', 'data-page': 'next', disabled: first + PAGE >= total ? '' : null,
      onclick: () => turn(list, 1) }, '›'));
}

// A list's rows are replaced only when what they show changed: the state arrives again on every event of any
// service, and rows replaced under the pointer would swallow a click (and lose the hover) for nothing.
function replaceRows(body, data, rows) {
  const key = JSON.stringify(data);
  if (body.dataset.key === key) return;
  body.dataset.key = key;
  body.replaceChildren(...rows);
}

function turn(list, by) {
  state.pages[list] += by;
  if (list === 'services' && state.last) renderState(state.last);
  if (list === 'configs') loadConfigs();
}

// read < write < admin: write changes (set, create, roll back, status, metadata), admin also removes
function may(role) {
  const order = ['read', 'write', 'admin'];
  return state.role !== null && order.indexOf(state.role) >= order.indexOf(role);
}

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
  const response = await fetch(withNs(url), { cache: 'no-store', headers: tokenHeader() });
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
  const response = await fetch(withNs(url), {
    method: 'POST',
    headers: { ...tokenHeader(), 'Content-Type': 'application/json' },
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
  if (state.ns && state.namespaces.length > 1) params.set('ns', state.ns);
  if (state.service) params.set('service', state.service);
  if (state.config) params.set('config', state.config);
  const hash = params.toString();
  history.replaceState(null, '', hash ? '#' + hash : location.pathname);
}

function restore() {
  const params = new URLSearchParams(location.hash.substring(1));
  if (params.get('ns') && params.get('ns') !== state.ns && state.namespaces.some((n) => n.name === params.get('ns'))) {
    switchNamespace(params.get('ns'));
    return; // switching restores the rest
  }
  if (params.get('service')) selectService(params.get('service'));
  if (params.get('config')) openConfig(params.get('config')).catch((e) => message(e.message, 'error'));
}

// ---- services and instances

function renderState(s) {
  state.last = s;
  $('#namespace').textContent = s.namespace;
  $('#mode').textContent = s.readOnly ? 'read-only' : '';
  $('#mode').hidden = !s.readOnly;
  $('#stale-banner').hidden = !s.stale;
  $('#stale-for').textContent = s.staleForSeconds;
  const rows = paged('services', s.services.filter((row) => kept('#service-filter', row.service)));
  replaceRows($('#services tbody'), rows, rows.map((row) => el('tr', {
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
    const actions = [
      may('write') ? el('button', { class: 'small', 'data-toggle': i.id,
        onclick: () => setStatus(i.id, i.status === 'up' ? 'out-of-service' : 'up') },
        i.status === 'up' ? 'take out' : 'put in') : null,
      may('write') ? el('button', { class: 'small', 'data-metadata': i.id, onclick: () => editMetadata(i) },
        'metadata') : null,
      may('write') ? el('button', { class: 'small', 'data-weight': i.id, onclick: () => editWeight(i) }, 'weight')
        : null,
      may('admin') ? el('button', { class: 'small', 'data-evict': i.id, onclick: () => evict(i.id) }, 'evict')
        : null,
    ].filter((b) => b !== null).flatMap((b) => [b, ' ']);
    return el('tr', { 'data-instance': i.id, class: fresh ? 'flash' : '' },
      el('td', {}, i.id), el('td', {}, i.address), el('td', {}, i.weight),
      el('td', { class: 'status-' + i.status }, i.status), el('td', {}, i.zone || '–'), el('td', {}, tags),
      el('td', {}, i.age || '–'), el('td', { 'data-ttl-left': i.id }, i.ttlLeft), el('td', {}, actions));
  });
  state.known = new Set(s.instances.map((i) => i.id));
  state.instances = s;
  $('#instances tbody').replaceChildren(...rows);
}

// How an instance of the service on screen left (its new list cannot tell): an operator's evict, a deregister or an
// expiry, as `watch` says it.
function renderRemoval(r) {
  if (r.service !== state.service) return;
  message(r.id + ' ' + r.change + ' (revision ' + r.revision + ')');
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

// The metadata as KEY=VALUE lines; saving sends what changed (put) and the keys no longer there (remove), one
// atomic update in Redis. Not confirmed: nothing is lost that the dialog did not show.
function editMetadata(instance) {
  const before = instance.metadata;
  $('#metadata-instance').textContent = state.service + '/' + instance.id;
  $('#metadata-text').value = Object.entries(before).map(([k, v]) => k + '=' + v).join('\n');
  const dialog = $('#metadata');
  $('#metadata-cancel').onclick = () => dialog.close();
  $('#metadata-form').onsubmit = async (e) => {
    e.preventDefault();
    const after = {};
    for (const line of $('#metadata-text').value.split('\n')) {
      if (!line.trim()) continue;
      const eq = line.indexOf('=');
      if (eq <= 0) {
        message('Each line must be KEY=VALUE, but was: ' + line, 'error');
        return;
      }
      after[line.substring(0, eq).trim()] = line.substring(eq + 1);
    }
    const put = Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k] !== v));
    const remove = Object.keys(before).filter((k) => !(k in after));
    await write('/api/instance/metadata?service=' + encodeURIComponent(state.service) + '&id='
      + encodeURIComponent(instance.id), { put, remove })
      .then(() => { dialog.close(); message(instance.id + ': metadata saved', 'ok'); }, () => {});
  };
  dialog.showModal();
}

// The weight in a dialog of its own; the server checks the range (0-10000) with the registry's rule and message, so
// the page does not keep a second copy of it. Not confirmed: the old weight is one edit away.
function editWeight(instance) {
  $('#weight-instance').textContent = state.service + '/' + instance.id;
  $('#weight-value').value = instance.weight;
  const dialog = $('#weight');
  $('#weight-cancel').onclick = () => dialog.close();
  $('#weight-form').onsubmit = async (e) => {
    e.preventDefault();
    const weight = $('#weight-value').value;
    await write('/api/instance/weight?service=' + encodeURIComponent(state.service) + '&id='
      + encodeURIComponent(instance.id), { weight })
      .then((changed) => { dialog.close(); message(instance.id + ' now has weight ' + changed.weight, 'ok'); }, () => {});
  };
  dialog.showModal();
}

// ---- configs

// Configs are asked for a page at a time, filtered by the console (it answers the page's rows and their total), so
// a namespace of thousands of configs costs one page per change. Only the answer to the latest ask is shown (typing
// in the filter asks again before an earlier answer came back).
async function loadConfigs() {
  const asked = (loadConfigs.asked || 0) + 1;
  loadConfigs.asked = asked;
  const filter = $('#config-filter').value.trim();
  try {
    const page = await getJson('/api/configs?offset=' + state.pages.configs * PAGE + '&limit=' + PAGE
      + (filter ? '&filter=' + encodeURIComponent(filter) : ''));
    if (asked !== loadConfigs.asked) return;
    if (page.items.length === 0 && page.offset > 0) { // the list shrank under the page on screen: its last page
      state.pages.configs = Math.max(0, Math.ceil(page.total / PAGE) - 1);
      loadConfigs();
      return;
    }
    state.configs = page;
    renderConfigs();
  } catch (e) {
    if ($('#token').value) message('Configs: ' + e.message, 'error');
  }
}

function renderConfigs() {
  const rows = state.configs.items;
  drawPager('configs', state.configs.offset, state.configs.total);
  replaceRows($('#configs tbody'), rows, rows.map((c) => el('tr', {
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
      current && current.version === h.version || !may('write') ? null
        : el('button', { class: 'small', 'data-rollback': h.version, onclick: () => rollback(id, h.version) },
          'roll back')))));
  if (changedId) $('#diff').hidden = true;
  $('#config-delete').hidden = !current || !may('admin');
  $('#config-save').hidden = !may('write');
  // who runs what: the live clients that applied the config, per version and variant (never this console)
  const behind = current ? view.applied.filter((a) => a.version < current.version).length : 0;
  $('#applied-summary').textContent = view.applied.length === 0 ? 'no live client applied it'
    : (view.applied.length - behind) + ' of ' + view.applied.length + ' live clients run the current version';
  $('#applied tbody').replaceChildren(...view.applied.map((a) => el('tr', { 'data-client': a.client },
    el('td', {}, a.version), el('td', {}, a.variant), el('td', {}, a.name + ' ' + a.client), el('td', {}, a.host),
    el('td', {}, a.pid), el('td', {}, new Date(a.appliedAt).toLocaleString()))));
  loadConfigLog(id).catch(() => {});
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

// A new config: created only if the id is free (a compare-and-set on "absent"), so it never replaces one.
function newConfig() {
  const dialog = $('#create');
  $('#create-id').value = '';
  $('#create-content').value = '';
  $('#create-cancel').onclick = () => dialog.close();
  $('#create-form').onsubmit = async (e) => {
    e.preventDefault();
    const id = $('#create-id').value.trim();
    await write('/api/config/set?id=' + encodeURIComponent(id), {
      content: $('#create-content').value, format: $('#create-format').value, expectedVersion: 0,
    }).then((entry) => {
      dialog.close();
      message(id + ': created, version ' + entry.version, 'ok');
      openConfig(id);
    }, () => {}); // an id taken meanwhile is a conflict, on screen; the dialog stays open
  };
  dialog.showModal();
}

async function deleteConfig() {
  const id = state.config;
  if (!await confirmAction('Delete ' + id + '? Its clients see it removed at once; its history stays, so a'
    + ' version can be rolled back later.', 'Delete')) return;
  await write('/api/config/delete?id=' + encodeURIComponent(id), {})
    .then(() => { message(id + ' deleted', 'ok'); openConfig(id); loadConfigs(); }, () => {});
}

// Back to the current version's content: the edit is dropped, and the next save starts from the current version.
function discard() {
  $('#config-content').dataset.dirty = '';
  if (state.config) openConfig(state.config);
}

// ---- config changes: the audit trail every write appends in Redis, whoever wrote (kept across console restarts)

function changeItem(c) {
  return el('li', { 'data-change': c.id + '@' + c.version },
    el('span', { class: 'muted' }, new Date(c.at).toLocaleString() + ' '), el('strong', {}, c.operation),
    ' ' + c.id + ' version ' + c.version + ' by ' + c.client + '@' + c.host);
}

async function loadChanges() {
  try {
    $('#changes').replaceChildren(...(await getJson('/api/config/changes')).map(changeItem));
  } catch (e) {
    // the message already asks for the token, or the banner says Redis is unreachable
  }
}

// A burst of config events reads the namespace's trails once, half a second after the first.
let changesTimer = null;
function changesArrived() {
  if (!changesTimer) changesTimer = setTimeout(() => { changesTimer = null; loadChanges(); }, 500);
}

async function loadConfigLog(id) {
  const log = await getJson('/api/config/log?id=' + encodeURIComponent(id));
  if (state.config !== id) return;
  $('#config-log tbody').replaceChildren(...log.map((c) => el('tr', { 'data-version': c.version },
    el('td', {}, new Date(c.at).toLocaleString()), el('td', {}, c.operation),
    el('td', {}, c.previous + ' → ' + c.version), el('td', {}, c.client), el('td', {}, c.host))));
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
  removed: renderRemoval,
  config: (change) => {
    loadConfigs();
    changesArrived();
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
    const response = await fetch(withNs('/api/events'), { cache: 'no-store', headers: tokenHeader(),
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

// Who the token names, the namespaces they may see and their role in each: the page lists those namespaces, opens
// the one the address names (else the first), and offers only what the role there allows.
async function loadMe() {
  state.user = null;
  state.namespaces = [];
  try {
    const me = await getJson('/api/me');
    state.user = me.user;
    state.namespaces = me.namespaces;
  } catch (e) {
    // the message already asks for the token
  }
  const wanted = new URLSearchParams(location.hash.substring(1)).get('ns') || state.ns;
  const shown = state.namespaces.find((n) => n.name === wanted) || state.namespaces[0];
  state.ns = shown ? shown.name : null;
  $('#ns-switch').replaceChildren(...state.namespaces.map((n) => el('option', { value: n.name }, n.name)));
  $('#ns-switch').value = state.ns || '';
  $('#ns-switch').hidden = state.namespaces.length < 2;
  if (state.user && !shown) message(state.user + ' may see none of the namespaces this console serves', 'error');
  showRole();
}

function showRole() {
  const shown = state.namespaces.find((n) => n.name === state.ns);
  state.role = shown ? shown.role : null;
  $('#whoami').textContent = state.role === null ? '' : state.user + ' · ' + state.role;
  $('#whoami').hidden = state.role === null;
  $('#config-new').hidden = !may('write');
  if (state.instances.service) renderService(state.instances);
}

// Another namespace: nothing of the last one stays on screen, and everything is read again for the new one.
function switchNamespace(name) {
  state.ns = name;
  $('#ns-switch').value = name;
  state.service = null;
  state.config = null;
  state.known = new Set();
  state.instances = {};
  state.pages = { services: 0, configs: 0 };
  $('#selected-service').textContent = '— choose a service';
  $('#selected-service').className = 'muted';
  $('#service-revision').textContent = '';
  $('#instances tbody').replaceChildren();
  $('#config-panel').hidden = true;
  $('#config-content').dataset.dirty = '';
  showRole();
  const params = new URLSearchParams(location.hash.substring(1));
  remember();
  connect();
  loadConfigs();
  loadAudit();
  loadChanges();
  if (params.get('ns') === name) { // a link to a service or config of this namespace
    if (params.get('service')) selectService(params.get('service'));
    if (params.get('config')) openConfig(params.get('config')).catch((e) => message(e.message, 'error'));
  }
}

// A token typed (Enter, or leaving the field): kept for this browser tab, and everything read again with it.
async function useToken() {
  sessionStorage.setItem('lodestar-token', $('#token').value);
  $('#message').hidden = true;
  await loadMe();
  connect();
  watchRegions();
  loadConfigs();
  loadAudit();
  loadChanges();
  restore();
}

// ---- regions (lodestar console --home NAME --remote NAME=URI): each region read from its own Redis by the console.
// A remote region's changes do not come through the event stream (it follows home), so while the console reads
// regions this card asks again every 2 s; a console without remote regions is asked once and the card stays hidden.
// Only home's instances can be changed (the console refuses a write to a remote region too).
const regions = { ns: undefined, shown: '*', service: null, home: null, timer: null };

async function loadRegions() {
  if (regions.ns !== state.ns) { // another namespace: nothing of the last one stays
    Object.assign(regions, { ns: state.ns, shown: '*', service: null });
    $('#region-instances tbody').replaceChildren();
    $('#region-service').textContent = '— choose a service';
  }
  let view;
  try {
    view = await getJson('/api/regions');
  } catch (e) {
    return; // no token yet, or the console is restarting: the next tick asks again
  }
  const shown = view.regions.length > 1;
  $('#regions-card').hidden = !shown;
  if (!shown) {
    clearInterval(regions.timer);
    return;
  }
  regions.home = view.home;
  const select = $('#region-switch');
  if (select.options.length !== view.regions.length + 1) {
    select.replaceChildren(el('option', { value: '*' }, 'all regions'), ...view.regions.map((r) =>
      el('option', { value: r.name }, r.name + (r.home ? ' (home)' : ''))));
    select.value = regions.shown;
  }
  $('#region-badges').replaceChildren(...view.regions.map((r) => el('span', {
    class: 'pill ' + (r.stale ? 'down' : 'live'), 'data-region': r.name, 'data-stale': r.stale ? 'yes' : 'no',
    title: r.lastSyncAt ? 'last heard from ' + r.lastSyncAt : 'not heard from yet',
  }, r.name + (r.stale ? ': stale for ' + r.staleForSeconds + ' s' : ''))));
  const rows = new Map(); // "all regions": a service's counts summed over the regions
  view.regions.filter((r) => regions.shown === '*' || r.name === regions.shown).forEach((r) =>
    r.services.forEach((row) => {
      const sum = rows.get(row.service) || { service: row.service, instances: 0, up: 0 };
      sum.instances += row.instances;
      sum.up += row.up;
      rows.set(row.service, sum);
    }));
  $('#region-services tbody').replaceChildren(...[...rows.values()].sort((a, b) => a.service.localeCompare(b.service))
    .map((row) => el('tr', {
      class: 'clickable' + (row.service === regions.service ? ' selected' : ''), 'data-region-service': row.service,
      onclick: () => { regions.service = row.service; loadRegions(); },
    }, el('td', {}, row.service), el('td', {}, row.instances), el('td', {}, row.up))));
  if (regions.service) await loadRegionService();
}

async function loadRegionService() {
  const s = await getJson('/api/region/service?region=' + encodeURIComponent(regions.shown) + '&id='
    + encodeURIComponent(regions.service)).catch(() => null);
  if (!s || s.service !== regions.service || s.region !== regions.shown) return;
  $('#region-service').textContent = s.service + (s.region === '*' ? ' in every region' : ' in ' + s.region);
  $('#region-instances tbody').replaceChildren(...s.instances.map((i) => el('tr', { 'data-region-instance': i.id },
    el('td', {}, i.region || '–'), el('td', {}, i.id), el('td', {}, i.address), el('td', {}, i.weight),
    el('td', { class: 'status-' + i.status }, i.status), el('td', {}, i.zone || '–'),
    el('td', {}, i.writable && may('write') ? el('button', { class: 'small', 'data-region-toggle': i.id,
      onclick: () => regionSetStatus(i, i.status === 'up' ? 'out-of-service' : 'up') },
    i.status === 'up' ? 'take out' : 'put in') : ''))));
}

async function regionSetStatus(instance, status) {
  await write('/api/instance/status?service=' + encodeURIComponent(instance.service) + '&id='
    + encodeURIComponent(instance.id) + '&region=' + encodeURIComponent(instance.region), { status })
    .then(() => { message(instance.id + ' is now ' + status, 'ok'); loadRegions(); }, () => {});
}

function watchRegions() {
  clearInterval(regions.timer);
  regions.timer = setInterval(loadRegions, 2000);
  loadRegions();
}

document.addEventListener('DOMContentLoaded', () => {
  setInterval(refreshTtlLeft, 5000);
  $('#token').value = sessionStorage.getItem('lodestar-token') || '';
  $('#auth').addEventListener('submit', (e) => { e.preventDefault(); useToken(); });
  $('#token').addEventListener('change', useToken);
  $('#config-new').addEventListener('click', newConfig);
  $('#ns-switch').addEventListener('change', () => switchNamespace($('#ns-switch').value));
  $('#config-delete').addEventListener('click', deleteConfig);
  $('#config-content').addEventListener('input', () => { $('#config-content').dataset.dirty = 'yes'; });
  $('#config-save').addEventListener('click', save);
  $('#config-discard').addEventListener('click', discard);
  $('#region-switch').addEventListener('change', () => { regions.shown = $('#region-switch').value; loadRegions(); });
  window.addEventListener('hashchange', restore);
  $('#service-filter').addEventListener('input', () => {
    state.pages.services = 0;
    if (state.last) renderState(state.last);
  });
  $('#config-filter').addEventListener('input', () => {
    state.pages.configs = 0;
    loadConfigs();
  });
  if ($('#token').value) {
    useToken();
  } else {
    live('needs the token', 'down');
    askForToken();
  }
});
