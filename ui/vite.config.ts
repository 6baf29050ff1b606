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
  },
  test: { environment: "node" },
} as never);
