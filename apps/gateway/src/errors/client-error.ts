import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's HTTP parser codes worth their own status; every other parse failure is a 400. */
const STATUS_OF: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout'],
};

/**
 * Requests Node's HTTP parser refuses before Express sees them (a Content-Length that is not a
 * number, a bad chunk, both Content-Length and Transfer-Encoding, headers over the limit): Node
 * answers those with a bare status line; here they get the same typed body as every other error.
 */
export function answerMalformedRequests(server: Server): void {
  // An Expect header other than 100-continue: Node would answer a bare 417.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ kind: 'input_invalid', message: `Expect: ${String(request.headers.expect)} is not supported.`, suggestion: 'Leave the Expect header out (or send 100-continue).' });
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node does: answer only if no response on this connection has started to go out.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, kind] = STATUS_OF[error.code ?? ''] ?? [400, 'Bad Request', 'input_invalid'];
    const body = JSON.stringify({
      kind,
      message: `The HTTP request is malformed (${error.code ?? 'parse error'}): ${error.message}.`,
      suggestion: 'Send a well-formed HTTP/1.1 request: one Content-Length (a number) or chunked Transfer-Encoding, headers under 16 KiB.',
    });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
