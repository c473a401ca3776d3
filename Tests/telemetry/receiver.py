"""A real OTLP/HTTP receiver on loopback for the telemetry tests: decodes every request with the
official OpenTelemetry protobuf definitions (PyPI's opentelemetry-proto) and keeps it.

It can be told to answer 503 (a collector in trouble) or be stopped (a collector that is down).
"""

from __future__ import annotations

import gzip
import http.server
import threading

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


class Receiver:
    def __init__(self, port: int = 0):
        self.traces: list[trace_service_pb2.ExportTraceServiceRequest] = []
        self.metrics: list[metrics_service_pb2.ExportMetricsServiceRequest] = []
        self.raw: list[bytes] = []
        self.status = 200
        self.refused = 0
        self.cond = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with receiver.cond:
                    status = receiver.status
                    if status == 200:
                        receiver.raw.append(body)
                        if self.path.endswith("/v1/traces"):
                            request = trace_service_pb2.ExportTraceServiceRequest()
                            request.ParseFromString(body)
                            receiver.traces.append(request)
                            reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                        else:
                            request = metrics_service_pb2.ExportMetricsServiceRequest()
                            request.ParseFromString(body)
                            receiver.metrics.append(request)
                            reply = metrics_service_pb2.ExportMetricsServiceResponse().SerializeToString()
                    else:
                        receiver.refused += 1
                        reply = b""
                    receiver.cond.notify_all()
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self):
        """Every span received: (resource attributes, span), in arrival order."""
        out = []
        for request in self.traces:
            for resource_spans in request.resource_spans:
                resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        out.append((resource, span))
        return out

    def roots(self):
        return [span for _, span in self.spans() if span.name == "splashd.launch"]

    def wait(self, predicate, timeout=30.0, what="the receiver"):
        with self.cond:
            if not self.cond.wait_for(predicate, timeout):
                raise TimeoutError(f"timed out waiting for {what}")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def attributes(span_or_event):
    return {a.key: value(a.value) for a in span_or_event.attributes}
