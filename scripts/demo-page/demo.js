// The playground: a SQL console and a live list of notes over one TinyJoin
// database shared by every tab. The live list refreshes when any tab
// commits: after a write, a tab says so on a demo-only BroadcastChannel.
import { open } from "/pkg/dist/index.js";

const $ = (id) => document.getElementById(id);
const changes = new BroadcastChannel("tinyjoin-demo:changed");

function show(el, result) {
  el.replaceChildren();
  const info = document.createElement("p");
  info.textContent = `${result.rows.length} row(s), ${result.changes} change(s)`;
  el.append(info);
  if (result.columns.length === 0) return;
  const table = document.createElement("table");
  const head = table.insertRow();
  for (const c of result.columns) head.append(Object.assign(document.createElement("th"), { textContent: c }));
  for (const row of result.rows) {
    const tr = table.insertRow();
    for (const v of row) tr.insertCell().textContent = v instanceof Uint8Array ? `x'${[...v].map((b) => b.toString(16).padStart(2, "0")).join("")}'` : String(v);
  }
  el.append(table);
}

function showError(el, e) {
  el.replaceChildren(Object.assign(document.createElement("p"), { className: "error", textContent: `${e.code ?? "ERROR"}: ${e.message}${e.position !== undefined ? ` (at byte ${e.position})` : ""}` }));
}

const db = await open("notes", {
  migrations: ["CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, created TEXT)"],
});

function showRole() {
  $("role").textContent = db.role;
  $("role").className = db.role;
  $("client-id").textContent = db.clientId;
  $("epoch").textContent = String(db.epoch);
}
showRole();
db.onRoleChange(showRole);

async function refresh() {
  const r = await db.query("SELECT id, title FROM note ORDER BY id DESC LIMIT 50");
  $("notes").replaceChildren(...r.rows.map(([id, title]) => Object.assign(document.createElement("li"), { textContent: `#${id} ${title}` })));
  showRole();
}
changes.onmessage = () => void refresh();
await refresh();

$("add").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const title = $("title").value.trim();
  if (title === "") return;
  await db.run("INSERT INTO note(title, created) VALUES (?, ?)", [title, new Date().toISOString()]);
  $("title").value = "";
  changes.postMessage("changed");
  await refresh();
});

async function runSql() {
  try {
    const r = await db.query($("sql").value);
    show($("out"), r);
    if (r.changes > 0 || !/^\s*select/i.test($("sql").value)) changes.postMessage("changed");
    await refresh();
  } catch (e) {
    showError($("out"), e);
  }
}
$("run").addEventListener("click", runSql);
$("sql").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) void runSql();
});
window.demoReady = true;
