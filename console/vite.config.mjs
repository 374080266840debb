// Two pages, one build: the console SPA (Preact) and GraphiQL (React), every asset local.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { defineConfig } from "vite";

const CONSOLE_DIR = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: CONSOLE_DIR,
  base: "/console/",
  // Preact's automatic JSX runtime for the console's .tsx; GraphiQL's entry uses no JSX.
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    outDir: join(CONSOLE_DIR, "..", "app", "console", "dist"),
    emptyOutDir: true,
    target: "es2022",
    // Served from the package: no source maps to ship, and no inlined assets to bloat the HTML.
    sourcemap: false,
    chunkSizeWarningLimit: 2500,
    rollupOptions: {
      onwarn(warning, warn) {
        // React libraries mark modules "use client" for server components; meaningless in a browser bundle.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
      input: {
        console: join(CONSOLE_DIR, "index.html"),
        graphiql: join(CONSOLE_DIR, "graphiql.html"),
      },
    },
  },
});
