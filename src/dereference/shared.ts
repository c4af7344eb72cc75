/**
 * Which objects of a dereferenced document are reached along more than one
 * edge: the targets of `$ref`s (also reached at their own place), and objects
 * a YAML alias or the normalise stage put in two places. Every other object
 * has one parent, so the model converts it only when it converts that parent
 * (see `SchemaMemo.unshared`). Known only for documents the direct dereference
 * took (internal.ts); the `$ref` parser's are not walked again for it.
 */
const sharedByDocument = new WeakMap<object, ReadonlySet<object>>();

export function recordSharedObjects(document: object, shared: ReadonlySet<object>): void {
  sharedByDocument.set(document, shared);
}

/** The objects of `document` reached along more than one edge; undefined when not known. */
export function sharedObjectsOf(document: object): ReadonlySet<object> | undefined {
  return sharedByDocument.get(document);
}
