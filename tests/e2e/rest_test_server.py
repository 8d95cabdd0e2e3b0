"""A test server for `inmanta export` over REST: answers like the reference server and records
every request (method, path, headers, JSON body after gunzip). Used by export_rest_test.py.

`handler(method, path, headers, body)` returns (status, reply object or None).
"""
import gzip
import http.server
import json
import threading


class Recorded:
    def __init__(self, method, path, headers, body, raw_size, gzipped):
        self.method = method
        self.path = path
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body
        self.raw_size = raw_size
        self.gzipped = gzipped

    def __repr__(self):
        return f"{self.method} {self.path}"


class TestServer:
    def __init__(self, handler, ssl_context=None):
        self.handler = handler
        self.requests = []
        self.errors = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the reference server (tornado)
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def _serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                gzipped = self.headers.get("Content-Encoding") == "gzip"
                text = gzip.decompress(raw) if gzipped else raw
                body = None
                if text:
                    try:
                        body = json.loads(text)
                    except ValueError as exc:
                        outer.errors.append(f"{self.command} {self.path}: body is not JSON: {exc}")
                rec = Recorded(self.command, self.path, dict(self.headers), body, len(text), gzipped)
                with outer.lock:
                    outer.requests.append(rec)
                try:
                    status, reply = outer.handler(rec)
                except Exception as exc:  # a broken expectation: answer 500 and remember why
                    outer.errors.append(f"{rec}: {exc}")
                    status, reply = 500, {"message": f"test server: {exc}"}
                data = b"" if reply is None else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _serve

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if ssl_context is not None:
            self.httpd.socket = ssl_context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
