// The page's service worker (served as /sw.js, so that it covers the whole
// site): it keeps the page's shell (the page itself, its scripts, styles,
// icons and manifest) so that the page opens when the network does not,
// and says so, instead of the browser's "no internet". It is network first:
// with a network every request goes to the server as if it were not there,
// and each answer of the shell refreshes the copy kept. The ledger's data
// (/api/) is never kept nor answered from here: what a token may read is
// read from the ledger, each time.
//
// Browsers run service workers only in a secure context: over HTTPS, or at
// localhost / 127.0.0.1. A club's server on a LAN address over plain HTTP
// has no service worker; the outbox (outbox.js) works there all the same.

const SHELL = "ledger-shell-v1";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", event => {
  event.waitUntil((async () => {
    for (const k of await caches.keys()) if (k !== SHELL) await caches.delete(k);
    await self.clients.claim();
  })());
});

// shell says whether a request is part of the page's shell.
function shell(req) {
  if (req.method !== "GET") return false;
  const u = new URL(req.url);
  if (u.origin !== self.location.origin) return false;
  if (u.pathname.startsWith("/api/")) return false;
  return req.mode === "navigate" || u.pathname.startsWith("/static/") || u.pathname === "/manifest.webmanifest";
}

self.addEventListener("fetch", event => {
  const req = event.request;
  if (!shell(req)) return;
  event.respondWith((async () => {
    try {
      const res = await fetch(req);
      if (res.ok) {
        const copy = res.clone();
        event.waitUntil(caches.open(SHELL).then(c => c.put(req, copy)).catch(() => {}));
      }
      return res;
    } catch (err) {
      const kept = await caches.match(req);
      if (kept) return kept;
      // A page never opened here before: any kept page is the same shell
      // (it draws the view from the address).
      if (req.mode === "navigate") {
        const c = await caches.open(SHELL);
        for (const k of await c.keys()) {
          const p = new URL(k.url).pathname;
          if (p === "/" || p.startsWith("/c/")) return c.match(k);
        }
      }
      throw err;
    }
  })());
});
