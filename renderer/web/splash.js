// The splash page of splashd-web: draws splashd's states (docs/renderer.md).
// Everything it shows follows the latest state the bridge relays; it sends back only renderer
// commands (dismissed, retry, continue-offline, complete of the theme's app_step).
"use strict";
(function () {
  const root = document.documentElement;
  const theme = JSON.parse(document.getElementById("splashd-theme").textContent);
  const $ = (id) => document.getElementById(id);
  const splash = $("splash"), app = $("app"), errorView = $("error"), live = $("live");
  const reduceQuery = matchMedia("(prefers-reduced-motion: reduce)");
  const EXIT_MS = 300;
  // The designs' detail line under "Unable to connect" (the state's detail is for operators).
  const NETWORK_DETAIL = "Please check your internet connection";
  // How the app comes in over the splash, by destination (docs/design.md §10); the theme's
  // [transitions] override each (theme.transitions).
  const ENTRY_MS = 300;
  // exit = "reveal" (Yula's presenter): the app shows through a logo-shaped hole that turns and
  // grows; the app settles from 1.05x over the same time.
  const REVEAL_MS = 600;
  const DEFAULT_ENTRY = { home: "crossfade", onboarding: "slide", login: "fade" };

  let socket = null, retryDelay = 100, nextId = 1;
  // A bridge that restarted has a new token and refuses the old one: after three refusals in a
  // row the page goes on as a read-only viewer (it still draws; splashd ends dismissing itself
  // after exit_animation). The kiosk unit restarts the browser on the new URL.
  let refusals = 0, query = location.search;
  let state = null;          // the latest state
  let launch = null;         // the launch the page is drawing
  let exit = null;           // the exit animation, once started
  let exitDone = false;
  let appURL = null, appPainted = false, completed = false;

  const reduced = () => theme.motion === "reduce" || reduceQuery.matches;

  // logo = "firmware": the firmware's logo where the firmware drew it, in device pixels (the
  // inline style assumes a CSS pixel is one), at its own scale; centred where it does not fit.
  const firmware = theme.firmware_logo;
  function placeFirmwareLogo() {
    const ratio = devicePixelRatio || 1, w = firmware.width / ratio, h = firmware.height / ratio;
    let x = firmware.x / ratio, y = firmware.y / ratio;
    if (x + w > innerWidth || y + h > innerHeight) { x = (innerWidth - w) / 2; y = (innerHeight - h) / 2; }
    const logo = $("logo");
    logo.style.left = x + "px"; logo.style.top = y + "px"; logo.style.width = w + "px"; logo.style.height = h + "px";
    $("text").style.top = "max(calc(50% + 44px), " + (y + h + 24) + "px)";
  }
  if (firmware) { placeFirmwareLogo(); addEventListener("resize", placeFirmwareLogo); }

  // One of the theme's taglines per launch: chosen by the launch's id (FNV-1a), so a reload of
  // the page or a restarted bridge shows the same one; ids are random, so launches vary.
  const taglines = theme.taglines || [];
  function taglineFor(id) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) { hash ^= id.charCodeAt(i); hash = Math.imul(hash, 0x01000193) >>> 0; }
    return taglines[hash % taglines.length];
  }
  // Until the first state names the launch, the line keeps its place (no jump when it comes).
  if (taglines.length) $("tagline").textContent = "\u00a0";
  const updateMotion = () => { root.dataset.motion = reduced() ? "reduce" : "full"; };
  updateMotion();
  reduceQuery.addEventListener("change", updateMotion);

  function send(command) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    command.id = nextId++;
    socket.send(JSON.stringify(command));
    return true;
  }

  function connect() {
    const current = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + query);
    let opened = false;
    socket = current;
    current.onopen = () => { opened = true; refusals = 0; retryDelay = 100; };
    current.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch (_) { return; }
      if (message.type === "state") render(message);
      else if (message.type === "bridge") root.dataset.bridge = message.connected ? "connected" : "disconnected";
      else if (message.type === "screenshot" && Number.isInteger(message.id)) screenshot(message.id);
      else if (message.type === "error") {
        root.dataset.lastError = message.code;
        console.warn("splashd-web:", message.code, message.message);
      }
    };
    current.onclose = () => {
      root.dataset.bridge = "disconnected";
      if (!opened && ++refusals >= 3 && query) { query = ""; root.dataset.viewer = "true"; }
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 1000);
    };
  }

  // `splashctl screenshot --web`: the bridge asks for a picture of the page, which draws its own
  // DOM into a canvas (an SVG foreignObject of the splash, every element's computed style written
  // on it, animations stopped where they are, images as data: URLs) and posts the PNG back. The
  // app's frame is another origin's document: not in the picture (the splash is).
  function dataURL(blob) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  }
  function styled(source) {
    const copy = source.cloneNode(false);
    if (source.nodeType !== Node.ELEMENT_NODE) return copy;
    const computed = getComputedStyle(source);
    let text = "";
    for (let i = 0; i < computed.length; i++) text += computed[i] + ":" + computed.getPropertyValue(computed[i]) + ";";
    copy.setAttribute("style", text + "animation:none;transition:none;");
    for (const child of source.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE && (child.tagName === "SCRIPT" || child.tagName === "IFRAME")) continue;
      copy.appendChild(styled(child));
    }
    return copy;
  }
  async function picture() {
    const width = innerWidth, height = innerHeight;
    const body = styled(document.body);
    for (const image of body.querySelectorAll("img")) {
      const src = image.getAttribute("src");
      if (src && !src.startsWith("data:")) image.setAttribute("src", await dataURL(await (await fetch(src)).blob()));
    }
    const page = getComputedStyle(root).backgroundColor;
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '">' +
      '<foreignObject x="0" y="0" width="' + width + '" height="' + height + '">' +
      new XMLSerializer().serializeToString(body) +
      "</foreignObject></svg>";
    const image = new Image();
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    context.fillStyle = page;
    context.fillRect(0, 0, width, height);
    context.drawImage(image, 0, 0);
    return new Promise((resolve, reject) => canvas.toBlob((blob) => blob ? resolve(blob) : reject(new Error("the canvas gave no PNG")), "image/png"));
  }
  async function screenshot(id) {
    const url = "/screenshot/" + id + query;
    try {
      await fetch(url, { method: "POST", headers: { "Content-Type": "image/png" }, body: await picture() });
    } catch (error) {
      await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: String(error) }).catch(() => {});
    }
  }

  // The app's URL for a destination: route appended as a path, sheet as ?sheet=.
  function urlFor(destination) {
    const base = destination && theme.destinations[destination.screen];
    if (!base) return null;
    const url = new URL(base);
    if (destination.route) url.pathname = url.pathname.replace(/\/$/, "") + "/" + destination.route.split("/").map(encodeURIComponent).join("/");
    if (destination.sheet) url.searchParams.set("sheet", destination.sheet);
    return url.href;
  }

  // Loads the app beneath the splash; it counts as painted two frames after its load event.
  function loadApp(url) {
    if (appURL === url) return;
    appURL = url; appPainted = false;
    app.onload = () => requestAnimationFrame(() => requestAnimationFrame(() => {
      if (appURL !== url) return;
      appPainted = true;
      root.dataset.app = "painted";
      prepareReveal();
      if (state) render(state);
    }));
    app.hidden = false;
    root.dataset.app = "loading";
    app.src = url;
  }

  function resetForLaunch(id) {
    launch = id;
    if (exit) { exit.cancel(); exit = null; }
    exitDone = false; completed = false;
    splash.style.opacity = ""; splash.hidden = false; app.style.zIndex = ""; unreveal();
    delete root.dataset.entry;
    appURL = null; appPainted = false; app.hidden = true; app.removeAttribute("src");
    delete root.dataset.app;
  }

  // The update and shutdown views (design §15): over the app, whatever the launch's phase.
  function renderMode(next) {
    const mode = next.mode || "launch";
    const was = root.dataset.mode || "launch";
    root.dataset.mode = mode;
    const view = $("mode");
    if (mode === "launch") {
      view.hidden = true;
      delete root.dataset.updateResult;
      // Back to a launch that ended under the view: the app shows again (or the last frame stays).
      if (was !== "launch" && exitDone) splash.hidden = appURL !== null;
      return false;
    }
    if (exit) { exit.cancel(); exit = null; exitDone = true; }
    splash.hidden = false; splash.style.opacity = ""; app.style.zIndex = ""; unreveal();
    const words = theme.modes || {};
    let title, progress = null, message = "", warning = "";
    if (mode === "shutdown") {
      title = next.shutdown === "reboot" ? words.reboot : words.poweroff;
      delete root.dataset.updateResult;
    } else {
      const update = next.update || {};
      root.dataset.updateResult = update.result || "running";
      if (update.result === "failed") {
        title = words.failed; message = update.error || update.message || "";
      } else {
        title = update.result === "succeeded" ? words.succeeded : words.updating;
        progress = update.result === "succeeded" ? 1 : Math.max(0, Math.min(1, update.progress || 0));
        message = update.message || ""; warning = words.warning;
      }
    }
    $("mode-title").textContent = title || "";
    $("mode-progress").hidden = progress === null;
    const percent = Math.round((progress || 0) * 100);
    $("mode-bar").style.width = percent + "%";
    $("mode-progress").setAttribute("aria-valuenow", String(percent));
    $("mode-message").textContent = message;
    $("mode-warning").textContent = warning || "";
    view.hidden = false;
    errorView.hidden = true;
    live.textContent = title || "";
    return true;
  }

  function render(next) {
    state = next;
    // A new launch shows the splash again over the app: from loading, or from error when it begins
    // held there (the app's crash loop, design §14).
    if (next.launch !== launch && (next.phase === "loading" || next.phase === "error")) resetForLaunch(next.launch);
    if (taglines.length && root.dataset.launch !== next.launch) {
      const line = taglineFor(next.launch);
      $("tagline").textContent = line;
      root.dataset.tagline = String(taglines.indexOf(line));
    }
    root.dataset.phase = next.phase;
    root.dataset.reason = next.reason || "boot";
    root.dataset.launch = next.launch;
    root.dataset.seq = String(next.seq);
    root.dataset.slow = String(next.slow);
    if (renderMode(next)) {
      // The launch under the view goes on, unseen: the app may load beneath, nothing exits.
      const url = urlFor(next.destination);
      if (url) loadApp(url);
      return;
    }

    // Progress and the running step's label.
    const percent = Math.round(Math.max(0, Math.min(1, next.progress || 0)) * 100);
    $("progress-bar").style.width = percent + "%";
    $("progress").setAttribute("aria-valuenow", String(percent));
    $("step").textContent = next.phase === "loading" && next.message ? next.message : "";

    // The error view.
    if (next.phase === "error" && next.error) {
      const code = next.error.code;
      // What the state says, unless the theme has its own words for the code ([errors.CODE]).
      const words = (theme.errors || {})[code] || {};
      $("error-message").textContent = words.title || next.error.message || "Something went wrong";
      $("error-detail").textContent = words.detail || (code === "network" ? NETWORK_DETAIL : "");
      const actions = next.error.actions || [];
      $("retry").hidden = !actions.includes("retry");
      $("offline").hidden = !actions.includes("continue-offline");
      const opening = errorView.hidden;
      errorView.hidden = false;
      live.textContent = "";
      if (opening && !$("retry").hidden) $("retry").focus();
    } else {
      errorView.hidden = true;
      live.textContent = next.phase === "loading" ? "Loading app" : "";
    }

    // The app beneath the splash, once its screen is known.
    const url = urlFor(next.destination);
    if (url) loadApp(url);
    // In loading, or in a soft timeout (work goes on, and finishing it moves the launch on).
    const working = next.phase === "loading" || (next.phase === "error" && next.error && next.error.code === "timeout");
    if (theme.app_step && appPainted && !completed && working) {
      const step = (next.steps || []).find((s) => s.id === theme.app_step);
      if (step && step.status === "running") completed = send({ cmd: "complete", step: theme.app_step });
    }

    if (next.phase === "dismissing" || next.phase === "finished") startExit();
  }

  // The app's entry for a destination: crossfade, slide, fade or none.
  function entryFor(destination) {
    const screen = destination && destination.screen;
    return (theme.transitions && theme.transitions[screen]) || DEFAULT_ENTRY[screen] || "fade";
  }

  // The exit, once the app beneath the splash (if any) has painted, then `dismissed`. Without an
  // app the splash fades out over 300 ms ease-in and the page stays on its last frame. With one,
  // the app enters by its destination: `crossfade` (it fades in as the splash fades out), `slide`
  // (in from the right, over the splash), `fade` (the splash fades out over it), `none` (a cut).
  // Reduced motion: a cut.
  function startExit() {
    if (exit || exitDone) return;
    if (appURL && !appPainted) return; // render() calls again when the app has painted
    const finish = () => {
      exitDone = true;
      splash.hidden = appURL !== null; // without an app the page stays on its last frame
      if (state && state.phase === "dismissing") send({ cmd: "dismissed" });
    };
    if (appURL && revealing()) {
      root.dataset.entry = "reveal";
      const running = reveal();
      exit = { cancel() { running.forEach((a) => a.cancel()); unreveal(); } };
      Promise.all(running.map((a) => a.finished)).then(() => { unreveal(); finish(); }, () => {});
      return;
    }
    const entry = reduced() ? "none" : appURL ? entryFor(state && state.destination) : "fade";
    root.dataset.entry = entry;
    if (entry === "none") { splash.style.opacity = "0"; finish(); return; }
    const fadeOut = () => splash.animate([{ opacity: 1 }, { opacity: 0 }], { duration: EXIT_MS, easing: "ease-in", fill: "forwards" });
    let running;
    if (entry === "crossfade") {
      running = [fadeOut(), app.animate([{ opacity: 0 }, { opacity: 1 }], { duration: ENTRY_MS, easing: "ease-out", fill: "both" })];
    } else if (entry === "slide") {
      app.style.zIndex = "2";
      running = [app.animate([{ transform: "translateX(100%)" }, { transform: "translateX(0)" }], { duration: ENTRY_MS, easing: "ease-out", fill: "both" })];
    } else {
      running = [fadeOut()];
    }
    exit = { cancel() { running.forEach((a) => a.cancel()); } };
    Promise.all(running.map((a) => a.finished)).then(finish, () => {});
  }

  // The reveal: under the splash's logo and text (above the app), a layer of the theme's
  // background with a hole of the logo's shape (a mask: the whole layer, less the logo image's
  // alpha), just big enough to cover the screen at any angle, centred on the logo; the splash
  // itself turns transparent. The
  // layer turns by -atan(cy/cx) of the logo's centre (toward the top-left corner) and scales to
  // 0.85 at a fifth of the time, then up to 18x on a 667 px tall screen, in proportion to the
  // height. The logo turns and scales with it and fades out in that first fifth, uncovering the
  // hole, as do the name and tagline; the app beneath scales from 1.05 to 1.
  function revealing() {
    return theme.transitions && theme.transitions.exit === "reveal" && theme.logo && !reduced();
  }

  // The layer is made as soon as the app beneath has painted, under the splash's opaque
  // background, so the reveal's first frame does not pay for it (made then, it cost 1 or 2
  // frames at 1920x1080 in 2 runs of 3: docs/benchmarks.md).
  function prepareReveal() {
    if (!revealing() || $("reveal")) return $("reveal");
    // The layout's box (the logo's entrance may still be scaling it; its centre does not move).
    const img = $("logo-image"), box = img.getBoundingClientRect();
    const image = { width: img.offsetWidth, height: img.offsetHeight };
    const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    // Covers the screen at any angle down to the 0.85 scale: twice the farthest corner's distance
    // from the centre, over 0.85.
    const reach = Math.max(Math.hypot(cx, cy), Math.hypot(innerWidth - cx, cy), Math.hypot(cx, innerHeight - cy),
      Math.hypot(innerWidth - cx, innerHeight - cy));
    const side = Math.ceil(2 * reach / 0.85) + 2;
    const cover = document.createElement("div");
    cover.id = "reveal";
    cover.style.cssText = `position:fixed;z-index:0;left:${cx - side / 2}px;top:${cy - side / 2}px;width:${side}px;height:${side}px;`
      + "background:var(--bg);pointer-events:none;will-change:transform;mask-repeat:no-repeat;mask-composite:exclude;"
      + `mask-size:100% 100%,${image.width}px ${image.height}px;mask-position:0 0,center;`;
    cover.style.maskImage = `linear-gradient(#000 0 0),url("${theme.logo}")`;
    cover.dataset.cx = String(cx);
    cover.dataset.cy = String(cy);
    document.body.insertBefore(cover, splash);
    return cover;
  }

  function reveal() {
    const cover = prepareReveal();
    const cx = Number(cover.dataset.cx), cy = Number(cover.dataset.cy);
    splash.style.background = "transparent";
    const angle = -Math.atan2(cy, cx) * 180 / Math.PI;
    const grow = 18 * innerHeight / 667;
    const turn = [
      { transform: "rotate(0deg) scale(1)", easing: "ease-out" },
      { transform: `rotate(${angle / 5}deg) scale(0.85)`, offset: 0.2, easing: "ease-in" },
      { transform: `rotate(${angle}deg) scale(${grow})` },
    ];
    const timing = { duration: REVEAL_MS, fill: "forwards" };
    const fade = [{ opacity: 1 }, { opacity: 0, offset: 0.2 }, { opacity: 0 }];
    // A logo too thin to cover the screen at that size would leave the last of the splash to
    // vanish at once: the layer fades out over the last fifth.
    return [
      cover.animate(turn, timing),
      cover.animate([{ opacity: 1 }, { opacity: 1, offset: 0.8 }, { opacity: 0 }], timing),
      // The logo is gone after the first fifth: it stays at that scale (grown 20x with its
      // shadow, its layer cost the reveal's first frames up to 130 ms at 1920x1080).
      $("logo").animate([{ ...turn[0], opacity: 1 }, { ...turn[1], opacity: 0 }, { transform: turn[1].transform, opacity: 0 }], timing),
      $("text").animate(fade, timing),
      app.animate([{ transform: "scale(1.05)" }, { transform: "scale(1)" }], { duration: REVEAL_MS, easing: "ease-out", fill: "both" }),
    ];
  }

  function unreveal() {
    const cover = $("reveal");
    if (cover) cover.remove();
    splash.style.background = "";
  }

  $("retry").addEventListener("click", () => send({ cmd: "retry" }));
  $("offline").addEventListener("click", () => send({ cmd: "continue-offline" }));
  connect();
})();
