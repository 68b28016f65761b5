// Progress events from the engine's long loops (analysis, transforms), for a display to show. The engine is
// synchronous, so a listener is a plain callback; with none installed an event costs one call.
export type ProgressEvent =
  { kind: 'analysed'; file: string; done: number; total: number } | { kind: 'transformed'; file: string; transform: string };

type Listener = (event: ProgressEvent) => void;

let listener: Listener | undefined;

/** Installs `fn` as the one listener; returns a function that removes it. */
export function onProgress(fn: Listener): () => void {
  listener = fn;
  return () => {
    if (listener === fn) listener = undefined;
  };
}

export function emitProgress(event: ProgressEvent): void {
  listener?.(event);
}
