// The live report (issue 16): the reader changes an input of the panel and the page computes
// the model again and rewrites every figure, the ranking, the summary and the charts.
// The model itself is `evaluate(v)`, generated from the expression trees (tco/expr/javascript.py)
// into the script before this one; this script is the same for every report and holds no
// formula. Its data (tco/exporters/live.py) is JSON; every text from it is set as text, never as
// markup. Formatting follows tco/exporters/fmt.py and View.fmt (report_view.py) to the character:
// at the scenario's values the page writes exactly the static HTML (tests/test_report_live.py).
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("tco-live-data").textContent);
  const T = D.text;
  const SVGNS = "http://www.w3.org/2000/svg";
  const base = new Float64Array(D.size);
  D.base.forEach((x, i) => { base[i] = x === null ? NaN : x; });
  const NUMBER = new RegExp(D.number);
  const state = new Map();  // path -> {text, value}: the panel's accepted values
  const byPath = new Map(D.panel.map((p) => [p.path, p]));

  // --- numbers as Python's format() writes them -------------------------------------------------
  // The exact decimal expansion of a double (toFixed(100) is exact for the doubles a report
  // shows), so that a tie rounds half to even as Python does, not up as toFixed does.
  function exact(a) {
    if (a >= 1e21) return [BigInt(a).toString(), ""];
    const s = a.toFixed(100);
    const dot = s.indexOf(".");
    return [s.slice(0, dot), s.slice(dot + 1)];
  }

  // format(a, ".{d}f") for a >= 0: toFixed, unless the value may be a tie at the last digit
  // (then the exact digits decide, half to even)
  function fixedAbs(a, d) {
    const r = a * 10 ** d;
    if (r < 2 ** 52 && Math.abs(r - Math.floor(r) - 0.5) > 1e-6) return a.toFixed(d);
    const [int, whole] = exact(a);
    const frac = whole.padEnd(d, "0");
    let digits = int + frac.slice(0, d);
    const rest = frac.slice(d);
    const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1))
      || (digits.length && Number(digits[digits.length - 1]) % 2 === 1)));
    if (up) {
      const n = (BigInt(digits || "0") + 1n).toString();
      digits = n.padStart(digits.length, "0");
    }
    const cut = digits.length - d;
    const i = digits.slice(0, cut).replace(/^0+(?=\d)/, "") || "0";
    return d > 0 ? i + "." + digits.slice(cut) : i;
  }

  function signed(x, body) {
    return (x < 0 || Object.is(x, -0)) ? "-" + body : body;
  }

  function group(s) {
    const dot = s.indexOf(".");
    const i = dot < 0 ? s : s.slice(0, dot);
    return i.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (dot < 0 ? "" : s.slice(dot));
  }

  const fixed = (x, d) => signed(x, fixedAbs(Math.abs(x), d));  // format(x, ".{d}f")
  const grouped = (x, d) => signed(x, group(fixedAbs(Math.abs(x), d)));  // ",.{d}f"

  // format(x, "g"): six significant digits, rounded half to even on the exact value; fixed
  // notation when the rounded exponent is from -4 to 5, else d.ddddde+XX, zeros stripped
  function g(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    const a = Math.abs(x);
    if (a === 0) return signed(x, "0");
    // 101 significant digits, correctly rounded: a tie at the 7th shows as 5 and 94 zeros
    const [m, exp] = a.toExponential(100).split("e");
    let e = Number(exp);
    const all = m.replace(".", "");
    const rest = all.slice(6);
    let n = BigInt(all.slice(0, 6).padEnd(6, "0"));
    if (rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || n % 2n === 1n))) {
      n += 1n;
    }
    let digits = n.toString();
    if (digits.length > 6) { digits = digits.slice(0, 6); e += 1; }
    let body;
    if (e >= -4 && e < 6) {
      const ip = e >= 0 ? digits.slice(0, e + 1) : "0";
      const fp = (e >= 0 ? digits.slice(e + 1) : "0".repeat(-e - 1) + digits).replace(/0+$/, "");
      body = fp ? ip + "." + fp : ip;
    } else {
      const fp = digits.slice(1).replace(/0+$/, "");
      const ae = Math.abs(e);
      body = digits[0] + (fp ? "." + fp : "") + "e" + (e < 0 ? "-" : "+") + (ae < 10 ? "0" : "") + ae;
    }
    return signed(x, body);
  }

  const SYMBOLS = { USD: "$", EUR: "€", CNY: "¥" };

  function fill(key, values) {
    return T[key].replace(/\{(\w+)\}/g, (_m, k) => values[k]);
  }

  // tco.exporters.fmt: zh_unit, money, money_full, number, percent
  function zhUnit(amounts) {
    const a = amounts.filter((x) => Number.isFinite(x) && x !== 0).map(Math.abs);
    if (a.length && Math.min(...a) >= 1e8) return 1e8;
    return a.length && Math.max(...a) >= 1e4 ? 1e4 : 1;
  }

  function moneyFmt(x, lang, unit) {
    if (!Number.isFinite(x)) return "n/a";
    const sym = SYMBOLS[D.currency] || D.currency + " ";
    const sign = x < 0 ? "-" : "";
    const a = Math.abs(x);
    if (lang === "zh") {
      if (a === 0) return sym + "0";
      const size = unit || zhUnit([a]);
      if (size === 1e8) return sign + sym + grouped(a / 1e8, 2) + "亿";
      if (size === 1e4) return sign + sym + grouped(a / 1e4, a >= 1e3 ? 1 : 2) + "万";
      return sign + sym + grouped(a, 2);
    }
    // an amount that would round up to a thousand of one scale is one of the next
    if (a >= 1e9 || grouped(a / 1e6, 2) === "1,000.00") return sign + sym + grouped(a / 1e9, 2) + "B";
    if (a >= 1e6 || grouped(a / 1e3, 0) === "1,000") return sign + sym + grouped(a / 1e6, 2) + "M";
    if (a >= 1e4) return sign + sym + grouped(a / 1e3, 0) + "k";
    return sign + sym + grouped(a, 2);
  }

  function moneyFull(x) {
    if (!Number.isFinite(x)) return "n/a";
    const sym = SYMBOLS[D.currency] || D.currency + " ";
    return x < 0 ? "-" + sym + grouped(Math.abs(x), 0) : sym + grouped(x, 0);
  }

  const number = (x, d) => Number.isFinite(x) ? grouped(x, d) : "n/a";
  const percent = (x, d) => Number.isFinite(x) ? fixed(x * 100, d) + "%" : "n/a";

  // View.money and the kinds of View.fmt (tco/exporters/report_view.py); `unit`: the unit of
  // a column's amounts (zh, CNY: View.unify_units)
  function money(x, unit) {
    const zh = D.lang === "zh";
    if (zh && D.currency !== "CNY" && Number.isFinite(x) && Math.abs(x) >= 1000) {
      return moneyFull(x);
    }
    if (zh && D.currency === "CNY") return moneyFmt(x, "zh", unit);
    return moneyFmt(x, zh ? "en" : D.lang);
  }
  const perMillion = (x) => (SYMBOLS[D.currency] || D.currency + " ") + grouped(x, 3);
  const FORMATS = {
    money,
    amount: (x, unit) => x === 0 ? "–" : money(x, unit),
    mtok: perMillion,
    num2: (x) => number(x, 2),
    days: (x) => fill("days", { n: number(x, 1) }),
    pct: (x) => percent(x, Math.abs(x) < 0.1 ? 1 : 0),
    pct0: (x) => percent(x, 0),
    pct1: (x) => percent(x, 1),
    num0: (x) => number(x, 0),
    num1: (x) => number(x, 1),
    num4: (x) => number(x, 4),
    kw: (x) => fill("value_kw", { n: number(x, 0) }),
    mwh: (x) => fill("value_mwh", { n: number(x / 1000, 0) }),
    tco2: (x) => fill("value_t_co2", { n: number(x / 1000, 0) }),
    breakeven: (x) => x <= 0 ? T.breakeven_any : x < 1 ? percent(x, 0) : T.breakeven_never,
    meth_2: (x) => fill("meth_2", { rate: percent(x, 1) }),
  };
  const full = (x) => Number.isFinite(x) ? pyRepr(x) : "";

  // repr(float): the shortest text that reads back as the same double, as Python writes it
  function pyRepr(x) {
    if (x === 0) return signed(x, "0.0");
    const [m, ee] = Math.abs(x).toExponential().split("e");
    const e = Number(ee);
    const digits = m.replace(".", "");
    let body;
    if (e < -4 || e >= 16) {
      const ae = Math.abs(e);
      body = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e"
        + (e < 0 ? "-" : "+") + (ae < 10 ? "0" : "") + ae;
    } else if (e >= 0) {
      body = digits.length <= e + 1 ? digits.padEnd(e + 1, "0") + ".0"
        : digits.slice(0, e + 1) + "." + digits.slice(e + 1);
    } else {
      body = "0." + "0".repeat(-e - 1) + digits;
    }
    return signed(x, body);
  }

  // --- the sentence pieces of the summary (Strings.segments) ------------------------------------
  function sentence(el, key, values) {
    el.textContent = "";
    const text = T[key];
    const re = /\{(\w+)\}/g;
    let at = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > at) el.append(text.slice(at, m.index));
      const strong = document.createElement("strong");
      strong.textContent = values[m[1]];
      el.append(strong);
      at = re.lastIndex;
    }
    if (at < text.length) el.append(text.slice(at));
    return el;
  }

  // --- the model: inputs, evaluation, ranking ---------------------------------------------------
  function compute() {
    const v = base.slice();
    for (const [path, st] of state) v[byPath.get(path).at] = st.value;
    evaluate(v);  // eslint-disable-line no-undef -- generated from the model's trees
    return v;
  }

  // tco.engine.rank: by tier (the model's; 3 when not priced), NPV when feasible, then id;
  // portfolios and per-token APIs by their tier and NPV (engine.portfolio_results,
  // api_results)
  function sortBy(list, key) {
    const rows = list.map((c) => ({ c, k: key(c) }));
    rows.sort((a, b) => (a.k[0] - b.k[0]) || (a.k[1] - b.k[1])
      || (a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0));
    return rows.map((r) => r.c);
  }
  // (the NPV on the decision basis, q.rank_npv: engine.decision_npv)
  const ranked = (v) => sortBy(D.candidates, (c) => [c.priced ? Math.trunc(v[c.q.tier]) : 3,
    c.priced && c.feasible ? v[c.q.rank_npv] : 0]);
  const rankedOthers = (list, v) => sortBy(list, (p) => [Math.trunc(v[p.q.tier]),
    v[p.q.rank_npv]]);

  // the decision's rules (tco.decide.rules.RULES): `RULE`, generated from the engine's trees
  // into the model's script, over an entry's facts (`f`) and its quantities in v
  /* eslint-disable no-undef */
  const usable = (c, v) => RULE.usable(c, v);
  const complete = (c, v) => RULE.complete(c, v);
  const delivers = (c, v) => RULE.delivers(c, v);
  const partOnly = (c, v) => RULE.part_only(c, v);
  const barredHere = (c, v) => RULE.barred_here(c, v);
  /* eslint-enable no-undef */

  // tco.recommend.recommend: the best-ranked option carrying the plan (Result.recommended),
  // the best portfolio and API that deliver it, and which of them wins: `choose`, generated
  // from tco.recommend.CHOICE into the model's script
  function recommendation(v) {
    const order = ranked(v);
    const first = order.find((c) => !c.part);
    const best = first && RULE.may_lead(first, v) ? first : null;  // eslint-disable-line no-undef
    const single = best && delivers(best, v) ? best : null;
    const ports = rankedOthers(D.portfolios, v);
    const port = ports.find((p) => RULE.portfolio_delivers(p, v)) || null;  // eslint-disable-line no-undef
    const apis = rankedOthers(D.apis, v);
    const api = apis.find((a) => RULE.api_delivers(a, v)) || null;  // eslint-disable-line no-undef
    const npv = (x) => (x ? v[x.q.rank_npv] : Infinity);  // tco.decide.rules.choice
    const pick = choose({ single: npv(single), portfolio: npv(port), api: npv(api) });  // eslint-disable-line no-undef
    const mode = pick === 2 && api ? "api" : pick === 1 && port ? "portfolio" : "single";
    return { order, ports, apis, single, port: mode === "portfolio" ? port : null,
      api: mode === "api" ? api : null, rec: mode === "single" ? best : null };
  }

  // --- the page --------------------------------------------------------------------------------
  const figures = Array.from(document.querySelectorAll("[data-q]"), (el) => ({
    el, q: Number(el.dataset.q), f: el.dataset.f, value: el.hasAttribute("data-value"),
  }));
  // texts of several figures (View.live_text): a template, each figure's place and kind
  const templated = Array.from(document.querySelectorAll("[data-t]"), (el) => ({
    el, t: el.dataset.t, qs: el.dataset.qs.split(",").map(Number), fs: el.dataset.fs.split(","),
  }));
  // the amounts of each column of a table that share one unit (zh, CNY: View.unify_units)
  const columns = new Map();
  for (const el of document.querySelectorAll("[data-u]")) {
    const key = el.closest("table");
    if (!columns.has(key)) columns.set(key, new Map());
    const cols = columns.get(key);
    if (!cols.has(el.cellIndex)) cols.set(el.cellIndex, []);
    cols.get(el.cellIndex).push(el);
  }
  const kpiBlock = document.querySelector(".kpis");
  const kpis = Array.from(document.querySelectorAll(".kpi-value[data-metric]"));
  const table = document.querySelector("#comparison table.compare tbody");
  const rows = new Map(Array.from(table.querySelectorAll("tr[data-candidate]"),
    (tr) => [tr.dataset.candidate, tr]));
  const details = document.getElementById("details");
  const articles = new Map(Array.from(details.querySelectorAll("article.candidate-detail"),
    (a) => [a.id.slice("candidate-".length), a]));
  const summary = document.getElementById("summary");
  const original = new Map();  // element -> its static HTML, put back at the scenario's values

  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  function badge(parent, on, before) {
    let b = parent.querySelector(":scope > .badge");
    if (on && !b) {
      b = document.createElement("span");
      b.className = "badge";
      b.textContent = D.planned ? T.badge_best_option : T.badge_recommended;
      parent.insertBefore(b, before ? parent.querySelector(before) : null);
      if (parent.tagName === "H3") parent.insertBefore(document.createTextNode(" "), b);
    } else if (!on && b) {
      if (b.previousSibling && b.previousSibling.nodeType === 3) b.previousSibling.remove();
      b.remove();
    }
  }

  function status(c, v) {
    if (!c.feasible) return ["infeasible", T.status_infeasible];
    if (c.blocking.length) return ["incomplete", T.status_barred];
    if (c.part) return ["incomplete", fill("status_part", { workloads: c.part_text })];
    if (!complete(c, v)) {
      return ["incomplete", fill("status_incomplete", { pct: percent(v[c.q.delivered], 0) })];
    }
    return ["ok", T.status_ok];
  }

  // Puts `nodes` in this order under `parent`, moving only what is out of place (moving a
  // large element makes the browser lay it out again).
  function arrange(parent, nodes) {
    let at = nodes.length ? nodes[0].parentNode === parent ? parent.firstElementChild : null : null;
    for (const node of nodes) {
      while (at && !nodes.includes(at)) at = at.nextElementSibling;
      if (at === node) {
        at = at.nextElementSibling;
      } else {
        parent.insertBefore(node, at);
      }
    }
  }

  function renderTable(order, rec, v) {
    arrange(table, order.map((c) => rows.get(c.id)));
    order.forEach((c, i) => {
      const tr = rows.get(c.id);
      setText(tr.querySelector(".rank"), String(i + 1));
      const [kind, text] = status(c, v);
      const cls = "status-" + kind + (c === rec ? " recommended" : "");
      if (tr.className !== cls) tr.className = cls;
      const pill = tr.querySelector(".pill");
      if (pill.className !== "pill pill-" + kind) pill.className = "pill pill-" + kind;
      setText(pill, text);
      badge(tr.querySelector("th.candidate"), c === rec, ".cand-id");
    });
  }

  function renderDetails(order, rec) {
    arrange(details, order.map((c) => articles.get(c.id)).filter(Boolean));
    for (const c of order) {
      const a = articles.get(c.id);
      if (!a) continue;
      a.classList.toggle("recommended", c === rec);
      badge(a.querySelector("h3"), c === rec, ".cand-id");
    }
  }

  // The portfolios (report_portfolios.section): their ranking, status and the recommended one
  const portfolioBody = document.querySelector("#portfolios tbody");
  const portfolioRows = new Map(portfolioBody ? Array.from(
    portfolioBody.querySelectorAll("tr[data-portfolio]"), (tr) => [tr.dataset.portfolio, tr])
    : []);

  function renderPortfolios(R, v) {
    if (!portfolioBody) return;
    arrange(portfolioBody, R.ports.map((p) => portfolioRows.get(p.id)).filter(Boolean));
    for (const p of R.ports) {
      const tr = portfolioRows.get(p.id);
      if (!tr) continue;
      tr.classList.toggle("recommended", p === R.port);
      badge(tr.querySelector("th.candidate"), p === R.port, ".cand-id");
      let text = T.status_infeasible;
      if (p.feasible) {
        text = p.barred ? T.status_barred : RULE.portfolio_delivers(p, v) ? T.status_ok  // eslint-disable-line no-undef
          : fill("status_incomplete", { pct: percent(v[p.q.delivered], 0) });
      }
      setText(tr.querySelector("td.status"), text);
    }
  }

  // The tables with a row per option (every workload, serving): rows in the ranking's order,
  // the per-token APIs' after them in theirs, the recommended one marked
  const optionTables = Array.from(document.querySelectorAll(
    "#workloads tbody, #serving tbody"), (body) => ({ body, rows: new Map(Array.from(
    body.querySelectorAll("tr[data-candidate]"), (tr) => [tr.dataset.candidate, tr])) }));

  function renderRows(R) {
    for (const { body, rows: trs } of optionTables) {
      const nodes = [...R.order, ...R.apis].map((c) => trs.get(c.id)).filter(Boolean);
      arrange(body, nodes);
      for (const c of [...R.order, ...R.apis]) {
        const tr = trs.get(c.id);
        if (tr) tr.classList.toggle("recommended", c === R.rec || c === R.api);
      }
    }
  }

  // differences of two figures (the plan's saving, a plan's cost above the cheapest): a, b
  const differences = Array.from(document.querySelectorAll("[data-qd]"), (el) => {
    const [a, b] = el.dataset.qd.split(",").map(Number);
    return { el, a, b, f: el.dataset.f };
  });

  // parts shown only while a quantity is above zero (an option's shortfall)
  const conditional = Array.from(document.querySelectorAll("[data-when]"),
    (el) => ({ el, q: Number(el.dataset.when) }));

  function renderFigures(v) {
    for (const f of figures) {
      const x = v[f.q];
      setText(f.el, FORMATS[f.f](x));
      if (f.value) f.el.setAttribute("data-value", full(x));
    }
    for (const f of templated) {
      setText(f.el, f.t.replace(/\{(\d+)\}/g, (_m, i) => FORMATS[f.fs[i]](v[f.qs[i]])));
    }
    for (const d of differences) {
      const x = v[d.a] - v[d.b];
      setText(d.el, FORMATS[d.f](x));
      d.el.setAttribute("data-value", full(x));
    }
    for (const cols of columns.values()) {  // one unit for the amounts of a column
      for (const els of cols.values()) {
        const xs = els.map((el) => (el.dataset.q ? v[Number(el.dataset.q)]
          : Number(el.getAttribute("data-value"))));
        const unit = zhUnit(xs);
        els.forEach((el, i) => {
          const f = el.dataset.f === "amount" ? "amount" : "money";
          if (Number.isFinite(xs[i])) setText(el, FORMATS[f](xs[i], unit));
          el.dataset.u = String(unit);
        });
      }
    }
    for (const r of conditional) {
      const hide = !(v[r.q] > 0);
      if (r.el.hidden !== hide) r.el.hidden = hide;
    }
  }

  // The notes under a candidate's name, the share of planned runs it completes written again
  // (tco.engine.completes_note; the rest are the scenario's)
  // the tier a rented option rents at: a reservation's, or on demand where that is cheaper
  function pricingOf(c, v) {
    return c.rent ? (v[c.rent.q] ? "on-demand" : c.rent.pricing) : c.pricing;
  }

  function renderNotes(v) {
    for (const c of D.candidates) {
      const el = c.notes && document.querySelector(`p[data-notes="${CSS.escape(c.id)}"]`);
      if (!el) continue;
      // a rented option reserved or on demand, whichever is cheaper (tco.model.cloud.rental)
      const n = c.rent ? (v[c.rent.q] ? c.rent.on_demand : c.rent.reserved) : c.notes;
      const x = v[n.q];
      const moving = n.on && x < D.complete
        ? [n.template.replace("{pct}", percent(x, 0))] : [];
      const notes = [...n.before, ...moving, ...n.after];
      const text = notes.join(T.list_sep);
      if (el.dataset.shown === text) continue;
      el.dataset.shown = text;
      el.textContent = "";
      if (notes.length) {
        el.append(Object.assign(document.createElement("strong"), { textContent: T.d_notes + ":" }),
          " " + text);
      }
      el.hidden = notes.length === 0;
    }
  }

  function renderKpis(rec, v) {
    if (D.planned) return;  // the plan's key figures: fixed, solved at the scenario's values
    if (kpiBlock) kpiBlock.hidden = !rec;
    if (!rec) return;
    for (const el of kpis) {
      const x = v[rec.q[el.dataset.metric]];
      el.dataset.option = rec.id;
      setText(el, FORMATS[el.dataset.f](x));
      el.setAttribute("data-value", full(x));
    }
  }

  // View.summary (tco/exporters/report_view.py), read from the live ranking
  // report_portfolios.summary: a portfolio recommended
  function portfolioSummary(R, v) {
    const p = R.port;
    const years = fill("years", { n: D.horizon });
    const npv = v[p.q.npv_tco];
    const members = p.options.map((id) => D.candidates.find((c) => c.id === id)
      || D.apis.find((a) => a.id === id));
    const cards = members.reduce((n, c) => n + (c.cards_n || 0), 0);
    const why = [R.single
      ? ["sum_portfolio_cheaper", { years, npv: money(npv),
        diff: money(v[R.single.q.npv_tco] - npv), next: R.single.name }]
      : ["sum_portfolio_only", { years, npv: money(npv) }]];
    for (const c of members) {
      why.push(D.apis.includes(c)  // a per-token API: no accelerators
        ? ["sum_portfolio_api_member", { name: c.name, workloads: c.carries,
          npv: money(v[c.q.npv_tco]) }]
        : ["sum_portfolio_member", { name: c.name, cards: number(c.cards_n, 0),
          workloads: c.carries, npv: money(v[c.q.npv_tco]) }]);
    }
    return { headline: ["sum_recommend_portfolio", { name: p.name, cards: number(cards, 0) }],
      why, consider: [] };
  }

  // report_api.summary: a per-token API recommended
  function apiSummary(R, v) {
    const a = R.api;
    const years = fill("years", { n: D.horizon });
    const npv = v[a.q.npv_tco];
    const why = [R.single
      ? ["sum_api_cheaper", { years, npv: money(npv),
        diff: money(v[R.single.q.npv_tco] - npv), next: R.single.name }]
      : ["sum_api_only", { years, npv: money(npv) }]];
    for (const j of a.jobs) {
      why.push(["sum_api_prices", { workload: j.wid,
        inp: perMillion(v[j.q.cost_per_million_input_tokens]),
        out: perMillion(v[j.q.cost_per_million_output_tokens]),
        year: money(v[j.q.cost_per_job]),
        tokens: number(v[j.q.tokens_per_year] / 1e9, 0) }]);
    }
    return { headline: ["sum_recommend_api", { name: a.name }], why, consider: [] };
  }

  // shortfall.consider: what closing an option's shortfall costs
  function shortfallParts(c, v) {
    const sf = c.shortfall || {};
    if (!(c.feasible && c.priced && sf.plan_shortfall_runs !== undefined
      && v[sf.plan_shortfall_runs] > 0 && sf.shortfall_rent_cost !== undefined)) return [];
    const x = (k) => (sf[k] !== undefined ? v[sf[k]] : 0);
    const more = number(x("shortfall_buy_cards"), 0);
    if (x("shortfall_closed_by_buying")) {
      return [["sum_shortfall_close_buy", { name: c.name,
        runs: number(x("plan_shortfall_runs"), 1), more, extra: money(x("shortfall_buy_npv")),
        rent: money(x("shortfall_rent_cost")), total: money(x("npv_tco_plan_closed")) }]];
    }
    const out = [["sum_shortfall_close", { name: c.name,
      runs: number(x("plan_shortfall_runs"), 1), hours: number(x("shortfall_card_hours"), 0),
      price: money(x("shortfall_rent_price")), cost: money(x("shortfall_rent_cost")),
      total: money(x("npv_tco_plan_closed")) }]];
    if (x("shortfall_buy_cards") > 0) {
      out.push(["sum_shortfall_buy_instead", { more, extra: money(x("shortfall_buy_npv")) }]);
    }
    return out;
  }

  function summaryParts(R, v) {
    if (R.port) return portfolioSummary(R, v);
    if (R.api) return apiSummary(R, v);
    const order = R.order;
    const rec = R.rec;
    const why = [];
    const consider = [];
    if (!rec) {
      const parts = order.filter((c) => partOnly(c, v));
      if (parts.length) {
        return { headline: ["sum_none_part", { names: parts.map((c) => c.name).join(T.name_sep) }],
          why, consider };
      }
      const barred = order.filter((c) => barredHere(c, v));
      if (barred.length) {
        return { headline: ["sum_none_barred", { names: barred.map((c) => c.name).join(T.name_sep) }],
          why, consider };
      }
      return { headline: ["sum_none", {}], why, consider };
    }
    const years = fill("years", { n: D.horizon });
    let headline;
    if (rec.mode === "rent") {
      headline = ["sum_recommend_rent", { card: rec.card, cards: rec.cards,
        pricing: T["pricing_" + pricingOf(rec, v).replace("-", "_")] }];
    } else if (rec.mode === "hybrid") {
      headline = ["sum_recommend_hybrid", { card: rec.card, cards: rec.cards }];
    } else if (rec.mode === "lease") {
      headline = ["sum_recommend_lease", { name: rec.name, cards: rec.cards }];
    } else {
      headline = ["sum_recommend", { name: rec.name, cards: rec.cards }];
    }
    const npvOf = (c) => v[c.q.npv_tco];
    const npv = npvOf(rec);
    const done = order.filter((c) => complete(c, v) && !barredHere(c, v));
    const others = done.filter((c) => c !== rec);
    if (complete(rec, v) && others.length) {
      const next = others[0];
      const diff = npvOf(next) - npv;
      why.push(["sum_npv_lowest", { years, npv: money(npv), diff: money(diff),
        pct: FORMATS.pct(diff / npvOf(next)), next: next.name }]);
    } else if (!complete(rec, v)) {
      why.push(["sum_npv_incomplete", { years, npv: money(npv),
        pct: percent(v[rec.q.delivered], 0) }]);
    } else {
      why.push(["sum_npv_only", { years, npv: money(npv) }]);
    }
    const pool = done.length ? done : [rec];
    if (pool.length > 1) {
      const least = (key) => pool.reduce((a, b) => (v[b.q[key]] < v[a.q[key]] ? b : a));
      const run = least("cost_per_job");
      const cost = money(v[rec.q.cost_per_job]);
      why.push(run === rec ? ["sum_job_lowest", { cost }] : ["sum_job_not_lowest",
        { cost, other: run.name, other_cost: money(v[run.q.cost_per_job]) }]);
      const fast = least("wall_days");
      const days = FORMATS.days(v[rec.q.wall_days]);
      why.push(fast === rec ? ["sum_time_fastest", { days }] : ["sum_time",
        { days, fastest: fast.name, fastest_days: FORMATS.days(v[fast.q.wall_days]) }]);
    }
    consider.push(rec.flags.length ? ["sum_flags", { flags: rec.flags.join(T.list_sep) }]
      : ["sum_no_flags", {}]);
    for (const c of order) {
      if (barredHere(c, v) && c.priced && npvOf(c) < npv) {
        consider.push(["sum_barred", { name: c.name, npv: money(npvOf(c)),
          why: c.blocking.join(T.list_sep) }]);
      }
    }
    for (const c of order) {
      if (usable(c, v) && !complete(c, v) && npvOf(c) < npv) {
        consider.push(["sum_incomplete", { name: c.name, npv: money(npvOf(c)),
          pct: percent(v[c.q.delivered], 0) }]);
        consider.push(...shortfallParts(c, v));
      }
    }
    const excluded = order.filter((c) => !c.feasible).map((c) => c.name);
    if (excluded.length) consider.push(["sum_infeasible", { names: excluded.join(T.name_sep) }]);
    const rented = rec.mode === "rent";
    // tco.recommend: the other mode's cheapest on the same basis (delivering the plan when the
    // recommended option does)
    const ok = complete(rec, v) && usable(rec, v);
    const other = order.find((c) => (ok ? usable(c, v) && complete(c, v) : usable(c, v)) && c !== rec
      && (c.mode !== "rent") === rented);
    if (rented && other) {
      consider.push([`sum_${other.mode}_dearer`, // buy, lease or hybrid
        { name: other.name, npv: money(npvOf(other)),
        diff: money(npvOf(other) - npv) }]);
    } else if (!rented) {
      const cloud = rec.q.cloud_npv >= 0 ? v[rec.q.cloud_npv] : null;
      if (other && npvOf(other) >= npv) {
        consider.push(["sum_rent_dearer", { name: other.name, npv: money(npvOf(other)),
          diff: money(npvOf(other) - npv) }]);
      } else if (cloud !== null && Number.isFinite(cloud)) {
        consider.push([cloud >= npv ? "sum_cloud_dearer" : rec.mode === "lease"
          ? "sum_cloud_unlisted_lease" : "sum_cloud_unlisted",
          { cloud: money(cloud) }]);
      } else if (!other) { // no cloud price for the card: renting is not compared
        consider.push(["sum_cloud_none", { card: rec.card, currency: D.currency }]);
      }
    }
    // tco.recommend: bought, the cheapest leased option; leased, the cheapest bought one
    if (rec.mode === "buy" || rec.mode === "lease") {
      const want = rec.mode === "buy" ? "lease" : "buy";
      const alt = order.find((c) => (ok ? usable(c, v) && complete(c, v) : usable(c, v))
        && c.mode === want);
      if (alt) {
        consider.push([want === "lease" ? "sum_lease_dearer" : "sum_buy_dearer",
          { name: alt.name, npv: money(npvOf(alt)), diff: money(npvOf(alt) - npv) }]);
      }
    }
    return { headline, why, consider };
  }

  // The plan recommended (tco.decide, a planned scenario) was solved at the scenario's values.
  // The page re-costs it as solved (what it buys, rents and calls, and when: its money's trees,
  // generated with the model's), and the plans held to one option with it, and says whether
  // it is still the cheapest: of those plans that delivered the work, and of the option,
  // portfolio or API the page would recommend now if it delivers. When it is not, the change
  // is large enough that the plan should be re-solved: the note gives the command that does
  // it (`tco whatif`, the panel's command line) instead of wording a plan it has not solved.
  const planNote = summary.querySelector("[data-plan-note]");
  function renderPlanNote(R, v, changed) {
    if (!planNote || !D.planned) return;
    planNote.hidden = !changed;
    if (!changed) return;
    const npv = v[D.planned.q];
    let rival = null;
    let rivalNpv = Infinity;
    for (const x of D.planned.rivals) {
      if (v[x.q] < rivalNpv) {
        rival = fill("plan_row_only", { option: x.option });
        rivalNpv = v[x.q];
      }
    }
    const alt = R.rec && delivers(R.rec, v) ? R.rec : R.port || R.api;
    // the option on the NPV it is ranked on: the plans' basis (after tax on that basis)
    if (alt && v[alt.q.rank_npv] < rivalNpv) {
      rival = alt.id;
      rivalNpv = v[alt.q.rank_npv];
    }
    const stale = rivalNpv < npv * (1 - 1e-9);  // not a tie with itself held to one option
    const key = (stale ? "live_plan_stale" : "live_plan_kept") + (D.planned.after_tax ? "_after_tax" : "");
    setText(planNote, fill(key, {
      npv: money(npv), was: money(D.planned.npv), rival: rival || "",
      rival_npv: money(rivalNpv), command: cli.textContent }));
  }

  function renderList(list, parts, heading) {
    if (!list) return;
    list.textContent = "";
    for (const [key, values] of parts) list.append(sentence(document.createElement("li"), key, values));
    list.hidden = parts.length === 0;
    if (heading) heading.hidden = parts.length === 0;
  }

  function renderSummary(R, v) {
    const parts = summaryParts(R, v);
    sentence(summary.querySelector(".headline"), parts.headline[0], parts.headline[1]);
    const why = summary.querySelector("ol.reasons");
    renderList(why, parts.why, why && why.previousElementSibling);
    const consider = summary.querySelector("ul.consider");
    renderList(consider, parts.consider, consider && consider.previousElementSibling);
  }

  // --- charts: simple SVG drawn from the live values (the static ones are matplotlib's) -----------
  function svg(tag, attrs, text) {
    const el = document.createElementNS(SVGNS, tag);
    for (const k in attrs) el.setAttribute(k, attrs[k]);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function ticks(lo, hi) {
    const span = hi - lo || Math.abs(hi) || 1;
    const raw = span / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);
    return out;
  }

  function frame(title, height) {
    const root = svg("svg", { class: "chart chart-js", viewBox: `0 0 720 ${height}`,
      role: "img", "font-size": "11", "font-family": "inherit" });
    root.append(svg("title", {}, title));
    return root;
  }

  function xAxis(root, scale, lo, hi, left, top, bottom, label, fmt) {
    for (const t of ticks(lo, hi)) {
      const x = scale(t);
      root.append(svg("line", { x1: x, x2: x, y1: top, y2: bottom, stroke: D.colours.grid }));
      root.append(svg("text", { x, y: bottom + 14, "text-anchor": "middle", fill: D.colours.muted },
        fmt(t)));
    }
    root.append(svg("text", { x: (left + 700) / 2, y: bottom + 32, "text-anchor": "middle",
      fill: D.colours.ink }, label));
  }

  function barChart(names, stacks, labels, hl, title, axis, fmt, colours, legend) {
    const left = 280;
    const row = 24;
    const top = legend ? 12 + 18 * Math.ceil(legend.length / 3) : 8;
    const bottom = top + row * names.length;
    const root = frame(title, bottom + 44);
    const totals = stacks.map((s) => s.reduce((a, b) => a + Math.max(b, 0), 0));
    const hi = Math.max(...totals, 0) * 1.15 || 1;
    const scale = (x) => left + (x / hi) * (700 - left);
    xAxis(root, scale, 0, hi, left, top, bottom, axis, fmt);
    if (legend) {
      legend.forEach((name, i) => {
        const x = 20 + (i % 3) * 230;
        const y = 6 + 18 * Math.floor(i / 3);
        root.append(svg("rect", { x, y, width: 10, height: 10, fill: colours[i % colours.length] }));
        root.append(svg("text", { x: x + 14, y: y + 9, fill: D.colours.ink }, name));
      });
    }
    names.forEach((name, i) => {
      const y = top + i * row + 4;
      root.append(svg("text", { x: left - 6, y: y + 12, "text-anchor": "end",
        fill: D.colours.ink, "font-weight": i === hl ? "700" : "400" }, name));
      let x0 = 0;
      stacks[i].forEach((part, j) => {
        const w = Math.max(part, 0);
        const fillc = legend ? colours[j % colours.length] : (i === hl ? D.colours.accent : colours[0]);
        root.append(svg("rect", { x: scale(x0), y, width: scale(x0 + w) - scale(x0), height: row - 8,
          fill: fillc }));
        x0 += w;
      });
      root.append(svg("text", { x: scale(x0) + 4, y: y + 12, fill: D.colours.ink }, labels[i]));
    });
    return root;
  }

  function lineChart(years, series, title, axis, xlabel) {
    const left = 90;
    const top = 10;
    const bottom = 300;
    const root = frame(title, bottom + 50 + 16 * Math.ceil(series.length / 2));
    const all = series.flatMap((s) => s.values).filter(Number.isFinite);
    const lo = Math.min(0, ...all);
    const hi = Math.max(0, ...all) || 1;
    const y = (x) => bottom - ((x - lo) / (hi - lo || 1)) * (bottom - top);
    const x = (t) => left + (t / Math.max(1, years.length - 1)) * (700 - left);
    for (const t of ticks(lo, hi)) {
      root.append(svg("line", { x1: left, x2: 700, y1: y(t), y2: y(t), stroke: D.colours.grid }));
      root.append(svg("text", { x: left - 6, y: y(t) + 4, "text-anchor": "end",
        fill: D.colours.muted }, money(t)));
    }
    years.forEach((yr, t) => root.append(svg("text", { x: x(t), y: bottom + 14,
      "text-anchor": "middle", fill: D.colours.muted }, String(yr))));
    root.append(svg("text", { x: (left + 700) / 2, y: bottom + 30, "text-anchor": "middle",
      fill: D.colours.ink }, xlabel));
    root.append(svg("text", { x: 12, y: top + 4, fill: D.colours.ink }, axis));
    series.forEach((s, i) => {
      const pts = s.values.map((val, t) => `${x(t).toFixed(1)},${y(val).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points: pts, fill: "none", stroke: s.colour,
        "stroke-width": s.hl ? 3 : 1.5 }));
      const lx = 20 + (i % 2) * 350;
      const ly = bottom + 46 + 16 * Math.floor(i / 2);
      root.append(svg("rect", { x: lx, y: ly - 9, width: 12, height: 4, fill: s.colour }));
      root.append(svg("text", { x: lx + 16, y: ly - 3, fill: D.colours.ink,
        "font-weight": s.hl ? "700" : "400" }, s.name));
    });
    return root;
  }

  // View.charts: a cost and a time chart for each training workload (the options carrying
  // it among the best-ranked), the cumulative cash flows, and each serving workload's cost per
  // million output tokens (serving_report.serving_section)
  function liveCharts(R, v) {
    const { order, rec } = R;
    const drawn = order.filter((c) => c.priced).slice(0, D.chart_candidates);
    const out = {};
    for (const w of D.training) {
      const sub = drawn.filter((c) => c.jobs && c.jobs[w.wid]);
      const names = sub.map((c) => c.name);
      const hl = sub.indexOf(rec);
      const job = (c) => c.jobs[w.wid];
      const suffix = w.n === 0 ? "" : "-" + (w.n + 1);
      out["chart-cost" + suffix] = barChart(names, sub.map((c) => job(c).parts.map((q) => v[q])),
        sub.map((c) => money(v[job(c).cost_per_job])), hl, w.cost_title,
        fill("chart_cost_axis", { currency: D.currency }), money, D.colours.components,
        D.components);
      out["chart-time" + suffix] = barChart(names, sub.map((c) => [v[job(c).wall_days]]),
        sub.map((c) => FORMATS.days(v[job(c).wall_days])), hl, w.time_title,
        T.chart_days_axis, (t) => number(t, 0), [D.colours.others[0]], null);
    }
    const years = drawn.length ? drawn[0].q.cumulative.map((_q, t) => t) : [];
    let k = 0;
    out["chart-cashflow"] = lineChart(years, drawn.map((c) => ({
      name: c.name, values: c.q.cumulative.map((q) => v[q]), hl: c === rec,
      colour: c === rec ? D.colours.accent : D.colours.others[k++ % D.colours.others.length],
    })), D.titles["chart-cashflow"], fill("chart_cash_axis", { currency: D.currency }),
    T.chart_year_axis);
    for (const w of D.serving) {
      const shown = order.filter((c) => c.feasible && c.jobs && c.jobs[w.wid]
        && c.jobs[w.wid].out !== undefined);
      const apis = R.apis.filter((a) => a.jobs.some((j) => j.wid === w.wid));
      const costs = [...shown.map((c) => v[c.jobs[w.wid].out]),
        ...apis.map((a) => v[a.jobs.find((j) => j.wid === w.wid).q.cost_per_million_output_tokens])];
      const names = [...shown.map((c) => c.name),
        ...apis.map((a) => fill("serve_api_name", { name: a.name }))];
      const hl = [...shown, ...apis].findIndex((c) => c === rec || c === R.api);
      out["chart-serve-" + w.wid] = barChart(names, costs.map((x) => [x]), costs.map(perMillion),
        hl, w.title, w.axis, perMillion, [D.colours.others[0]], null);
    }
    return out;
  }

  function renderCharts(drawn) {
    for (const fig of document.querySelectorAll("#charts figure, #serving figure")) {
      const still = fig.querySelector(".chart-static");
      const live = fig.querySelector(".chart-live");
      if (!still || !live) continue;
      live.textContent = "";
      fig.classList.toggle("stale", Boolean(drawn) && !drawn[fig.id]);
      if (!drawn) {
        still.hidden = false;
        live.hidden = true;
      } else if (drawn[fig.id]) {
        live.append(drawn[fig.id]);
        live.hidden = false;
        still.hidden = true;
      } else {  // a chart the page does not recompute (sensitivity, Monte Carlo)
        live.append(Object.assign(document.createElement("p"),
          { className: "live-stale", textContent: T.live_static_chart }));
        live.hidden = false;
        still.hidden = false;
      }
    }
  }

  // --- the panel --------------------------------------------------------------------------------
  const panel = document.getElementById("live");
  const inputs = Array.from(panel.querySelectorAll("input[data-path]"));
  const diff = panel.querySelector("[data-live-diff]");
  const cli = panel.querySelector("[data-live-cli]");

  const PLUS = "plus";  // parse's answer for '+N' (no %)

  function parse(p, raw) {
    // tco.analysis.settings.parse_value: a number, a change in percent (+10%, -15%) or a
    // multiplier (x0.9) of the scenario's value
    const s = raw.trim().replace(/_/g, "");
    const body = NUMBER.source.slice(1, -1);
    let m = new RegExp(`^(${body})\\s*%$`).exec(s);
    if (m && "+-".includes(s[0])) return p.base * (1 + Number(m[1]) / 100);
    if (/^[xX*]/.test(s) && NUMBER.test(s.slice(1).trim())) return p.base * Number(s.slice(1).trim());
    // '+1' reads as 'one more' where it would set 1: refused, as the CLI does
    if (s[0] === "+" && NUMBER.test(s.slice(1))) return PLUS;
    if (NUMBER.test(s)) return Number(s);
    return null;
  }

  function message(template, values) {
    return template.replace(/\{(\w+)\}|\{\{|\}\}/g, (m, k) => k ? values[k] : m[0]);
  }

  // Reads the input's text; a value the CLI would refuse is not taken, and with `show` (the
  // reader has finished typing: Enter, Tab, leaving the field) the CLI's message says why.
  function accept(input, show) {
    const p = byPath.get(input.dataset.path);
    const text = input.value.trim();
    const error = input.closest("label").querySelector(".live-error");
    // the field's own text is the scenario's exact value (a conversion may have left it
    // 125000.00000000001 where the field reads 125000: live.exact_text)
    const value = text === p.text ? p.base : parse(p, text);
    let problem = null;
    if (value === PLUS) {
      problem = message(p.plus, { n: text.replace(/_/g, "").slice(1) });
    } else if (value === null || !Number.isFinite(value)) {
      problem = message(p.unparsed, { text });
    } else if (!(p.lo <= value && value <= p.hi)) {
      problem = message(p.refuse, { text, value: g(value) });
    }
    input.setAttribute("aria-invalid", problem ? "true" : "false");
    if (show || !problem) {
      error.hidden = !problem;
      error.textContent = problem || "";
    }
    if (problem) return false;
    if (value === p.base) state.delete(p.path);
    else state.set(p.path, { text, value });
    return true;
  }

  function shellWord(s) {
    return /^[A-Za-z0-9_.,:+=%*@\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }

  function renderPanel() {
    const changes = [];
    const sets = [];
    for (const p of D.panel) {
      const st = state.get(p.path);
      const input = inputs.find((el) => el.dataset.path === p.path);
      input.closest("label").classList.toggle("changed", Boolean(st));
      if (!st) continue;
      const shown = NUMBER.test(st.text.replace(/_/g, "")) ? st.text : `${st.text} (${g(st.value)})`;
      changes.push(`${p.owner ? p.owner + " · " : ""}${p.label} ${p.text} → ${shown}`);
      sets.push("--set " + shellWord(`${p.path}=${st.text}`));
    }
    setText(diff, changes.length ? fill("live_changed", { changes: changes.join(T.list_sep) })
      : T.live_unchanged);
    setText(cli, [D.command, ...sets].join(" "));
    for (const tr of document.querySelectorAll("tr[data-input]")) {
      tr.classList.toggle("changed", state.has(tr.dataset.input));
    }
  }

  // Computes the model at the panel's values and rewrites the page. At the scenario's values
  // the summary and the charts are the static ones (they may cite the Monte Carlo run), unless
  // `live` asks for the page's own rendering (tests compare the two).
  function render(live) {
    const v = compute();
    const R = recommendation(v);
    const { order, rec } = R;
    const changed = state.size > 0 || live === true;
    renderTable(order, rec, v);
    renderFigures(v);
    renderKpis(rec, v);
    renderDetails(order, rec);
    renderPortfolios(R, v);
    renderRows(R);
    renderNotes(v);
    if (changed && !D.planned) {
      renderSummary(R, v);
    } else {  // at the scenario's values, or the plan recommended: it is not re-solved here
      for (const [el, [html, hidden]] of original) {  // the page's own static markup
        el.innerHTML = html;
        el.hidden = hidden;
      }
    }
    renderCharts(changed ? liveCharts(R, v) : null);
    renderPanel();
    renderPlanNote(R, v, changed && state.size > 0);
    document.documentElement.dataset.live = state.size ? "changed" : "scenario";
    return v;
  }

  for (const sel of [".headline", "ol.reasons", "ul.consider"]) {
    const el = summary.querySelector(sel);
    if (!el) continue;
    original.set(el, [el.innerHTML, el.hidden]);
    if (el.previousElementSibling && el.previousElementSibling.tagName === "H3") {
      original.set(el.previousElementSibling, [el.previousElementSibling.innerHTML,
        el.previousElementSibling.hidden]);
    }
  }

  for (const input of inputs) {
    input.addEventListener("input", () => { if (accept(input, false)) render(); });
    input.addEventListener("change", () => { if (accept(input, true)) render(); });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && accept(input, true)) render();
    });
  }
  panel.querySelector("[data-live-reset]").addEventListener("click", () => {
    state.clear();
    for (const input of inputs) {
      input.value = byPath.get(input.dataset.path).text;
      accept(input, true);
    }
    render();
  });
  panel.querySelector("[data-live-copy]").addEventListener("click", () => {
    const text = cli.textContent;
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
    const range = document.createRange();
    range.selectNodeContents(cli);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  });
  window.tcoLive = { render, compute, format: FORMATS, g, pyRepr };
  panel.hidden = false;
  renderPanel();
  // The reader's first change would also compile the model's generated script (most of that
  // change's time): evaluate it once, at the scenario's values and showing nothing, in the
  // first idle moment after the page opens, while the reader reads.
  const warm = () => {
    compute();
    document.documentElement.dataset.model = "compiled";
  };
  if (window.requestIdleCallback) window.requestIdleCallback(warm, { timeout: 1000 });
  else setTimeout(warm, 0);
})();
