import { defineConfig } from "vite";

// esbuild compiles TSX with the automatic React runtime; no plugin needed.
export default defineConfig({
  esbuild: { jsx: "automatic" },
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari15",
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // @xyflow/react marks itself "use client" for server frameworks; irrelevant here.
      onwarn(warning: { code?: string }, warn: (w: unknown) => void) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  test: { environment: "node" },
} as never);
