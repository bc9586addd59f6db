// The page in Debian's chromium, headless, driven by playwright-core: starts `recipebook serve
// --port 0`, opens every view (estimate, plan, recommend, catalog, compare) from a URL that holds its
// whole state, asserts its figures, and saves a screenshot of each to ARTIFACTS/. Fails (never skips) when chromium, the
// bundle or the server is missing. Usage: node browser_test.mjs RECIPEBOOK_BINARY ARTIFACTS_DIR
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [binary, artifacts] = process.argv.slice(2);
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok" : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`);
}

if (!existsSync(chromiumPath)) {
  console.error(`browser_test: no chromium at ${chromiumPath} (apt-get install chromium, as scripts/setup does)`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
mkdirSync(artifacts, { recursive: true });

const server = spawn(binary, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  let buf = "";
  const timer = setTimeout(() => reject(new Error("the server printed no URL in 20 s")), 20000);
  server.stdout.on("data", (d) => {
    buf += d;
    const m = buf.match(/serving (http:\/\/\S+)/);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
  server.on("exit", (code) => reject(new Error(`the server exited with ${code}`)));
});

const profile = mkdtempSync(join(tmpdir(), "recipebook-chromium-"));
// A new, empty profile (playwright passes it to chromium as --user-data-dir).
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1400, height: 1000 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  const external = [];
  page.on("request", (r) => { if (!r.url().startsWith(url)) external.push(r.url()); });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  // Estimate: the first render (time to the memory figure) and its figures.
  const t0 = Date.now();
  await page.goto(`${url}?view=estimate&model=llama3-70b&gpu=h100&gpus=64&seq=8192&gbs=256&tp=4&pp=8`);
  await page.waitForSelector('figure[data-figure="memory"] svg', { timeout: 30000 });
  const firstRenderMs = Date.now() - t0;
  // performance.now() counts from the page's navigation start: the first render as the page saw it.
  // The page marks "rb-first-render" when its first answer is drawn (form.js): that mark's time is
  // the first render (the evaluate below would add the test's own polling and round trip).
  await page.waitForFunction(() => performance.getEntriesByName("rb-first-render").length > 0, null, { timeout: 30000 });
  const pageMs = await page.evaluate(() => performance.getEntriesByName("rb-first-render")[0].startTime);
  check("estimate: memory figure drawn", true, `first render ${pageMs.toFixed(0)} ms in the page, ${firstRenderMs} ms with goto`);
  // Where the first render's time went: each resource's fetch (start..end, ms after navigation start).
  const timing = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const res = performance.getEntriesByType("resource").map((r) => `${r.name.replace(location.origin, "")} ` +
      `${r.startTime.toFixed(0)}..${r.responseEnd.toFixed(0)} (${r.transferSize} B)`);
    return `document ${nav.responseEnd.toFixed(0)}, DOMContentLoaded ${nav.domContentLoadedEventEnd.toFixed(0)}; ${res.join("; ")}`;
  });
  console.log(`first render timing: ${timing}`);
  check("estimate: first render <= 1000 ms in the page", pageMs <= 1000, `${pageMs.toFixed(0)} ms`);
  const bars = await page.locator('figure[data-figure="memory"] svg rect').count();
  check("estimate: memory bar has parts", bars >= 3, `${bars} rects`);
  const stages = await page.getAttribute('figure[data-figure="memory"]', "data-stages");
  check("estimate: one memory bar per pipeline stage", stages === "8", `${stages} stages`);
  const stageLabels = await page.locator('figure[data-figure="memory"] svg [aria-label="y-axis tick label"] text').count();
  check("estimate: the stages are labelled", stageLabels === 8, `${stageLabels} labels`);
  check("estimate: findings figure", (await page.locator('figure[data-figure="findings"]').count()) === 1);
  check("estimate: time figure drawn", (await page.locator('figure[data-figure="time"] svg').count()) === 1);
  const tp = await page.inputValue('input[name="tp"]');
  check("estimate: the URL's state is in the form", tp === "4", `tp=${tp}`);
  await page.screenshot({ path: join(artifacts, "estimate.png"), fullPage: true });

  // Typing re-computes and rewrites the URL.
  await page.fill('input[name="pp"]', "4");
  await page.waitForFunction(() => location.search.includes("pp=4"), null, { timeout: 5000 });
  await page.waitForFunction(() => document.querySelector(".status").textContent.includes("PP 4"), null, { timeout: 30000 });
  check("estimate: editing PP re-computes", true);
  await page.waitForFunction(() => document.querySelector('figure[data-figure="memory"]')?.dataset.stages === "4", null, { timeout: 30000 });
  check("estimate: the per-stage bar follows PP", true);

  // A layout the rules reject: the findings with their fixes, live.
  await page.goto(`${url}?view=estimate&model=llama3-70b&gpu=h100&gpus=64&seq=8192&gbs=256&tp=3&pp=8`);
  await page.waitForSelector('figure[data-figure="findings"] li.finding.error', { timeout: 30000 });
  const fix = await page.locator('figure[data-figure="findings"] li.finding.error .fix').count();
  const rule = await page.getAttribute('figure[data-figure="findings"] li.finding.error', "data-rule");
  check("estimate: a rejected layout shows its rule and fix", fix >= 1 && /^RB-/.test(rule || ""), `${rule}, ${fix} fixes`);
  await page.screenshot({ path: join(artifacts, "estimate-findings.png"), fullPage: true });

  // Plan: ranked table, Pareto front, heatmap and scaling curve.
  await page.goto(`${url}?view=plan&model=llama3-8b&gpu=h100&gpus=8&seq=4096&gbs=128`);
  await page.waitForSelector('figure[data-figure="heatmap"] svg', { timeout: 90000 });  // 15 small plans (slow under ASan)
  const rows = await page.locator('figure[data-figure="ranked"] tbody tr').count();
  check("plan: ranked table has rows", rows >= 1, `${rows} rows`);
  check("plan: Pareto plot drawn", (await page.locator('figure[data-figure="pareto"] svg circle').count()) >= 1);
  const cells = await page.locator('figure[data-figure="heatmap"] svg rect').count();
  check("plan: TP x PP heatmap has cells", cells >= 2, `${cells} cells`);
  await page.waitForSelector('figure[data-figure="scaling"] svg', { timeout: 90000 });
  check("plan: scaling curve drawn", true);
  await page.screenshot({ path: join(artifacts, "plan.png"), fullPage: true });

  // Recommend: the recipe, its changes and the command with a copy button.
  await page.goto(`${url}?view=recommend&model=llama3-70b&gpu=h100&gpus=64&mode=pretrain`);
  await page.waitForSelector('figure[data-figure="command"] pre', { timeout: 60000 });
  const recipe = await page.locator('figure[data-figure="recipe"] li').first().textContent();
  check("recommend: a recipe is named", recipe.includes("llama3_70b"), recipe);
  const command = await page.locator('figure[data-figure="command"] pre').textContent();
  check("recommend: the command is shown", command.includes("--recipe"), command.slice(0, 60));
  check("recommend: a copy button", (await page.locator('figure[data-figure="command"] button').count()) === 1);
  await page.screenshot({ path: join(artifacts, "recommend.png"), fullPage: true });

  // Catalog: filtered by model, GPU and mode; the record named in the URL with its measurements
  // against the estimate and its check findings.
  const recipeName = process.env.RB_CATALOG_RECIPE || "llama3_70b_pretrain_64gpu_h100_fp8cs_config";
  await page.goto(`${url}?view=catalog&model=llama3&gpu=h100&mode=pretrain&recipe=${recipeName}`);
  await page.waitForSelector('figure[data-figure="recipes"] tbody tr', { timeout: 30000 });
  const listed = await page.locator('figure[data-figure="recipes"] tbody tr').count();
  const models = await page.locator('figure[data-figure="recipes"] tbody tr td:nth-child(4)').allTextContents();
  const gpus = await page.locator('figure[data-figure="recipes"] tbody tr td:nth-child(5)').allTextContents();
  check("catalog: the filter lists recipes", listed >= 1 && models.every((m) => /llama/i.test(m)) &&
    gpus.every((g) => g.endsWith("x h100")), `${listed} rows`);
  await page.waitForSelector('figure[data-figure="findings"]', { timeout: 30000 });
  const recordTitle = await page.locator('figure[data-figure="record"] h3').textContent();
  check("catalog: the URL's record is shown", recordTitle.includes(recipeName), recordTitle);
  const measured = await page.locator('figure[data-figure="measured"] tbody tr').count();
  const dots = await page.locator('figure[data-figure="measured"] svg circle').count();
  check("catalog: measured vs predicted", measured >= 1 && dots >= 1, `${measured} rows, ${dots} dots`);
  const checkTitle = await page.locator('figure[data-figure="findings"] h3').textContent();
  check("catalog: the record's check findings", /^Check findings/.test(checkTitle), checkTitle);
  await page.screenshot({ path: join(artifacts, "catalog.png"), fullPage: true });
  // Clicking another recipe puts it in the URL.
  const second = (await page.locator('figure[data-figure="recipes"] tbody tr a').nth(1).textContent()).trim();
  await page.locator('figure[data-figure="recipes"] tbody tr a').nth(1).click();
  await page.waitForFunction((n) => document.querySelector('figure[data-figure="record"] h3')?.textContent.includes(n), second, { timeout: 30000 });
  check("catalog: a click selects the record and the URL keeps it", new URL(page.url()).searchParams.get("recipe") === second, second);

  // Compare: GPU types side by side for one model and token budget.
  await page.goto(`${url}?view=compare&model=llama3-70b&gpu=h100,b200&gpus=64&seq=8192&gbs=256&tokens=1T`);
  await page.waitForSelector('figure[data-figure="compare-usd"] svg', { timeout: 60000 });
  const compared = await page.locator('figure[data-figure="compare-table"] tbody tr').count();
  check("compare: one row per GPU type", compared === 2, `${compared} rows`);
  const days = await page.locator('figure[data-figure="compare-table"] tbody tr td:nth-child(7)').allTextContents();
  check("compare: days for the budget", days.length === 2 && days.every((d) => Number(d) > 0), days.join(", "));
  const tpsBars = await page.locator('figure[data-figure="compare-throughput"] svg rect').count();
  check("compare: throughput bars", tpsBars === 2, `${tpsBars} bars`);
  await page.screenshot({ path: join(artifacts, "compare.png"), fullPage: true });

  // A bad input: the API's JSON error (rule id and message) shown as the status.
  await page.goto(`${url}?view=estimate&model=no-such-model&gpu=h100&gpus=8`);
  await page.waitForFunction(() => document.querySelector(".status")?.dataset.state === "error", null, { timeout: 30000 });
  const errText = await page.locator(".status").textContent();
  check("an unknown model: the CLI's error in the page", /^RB-[A-Z-]+: /.test(errText), errText.slice(0, 80));

  check("no request left the server", external.length === 0, external.join(" "));
  check("no script errors", errors.length === 0, errors.join(" | "));
} catch (e) {
  check("browser run", false, String(e));
} finally {
  await browser.close();
  server.kill("SIGTERM");
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
