// SPDX-License-Identifier: GPL-2.0
//
// node view-test.mjs --tool POSIXTRACE --out DIR [--load|--perf] LOG...
//
// For each LOG: "posixtrace view" writes its page and "posixtrace export
// --format=chrome" its JSON; Debian's chromium (headless, driven by
// playwright-core) opens the page from disk and the test checks that
//  - the page loads with no JavaScript error, console error or request;
//  - its Trace Events (posixtraceView.traceEvents()) are the JSON's: the
//    same records in the same order, the same tracks, the same otherData
//    (one model, two outputs);
//  - the DOM has a lane per track, and the tables count per name and per
//    process what the JSON holds;
//  - marks and spans are drawn, the filter box hides a type's rows and
//    marks, and hovering a user event (the mouse, at the mark) shows its
//    members;
// and keeps DIR/NAME.png, a screenshot. With --load (a log of a million
// events, too big for the JSON's checks), it checks the page alone: it
// loads with no error, draws, counts every event, and holds at most 40
// bytes an event; it reports its load time and the time of zoom and pan
// frames. --perf (make bench) also fails if the load takes more than 5 s
// or a frame more than 50 ms.
// Exit status 0: all passed.

import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, mkdirSync } from "node:fs";
import { basename, resolve } from "node:path";
import assert from "node:assert/strict";

const args = process.argv.slice(2);
let tool = "posixtrace", out = ".", perf = false, timed = false;
const logs = [];
for (let i = 0; i < args.length; i++) {
	if (args[i] === "--tool") tool = args[++i];
	else if (args[i] === "--out") out = args[++i];
	else if (args[i] === "--perf") perf = timed = true;
	else if (args[i] === "--load") perf = true;
	else logs.push(args[i]);
}
mkdirSync(out, { recursive: true });

// How many of the log's events each Trace Event holds.
function eventsOf(e) {
	if (e.ph === "X") return e.args.unfinished ? 1 : 2;
	return e.cat === "loss" && e.ph === "i" && "lost" in e.args ? 0 : 1;
}

function expectations(json) {
	const records = json.traceEvents.filter(e => e.ph !== "M");
	const tracks = json.traceEvents.filter(e => e.ph === "M" && e.name === "thread_name");
	const byName = new Map(), byPid = new Map();
	for (const e of records) {
		const c = byName.get(e.name) || { records: 0, events: 0 };
		c.records++; c.events += eventsOf(e);
		byName.set(e.name, c);
		byPid.set(e.pid, (byPid.get(e.pid) || 0) + eventsOf(e));
	}
	return { records, tracks, byName, byPid };
}

function compareTraces(got, want) {
	const key = e => JSON.stringify([e.name, e.pid, e.tid, e.args]);
	const gm = got.traceEvents.filter(e => e.ph === "M").map(key).sort();
	const wm = want.traceEvents.filter(e => e.ph === "M").map(key).sort();
	assert.deepEqual(gm, wm, "the tracks differ from the JSON's");
	const gr = got.traceEvents.filter(e => e.ph !== "M");
	const wr = want.traceEvents.filter(e => e.ph !== "M");
	assert.equal(gr.length, wr.length, "a different number of records");
	for (let i = 0; i < wr.length; i++)
		assert.deepEqual(gr[i], wr[i], `record ${i} differs from the JSON's`);
	assert.deepEqual(got.otherData, want.otherData);
	assert.equal(got.displayTimeUnit, want.displayTimeUnit);
}

async function open(browser, page, html) {
	const problems = [];
	page.on("pageerror", e => problems.push("page error: " + e.message));
	page.on("console", m => { if (m.type() === "error") problems.push("console: " + m.text()); });
	page.on("request", r => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) problems.push("request: " + r.url()); });
	const t = Date.now();
	await page.goto("file://" + resolve(html));
	await page.waitForFunction(() => window.posixtraceView &&
		(window.posixtraceView.ready || window.posixtraceView.errors.length), null, { timeout: 120000 });
	const wall = Date.now() - t;
	const errors = await page.evaluate(() => window.posixtraceView.errors);
	problems.push(...errors);
	return { problems, wall };
}

const seen = new Set();
async function checkLog(browser, log) {
	if (perf)
		return perfLog(browser, log);
	let name = basename(log).replace(/\.[^.]*$/, "");
	while (seen.has(name)) name += "+";
	seen.add(name);
	const html = `${out}/${name}.html`, jsonPath = `${out}/${name}.json`;
	// A damaged log is exported as far as it reads, with status 3.
	for (const cmd of [["view", "-f", "-o", html, log], ["export", "-f", "--format=chrome", "-o", jsonPath, log]]) {
		try { execFileSync(tool, cmd, { stdio: ["ignore", "ignore", "pipe"] }); } catch (e) {
			if (e.status !== 3) throw e;
		}
	}
	const json = JSON.parse(readFileSync(jsonPath, "utf8"));
	const want = expectations(json);
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	const { problems, wall } = await open(browser, page, html);
	assert.deepEqual(problems, [], "the page reported problems");

	// One model, two outputs.
	compareTraces(await page.evaluate(() => window.posixtraceView.traceEvents()), json);

	// A lane per track, named as the JSON names it.
	const lanes = await page.$$eval("#labels .lane", ds => ds.map(d => [+d.dataset.pid, +d.dataset.tid, d.textContent]));
	assert.equal(lanes.length, want.tracks.length, "lanes");
	for (const t of want.tracks)
		assert.ok(lanes.some(([p, q, text]) => p === t.pid && q === t.tid && text.includes(t.args.name)),
			`no lane for ${t.pid}/${t.tid} ${t.args.name}`);

	// The tables.
	const rows = await page.$$eval("#by-type tbody tr", trs => trs.map(tr => Array.from(tr.cells, c => c.textContent)));
	assert.equal(rows.length, want.byName.size, "names in the table");
	for (const [n, , recs, evs] of rows) {
		const c = want.byName.get(n);
		assert.ok(c, `table names ${n}`);
		assert.deepEqual([+recs, +evs], [c.records, c.events], `counts of ${n}`);
	}
	const prow = await page.$$eval("#by-process tbody tr", trs => trs.map(tr => Array.from(tr.cells, c => c.textContent)));
	for (const [pid, , , evs] of prow)
		assert.equal(+evs, want.byPid.get(+pid) || 0, `events of pid ${pid}`);
	let total = 0;
	for (const c of want.byName.values()) total += c.events;
	assert.equal(total, json.otherData.events, "the JSON's events add up");

	// Drawn: marks for instants, spans for spans, the first of each
	// scrolled into view.
	const firstInstant = want.records.findIndex(e => e.ph === "i" && e.s === "t");
	const firstSpan = want.records.findIndex(e => e.ph === "X");
	await page.screenshot({ path: `${out}/${name}.png` });
	if (firstSpan >= 0) {
		await page.evaluate(i => window.posixtraceView.reveal(i), firstSpan);
		const f = await page.evaluate(() => window.posixtraceView.lastFrame);
		assert.ok(f.spans > 0, "no span drawn");
	}
	let frame = { marks: 0 };
	if (firstInstant >= 0) {
		await page.evaluate(i => window.posixtraceView.reveal(i), firstInstant);
		frame = await page.evaluate(() => window.posixtraceView.lastFrame);
		assert.ok(frame.marks > 0, "no mark drawn");
	}

	// Hovering a user event (else any instant) shows its members.
	let target = want.records.findIndex(e => e.cat === "user" && e.ph === "i");
	if (target < 0) target = want.records.findIndex(e => e.ph === "i" && e.s === "t");
	if (target >= 0) {
		await page.evaluate(i => window.posixtraceView.reveal(i), target);
		const at = await page.evaluate(i => window.posixtraceView.hover(i), target);
		await page.mouse.move(at.x, at.y);
		await page.waitForFunction(() => document.getElementById("tip").style.display === "block");
		const tipText = await page.textContent("#tip");
		// The mouse is on the target's mark: it, or one within its pixels.
		const got = await page.evaluate(() => window.posixtraceView.hovered);
		const e = want.records[got], t = want.records[target];
		assert.ok(e && e.pid === t.pid && e.tid === t.tid && e.ph === "i", `hovered record ${got}, not ${target}`);
		assert.ok(tipText.startsWith(e.name), `the tip names ${e.name}: ${tipText.slice(0, 80)}`);
		assert.ok(tipText.includes(`"seq": ${e.args.seq}`), "the tip shows the event's seq");
		await page.screenshot({ path: `${out}/${name}-hover.png` });
		// Filtering its type out hides its row and its marks; nothing
		// matching hides all; an empty filter shows all again.
		const before = await page.evaluate(() => window.posixtraceView.lastFrame);
		const filter = async text => {
			await page.fill("#filter", text);
			await page.evaluate(() => new Promise(r => requestAnimationFrame(() => r(true))));
			return page.evaluate(() => window.posixtraceView.lastFrame);
		};
		const hidden = e.name;
		await filter("/^(?!" + hidden.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$)/");
		const hiddenRows = await page.$$eval("#by-type tbody tr.hidden td:first-child", tds => tds.map(t => t.textContent));
		assert.deepEqual(hiddenRows, [hidden], "the filter hides one type");
		const under = await page.evaluate(() => window.posixtraceView.hovered);
		await page.mouse.move(at.x, at.y + 1);
		await page.mouse.move(at.x, at.y);
		const now = await page.evaluate(() => window.posixtraceView.hovered);
		assert.ok(now < 0 || want.records[now].name !== hidden, `a hidden ${hidden} is still hovered (${under})`);
		const none = await filter("/^$/");
		assert.deepEqual([none.marks, none.spans], [0, 0], "nothing matches, nothing drawn");
		const all = await filter("");
		assert.deepEqual([all.marks, all.spans], [before.marks, before.spans], "all again");
	}
	await page.close();
	console.log(`ok ${name}: ${want.records.length} records, ${lanes.length} lanes, ${rows.length} names, ${wall} ms to load`);

}

// A log too big for the JSON's checks (node's strings stop at 512 MiB):
// the page alone, and how fast it is.
async function perfLog(browser, log) {
	const name = basename(log).replace(/\.[^.]*$/, ""), html = `${out}/${name}.html`;
	execFileSync(tool, ["view", "-f", "-o", html, log], { stdio: ["ignore", "ignore", "inherit"] });
	const size = statSync(html).size;
	const p2 = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	const loaded = await open(browser, p2, html);
	assert.deepEqual(loaded.problems, []);
	const loadMs = await p2.evaluate(() => window.posixtraceView.loadMs);
	const events = await p2.evaluate(() => {
		let sum = 0;
		document.querySelectorAll("#by-type tbody tr").forEach(tr => { sum += +tr.cells[3].textContent; });
		return sum;
	});
	const meta = await p2.evaluate(() => JSON.parse(document.getElementById("meta").textContent));
	assert.equal(events, meta.events, "the table counts every event");
	// Zoom in step by step around the middle, pan, zoom out: each frame
	// drawn as the keys and the wheel draw it.
	const frames = await p2.evaluate(() => {
		const v = window.posixtraceView, ms = [];
		const { t0, span } = v.lastFrame;
		let s = span, a = t0;
		for (let i = 0; i < 25; i++) { s *= 0.8; a += s * 0.1; v.show(a, s); ms.push(v.lastFrame.ms); }
		for (let i = 0; i < 25; i++) { a += s * 0.2; v.show(a, s); ms.push(v.lastFrame.ms); }
		for (let i = 0; i < 25; i++) { s /= 0.8; a -= s * 0.1; v.show(a, s); ms.push(v.lastFrame.ms); }
		return ms;
	});
	const whole = await p2.evaluate(() => window.posixtraceView.frames[0]);
	await p2.mouse.move(700, 400);
	for (let i = 0; i < 10; i++) await p2.mouse.wheel(0, 120);
	await p2.screenshot({ path: `${out}/${name}-perf.png` });
	await p2.close();
	const worst = Math.max(whole, ...frames);
	frames.sort((x, y) => x - y);
	const report = {
		events, bytes: size, bytes_per_event: +(size / events).toFixed(2),
		load_ms_in_page: Math.round(loadMs), load_ms_wall: loaded.wall,
		frame_ms_median: +frames[frames.length >> 1].toFixed(2), frame_ms_max: +worst.toFixed(2),
	};
	console.log("view-perf " + JSON.stringify(report));
	const goals = [[report.bytes_per_event <= 40, "≤ 40 bytes an event"],
		[report.load_ms_wall <= 5000, "loads in ≤ 5 s"], [worst <= 50, "frames ≤ 50 ms"]];
	for (const [met, what] of goals)
		console.log(`${met ? "met" : "NOT MET"}: ${what}`);
	// Times are make bench's to judge; the size is the page's.
	assert.ok(goals[0][0], "the page is bigger than 40 bytes an event");
	if (timed && !goals.every(g => g[0]))
		process.exitCode = 1;
	console.log(`ok ${name}: ${events} events, ${report.bytes_per_event} bytes each`);
}

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
	args: ["--no-sandbox", "--disable-gpu"],
});
let failed = 0;
try {
	for (const log of logs) {
		try {
			await checkLog(browser, log);
		} catch (e) {
			failed++;
			console.log(`not ok ${basename(log)}: ${e.stack || e}`);
		}
	}
} finally {
	await browser.close();
}
if (failed)
	process.exitCode = 1;
