// Parse throughput of the reference engine's parser (npm mvdan-sh): parse and walk every
// command of a corpus file (one per line) and a long script, ROUNDS times; print JSON.
// Usage: node mvdan_parse.js CORPUS LONG_SCRIPT ROUNDS
const fs = require('fs');
const sh = require('mvdan-sh');
const syntax = sh.syntax;
const [corpusFile, longFile, roundsArg] = process.argv.slice(2);
const rounds = parseInt(roundsArg || '5', 10);
const corpus = fs.readFileSync(corpusFile, 'utf8').split('\n').filter((l) => l.length > 0);
const long = fs.readFileSync(longFile, 'utf8');
const parser = syntax.NewParser(syntax.Variant(syntax.LangBash));
function parseAll(texts) {
  let errors = 0, calls = 0;
  for (const t of texts) {
    try {
      const f = parser.Parse(t, 'x');
      syntax.Walk(f, (node) => { if (node && syntax.NodeType(node) === 'CallExpr') calls++; return true; });
    } catch (e) { errors++; }
  }
  return { errors, calls };
}
function time(texts) {
  parseAll(texts); // warm-up
  const t = process.hrtime.bigint();
  let r;
  for (let i = 0; i < rounds; i++) r = parseAll(texts);
  const ms = Number(process.hrtime.bigint() - t) / 1e6 / rounds;
  const bytes = texts.reduce((a, s) => a + Buffer.byteLength(s), 0);
  return { items: texts.length, bytes, ms, errors: r.errors, calls: r.calls };
}
console.log(JSON.stringify({ corpus: time(corpus), long: time([long]) }));
