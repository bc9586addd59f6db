// Load bench for `recipebook serve` (BENCHMARKS.md): starts `serve --port 0`, then 8 clients send
// 400 requests in all to one route, each client waiting for its answer before the next; prints
// p50/p95/max latency. Loopback only, bounded in count.
// Usage: node load_bench.mjs RECIPEBOOK_BINARY [estimate|plan] [clients=8] [requests=400]
import { spawn } from "node:child_process";

const [binary, route = "estimate", clientsArg = "8", requestsArg = "400"] = process.argv.slice(2);
const clients = Number(clientsArg);
const requests = Number(requestsArg);
const bodies = {
  estimate: { model: "llama3-70b", gpu: "h100", gpus: 64, seq: 8192, gbs: 256, tp: 4, pp: 8 },
  plan: { model: "llama3-70b", gpu: "h100", gpus: 64, seq: 8192, gbs: 256 },
};
const server = spawn(binary, ["serve", "--port", "0", "--workers", String(clients)], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  let buf = "";
  server.stdout.on("data", (d) => {
    buf += d;
    const m = buf.match(/serving (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on("exit", (code) => reject(new Error(`server exited ${code}`)));
});
const body = JSON.stringify(bodies[route]);
const times = [];
const statuses = {};
let next = 0;
async function client() {
  while (next < requests) {
    next++;
    const t0 = performance.now();
    const res = await fetch(`${url}api/${route}`, { method: "POST", body, headers: { "Content-Type": "application/json" } });
    await res.text();
    times.push(performance.now() - t0);
    statuses[res.status] = (statuses[res.status] || 0) + 1;
  }
}
const t0 = performance.now();
await Promise.all(Array.from({ length: clients }, client));
const wall = (performance.now() - t0) / 1000;
server.kill("SIGTERM");
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
console.log(`${route}: ${times.length} requests, ${clients} clients, ${(times.length / wall).toFixed(0)} req/s, ` +
  `p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${times[times.length - 1].toFixed(1)} ms, statuses ${JSON.stringify(statuses)}`);
