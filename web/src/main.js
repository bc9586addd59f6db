// The page of `recipebook serve`: plain ES modules, no framework. Each view reads its whole state
// from the URL (?view=plan&model=...), so a link reproduces what was on screen; changing an input
// rewrites the URL in place (history.replaceState).
import { estimateView } from "./estimate.js";
import { planView } from "./plan.js";
import { recommendView } from "./recommend.js";
import { catalogView } from "./catalog.js";
import { compareView } from "./compare.js";

const views = { estimate: estimateView, plan: planView, recommend: recommendView, catalog: catalogView, compare: compareView };

function render() {
  const params = new URLSearchParams(location.search);
  const name = views[params.get("view")] ? params.get("view") : "estimate";
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.view === name);
  const app = document.getElementById("app");
  app.textContent = "";
  app.dataset.view = name;
  views[name](app, params);
}

window.addEventListener("popstate", render);
render();
