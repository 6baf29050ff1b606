// Renders a hook with React's real client renderer in vitest's node
// environment, which has no DOM: the probe component renders nothing, so
// React needs only a container that passes for an element and the few
// globals its commit reads. Effects run inside `act`, as in the window.
import { act, createElement } from "react";
import { createRoot } from "react-dom/client";
import { vi } from "vitest";

export type Rendered<P, R> = {
  /** What the hook returned at the last render. */
  result: { current: R };
  /** Renders again with `props`, after `before` (state updates the hook's own callbacks make). */
  rerender: (props: P, before?: () => void) => Promise<void>;
  /** Runs `during` inside `act`: its state updates and the effects they lead to are done when it resolves. */
  run: (during: () => void | Promise<void>) => Promise<void>;
  unmount: () => Promise<void>;
};

export async function renderHook<P, R>(hook: (props: P) => R, props: NoInfer<P>): Promise<Rendered<P, R>> {
  vi.stubGlobal("IS_REACT_ACT_ENVIRONMENT", true);
  if (typeof window === "undefined") vi.stubGlobal("window", globalThis);
  if (typeof HTMLIFrameElement === "undefined") vi.stubGlobal("HTMLIFrameElement", class {});
  const none = () => undefined;
  const ownerDocument = { nodeType: 9, activeElement: null, addEventListener: none, removeEventListener: none };
  const container = {
    nodeType: 1,
    tagName: "DIV",
    namespaceURI: "http://www.w3.org/1999/xhtml",
    ownerDocument,
    addEventListener: none,
    removeEventListener: none,
  } as unknown as Element;
  const result = { current: undefined as R };
  function Probe({ props }: { props: P }) {
    result.current = hook(props);
    return null;
  }
  const root = createRoot(container);
  const run = (during: () => void | Promise<void>) =>
    act(async () => {
      await during();
    });
  await run(() => root.render(createElement(Probe, { props })));
  return {
    result,
    rerender: (next, before) =>
      run(() => {
        before?.();
        root.render(createElement(Probe, { props: next }));
      }),
    run,
    unmount: () => run(() => root.unmount()),
  };
}
