/** The widget's styles; they live in its shadow root, so the host page's CSS and the widget's never mix. */
export function widgetStyles(accent: string, side: 'left' | 'right'): string {
  return `
:host { all: initial; }
* { box-sizing: border-box; }
.root {
  --accent: ${accent};
  --accent-text: #fff;
  --bg: #fff;
  --fg: #1d1f23;
  --muted: #5f6670;
  --bubble-in: #eef0f3;
  --border: #d7dbe0;
  font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg);
  position: fixed; ${side}: 20px; bottom: 20px; z-index: 2147483000;
  display: flex; flex-direction: column; align-items: ${side === 'right' ? 'flex-end' : 'flex-start'}; gap: 12px;
}
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
button { font: inherit; cursor: pointer; }
:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
.launcher {
  width: 56px; height: 56px; border-radius: 50%; border: 0; background: var(--accent); color: var(--accent-text);
  box-shadow: 0 4px 14px rgba(0,0,0,.25); display: grid; place-items: center; position: relative;
}
.launcher svg { width: 28px; height: 28px; fill: currentColor; }
.badge {
  position: absolute; top: -4px; ${side === 'right' ? 'right' : 'left'}: -4px; min-width: 22px; height: 22px; padding: 0 6px;
  border-radius: 11px; background: #d93025; color: #fff; font-size: 12px; font-weight: 600; display: grid; place-items: center;
}
.badge[hidden] { display: none; }
.panel {
  width: min(380px, calc(100vw - 40px)); height: min(560px, calc(100vh - 110px)); background: var(--bg);
  border-radius: 14px; box-shadow: 0 10px 40px rgba(0,0,0,.25); display: flex; flex-direction: column; overflow: hidden;
  border: 1px solid var(--border);
}
.panel[hidden] { display: none; }
.header { background: var(--accent); color: var(--accent-text); padding: 12px 14px; display: flex; align-items: center; gap: 10px; }
.header h2 { font-size: 16px; margin: 0; flex: 1; font-weight: 600; }
.status { font-size: 12px; opacity: .9; }
.close { background: transparent; border: 0; color: inherit; width: 32px; height: 32px; border-radius: 6px; font-size: 22px; line-height: 1; }
.close:hover { background: rgba(255,255,255,.15); }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 6px; margin: 0; list-style: none; }
.more { align-self: center; background: none; border: 1px solid var(--border); border-radius: 14px; padding: 4px 12px; color: var(--muted); font-size: 13px; }
.msg { display: flex; flex-direction: column; max-width: 85%; }
.msg.in { align-self: flex-start; align-items: flex-start; }
.msg.out { align-self: flex-end; align-items: flex-end; }
.bubble { padding: 8px 12px; border-radius: 16px; white-space: pre-wrap; overflow-wrap: anywhere; }
.in .bubble { background: var(--bubble-in); border-bottom-left-radius: 4px; }
.out .bubble { background: var(--accent); color: var(--accent-text); border-bottom-right-radius: 4px; }
.out .bubble a { color: inherit; }
.bubble img, .bubble video { display: block; width: 220px; max-width: 100%; height: auto; max-height: 260px; object-fit: cover; border-radius: 10px; }
.bubble.media { padding: 4px; background: transparent; }
.meta { font-size: 11px; color: var(--muted); margin: 2px 6px 0; }
.meta .state:not(:empty)::before { content: " · "; }
.bubble a { color: inherit; text-decoration: underline; }
.msg.pending .bubble { opacity: .65; }
.msg.failed .bubble { opacity: 1; background: #fdecea; color: #8a1c12; border: 1px solid #d93025; }
.msg.failed .state { color: #b3261e; font-weight: 600; }
.retry { margin-left: 6px; border: 0; background: none; padding: 0; color: #b3261e; font-size: 11px; font-weight: 600; text-decoration: underline; }
.cards { display: flex; gap: 8px; overflow-x: auto; scroll-snap-type: x mandatory; max-width: 100%; padding-bottom: 4px; list-style: none; margin: 0; padding-left: 0; }
.msg.structure { max-width: 100%; align-self: stretch; }
.card { flex: 0 0 240px; scroll-snap-align: start; border: 1px solid var(--border); border-radius: 12px; overflow: hidden; background: var(--bg); display: flex; flex-direction: column; }
.card img { width: 100%; height: 130px; object-fit: cover; display: block; }
.card .body { padding: 8px 10px; flex: 1; }
.card h3 { font-size: 15px; margin: 0 0 4px; }
.card p { margin: 0; color: var(--muted); font-size: 13px; }
.card .buttons { display: flex; flex-direction: column; border-top: 1px solid var(--border); }
.card .buttons > * { padding: 8px; text-align: center; border: 0; background: none; color: var(--accent); text-decoration: none; font-weight: 600; font-size: 14px; }
.card .buttons > * + * { border-top: 1px solid var(--border); }
.typing { align-self: flex-start; background: var(--bubble-in); border-radius: 16px; padding: 10px 14px; display: flex; gap: 4px; }
.typing[hidden] { display: none; }
.typing span { width: 7px; height: 7px; border-radius: 50%; background: var(--muted); animation: blink 1.2s infinite; }
.typing span:nth-child(2) { animation-delay: .2s; } .typing span:nth-child(3) { animation-delay: .4s; }
@keyframes blink { 0%, 80%, 100% { opacity: .3; } 40% { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .typing span { animation: none; } }
.quick { display: flex; flex-wrap: wrap; gap: 6px; padding: 6px 12px; justify-content: flex-end; }
.quick[hidden] { display: none; }
.quick button { border: 1px solid var(--accent); color: var(--accent); background: var(--bg); border-radius: 16px; padding: 5px 12px; font-size: 14px; display: inline-flex; align-items: center; gap: 6px; }
.quick button img { width: 18px; height: 18px; border-radius: 50%; }
.quick button.pressed, .card .buttons > button.pressed { background: var(--accent); color: var(--accent-text); }
.quick button:disabled, .card .buttons > button:disabled { cursor: default; }
.quick button:disabled:not(.pressed), .card .buttons > button:disabled:not(.pressed) { opacity: .5; }
.composer { display: flex; gap: 6px; padding: 8px; border-top: 1px solid var(--border); align-items: flex-end; }
.composer textarea { flex: 1; resize: none; border: 1px solid var(--border); border-radius: 18px; padding: 8px 12px; font: inherit; max-height: 120px; min-height: 38px; color: var(--fg); background: var(--bg); }
.icon { width: 38px; height: 38px; border-radius: 50%; border: 0; background: transparent; color: var(--muted); display: grid; place-items: center; flex: none; }
.icon svg { width: 22px; height: 22px; fill: currentColor; }
.icon.send { background: var(--accent); color: var(--accent-text); }
.icon:disabled { opacity: .5; cursor: default; }
.notice { padding: 6px 12px; font-size: 13px; color: #8a1c12; background: #fdecea; }
.notice[hidden] { display: none; }
`;
}
