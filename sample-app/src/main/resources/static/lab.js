// The lab page: polls GET /api/lab (and the ledger's API) and renders it. No framework, no build step.
(function () {
  'use strict';

  const POLL_MS = 400;
  const LEDGER_POLL_MS = 2000;
  const MAX_EVENTS = 120;
  const GRANT_ROWS = 14; // the grants the lab keeps (LabLog)
  const STEPS = ['race', 'dead-holder', 'stale-release', 'renewal', 'failover-async', 'failover-sync'];

  let lastSeq = 0;
  let running = false;
  let polling = false;

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (v !== undefined && v !== null) node.setAttribute(k, v);
    });
    children.forEach((c) => node.append(c instanceof Node ? c : document.createTextNode(String(c))));
    return node;
  }

  async function post(path) {
    // The lab answers only its own page: a custom header, which another site cannot make a browser send.
    const response = await fetch(path, { method: 'POST', headers: { 'X-Fencepost-Lab': '1' } });
    if (!response.ok) throw new Error(path + ' answered ' + response.status);
  }

  function setText(id, value) {
    const node = $(id);
    const text = String(value);
    if (node.textContent !== text) node.textContent = text;
  }

  function cents(value) {
    return (value / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }

  function clock(iso) {
    const d = new Date(iso);
    return d.toLocaleTimeString('en-GB', { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
  }

  function render(state) {
    running = state.running;
    setText('instance', state.instance);
    setText('lock-key', state.key);
    renderLocksLink(state.key);
    setText('pause-ms', (state.settings.pauseMillis / 1000) + ' s');
    setText('lease-ms', (state.settings.leaseMillis / 1000) + ' s');
    setText('outage-ms', (state.settings.outageMillis / 1000) + ' s');

    const mode = state.fencingMode;
    document.querySelectorAll('.segmented .seg').forEach((b) => {
      b.setAttribute('aria-checked', String(b.dataset.mode === mode));
    });
    const fencingState = $('fencing-state');
    fencingState.textContent = mode === 'column' ? 'ON' : mode === 'transaction' ? 'TRANSACTION' : 'OFF';
    fencingState.className = mode === 'off' ? 'off' : 'on';

    setText('run-toggle', state.running ? 'Stop workers' : 'Start workers');
    const status = $('status-line');
    let line = state.running ? 'workers running' : 'workers stopped';
    if (state.storeDown) line = 'LOCK STORE DOWN';
    else if (state.pausePending) line = 'pause requested…';
    status.textContent = line;
    status.className = 'status ' + (state.storeDown ? 'down' : state.running ? 'live' : '');
    $('kill-store').disabled = state.storeDown;

    const c = state.counters;
    setText('violations', c.violations);
    $('violations-card').className = 'stat violations ' + (c.violations > 0 ? 'bad' : 'ok');
    setText('grants', c.grants);
    setText('accepted', c.writesAccepted);
    setText('rejected', c.writesRejected);
    setText('store-errors', c.storeErrors);
    setText('leases-lost', c.leasesLost);

    renderOutage(state);
    renderSteps(state);
    renderPinned(state.pinned);
    renderHolder(state);
    renderWorkers(state.workers);
    renderResource(state.resource, mode);
    renderGrants(state.grants);
    appendEvents(state.events);
  }

  // The lab's workers have lock clients of their own, which /actuator/locks (this instance's manager) does not list:
  // the link shows the store's view of their key instead.
  function renderLocksLink(key) {
    const link = $('locks-link');
    const path = 'actuator/locks/' + key.split('/').map(encodeURIComponent).join('/');
    if (link.getAttribute('href') !== path) {
      link.setAttribute('href', path);
      link.textContent = '/actuator/locks/' + key;
    }
  }

  // While the store is down; after it, what the outage did, as the lab recorded it (kept until reset).
  function renderOutage(state) {
    const box = $('outage-result');
    const last = state.results.outage;
    if (state.storeDown) {
      box.hidden = false;
      box.className = 'outcome';
      setText('outage-result', 'Store down: acquires fail closed and nobody is granted the key. What it did shows'
        + ' here when the store is back.');
    } else if (last) {
      box.hidden = false;
      box.className = 'outcome ' + (last.asPromised ? 'ok' : 'bad');
      setText('outage-result', 'Last outage: ' + last.text + '.');
    } else {
      box.hidden = true;
    }
  }

  // Each step's latest result, from the lab's records; its button is off while a step runs.
  function renderSteps(state) {
    STEPS.forEach((id) => {
      const button = $('step-' + id);
      button.disabled = state.stepRunning != null;
      button.classList.toggle('running', state.stepRunning === id);
      const box = $('result-' + id);
      const result = state.results[id];
      if (state.stepRunning === id) {
        box.hidden = false;
        box.className = 'outcome';
        setText('result-' + id, 'running\u2026');
      } else if (result) {
        box.hidden = false;
        box.className = 'outcome ' + (result.asPromised ? 'ok' : 'bad');
        setText('result-' + id, result.text);
      } else {
        box.hidden = true;
      }
    });
  }

  function renderHolder(state) {
    const h = state.holder;
    if (h) {
      setText('holder', h.worker ? 'worker ' + h.worker : h.holder);
      setText('holder-token', h.fencingToken);
      // The store has granted it, and the worker has not heard yet: the grant table shows it once it has.
      if (!h.told) setText('holder', (h.worker ? 'worker ' + h.worker : h.holder) + ' (granted, not yet told)');
      const pct = Math.max(0, Math.min(100, (h.expiresInMillis / state.settings.leaseMillis) * 100));
      $('lease-bar-fill').style.width = pct + '%';
      setText('lease-text', h.holder + ' · lease ends in ' + (h.expiresInMillis / 1000).toFixed(1) + ' s');
    } else {
      setText('holder', 'nobody');
      setText('holder-token', '—');
      $('lease-bar-fill').style.width = '0%';
      setText('lease-text', state.storeDown ? 'the store is unreachable for the workers' : 'the key is free');
    }
  }

  function renderWorkers(workers) {
    const box = $('workers');
    box.replaceChildren(...workers.map((w) => el('div', { class: 'worker ' + w.state, id: 'worker-' + w.name },
      el('div', {}, el('span', { class: 'name' }, w.name), el('span', { class: 'badge ' + w.state }, w.state)),
      el('div', { class: 'detail' }, w.fencingToken != null ? 'token ' + w.fencingToken + ' · ' + w.detail : w.detail))));
  }

  function renderResource(r, mode) {
    setText('resource-value', r.value);
    setText('resource-expected', r.acceptedWrites);
    const lost = r.lostUpdates;
    setText('resource-lost', lost);
    $('resource-lost').className = 'big' + (lost > 0 ? ' bad' : '');
    setText('resource-fence', r.fence);
    setText('resource-last', r.lastWriter
      ? 'last written by worker ' + r.lastWriter + ' with token ' + r.lastToken + ' (version ' + r.version + ')'
      : 'not written yet');
    let note;
    if (mode === 'column') {
      note = 'The fence is the highest token the resource has seen; it refuses reads and writes with a lower one.';
    } else if (mode === 'transaction') {
      note = 'The transaction is fenced: the resource checks and records no token, so its fence stays at ' + r.fence
        + ' (from when the fence column was on); the lease, confirmed right before each commit, protects it.';
    } else {
      note = 'Fencing is off: the resource checks and records no token, so its fence stays at ' + r.fence
        + ' (the highest token seen while the fence column was on) while new grants\' tokens pass it by.'
        + ' It means nothing now: any write is accepted.';
    }
    setText('fence-note', note);
  }

  // As many rows as the lab keeps grants, empty ones too: the table has its full height from the start.
  function renderGrants(grants) {
    const rows = grants.slice(0, GRANT_ROWS).map((g) => el('tr', { 'data-outcome': g.outcome },
      el('td', {}, g.fencingToken), el('td', {}, g.worker),
      el('td', {}, el('span', { class: 'badge ' + g.outcome }, g.outcome))));
    while (rows.length < GRANT_ROWS) {
      rows.push(el('tr', { class: 'empty' }, el('td', {}, '\u00a0'), el('td', {}, ''), el('td', {}, '')));
    }
    $('grants-body').replaceChildren(...rows);
  }

  function appendEvents(events) {
    const list = $('events');
    events.forEach((e) => {
      lastSeq = Math.max(lastSeq, e.seq);
      list.prepend(el('li', { class: e.kind, 'data-kind': e.kind }, el('time', {}, clock(e.at)), e.text));
    });
    while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  }

  // Rejections, violations and the writes over them: kept by the lab until reset, so a reload shows them too.
  function renderPinned(pinned) {
    $('pinned-empty').hidden = pinned.length > 0;
    const shown = Array.from($('pinned').querySelectorAll('li[data-seq]')).map((li) => li.dataset.seq).join(',');
    if (shown === pinned.map((e) => String(e.seq)).join(',')) return;
    $('pinned').querySelectorAll('li[data-seq]').forEach((li) => li.remove());
    $('pinned').append(...pinned.map((e) => el('li', { class: e.kind, 'data-kind': e.kind, 'data-seq': e.seq },
      el('time', {}, clock(e.at)), e.text)));
  }

  async function poll() {
    if (polling) return;
    polling = true;
    try {
      const response = await fetch('api/lab?since=' + lastSeq);
      if (response.ok) render(await response.json());
    } catch (e) {
      $('status-line').textContent = 'cannot reach the app: ' + e.message;
    } finally {
      polling = false;
    }
  }

  async function pollLedger() {
    try {
      const [accounts, settlements] = await Promise.all([
        fetch('api/accounts').then((r) => r.json()),
        fetch('api/settlements').then((r) => r.json()),
      ]);
      $('accounts-body').replaceChildren(...accounts.accounts.map((a) => el('tr', {},
        el('td', {}, a.id), el('td', {}, a.owner), el('td', { class: 'num' }, cents(a.balanceCents)),
        el('td', { class: 'num' }, a.fence))));
      setText('accounts-total', cents(accounts.totalCents));
      setText('unsettled', accounts.unsettledTransfers + ' unsettled');
      $('settlements-body').replaceChildren(...settlements.slice(0, 8).map((s) => el('tr', {},
        el('td', {}, clock(s.tick)), el('td', {}, s.instance), el('td', { class: 'num' }, s.fencingToken),
        el('td', { class: 'num' }, s.transfers), el('td', { class: 'num' }, cents(s.amountCents)))));
    } catch (e) {
      // the lab's poll reports an unreachable app
    }
  }

  async function randomTransfers() {
    const ids = Array.from($('accounts-body').querySelectorAll('tr td:first-child')).map((td) => td.textContent);
    if (ids.length < 2) return;
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    const requests = Array.from({ length: 20 }, () => {
      const from = pick();
      let to = pick();
      while (to === from) to = pick();
      return fetch('api/transfers', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ from, to, amountCents: 100 + Math.floor(Math.random() * 5000) }),
      }).then((r) => r.status);
    });
    const statuses = await Promise.all(requests);
    const booked = statuses.filter((s) => s === 201).length;
    setText('transfer-result', booked + ' of 20 transfers booked'
      + (booked < 20 ? ' (the others: ' + statuses.filter((s) => s !== 201).join(', ') + ')' : ''));
    pollLedger();
  }

  function wire() {
    $('pause-holder').addEventListener('click', () => post('api/lab/pause').then(poll));
    $('kill-store').addEventListener('click', () => post('api/lab/kill-store').then(poll));
    document.querySelectorAll('.segmented .seg').forEach((b) => {
      b.addEventListener('click', () => post('api/lab/fencing?mode=' + b.dataset.mode).then(poll));
    });
    $('run-toggle').addEventListener('click', () => post(running ? 'api/lab/stop' : 'api/lab/start').then(poll));
    $('reset').addEventListener('click', () => {
      $('events').replaceChildren();
      post('api/lab/reset').then(poll);
    });
    // 409 while another step runs: the buttons are off then, so only a double click gets it.
    STEPS.forEach((id) => $('step-' + id).addEventListener('click', () => post('api/lab/steps/' + id)
      .catch(() => {}).finally(poll)));
    $('random-transfers').addEventListener('click', randomTransfers);
  }

  wire();
  post('api/lab/start').finally(() => {
    poll();
    pollLedger();
    setInterval(poll, POLL_MS);
    setInterval(pollLedger, LEDGER_POLL_MS);
  });
})();
