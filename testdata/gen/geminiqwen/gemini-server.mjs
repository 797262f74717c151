// gemini-server.mjs: a scripted stand-in for the Gemini API, enough for
// Gemini CLI to run a session offline (gen.sh). It answers
// POST /v1beta/models/M:streamGenerateContent?alt=sse with a streamed
// script chosen by a keyword in the last user message, and any other POST
// (Gemini CLI's side requests: next-speaker checks, summaries) with one
// JSON answer. Every request body is appended to the log file.
//
//   node gemini-server.mjs PORT LOGFILE
//
// Scripts (the keyword in the prompt):
//   TOOLS   a thought, a text and two parallel calls (list_directory,
//           run_shell_command), then a final answer once both results came
//   ERRTOOL one call of read_file on a missing file (a tool error)
//   AGENT   invoke_agent (the generalist sub-agent lists the files)
//   other   a plain answer
// Loopback only; it exits after 30 minutes.
import http from 'node:http';
import fs from 'node:fs';

const [port, log] = [Number(process.argv[2]), process.argv[3]];
let n = 0;

function toolNames(body) {
  const out = [];
  for (const t of body.tools || []) for (const f of t.functionDeclarations || []) out.push(f.name);
  return out;
}

function script(body) {
  const contents = body.contents || [];
  const last = contents[contents.length - 1] || { parts: [] };
  const parts = last.parts || [];
  const answered = parts.filter((p) => p.functionResponse).map((p) => p.functionResponse.name);
  const text = JSON.stringify(parts);
  if (toolNames(body).includes('complete_task')) {
    // The sub-agent: list, then report.
    if (answered.includes('list_directory')) return [{ functionCall: { name: 'complete_task', args: { result: 'One file: a.txt' } } }];
    if (answered.length) return [{ text: 'Sub-agent done.' }];
    return [{ text: 'Sub-agent looking.' }, { functionCall: { name: 'list_directory', args: { dir_path: '.' } } }];
  }
  if (answered.length) return [{ text: '**Checking** the results', thought: true }, { text: 'Done after ' + answered.join(' and ') + ' — ✓ 完成.' }];
  if (text.includes('AGENT')) return [{ functionCall: { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'SUBTASK: list the files and report.' } } }];
  if (text.includes('ERRTOOL')) return [{ text: 'Reading a missing file.' }, { functionCall: { name: 'read_file', args: { file_path: 'missing-file.txt' } } }];
  if (text.includes('TOOLS')) {
    return [
      { text: '**Planning** I will list the folder and run a command.', thought: true },
      { text: 'Let me look.' },
      { functionCall: { name: 'list_directory', args: { dir_path: '.' } } },
      { functionCall: { name: 'run_shell_command', args: { command: 'echo hi; echo ünïcode' } } },
    ];
  }
  return [{ text: 'Plain answer ' + n + ' — ok.' }];
}

http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw); } catch {}
    fs.appendFileSync(log, JSON.stringify({ url: req.url, body }) + '\n');
    n++;
    const usage = { promptTokenCount: 1000 + n, candidatesTokenCount: 10 + n, thoughtsTokenCount: 7, cachedContentTokenCount: 100, totalTokenCount: 1017 + 2 * n };
    if (!req.url.includes('streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '{"next_speaker":"user","reasoning":"done"}' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage }));
      return;
    }
    const parts = script(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    parts.forEach((p, i) => {
      const chunk = { candidates: [{ content: { role: 'model', parts: [p] }, index: 0 }], modelVersion: 'gemini-2.5-pro', responseId: 'resp-' + n };
      if (i === parts.length - 1) {
        chunk.candidates[0].finishReason = 'STOP';
        chunk.usageMetadata = usage;
      }
      res.write('data: ' + JSON.stringify(chunk) + '\r\n\r\n');
    });
    res.end();
  });
}).listen(port, '127.0.0.1');
setTimeout(() => process.exit(0), 30 * 60 * 1000).unref();
