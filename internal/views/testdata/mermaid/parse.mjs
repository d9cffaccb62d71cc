// Parses Mermaid diagrams with Mermaid's own parser, for azk's tests.
// Reads a JSON array of diagram texts on standard input and writes a JSON
// array with, for each, {type, direction, vertices: [{id, classes}],
// edges: [[start, end]], classes: {name: [style...]}} or {error}.
import { JSDOM } from 'jsdom';

// Mermaid sanitises labels with DOMPurify, which needs a DOM.
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    const d = await mermaid.mermaidAPI.getDiagramFromText(text);
    out.push({
      type: d.type,
      direction: d.db.getDirection(),
      vertices: [...d.db.getVertices().values()].map((v) => ({ id: v.id, classes: v.classes })),
      edges: d.db.getEdges().map((e) => [e.start, e.end]),
      classes: Object.fromEntries([...d.db.getClasses().entries()].map(([k, v]) => [k, v.styles])),
    });
  } catch (e) {
    out.push({ error: String(e.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(out));
