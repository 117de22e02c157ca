// GraphQL sends null for an omitted nullable argument; the use cases' schemas expect it absent.
export function withoutNulls<T extends Record<string, unknown>>(args: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> };
}
