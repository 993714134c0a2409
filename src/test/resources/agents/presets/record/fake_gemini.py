import json, sys, http.server, socketserver
MODE = sys.argv[1]
LOG = open(sys.argv[2], 'a')
RESULT = sys.argv[3] if len(sys.argv) > 3 else '/tmp/rec/gem/work/result.json'
USAGE = {"promptTokenCount": 800, "candidatesTokenCount": 30, "totalTokenCount": 830, "cachedContentTokenCount": 100}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_GET(self):
        LOG.write('GET %s\n' % self.path); LOG.flush()
        self.send(404, 'application/json', '{}')
    def send(self, code, ctype, body):
        b = body.encode()
        self.send_response(code); self.send_header('Content-Type', ctype); self.send_header('Content-Length', str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0)); body = self.rfile.read(n)
        LOG.write('POST %s %s\n' % (self.path, body[:3000].decode(errors='replace'))); LOG.flush()
        req = json.loads(body or b'{}')
        if MODE == 'error':
            return self.send(400, 'application/json', json.dumps({"error": {"code": 400, "message": "scripted failure: the fake model refuses this request", "status": "INVALID_ARGUMENT"}}))
        if ':countTokens' in self.path:
            return self.send(200, 'application/json', '{"totalTokens": 100}')
        contents = req.get('contents', [])
        has_fr = any('functionResponse' in p for c in contents for p in c.get('parts', []))
        tools = [f.get('name') for t in req.get('tools', []) for f in t.get('functionDeclarations', [])]
        if 'generationConfig' in req and req['generationConfig'].get('responseMimeType') == 'application/json':
            part = {"text": json.dumps({"reasoning": "done", "next_speaker": "user"})}
        elif MODE == 'success' and tools and not has_fr:
            part = {"functionCall": {"name": "write_file", "args": {"file_path": RESULT, "content": "{\"result\":\"phase_complete\",\"summary\":\"fake model wrote the result\"}"}}}
        else:
            part = {"text": "Done: the result file is written."}
        resp = {"candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": USAGE, "modelVersion": "gemini-fake"}
        if ':streamGenerateContent' in self.path:
            return self.send(200, 'text/event-stream', 'data: ' + json.dumps(resp) + '\r\n\r\n')
        return self.send(200, 'application/json', json.dumps(resp))
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
s = S(('127.0.0.1', 0), H)
print('http://127.0.0.1:%d' % s.server_address[1], flush=True)
s.serve_forever()
