import json, sys, http.server, socketserver, time
MODE = sys.argv[1]
LOG = open(sys.argv[2], 'a')
RESULT = sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def send(self, code, ctype, body):
        b = body.encode()
        self.send_response(code); self.send_header('Content-Type', ctype); self.send_header('Content-Length', str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        LOG.write('GET %s\n' % self.path); LOG.flush()
        self.send(200, 'application/json', json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}))
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0)); body = self.rfile.read(n)
        LOG.write('POST %s %s\n' % (self.path, body[:2000].decode(errors='replace'))); LOG.flush()
        req = json.loads(body or b'{}')
        if MODE == 'error':
            return self.send(400, 'application/json', json.dumps({"error": {"message": "scripted failure: the fake model refuses this request", "type": "invalid_request_error"}}))
        msgs = req.get('messages', [])
        has_tool = any(m.get('role') == 'tool' for m in msgs)
        tools = [t['function']['name'] for t in req.get('tools', [])]
        usage = {"prompt_tokens": 700, "completion_tokens": 25, "total_tokens": 725, "prompt_tokens_details": {"cached_tokens": 100}}
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": "fake"}
        chunks = []
        if MODE == 'success' and 'write' in tools and not has_tool:
            args = json.dumps({"filePath": RESULT, "content": "{\"result\":\"phase_complete\",\"summary\":\"fake model wrote the result\"}"})
            chunks.append(dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "write", "arguments": args}}]}, "finish_reason": None}]))
            chunks.append(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]))
        else:
            chunks.append(dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": "Done: the result file is written."}, "finish_reason": None}]))
            chunks.append(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]))
        chunks.append(dict(base, choices=[], usage=usage))
        if req.get('stream'):
            return self.send(200, 'text/event-stream', ''.join('data: ' + json.dumps(c) + '\n\n' for c in chunks) + 'data: [DONE]\n\n')
        return self.send(200, 'application/json', json.dumps({"id": "x", "object": "chat.completion", "model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}], "usage": usage}))
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
s = S(('127.0.0.1', 0), H)
print('http://127.0.0.1:%d' % s.server_address[1], flush=True)
s.serve_forever()
