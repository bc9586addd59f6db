// Load bench for `recipebook serve` (BENCHMARKS.md): starts `serve --port 0`, then 8 clients send
// 400 requests in all to one route, each client waiting for its answer before the next; prints
// p50/p95/max latency. Loopback only, bounded in count.
// Usage: node load_bench.mjs RECIPEBOOK_BINARY [estimate|plan] [clients=8] [requests=400] [workers=serve's default]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";

// CPU seconds (user + system) a process has used so far, from /proc/PID/stat (clock ticks of 10 ms).
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

const [binary, route = "estimate", clientsArg = "8", requestsArg = "400", workersArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const requests = Number(requestsArg);
const bodies = {
  estimate: { model: "llama3-70b", gpu: "h100", gpus: 64, seq: 8192, gbs: 256, tp: 4, pp: 8 },
  plan: { model: "llama3-70b", gpu: "h100", gpus: 64, seq: 8192, gbs: 256 },
};
const server = spawn(binary, ["serve", "--port", "0", ...(workersArg ? ["--workers", workersArg] : [])],
  { stdio: ["ignore", "pipe", "inherit"] });
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
// node:http with one kept-alive connection per client: fetch() (undici) cost this client ~2 ms of
// CPU per request, five times the server's, on a 2-core machine the two share.
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
function request(target) {
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method: "POST", agent, headers: { "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
    req.end(body);
  });
}
let next = 0;
async function client() {
  while (next < requests) {
    next++;
    const t0 = performance.now();
    const status = await request(`${url}api/${route}`);
    times.push(performance.now() - t0);
    statuses[status] = (statuses[status] || 0) + 1;
  }
}
const serverCpu0 = cpuSeconds(server.pid);
const clientCpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(Array.from({ length: clients }, client));
const wall = (performance.now() - t0) / 1000;
const serverCpuMs = (cpuSeconds(server.pid) - serverCpu0) * 1000;
const c = process.cpuUsage(clientCpu0);
const clientCpuMs = (c.user + c.system) / 1000;
server.kill("SIGTERM");
agent.destroy();
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
console.log(`${route}: ${times.length} requests, ${clients} clients, ${(times.length / wall).toFixed(0)} req/s, ` +
  `p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${times[times.length - 1].toFixed(1)} ms, statuses ${JSON.stringify(statuses)}; ` +
  `CPU per request: server ${(serverCpuMs / times.length).toFixed(2)} ms, this client ${(clientCpuMs / times.length).toFixed(2)} ms; ` +
  `load average ${loadavg()[0].toFixed(1)}`);
