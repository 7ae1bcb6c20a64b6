// One game's WebSocket: reconnects with backoff; every (re)connect brings a fresh snapshot.
export class GameSocket {
  constructor(gameId, onMessage, onStatus) {
    this.gameId = gameId;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.timer = null;
    this.fatal = false;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    let ws;
    try {
      ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => { this.attempt = 0; this.onStatus("open"); });
    ws.addEventListener("message", (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg && msg.type === "error" && msg.code === "unknown-game") this.fatal = true;
      try { this.onMessage(msg); } catch (err) { (window.__fcDebug ||= []).push(String(err && err.stack || err)); }
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed || this.fatal) return;
      this.onStatus("closed");
      this.retry();
    });
    ws.addEventListener("error", () => { /* close follows */ });
  }

  retry() {
    if (this.closed) return;
    const delay = Math.min(8000, 400 * Math.pow(2, this.attempt++)) + Math.random() * 200;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  send(data) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(data));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(); } catch { /* ignore */ }
    }
  }
}
