/**
 * Every code block of the README and docs/ either runs in a test as written, or says it is an
 * excerpt: the line before its fence is `<!-- runs in tests/<file> -->`, naming a test that reads the
 * page, or `<!-- excerpt -->`. A block added without either fails here, so the pages stay true.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");
const pages = ["README.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

interface Block {
  page: string;
  line: number;
  marker: string;
}

function blocksOf(page: string): Block[] {
  const lines = fs.readFileSync(path.join(root, page), "utf8").split("\n");
  const found: Block[] = [];
  let inside = false;
  lines.forEach((text, i) => {
    if (!text.startsWith("```")) return;
    if (!inside) found.push({ page, line: i + 1, marker: (lines[i - 1] ?? "").trim() });
    inside = !inside;
  });
  return found;
}

const blocks = pages.flatMap(blocksOf);

test("every code block of the pages is marked: run by a test as written, or an excerpt", () => {
  expect(blocks.length).toBeGreaterThan(25);
  const unmarked = blocks.filter((b) => !/^<!-- (excerpt|runs in tests\/\S+) -->$/.test(b.marker)).map((b) => `${b.page}:${b.line}`);
  expect(unmarked).toEqual([]);
});

test("a block said to run names a test file that exists and reads that page", () => {
  const claims = blocks.filter((b) => b.marker.startsWith("<!-- runs in "));
  expect(claims.length).toBeGreaterThanOrEqual(8);
  const wrong = claims.flatMap((b) => {
    const file = /runs in (tests\/\S+) -->/.exec(b.marker)![1];
    const full = path.join(root, file);
    if (!fs.existsSync(full)) return [`${b.page}:${b.line}: ${file} does not exist`];
    return fs.readFileSync(full, "utf8").includes(b.page) ? [] : [`${b.page}:${b.line}: ${file} does not read ${b.page}`];
  });
  expect(wrong).toEqual([]);
});
