// SVG boards for every variant, drawn from the gateway's board view (web/view.py):
// files x ranks points named file_names[x] + rank_names[y], the pieces on them, the
// last move, the markers (check, line, forbidden) and the legal targets. No rules here.
//
// The page's public surface (docs/web.md): the container carries data-game-id,
// data-fen, data-ply, data-variant; each point or piece data-square; each legal target
// data-move.

const NS = "http://www.w3.org/2000/svg";
const CELL = 40;
const PAD = 30;

const CHINESE = {
  red: { K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵" },
  black: { K: "將", A: "士", B: "象", N: "馬", R: "車", C: "砲", P: "卒" },
};

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

export function squareName(view, x, y) {
  return view.file_names[x] + view.rank_names[y];
}

function pointOf(view, square) {
  for (let x = 0; x < view.files; x++)
    for (let y = 0; y < view.ranks; y++) if (squareName(view, x, y) === square) return [x, y];
  return null;
}

// Where point (x, y) is drawn: rank 0 at the bottom unless flipped.
function at(view, flip, x, y) {
  const col = flip ? view.files - 1 - x : x;
  const row = flip ? y : view.ranks - 1 - y;
  return [PAD + col * CELL, PAD + row * CELL];
}

function drawXiangqiGrid(g, view, flip) {
  const w = (view.files - 1) * CELL;
  const h = (view.ranks - 1) * CELL;
  g.append(svg("rect", { x: PAD - 6, y: PAD - 6, width: w + 12, height: h + 12, class: "frame" }));
  for (let r = 0; r < view.ranks; r++) {
    const y = PAD + r * CELL;
    g.append(svg("line", { x1: PAD, y1: y, x2: PAD + w, y2: y, class: "grid" }));
  }
  for (let f = 0; f < view.files; f++) {
    const x = PAD + f * CELL;
    if (f === 0 || f === view.files - 1) {
      g.append(svg("line", { x1: x, y1: PAD, x2: x, y2: PAD + h, class: "grid" }));
    } else {
      g.append(svg("line", { x1: x, y1: PAD, x2: x, y2: PAD + 4 * CELL, class: "grid" }));
      g.append(svg("line", { x1: x, y1: PAD + 5 * CELL, x2: x, y2: PAD + h, class: "grid" }));
    }
  }
  for (const top of [0, 7]) {
    const x0 = PAD + 3 * CELL;
    const y0 = PAD + top * CELL;
    g.append(svg("line", { x1: x0, y1: y0, x2: x0 + 2 * CELL, y2: y0 + 2 * CELL, class: "grid" }));
    g.append(svg("line", { x1: x0 + 2 * CELL, y1: y0, x2: x0, y2: y0 + 2 * CELL, class: "grid" }));
  }
  const river = PAD + 4.5 * CELL + 7;
  const left = flip ? "漢 界" : "楚 河";
  const right = flip ? "楚 河" : "漢 界";
  g.append(svg("text", { x: PAD + 2 * CELL, y: river, class: "river" }, left));
  g.append(svg("text", { x: PAD + 6 * CELL, y: river, class: "river" }, right));
}

function drawGomokuGrid(g, view) {
  const w = (view.files - 1) * CELL;
  const h = (view.ranks - 1) * CELL;
  g.append(svg("rect", { x: PAD - 14, y: PAD - 14, width: w + 28, height: h + 28, class: "wood" }));
  for (let i = 0; i < view.ranks; i++)
    g.append(svg("line", { x1: PAD, y1: PAD + i * CELL, x2: PAD + w, y2: PAD + i * CELL, class: "grid" }));
  for (let i = 0; i < view.files; i++)
    g.append(svg("line", { x1: PAD + i * CELL, y1: PAD, x2: PAD + i * CELL, y2: PAD + h, class: "grid" }));
  const mid = Math.floor(view.files / 2);
  const stars = view.files >= 15 ? [3, mid, view.files - 4] : [mid];
  for (const sx of stars)
    for (const sy of stars)
      g.append(svg("circle", { cx: PAD + sx * CELL, cy: PAD + sy * CELL, r: 3.5, class: "star" }));
}

function drawLabels(g, view, flip) {
  for (let x = 0; x < view.files; x++) {
    const [px] = at(view, flip, x, 0);
    const y = PAD + (view.ranks - 1) * CELL + 24;
    g.append(svg("text", { x: px, y, class: "label" }, view.file_names[x]));
  }
  for (let y = 0; y < view.ranks; y++) {
    const [, py] = at(view, flip, 0, y);
    g.append(svg("text", { x: PAD - 22, y: py + 4, class: "label" }, view.rank_names[y]));
  }
}

function pieceText(view, kind, seat, letters) {
  if (letters) return seat === 0 ? kind : kind.toLowerCase();
  return CHINESE[seat === 0 ? "red" : "black"][kind] || kind;
}

// Draw `view` into `container` (replacing what was there). options: flip, letters,
// selected (a square), targets (moves to mark: [{move, square}]), onSquare(square, how),
// onDrag(from, to).
export function drawBoard(container, view, options = {}) {
  const flip = !!options.flip;
  const width = PAD * 2 + (view.files - 1) * CELL;
  const height = PAD * 2 + (view.ranks - 1) * CELL;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: `board-svg ${view.variant}`,
    role: "img",
  });
  const g = svg("g");
  root.append(g);
  if (view.variant === "xiangqi") drawXiangqiGrid(g, view, flip);
  else drawGomokuGrid(g, view);
  drawLabels(g, view, flip);

  const last = new Set(view.last || []);
  for (const square of last) {
    const p = pointOf(view, square);
    if (!p) continue;
    const [cx, cy] = at(view, flip, ...p);
    g.append(svg("rect", { x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, class: "last" }));
  }
  const occupied = new Map(view.pieces.map(([square, kind, seat]) => [square, [kind, seat]]));
  // one hit target per empty point (a piece is its own target)
  for (let x = 0; x < view.files; x++) {
    for (let y = 0; y < view.ranks; y++) {
      const square = squareName(view, x, y);
      if (occupied.has(square)) continue;
      const [cx, cy] = at(view, flip, x, y);
      g.append(svg("circle", { cx, cy, r: CELL * 0.45, class: "point", "data-square": square }));
    }
  }
  const markers = view.markers || {};
  const checked = new Set(markers.check || []);
  const line = new Set(markers.line || []);
  for (const [square, [kind, seat]] of occupied) {
    const [cx, cy] = at(view, flip, ...pointOf(view, square));
    const classes = ["piece", seat === 0 ? "seat0" : "seat1"];
    if (square === options.selected) classes.push("selected");
    if (checked.has(square)) classes.push("checked");
    if (line.has(square)) classes.push("line");
    const piece = svg("g", { class: classes.join(" "), "data-square": square });
    if (view.variant === "xiangqi") {
      piece.append(svg("circle", { cx, cy, r: CELL * 0.44, class: "disc" }));
      piece.append(svg("circle", { cx, cy, r: CELL * 0.36, class: "ring" }));
      piece.append(svg("text", { x: cx, y: cy + 7, class: "glyph" }, pieceText(view, kind, seat, options.letters)));
    } else {
      piece.append(svg("circle", { cx, cy, r: CELL * 0.44, class: "stone" }));
      if (last.has(square)) piece.append(svg("circle", { cx, cy, r: 4, class: "last-dot" }));
    }
    g.append(piece);
  }
  for (const square of markers.forbidden || []) {
    const p = pointOf(view, square);
    if (!p) continue;
    const [cx, cy] = at(view, flip, ...p);
    g.append(svg("text", { x: cx, y: cy + 6, class: "forbidden", "data-square": square, "data-forbidden": "1" }, "×"));
  }
  for (const target of options.targets || []) {
    const p = pointOf(view, target.square);
    if (!p) continue;
    const [cx, cy] = at(view, flip, ...p);
    const cls = occupied.has(target.square) ? "target capture" : "target";
    g.append(svg("circle", { cx, cy, r: occupied.has(target.square) ? CELL * 0.46 : 7, class: cls, "data-move": target.move }));
  }

  container.replaceChildren(root);
  container.dataset.gameId = view.game_id;
  container.dataset.fen = view.fen;
  container.dataset.ply = String(view.ply);
  container.dataset.variant = view.variant;

  // Taps, clicks and drags: the square under the pointer, from the drawing's geometry.
  const squareAt = (event) => {
    const box = root.getBoundingClientRect();
    const sx = ((event.clientX - box.left) / box.width) * width;
    const sy = ((event.clientY - box.top) / box.height) * height;
    let col = Math.round((sx - PAD) / CELL);
    let row = Math.round((sy - PAD) / CELL);
    if (col < 0 || row < 0 || col >= view.files || row >= view.ranks) return null;
    const x = flip ? view.files - 1 - col : col;
    const y = flip ? row : view.ranks - 1 - row;
    return squareName(view, x, y);
  };
  let drag = null;
  root.addEventListener("pointerdown", (event) => {
    const square = squareAt(event);
    if (!square) return;
    event.preventDefault();
    const node = occupied.has(square) ? root.querySelector(`[data-square="${square}"]`) : null;
    drag = { square, node, x: event.clientX, y: event.clientY, moved: false };
    root.setPointerCapture?.(event.pointerId);
  });
  root.addEventListener("pointermove", (event) => {
    if (!drag || !drag.node || !options.onDrag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 8) return;
    if (!drag.moved) options.onSquare?.(drag.square, "drag-start");
    drag.moved = true;
    const box = root.getBoundingClientRect();
    const scale = width / box.width;
    drag.node.setAttribute("transform", `translate(${dx * scale} ${dy * scale})`);
    drag.node.classList.add("dragging");
  });
  root.addEventListener("pointerup", (event) => {
    if (!drag) return;
    const start = drag;
    drag = null;
    const square = squareAt(event);
    if (start.moved) {
      start.node.removeAttribute("transform");
      if (square && square !== start.square) options.onDrag?.(start.square, square);
      return;
    }
    if (square) options.onSquare?.(square, "tap");
  });
  root.addEventListener("pointercancel", () => {
    if (drag?.node) drag.node.removeAttribute("transform");
    drag = null;
  });
}
