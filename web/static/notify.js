// Turn alerts: a player who put the phone down is told when their phase
// starts, or when the opponent's command needs an answer (a dispute
// raised, a request to take a command back): a short sound, a vibration,
// and a notification from the browser where the player allowed it. Off
// until the player turns them on (the play panel's "Alert me on my turn"),
// which is also when the browser asks for its permission: browsers allow
// sound and the permission prompt only after a tap. The choice is kept on
// this device.

const KEY = "ledger.alerts.v1";

export function alertsOn() {
  try { return localStorage.getItem(KEY) === "on"; } catch (e) { return false; }
}

// setAlerts turns alerts on or off; on, it asks the browser for its
// notification permission (which only a secure context may ask) and
// says whether notifications will show ("granted"), or only the sound
// and vibration ("denied", "default", "unsupported").
export async function setAlerts(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (e) { /* kept for this page only */ }
  if (!on) return "off";
  if (!("Notification" in window) || !window.isSecureContext) return "unsupported";
  if (Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch (e) { /* an old browser's callback form: left as it is */ }
  }
  return Notification.permission;
}

let audio = null;

// beep plays two short tones (no file: the page loads nothing more).
function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const at = audio.currentTime;
    for (const [f, start] of [[660, 0], [880, 0.18]]) {
      const o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = f;
      g.gain.setValueAtTime(0.0001, at + start);
      g.gain.exponentialRampToValueAtTime(0.25, at + start + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, at + start + 0.16);
      o.connect(g).connect(audio.destination);
      o.start(at + start);
      o.stop(at + start + 0.17);
    }
  } catch (e) { /* no sound on this device */ }
}

// alertPlayer tells the player, if they turned alerts on. tag names what
// it is about: a second alert of the same tag replaces the first.
export function alertPlayer(title, body, tag) {
  if (!alertsOn()) return;
  try { if (navigator.vibrate) navigator.vibrate([200, 100, 200]); } catch (e) { /* no vibration */ }
  beep();
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const opts = { body, tag, icon: "/static/icon-192.png", renotify: true };
  try {
    new Notification(title, opts);
  } catch (e) {
    // Chrome on Android shows notifications through the service worker
    // only.
    if (navigator.serviceWorker) navigator.serviceWorker.ready.then(r => r.showNotification(title, opts)).catch(() => {});
  }
}
