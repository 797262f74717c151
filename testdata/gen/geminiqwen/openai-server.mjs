// openai-server.mjs: a scripted stand-in for an OpenAI-compatible Chat
// Completions endpoint, enough for Qwen Code to run a session offline
// (gen.sh). It answers POST /v1/chat/completions, streamed or not, with a
// script chosen by a keyword in the last user message; every request body
// is appended to the log file.
//
//   node openai-server.mjs PORT LOGFILE
//
// Scripts: TOOLS (reasoning, a text and two parallel calls, list_directory
// and run_shell_command, then a final answer), ERRTOOL (read_file on a
// missing file), anything else a plain answer. Usage is sent in a last
// chunk with cached and reasoning token details. Loopback only; it exits
// after 30 minutes.
import http from 'node:http';
import fs from 'node:fs';

const [port, log] = [Number(process.argv[2]), process.argv[3]];
let n = 0;

function script(msgs) {
  const last = msgs[msgs.length - 1] || {};
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content || '');
  // The project folder, named in Qwen Code's context message.
  const dir = (JSON.stringify(msgs).match(/\/tmp\/[A-Za-z0-9_.\/-]*proj/) || ['/tmp'])[0];
  if (last.role === 'tool') return [{ delta: { role: 'assistant', content: 'Both tools answered: done ✓ 完成.' } }];
  if (text.includes('ERRTOOL')) {
    return [
      { delta: { role: 'assistant', content: 'Reading a missing file.' } },
      { delta: { tool_calls: [{ index: 0, id: 'call_e' + n, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ absolute_path: dir + '/missing-file.txt' }) } }] } },
    ];
  }
  if (text.includes('TOOLS')) {
    return [
      { delta: { role: 'assistant', reasoning_content: 'I will list the folder and run a command.' } },
      { delta: { content: 'Let me look.' } },
      { delta: { tool_calls: [{ index: 0, id: 'call_a' + n, type: 'function', function: { name: 'list_directory', arguments: JSON.stringify({ path: dir }) } }] } },
      { delta: { tool_calls: [{ index: 1, id: 'call_b' + n, type: 'function', function: { name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo hi; echo ünïcode', is_background: false }) } }] } },
    ];
  }
  return [{ delta: { role: 'assistant', content: 'Plain answer ' + n + ' — ok.' } }];
}

http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw); } catch {}
    fs.appendFileSync(log, JSON.stringify({ url: req.url, body }) + '\n');
    n++;
    const id = 'chatcmpl-' + n;
    const usage = { prompt_tokens: 2000 + n, completion_tokens: 20 + n, total_tokens: 2020 + 2 * n, prompt_tokens_details: { cached_tokens: 300 }, completion_tokens_details: { reasoning_tokens: 5 } };
    const chunks = script(body.messages || []);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = chunks.map((c) => c.delta.content || '').join('') || 'ok';
      res.end(JSON.stringify({ id, object: 'chat.completion', created: 1796556141, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
      return;
    }
    const base = { id, object: 'chat.completion.chunk', created: 1796556141, model: body.model || 'm' };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of chunks) res.write('data: ' + JSON.stringify({ ...base, choices: [{ index: 0, ...c, finish_reason: null }] }) + '\n\n');
    const finish = chunks.some((c) => c.delta.tool_calls) ? 'tool_calls' : 'stop';
    res.write('data: ' + JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }) + '\n\n');
    res.write('data: ' + JSON.stringify({ ...base, choices: [], usage }) + '\n\n');
    res.write('data: [DONE]\n\n');
    res.end();
  });
}).listen(port, '127.0.0.1');
setTimeout(() => process.exit(0), 30 * 60 * 1000).unref();
