// Request bodies on every face (SPEC §7): one size limit, and one reading of body-parser's failures.
import { refuse, type Refusal } from '../domain/errors.js';

/** The largest body any face accepts (REST, /graphql, /mcp), counted as received, chunked or not. */
export const BODY_LIMIT_BYTES = 102_400;

/** zlib's failures (gzip, deflate: Z_DATA_ERROR, Z_BUF_ERROR…; brotli: ERR__ERROR_FORMAT_…), which body-parser passes on untyped. */
const DECOMPRESSION_FAILURE = /^(Z_|ERR__ERROR_|ERR_BROTLI)/;

/** A body that does not parse as JSON (body-parser's `entity.parse.failed`, and the command lane's own reading). */
export function notJson(): Refusal {
  return refuse('invalid_json', 'The body is not valid JSON.');
}

/** The refusal a body-parser failure stands for, or null when the error is not about the body (a bug). */
export function bodyRefusal(err: unknown): Refusal | null {
  // A path segment that is not valid percent-encoded UTF-8 cannot name anything (SPEC §3: 404).
  if (err instanceof URIError) return refuse('not_found', 'No such resource.');
  // SPEC §7: a body that is not what its Content-Encoding says is the client's mistake (400), as a body that is not JSON is.
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DECOMPRESSION_FAILURE.test(code)) {
    return refuse('invalid_json', 'The body could not be decompressed as its Content-Encoding says (gzip, deflate or br).');
  }
  switch ((err as { type?: unknown } | null)?.type) {
    case 'entity.parse.failed':
      return notJson();
    case 'entity.too.large':
      return refuse('payload_too_large', `The body is over ${BODY_LIMIT_BYTES} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return refuse('unsupported_media_type', 'Send the body as uncompressed UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return refuse('invalid_json', 'The body could not be read.');
  }
  return null;
}
