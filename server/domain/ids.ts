// Identifiers: every id in this service is a UUID; one pattern decides what counts as one.
// Any 8-4-4-4-12 hex text in either case: the nil UUID, v4 and v7 alike, and no check of RFC 9562's version
// or variant bits (path ids never had one, and the database's `uuid` type has none). Both cases are spelled
// out rather than given as the `i` flag, because the JSON Schema pattern the documents show drops flags.
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
