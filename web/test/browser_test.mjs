// The page in Debian's chromium, headless, driven by playwright-core: starts `recipebook serve
// --port 0`, opens the estimate and plan views from URLs that hold their whole state, asserts their
// figures, and saves a screenshot of each to ARTIFACTS/. Fails (never skips) when chromium, the
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
  const pageMs = await page.evaluate(() => performance.now());
  check("estimate: memory figure drawn", true, `first render ${pageMs.toFixed(0)} ms in the page, ${firstRenderMs} ms with goto`);
  const bars = await page.locator('figure[data-figure="memory"] svg rect').count();
  check("estimate: memory bar has parts", bars >= 3, `${bars} rects`);
  check("estimate: time figure drawn", (await page.locator('figure[data-figure="time"] svg').count()) === 1);
  const tp = await page.inputValue('input[name="tp"]');
  check("estimate: the URL's state is in the form", tp === "4", `tp=${tp}`);
  await page.screenshot({ path: join(artifacts, "estimate.png"), fullPage: true });

  // Typing re-computes and rewrites the URL.
  await page.fill('input[name="pp"]', "4");
  await page.waitForFunction(() => location.search.includes("pp=4"), null, { timeout: 5000 });
  await page.waitForFunction(() => document.querySelector(".status").textContent.includes("PP 4"), null, { timeout: 30000 });
  check("estimate: editing PP re-computes", true);

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
