// A board drawn from a FEN as SVG, for the multiboard and the tournament page.
// It only shows (no moves are made here); it follows the page contract of
// docs/web.md: the container carries data-game-id, data-fen, data-ply and
// data-variant, each point or piece data-square (ICCS square / gomoku point).

const SVG = "http://www.w3.org/2000/svg";
const FILES = "abcdefghijklmnopqrstuvwxyz";

// Red pieces (upper case in the FEN) and Black ones, as printed on real pieces.
const RED = { K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵" };
const BLACK = { k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒" };

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** The rows of a FEN's board part, top row first, each as a list of cells (null: empty). */
export function fenRows(fen) {
  return fen.split(" ")[0].split("/").map((row) => {
    const cells = [];
    for (const match of row.matchAll(/(\d+)|(.)/g)) {
      if (match[1]) for (let i = 0; i < Number(match[1]); i++) cells.push(null);
      else cells.push(match[2]);
    }
    return cells;
  });
}

function xiangqi(rows, last) {
  const step = 40, pad = 30;
  const width = pad * 2 + step * 8, height = pad * 2 + step * 9;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "xiangqi" });
  root.append(svg("rect", { x: 0, y: 0, width, height, class: "wood" }));
  const x = (file) => pad + file * step;
  const y = (row) => pad + row * step;
  const lines = svg("g", { class: "lines" });
  for (let row = 0; row < 10; row++) {
    lines.append(svg("line", { x1: x(0), y1: y(row), x2: x(8), y2: y(row) }));
  }
  for (let file = 0; file < 9; file++) {
    const edge = file === 0 || file === 8;
    lines.append(svg("line", { x1: x(file), y1: y(0), x2: x(file), y2: y(edge ? 9 : 4) }));
    if (!edge) lines.append(svg("line", { x1: x(file), y1: y(5), x2: x(file), y2: y(9) }));
  }
  for (const [top, bottom] of [[0, 2], [7, 9]]) {  // the palaces
    lines.append(svg("line", { x1: x(3), y1: y(top), x2: x(5), y2: y(bottom) }));
    lines.append(svg("line", { x1: x(5), y1: y(top), x2: x(3), y2: y(bottom) }));
  }
  root.append(lines);
  root.append(svg("text", { x: width / 2, y: y(4.5), class: "river" }, "楚 河        漢 界"));
  rows.forEach((cells, row) => cells.forEach((piece, file) => {
    const square = `${FILES[file]}${9 - row}`;
    if (last.includes(square)) {
      root.append(svg("rect", {
        x: x(file) - step / 2 + 2, y: y(row) - step / 2 + 2, width: step - 4, height: step - 4,
        class: "last",
      }));
    }
    if (!piece) return;
    const red = piece === piece.toUpperCase();
    const g = svg("g", { class: `piece ${red ? "red" : "black"}`, "data-square": square });
    g.append(svg("circle", { cx: x(file), cy: y(row), r: step * 0.45 }));
    g.append(svg("text", { x: x(file), y: y(row) }, (red ? RED : BLACK)[piece] || piece));
    root.append(g);
  }));
  return root;
}

function gomoku(rows, last) {
  const size = rows.length, step = 24, pad = 18;
  const span = pad * 2 + step * (size - 1);
  const root = svg("svg", { viewBox: `0 0 ${span} ${span}`, class: "gomoku" });
  root.append(svg("rect", { x: 0, y: 0, width: span, height: span, class: "wood" }));
  const at = (i) => pad + i * step;
  const lines = svg("g", { class: "lines" });
  for (let i = 0; i < size; i++) {
    lines.append(svg("line", { x1: at(0), y1: at(i), x2: at(size - 1), y2: at(i) }));
    lines.append(svg("line", { x1: at(i), y1: at(0), x2: at(i), y2: at(size - 1) }));
  }
  root.append(lines);
  rows.forEach((cells, row) => cells.forEach((stone, file) => {
    if (!stone) return;
    const square = `${FILES[file]}${size - row}`;
    const black = stone === "x";
    const g = svg("g", { class: `stone ${black ? "black" : "white"}`, "data-square": square });
    g.append(svg("circle", { cx: at(file), cy: at(row), r: step * 0.45 }));
    if (last.includes(square)) g.append(svg("circle", { cx: at(file), cy: at(row), r: step * 0.2, class: "last" }));
    root.append(g);
  }));
  return root;
}

/** The squares a move in wire notation touches (h2e2 -> [h2, e2]; h8 -> [h8]). */
function touched(move) {
  return (move || "").match(/[a-z]\d+/g) || [];
}

/** Draw `game` (a "game" message) into `container`, replacing what was there. */
export function drawBoard(container, game) {
  container.classList.add("board");
  container.dataset.gameId = game.game_id;
  container.dataset.fen = game.fen;
  container.dataset.ply = String(game.ply);
  container.dataset.variant = game.variant;
  const rows = fenRows(game.fen);
  const last = touched(game.last);
  container.replaceChildren(game.variant === "gomoku" ? gomoku(rows, last) : xiangqi(rows, last));
}
